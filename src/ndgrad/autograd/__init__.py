"""ndgrad.autograd: backward() and grad(), with PyTorch's argument checks, on top of the engine."""

from ndgrad.autograd import functional, grad_mode, graph
from ndgrad.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from ndgrad.autograd.engine import run_backward
from ndgrad.autograd.function import Function
from ndgrad.autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from ndgrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ndgrad.autograd.graph import Node, accumulate_into
from ndgrad.autograd.hints import cut_hint, with_hint
from ndgrad.autograd.leaks import is_graph_leak_warning_enabled, set_graph_leak_warning
from ndgrad.autograd.trace import trace

__all__ = [
    "backward", "grad", "Variable", "Node", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
    "gradcheck", "gradgradcheck", "GradcheckError", "grad_mode", "functional", "Function", "graph",
    "detect_anomaly", "set_detect_anomaly", "set_graph_leak_warning", "is_graph_leak_warning_enabled", "trace",
]


def _as_tuple(tensors):
    from ndgrad._tensor import Tensor

    if tensors is None:
        return None
    return (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)


def _roots_and_grads(outputs, grad_outputs):
    """Each output's (node, output_nr) and its seed gradient, checked as PyTorch checks them."""
    from ndgrad._creation import ones_like

    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one gradient per output: got {len(grad_outputs)} for {len(outputs)} outputs")
    roots, seeds = [], []
    for i, (out, grad) in enumerate(zip(outputs, grad_outputs)):
        if grad is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out.requires_grad and not out.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            grad = ones_like(out)
        elif grad.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {grad.shape!r} and output[{i}] has a shape of "
                f"{out.shape!r}."
            )
        elif grad.dtype.is_complex != out.dtype.is_complex:
            raise RuntimeError(
                "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in "
                f"dtype: grad_output[{i}] has a dtype of {grad.dtype} and output[{i}] has a dtype of {out.dtype}."
            )
        if not out.requires_grad:
            message = f"element {i} of tensors does not require grad and does not have a grad_fn"
            raise RuntimeError(with_hint(message, cut_hint(out)))  # ndgrad's hint: where the chain was cut
        if grad.device != out.device:
            grad = _seed_on_device(grad, out, i)
        roots.append(out._edge())
        seeds.append(grad if grad.dtype is out.dtype else grad.to(out.dtype))
    return roots, seeds


def _seed_on_device(grad, out, i):
    """A seed gradient on another device than its output: moved if 0-d, else PyTorch's engine refuses it."""
    if grad.ndim:
        raise RuntimeError(f"invalid gradient at index {i} - expected device {out.device} but got {grad.device}")
    return grad.to(out.device)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the .grad of the leaves (see torch.autograd.backward)."""
    outputs = _as_tuple(tensors)
    roots, seeds = _roots_and_grads(outputs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is None:
        run_backward(roots, seeds, retain_graph, create_graph)
        return
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _captured(roots, seeds, inputs, retain_graph, create_graph)
    with set_grad_enabled(create_graph):
        for tensor, grad in zip(inputs, grads):
            if grad is not None:
                accumulate_into(tensor, grad)  # only these inputs accumulate, leaves or not


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated (see torch.autograd.grad)."""
    from ndgrad._creation import zeros_like

    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    roots, seeds = _roots_and_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _captured(roots, seeds, inputs, retain_graph, create_graph)
    if allow_unused is None:
        allow_unused = materialize_grads
    for index, result in enumerate(grads):
        if result is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {index} appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior."
            )
    if materialize_grads:
        grads = [zeros_like(t) if g is None else g for t, g in zip(inputs, grads)]
    return tuple(grads)


def _captured(roots, seeds, inputs, retain_graph, create_graph):
    capture = {}
    for slot, tensor in enumerate(inputs):
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node, output_nr = tensor._edge()
        capture.setdefault(node, {})[output_nr] = slot
    return run_backward(roots, seeds, retain_graph, create_graph, capture=capture)


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper, kept as PyTorch keeps it: it returns a plain Tensor."""
    return data.detach().requires_grad_(requires_grad)
