"""ndgrad.autograd: backward() and grad(), with PyTorch's argument checks, on top of the engine."""

import operator
from collections.abc import Mapping

from ndgrad._warnings import warn
from ndgrad.autograd import functional, grad_mode, graph
from ndgrad.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from ndgrad.autograd.engine import run_backward
from ndgrad.autograd.function import Function
from ndgrad.autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from ndgrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ndgrad.autograd.graph import GradientEdge, Node, accumulate_into
from ndgrad.autograd.hints import cut_hint, with_hint
from ndgrad.autograd.leaks import is_graph_leak_warning_enabled, set_graph_leak_warning
from ndgrad.autograd.trace import trace

__all__ = [
    "backward", "grad", "Variable", "Node", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
    "gradcheck", "gradgradcheck", "GradcheckError", "grad_mode", "functional", "Function", "graph",
    "detect_anomaly", "set_detect_anomaly", "set_graph_leak_warning", "is_graph_leak_warning_enabled", "trace",
]


# Note [backward's argument checks]: backward() and grad() check their arguments in PyTorch's order, which is that
# of its Python functions and then of its engine: the outputs and inputs become tuples, each output's seed gradient
# is made or checked (_seeds, PyTorch's _make_grads), then the engine reads its flags, counts the seeds and checks
# each root and each input (_edges). The first failing check gives PyTorch's error.

def _outputs(tensors):
    """One Tensor or GradientEdge, or any iterable of them, as a tuple (PyTorch's TypeError for anything else)."""
    from ndgrad._tensor import Tensor

    return (tensors,) if isinstance(tensors, (Tensor, GradientEdge)) else tuple(tensors)


def _inputs(inputs, function):
    """``inputs`` as a tuple: one Tensor or GradientEdge, the values of a dict, or any iterable of them."""
    from ndgrad._tensor import Tensor

    if isinstance(inputs, (Tensor, GradientEdge)):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{function}()` must be a dict, not {type(inputs).__name__}. Other "
                        "Mapping types are not supported.")
    return tuple(inputs)


def _seeds(outputs, gradients, batched=False):
    """Each output's seed gradient as PyTorch's _make_grads checks and makes it: a given Tensor of the output's
    shape (past its batch dim), ones for a real scalar output that requires grad, else None. Seeds beyond the
    outputs are ignored, as PyTorch's zip ignores them; fewer seeds are the engine's error (_edges)."""
    from ndgrad._creation import ones
    from ndgrad._dtype import from_numpy_dtype
    from ndgrad._tensor import Size, Tensor

    if gradients is None:
        gradients = (None,) * len(outputs)
    elif isinstance(gradients, Tensor):
        gradients = (gradients,)
    seeds = []
    for i, (out, grad) in enumerate(zip(outputs, tuple(gradients))):
        if isinstance(out, GradientEdge):
            shape, dtype = out.node._output_meta[out.output_nr]
            shape, dtype, requires_grad, device = Size(shape), from_numpy_dtype(dtype), True, "cpu"
        elif isinstance(out, Tensor):
            shape, dtype, requires_grad, device = out.shape, out.dtype, out.requires_grad, out.device
        else:
            raise AssertionError("Expected output to be a ndgrad.Tensor")
        if isinstance(grad, Tensor):
            _check_seed(i, grad, shape, dtype, batched)
        elif grad is None:
            if requires_grad:
                if shape.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {dtype}")
                grad = ones(shape, dtype=dtype, device=device)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
        seeds.append(grad)
    return tuple(seeds)


def _check_seed(i, grad, shape, dtype, batched):
    from ndgrad._tensor import Size

    grad_shape = grad.shape[1:] if batched else grad.shape
    if grad_shape != shape:
        if batched:  # sic: PyTorch's message drops one more leading dim than its check
            grad_shape = Size(grad_shape[1:])
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {grad_shape!r} and output[{i}] "
                f"has a shape of {shape!r}. If you only want some tensors in `grad_output` to be considered batched, "
                "consider using vmap."
            )
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {grad_shape!r} and output[{i}] has a shape of "
            f"{shape!r}."
        )
    if grad.dtype.is_complex != dtype.is_complex:
        raise RuntimeError(
            "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in "
            f"dtype: grad_output[{i}] has a dtype of {grad.dtype} and output[{i}] has a dtype of {dtype}."
        )


def _flag(value):
    """A flag as PyTorch's engine reads it, as a C unsigned char: an int (a bool, anything with __index__) in
    0..255, with Python's TypeError for others ('float' object cannot be interpreted as an integer)."""
    number = operator.index(value)
    if number < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if number > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return bool(number)


def _edges(outputs, seeds, inputs, accumulate):
    """The engine's checks (PyTorch's run_backward): one seed per output, every output and input in the graph.
    Returns the roots, their seeds on the outputs' dtypes and devices, and the inputs' edges."""
    from ndgrad._tensor import Tensor

    if len(seeds) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(seeds)} gradients")
    roots, root_grads = [], []
    for i, (out, grad) in enumerate(zip(outputs, seeds)):
        if isinstance(out, GradientEdge):
            roots.append((out.node, out.output_nr))
            root_grads.append(grad)
            continue
        if not out.requires_grad:
            message = f"element {i} of tensors does not require grad and does not have a grad_fn"
            raise RuntimeError(with_hint(message, cut_hint(out)))  # ndgrad's hint: where the chain was cut
        if grad.device != out.device:
            grad = _seed_on_device(grad, out, i)
        roots.append(out._edge())
        root_grads.append(grad if grad.dtype is out.dtype else grad.to(out.dtype))
    edges = []
    for input in inputs:
        if isinstance(input, GradientEdge):
            edges.append((input.node, input.output_nr))
        elif not isinstance(input, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(input).__name__}")
        elif accumulate and not input.requires_grad:  # backward(inputs=) retains each input's grad first
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        elif not input.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        else:
            edges.append(input._edge())
    return roots, root_grads, edges


def _seed_on_device(grad, out, i):
    """A seed gradient on another device than its output: moved if 0-d, else PyTorch's engine refuses it."""
    if grad.ndim:
        raise RuntimeError(f"invalid gradient at index {i} - expected device {out.device} but got {grad.device}")
    return grad.to(out.device)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate gradients of ``tensors`` into the .grad of the leaves (see torch.autograd.backward)."""
    if grad_variables is not None:
        warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                               "`backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    if inputs is not None:
        inputs = _inputs(inputs, "backward")
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    outputs = _outputs(tensors)
    seeds = _seeds(outputs, grad_tensors)
    retain_graph, create_graph = _flag(create_graph if retain_graph is None else retain_graph), _flag(create_graph)
    roots, root_grads, edges = _edges(outputs, seeds, inputs or (), accumulate=True)
    if inputs is None:
        run_backward(roots, root_grads, retain_graph, create_graph)
        return
    leaves = {}  # each leaf once, however often it is named
    for tensor in inputs:
        if isinstance(tensor, GradientEdge):
            continue
        if tensor.grad_fn is None:
            leaves.setdefault(id(tensor), tensor)
        else:
            tensor.retain_grad()  # as PyTorch: a non-leaf input gets its .grad as a retained gradient
    grads = _captured(roots, root_grads, edges, retain_graph, create_graph)
    with set_grad_enabled(bool(create_graph)):
        for tensor, grad in zip(inputs, grads):
            if grad is not None and leaves.pop(id(tensor), None) is not None:
                accumulate_into(tensor, grad)  # only these leaves accumulate


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated (see torch.autograd.grad)."""
    from ndgrad._creation import zeros_like

    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs, given = _outputs(outputs), inputs
    inputs = _inputs(inputs, "grad")
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate gradient for "
             "other parts of the graph, please use ndgrad.autograd.backward.", FutureWarning)
    seeds = _seeds(outputs, grad_outputs, is_grads_batched)
    retain_graph = create_graph if retain_graph is None else retain_graph
    if is_grads_batched:
        grads = _batched(outputs, seeds, inputs, retain_graph, create_graph, allow_unused)
    else:
        grads = _differentiated(outputs, seeds, inputs, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        if any(g is None and isinstance(t, GradientEdge) for t, g in zip(inputs, grads)):
            raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
        grads = [zeros_like(t, requires_grad=bool(create_graph)) if g is None else g for t, g in zip(inputs, grads)]
    return dict(zip(given, grads)) if type(given) is dict else tuple(grads)


def _differentiated(outputs, seeds, inputs, retain_graph, create_graph, allow_unused):
    retain_graph, create_graph, allow_unused = _flag(retain_graph), _flag(create_graph), _flag(allow_unused)
    roots, root_grads, edges = _edges(outputs, seeds, inputs, accumulate=False)
    grads = _captured(roots, root_grads, edges, retain_graph, create_graph)
    for index, result in enumerate(grads):
        if result is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {index} appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior."
            )
    return grads


def _batched(outputs, seeds, inputs, retain_graph, create_graph, allow_unused):
    """grad(is_grads_batched=True): one backward per row of the seeds' first dim, the results stacked (PyTorch
    maps one backward over that dim with vmap)."""
    from ndgrad.ops import stack

    if any(seed is not None and not seed.ndim for seed in seeds):
        raise ValueError(
            "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is a Tensor of "
            "dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0."
        )
    sizes = [seed.shape[0] for seed in seeds if seed is not None]
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} "
                         "for the mapped dimension")
    rows = []
    for row in range(sizes[0] if sizes else 1):
        keep = retain_graph or row < sizes[0] - 1  # the graph must outlive all rows but the last
        row_seeds = tuple(None if seed is None else seed[row] for seed in seeds)
        rows.append(_differentiated(outputs, row_seeds, inputs, keep, create_graph, allow_unused))
    return [None if column[0] is None else stack(column) for column in zip(*rows)]


def _captured(roots, root_grads, edges, retain_graph, create_graph):
    """The gradients arriving at ``edges`` (an edge named twice gets its gradient twice)."""
    slots = {}
    for edge in edges:
        slots.setdefault(edge, len(slots))
    capture = {}
    for (node, output_nr), slot in slots.items():
        capture.setdefault(node, {})[output_nr] = slot
    captured = run_backward(roots, root_grads, retain_graph, create_graph, capture=capture)
    return [captured[slots[edge]] for edge in edges]


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper, kept as PyTorch keeps it: it returns a plain Tensor."""
    return data.detach().requires_grad_(requires_grad)
