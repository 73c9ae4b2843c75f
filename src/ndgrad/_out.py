"""``out=``: an op's result written into tensors the caller gave, as PyTorch's out= variants write it (the parser
finds the argument, see ndgrad._argument_parser; the op itself computes as without it)."""

from ndgrad._device import namespace_of
from ndgrad._dtype import can_cast
from ndgrad._warnings import warn
from ndgrad.autograd.grad_mode import STATE

__all__ = ["write_out"]


def write_out(name, result, out):
    """Write ``result`` (a tensor, or a tuple of them) into ``out`` (as many tensors) and return ``out``."""
    results = result if isinstance(result, tuple) else (result,)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(outs) != len(results):
        raise TypeError(f"{name}(): argument 'out' must be tuple of {len(results)} Tensors, not {len(outs)}")
    for value, target in zip(results, outs):
        if STATE.grad_enabled and (value.requires_grad or target.requires_grad):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        if not can_cast(value.dtype, target.dtype):
            raise RuntimeError(f"result type {value.dtype.title} can't be cast to the desired output type "
                               f"{target.dtype.title}")
    for value, target in zip(results, outs):
        if target.shape != value.shape:
            _resize(target, value.shape)
        target._write(value._data.astype(target._data.dtype, copy=False))
    return type(result)(outs) if isinstance(result, tuple) else out  # a named tuple of results names the outs


def _resize(target, shape):
    """PyTorch resizes an out tensor of the wrong shape (warning unless it was empty)."""
    if target._base is not None:
        raise RuntimeError("Trying to resize storage that is not resizable")
    if target.numel():
        warn(f"An output with one or more elements was resized since it had shape {list(target.shape)}, which does "
             f"not match the required output shape {list(shape)}. This behavior is deprecated, and in a future "
             "PyTorch release outputs will not be resized unless they have zero elements. You can explicitly reuse "
             "an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).")
    target._data = namespace_of(target._data).empty(tuple(shape), dtype=target._data.dtype)
