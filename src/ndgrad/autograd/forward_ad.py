"""Forward-mode AD: dual tensors carry a tangent, and every op pushes the tangents of its inputs through its
jvp rule to its outputs, as the forward pass runs (see torch.autograd.forward_ad). One level, as in PyTorch."""

import threading
from collections import namedtuple
from weakref import ref

from ndgrad._argument_parser import parses
from ndgrad._fpstate import restore, silence

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


class _ForwardState:
    level = None  # the entered level (0), or None; global, as PyTorch's levels are
    dual = []  # weak references to the tensors given a tangent at this level, cleared when it ends
    active = False  # a level is entered: the one flag Op.apply reads before calling push_tangents


class _Paused(threading.local):
    depth = 0  # > 0 inside a jvp rule or a Function's forward in this thread: its ops push no tangents


_PAUSED = _Paused()


def _active():
    """True when the ops run in this thread push tangents: a level is entered and this thread has not paused."""
    return _ForwardState.active and not _PAUSED.depth


def _tangent(tensor):
    """The tangent of ``tensor`` at the current level, or None. It lives on the tensor (the slot is unset on
    every tensor that never had one, so ordinary tensors pay nothing)."""
    return getattr(tensor, "_fw_tangent", None)


def _set_tangent(tensor, tangent):
    tensor._fw_tangent = tangent
    _ForwardState.dual.append(ref(tensor))


class _paused:
    """Inside a jvp rule the tangent computations are plain ops: they must not push tangents of their own. Per
    thread: another thread's forward pass keeps pushing its tangents meanwhile."""

    def __enter__(self):
        _PAUSED.depth += 1

    def __exit__(self, *exc_info):
        _PAUSED.depth -= 1


def enter_dual_level():
    """Start the (single) level of forward AD; see torch.autograd.forward_ad.enter_dual_level."""
    if _ForwardState.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _ForwardState.level, _ForwardState.dual, _ForwardState.active = 0, [], True
    return 0


def exit_dual_level(*, level=None):
    """End the level: every tangent made inside it is dropped."""
    if _ForwardState.level is None or level not in (None, _ForwardState.level):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    for tensor_ref in _ForwardState.dual:
        tensor = tensor_ref()
        if tensor is not None and hasattr(tensor, "_fw_tangent"):
            del tensor._fw_tangent
    _ForwardState.level, _ForwardState.dual, _ForwardState.active = None, [], False


class dual_level:
    """``with dual_level():`` the region in which dual tensors live (see torch.autograd.forward_ad.dual_level)."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent`` (see torch.autograd.forward_ad.make_dual)."""
    from ndgrad.ops.shape import View

    if _ForwardState.level is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first."
        )
    if not (tensor.is_floating_point() or tensor.is_complex()):  # as PyTorch asks (a str fails here as there)
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is not "
            f"supported. Tensor is of size {list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}."
        )
    with _paused():
        dual = View.apply(tensor, shape=tuple(tensor.shape))  # a view, as PyTorch's (ViewBackward0)
    _set_tangent(dual, tangent)  # kept in its own dtype, as PyTorch keeps it
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): a view of ``tensor`` without the tangent, and the tangent or None."""
    from ndgrad.ops.shape import Alias

    if _ForwardState.level is None:
        return UnpackedDualTensor(tensor, None)
    tangent = _tangent(_checked_dual(tensor, level=0))
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with _paused():
        primal = Alias.apply(tensor)
    return UnpackedDualTensor(primal, tangent)


@parses("_unpack_dual(Tensor dual, int level)")
def _checked_dual(dual, level):
    """PyTorch's check of what unpack_dual unpacks inside a level: a Tensor."""
    return dual


class JvpContext:
    """What an op's jvp rule reads: ``saved_tensors`` (the primals it names in ``saves``) and the op's keyword
    parameters as attributes, like the ctx a vjp rule gets."""

    def __init__(self, op, inputs, params, outs):
        self.__dict__.update(params)
        self.saved_tensors = [outs[index] if is_output else inputs[index] for is_output, index in op._save_plan]
        self.input_shapes = tuple(getattr(x, "shape", None) for x in inputs)


def push_tangents(op, inputs, params, outs, Tensor):
    """Called by Op.apply while a level is active: give ``outs`` the tangents op.jvp computes from the inputs'."""
    from ndgrad._creation import zeros_like

    if not op.differentiable or _PAUSED.depth:  # integer or bool results (argmax, comparisons) carry no tangent
        return
    tangents = [_tangent(x) if isinstance(x, Tensor) else None for x in inputs]
    if all(t is None for t in tangents):
        return
    if op.jvp is _no_jvp:
        raise NotImplementedError(
            f"Trying to use forward AD with {op.name or op.__name__} that does not support it because it has not "
            "been implemented yet."
        )
    with _paused():
        tangents = [zeros_like(x) if t is None and isinstance(x, Tensor) else t for x, t in zip(inputs, tangents)]
        fp_state = silence()  # some rules compute on arrays (see Note [floating-point error state])
        try:
            result = op.jvp(JvpContext(op, inputs, params, outs), *tangents)
        finally:
            restore(fp_state)
    for out, tangent in zip(outs, result if isinstance(result, tuple) else (result,)):
        if tangent is not None and out._data.dtype.kind in "fcV":
            if tangent._data.dtype.kind == "c" and out._data.dtype.kind != "c":
                with _paused():
                    tangent = tangent.real  # a real output's tangent is real (see Note [complex gradients])
            _set_tangent(out, tangent)
            _keep_in_saved_output(out, tangent)


def _keep_in_saved_output(out, tangent):
    """If the node saved this output for its vjp, the saved copy carries the tangent too (forward-over-reverse)."""
    from ndgrad.autograd.saved import SavedOutput

    node = out.grad_fn
    for item in getattr(node, "_saved", None) or ():
        if type(item) is SavedOutput and item.output_nr == out._output_nr:
            item.tangent = tangent


def _no_jvp(ctx, *tangents):
    """The jvp of an op that declares none; Op.jvp is this function."""
    raise NotImplementedError
