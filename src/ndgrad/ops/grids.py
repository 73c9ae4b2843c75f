"""Functions of tensor lists that torch writes in Python (torch.functional): broadcast_tensors, meshgrid and
atleast_1d/2d/3d, each calling its op with the list as torch's Python passes it, so wrong calls fail as in torch."""

from ndgrad._argument_parser import parses
from ndgrad._warnings import warn
from ndgrad.ops._broadcast import broadcast_shape
from ndgrad.ops.shape import expand, reshape, unsqueeze, view

__all__ = ["broadcast_tensors", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d"]


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape; those already of that shape are returned as they are (see
    torch.broadcast_tensors)."""
    return _broadcast_tensors(tensors)


@parses("broadcast_tensors(Tensor[] tensors)")
def _broadcast_tensors(tensors):
    shape = broadcast_shape(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else expand(t, shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 0-d or 1-d tensors, 'ij' (matrix) or 'xy' (Cartesian) indexing (see torch.meshgrid,
    whose Python this mirrors: the tensors, one list or several, go to the op as one list)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return _meshgrid(tensors) if indexing is None else _meshgrid(tensors, indexing=indexing)


@parses("meshgrid(Tensor[] tensors)",
        "meshgrid(Tensor[] tensors, *, str indexing)")
def _meshgrid(tensors, *, indexing=None):
    from ndgrad._cpp_printing import cpp_printed

    if indexing is None:
        warn("ndgrad.meshgrid: in an upcoming release, it will be required to pass the indexing argument.")
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for before, after in zip(tensors, tensors[1:]):
        if before.dtype is not after.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if before.device != after.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'ndgrad.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:  # 'xy' is 'ij' with the first two inputs, and so the first two outputs, swapped
        tensors = (tensors[1], tensors[0], *tensors[2:])
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("ndgrad.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"{cpp_printed(t)}")
    shape = tuple(t.numel() for t in tensors)
    grids = []
    for i, t in enumerate(tensors):
        view_shape = [1] * len(tensors)
        view_shape[i] = -1
        grids.append(expand(view(t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _at_least(tensors, make):
    """One tensor made so, or each of a list (torch.atleast_*d's op takes either)."""
    return make(tensors) if hasattr(tensors, "_data") else tuple(make(t) for t in tensors)


def atleast_1d(*tensors):
    """Each tensor viewed with at least 1 dim; one tensor in, one out (see torch.atleast_1d)."""
    return _atleast_1d(tensors[0] if len(tensors) == 1 else tensors)


@parses("atleast_1d(Tensor input)",
        "atleast_1d(Tensor[] tensors)")
def _atleast_1d(tensors):
    return _at_least(tensors, lambda t: reshape(t, (1,)) if t.ndim == 0 else t)


def atleast_2d(*tensors):
    """Each tensor viewed with at least 2 dims (see torch.atleast_2d)."""
    return _atleast_2d(tensors[0] if len(tensors) == 1 else tensors)


@parses("atleast_2d(Tensor input)",
        "atleast_2d(Tensor[] tensors)")
def _atleast_2d(tensors):
    return _at_least(tensors, lambda t: reshape(t, (1, 1)) if t.ndim == 0 else unsqueeze(t, 0) if t.ndim == 1 else t)


def atleast_3d(*tensors):
    """Each tensor viewed with at least 3 dims (see torch.atleast_3d)."""
    return _atleast_3d(tensors[0] if len(tensors) == 1 else tensors)


@parses("atleast_3d(Tensor input)",
        "atleast_3d(Tensor[] tensors)")
def _atleast_3d(tensors):
    def make(t):
        if t.ndim == 0:
            return reshape(t, (1, 1, 1))
        if t.ndim == 1:
            return unsqueeze(unsqueeze(t, 0), -1)
        return unsqueeze(t, -1) if t.ndim == 2 else t

    return _at_least(tensors, make)
