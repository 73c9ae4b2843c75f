"""Indexing: advanced getitem and setitem, index_put, the masked_* ops, take/put, copy_. Index and mask arrays are
keyword parameters, never inputs: no gradient, no promotion. Re-exports ndgrad.ops.gather_scatter and .sorting."""

import numpy as np

from ndgrad._argument_parser import check_fits, parses, parses_method, tensor_method, type_name
from ndgrad._device import namespace_of, to_device
from ndgrad._dtype import bool_, real_scalar, uint8
from ndgrad._warnings import warn
from ndgrad.ops._broadcast import broadcast_error, broadcast_shape
from ndgrad.ops._op import INDEXING, Op, repeats_elements
from ndgrad.ops.gather_scatter import _check_bounds, _run, _zeros
from ndgrad.ops.shape import Alias, Select, Slice, Unsqueeze, expanded_shape, keeps_whole_dim

__all__ = [
    "index_put", "index_put_", "masked_fill", "masked_scatter", "masked_select", "take", "put",
]


def _full(indices):
    return tuple(slice(None) if i is None else i for i in indices)


# ---- advanced indexing -----------------------------------------------------------------------------------------
class Index(Op):
    """``x[indices]``, one index array (or None: the whole dim) per leading dim; repeated indices accumulate."""

    name, family = "__getitem__", INDEXING

    @staticmethod
    def forward(xp, x, indices):
        return x[_full(indices)]

    formula = "grad_self = zeros(self.shape).index_put(indices, grad, accumulate=True)"
    @staticmethod
    def vjp(ctx, grad):
        return (IndexPut.apply(_zeros(ctx.input_shapes[0], grad), grad, indices=ctx.indices, accumulate=True),)

    @staticmethod
    def jvp(ctx, x_t):
        return Index.apply(x_t, indices=ctx.indices)


class IndexPut(Op):
    """torch.index_put: ``values`` written at ``indices``, or added there if accumulate."""

    name, family = "index_put", INDEXING

    @staticmethod
    def forward(xp, x, values, indices, accumulate):
        out = x.copy()
        if accumulate:
            xp.add.at(out, _full(indices), values)
        else:
            out[_full(indices)] = values
        return out

    formula = "grad_self = grad.index_put(indices, 0) (grad if accumulate); grad_values = grad[indices]"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_values = ctx.needs_input_grad
        grad_x = grad
        if need_x and not ctx.accumulate:
            grad_x = IndexPut.apply(grad, _zeros((), grad), indices=ctx.indices, accumulate=False)
        return grad_x, (Index.apply(grad, indices=ctx.indices) if need_values else None)

    @staticmethod
    def jvp(ctx, x_t, values_t):
        return IndexPut.apply(x_t, values_t, indices=ctx.indices, accumulate=ctx.accumulate)


# ---- masks -----------------------------------------------------------------------------------------------------
class MaskedFill(Op):
    """torch.masked_fill with a number ``value``; x and mask broadcast together."""

    name, family = "masked_fill", INDEXING

    @staticmethod
    def forward(xp, x, mask, value):
        return xp.where(mask, xp.asarray(value).astype(x.dtype), x)

    formula = "grad_self = grad.masked_fill(mask, 0)"
    @staticmethod
    def vjp(ctx, grad):
        return (MaskedFill.apply(grad, mask=ctx.mask, value=0),)

    @staticmethod
    def jvp(ctx, x_t):
        return MaskedFill.apply(x_t, mask=ctx.mask, value=0)


class MaskedFillTensor(Op):
    """torch.masked_fill with a 0-d tensor ``value``, which gets the sum of the gradient where the mask holds."""

    name, family = "masked_fill", INDEXING
    node_name = "MaskedFillBackward1"

    @staticmethod
    def forward(xp, x, value, mask):
        return xp.where(mask, value, x)

    formula = "grad_self = grad.masked_fill(mask, 0); grad_value = grad.masked_fill(~mask, 0).sum()"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_value = ctx.needs_input_grad
        grad_x = MaskedFill.apply(grad, mask=ctx.mask, value=0) if need_x else None
        return grad_x, (MaskedFill.apply(grad, mask=~ctx.mask, value=0).sum() if need_value else None)

    @staticmethod
    def jvp(ctx, x_t, value_t):
        return MaskedFillTensor.apply(x_t, value_t, mask=ctx.mask)


class MaskedScatter(Op):
    """torch.masked_scatter: source's first elements, in order, written where the mask holds."""

    name, family = "masked_scatter", INDEXING

    @staticmethod
    def forward(xp, x, source, mask):
        shape = xp.broadcast_shapes(x.shape, mask.shape)
        out, mask = xp.broadcast_to(x, shape).copy(), xp.broadcast_to(mask, shape)
        out[mask] = source.reshape(-1)[: int(mask.sum())]
        return out

    formula = "grad_self = grad.masked_fill(mask, 0); grad_source = grad.masked_select(mask), zero-padded"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_source = ctx.needs_input_grad
        grad_x = MaskedFill.apply(grad, mask=ctx.mask, value=0) if need_x else None
        if not need_source:
            return grad_x, None
        from ndgrad._ranges import arange

        selected = MaskedSelect.apply(grad, mask=ctx.mask)  # source's elements past the selected ones get zero
        positions = arange(selected.shape[0], device=grad.device)._data
        return grad_x, Put.apply(_zeros(ctx.input_shapes[1], grad), selected, index=positions, accumulate=False)

    @staticmethod
    def jvp(ctx, x_t, source_t):
        return MaskedScatter.apply(x_t, source_t, mask=ctx.mask)


class MaskedSelect(Op):
    """torch.masked_select: the elements where the mask holds, as a 1-d tensor; x and mask broadcast together."""

    name, family = "masked_select", INDEXING

    @staticmethod
    def forward(xp, x, mask):
        shape = xp.broadcast_shapes(x.shape, mask.shape)
        return xp.broadcast_to(x, shape)[xp.broadcast_to(mask, shape)]

    formula = "grad_self = zeros(self.shape).masked_scatter(mask, grad)"
    @staticmethod
    def vjp(ctx, grad):
        shape = np.broadcast_shapes(ctx.input_shapes[0], ctx.mask.shape)
        return (MaskedScatter.apply(_zeros(shape, grad), grad, mask=ctx.mask),)

    @staticmethod
    def jvp(ctx, x_t):
        return MaskedSelect.apply(x_t, mask=ctx.mask)


# ---- flat positions --------------------------------------------------------------------------------------------
class Take(Op):
    """torch.take: elements at flat positions of x (as if it were 1-d)."""

    name, family = "take", INDEXING

    @staticmethod
    def forward(xp, x, index):
        return x.reshape(-1)[index]

    formula = "grad_self = zeros(self.shape).put(index, grad, accumulate=True)"
    @staticmethod
    def vjp(ctx, grad):
        return (Put.apply(_zeros(ctx.input_shapes[0], grad), grad, index=ctx.index, accumulate=True),)

    @staticmethod
    def jvp(ctx, x_t):
        return Take.apply(x_t, index=ctx.index)


class Put(Op):
    """torch.put: source written (or added, if accumulate) at flat positions of x."""

    name, family = "put", INDEXING

    @staticmethod
    def forward(xp, x, source, index, accumulate):
        out = x.copy()  # C order, so that the flat view below is out itself
        if accumulate:
            xp.add.at(out.reshape(-1), index.reshape(-1), source.reshape(-1))
        else:
            out.reshape(-1)[index.reshape(-1)] = source.reshape(-1)
        return out

    formula = "grad_self = grad.put(index, 0) (grad if accumulate); grad_source = grad.take(index)"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_source = ctx.needs_input_grad
        grad_x = grad
        if need_x and not ctx.accumulate:
            grad_x = Put.apply(grad, _zeros((), grad), index=ctx.index, accumulate=False)
        grad_source = Take.apply(grad, index=ctx.index).reshape(ctx.input_shapes[1]) if need_source else None
        return grad_x, grad_source

    @staticmethod
    def jvp(ctx, x_t, source_t):
        return Put.apply(x_t, source_t, index=ctx.index, accumulate=ctx.accumulate)


class Copy(Op):
    """Tensor.copy_: src's values, broadcast to x's shape; x's old values get a zero gradient."""

    name, family = "copy_", INDEXING
    node_name = "CopyBackwards"
    node_qualname = "ndgrad::autograd::CopyBackwards"

    @staticmethod
    def forward(xp, x, src):
        return xp.broadcast_to(src, x.shape).astype(x.dtype, copy=True)

    formula = "grad_self = zeros_like(grad); grad_src = grad"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_src = ctx.needs_input_grad
        return (_zeros(grad.shape, grad) if need_x else None), grad

    @staticmethod
    def jvp(ctx, x_t, src_t):
        return Copy.apply(x_t, src_t)  # src's tangent, broadcast to x's shape and dtype


# ---- reading an index as PyTorch does --------------------------------------------------------------------------
_NON_TUPLE_SEQUENCE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[ndgrad.tensor(seq)], "
    "which will result either in an error or a different result"
)
_ZERO_DIM_INDEX = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim "
    "tensor to a number"
)


def _items(index):
    """The index as a tuple of items: a list holding sequences, slices, None or ... counts as a tuple (as in torch,
    which warns that this will change)."""
    from ndgrad._tensor import Tensor

    if isinstance(index, tuple):
        return index
    if isinstance(index, (list, str)) and len(index) < 32 and any(  # a str is a sequence of sequences too
        isinstance(item, (Tensor, np.ndarray, list, tuple, slice, str, bytes)) or item is None or item is Ellipsis
        for item in index
    ):
        warn(_NON_TUPLE_SEQUENCE)
        return tuple(index)
    return (index,)


def _as_index(item, like):
    """An index item as the loop in _parse takes it: sequences and NumPy arrays become index tensors on ``like``'s
    device (bool or uint8 masks stay masks, anything else becomes int64, as PyTorch's indexing_tensor_from_data
    makes them: ``x[[0.0, 1.0]]`` picks rows 0 and 1); NumPy integers become ints."""
    from ndgrad._tensor import Tensor

    if isinstance(item, (str, bytes)):  # a sequence PyTorch tries to make a tensor of
        raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
    if isinstance(item, np.integer):
        return int(item)
    if isinstance(item, (np.ndarray, list, tuple)):
        return _index_tensor(item, like)
    if item is None or item is Ellipsis or isinstance(item, (int, slice, Tensor)):
        return item
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
        f"(got {type_name(item)})"
    )


def _index_tensor(data, like):
    from ndgrad._creation import tensor
    from ndgrad._dtype import int64

    try:
        inferred = tensor(data, device=like.device)
        return inferred if inferred.dtype in (bool_, uint8) else tensor(data, dtype=int64, device=like.device)
    except OverflowError:  # an int beyond 64 bits
        raise ValueError("Overflow when unpacking long long") from None


def _consumed(item):
    """How many of the tensor's dims an index item uses up (a list or any other object counts one, as in torch)."""
    if item is None or item is Ellipsis or type(item) is bool:
        return 0
    if hasattr(item, "_data") and item.dtype in (bool_, uint8):
        return item.ndim
    return 1


def _is_mask(item):
    return item.dtype in (bool_, uint8)


def _is_long(item):
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _zero_dim_refusal(input, index):
    """PyTorch's errors for an int or a slice alone indexing a 0-d tensor (its shortcut, before the index tuple)."""
    if input._data.ndim:
        return None
    if _is_long(index):
        return IndexError(_ZERO_DIM_INDEX if index == 0 else f"index {index} is out of bounds for dimension 0 with "
                          "size 0")
    if isinstance(index, slice):
        return IndexError("slice() cannot be applied to a 0-dim tensor.")
    return None


def _parse(input, index, reading=True):
    """Apply the basic items (ints, slices, None, ...) as views, as PyTorch does first; return that view (input
    itself if no item changes it) and the index array (or None) per leading dim of it that advanced indexing then
    uses, or None if there is none. ``reading``: for getitem, where PyTorch always records a lone slice x[a:b].

    The items are read as PyTorch's applySlicing reads them: the number of dims they use up is checked first, each
    Ellipsis skips the dims left unnamed, and an error names the item's position in the index."""
    lone_slice = reading and isinstance(index, slice)  # else whole-dim slices are skipped
    items = _items(index)
    specified = sum(_consumed(item) for item in items)
    if specified > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim}")
    result, dim, indices = input, 0, {}
    for position, item in enumerate(items):
        item = _as_index(item, input)
        if item is Ellipsis:
            dim += input.ndim - specified
        elif item is None:
            result = Unsqueeze.apply(result, dim=dim)
            dim += 1
        elif type(item) is bool or (hasattr(item, "_data") and item.ndim == 0 and _is_mask(item)):
            # a 0-d mask: a new dim of size 1, kept (True) or emptied (False) by an index on it
            result = Unsqueeze.apply(result, dim=dim)
            indices[dim] = namespace_of(result._data).zeros(int(bool(item)), dtype=np.int64)
            dim += 1
        elif isinstance(item, int) or (hasattr(item, "_data") and item.ndim == 0 and item.dtype._category == 1):
            item = int(item)
            check_fits("int", item)
            size = result.shape[dim] if dim < result.ndim else 0
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {position} with size {size}")
            result = Select.apply(result, dim=dim, index=item % size)
        elif isinstance(item, slice):
            size = result.shape[dim] if dim < result.ndim else 0
            start, stop, step = item.indices(size)  # Python's errors for a zero step or a non-integer bound
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if lone_slice or not keeps_whole_dim(item, size):
                result = Slice.apply(result, dim=dim, start=start, stop=stop, step=step)
            dim += 1
        elif _is_mask(item):
            for j, positions in enumerate(_mask_positions(item, result.shape, dim)):
                indices[dim + j] = positions
            dim += item.ndim
        elif item.dtype._category != 1:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        else:
            indices[dim] = item._data
            dim += 1
    if not indices:
        return result, None
    indices = tuple(indices.get(d) for d in range(max(indices) + 1))
    if type(result._data) is not np.ndarray:  # PyTorch lets a cpu index pick from a GPU tensor: moved here, once
        indices = tuple(None if i is None else to_device(i, result.device) for i in indices)
    _check_indices(result.shape, indices)
    return result, indices


def _mask_positions(mask, shape, dim):
    """The index arrays a bool mask over dims dim, dim+1, ... stands for, after checking its shape."""
    for j, size in enumerate(mask.shape):
        if dim + j >= len(shape) or size != shape[dim + j]:
            raise IndexError(
                f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape of the indexed "
                f"tensor {list(shape)} at index {dim + j}"
            )
    return namespace_of(mask._data).nonzero(mask._data)


def _check_indices(shape, indices):
    """PyTorch's errors for index arrays that do not broadcast together, or point outside their dim."""
    _check_broadcast(indices)
    _check_in_bounds(shape, indices)


def _check_broadcast(indices):
    arrays = [i for i in indices if i is not None]
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(f"[{', '.join(map(str, a.shape))}]" for a in arrays)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}") \
            from None


def _check_in_bounds(shape, indices):
    position = 0
    for dim, index in enumerate(indices):
        if index is None:
            continue
        _check_bounds(index, shape[dim], position)
        position += 1


def _indexed_shape(shape, indices):
    """The shape of ``x[indices]``: the broadcast index shape replaces the indexed dims where they are adjacent,
    else it comes first."""
    dims = [d for d, i in enumerate(indices) if i is not None]
    broadcast = np.broadcast_shapes(*(indices[d].shape for d in dims))
    rest = [size for d, size in enumerate(shape) if d not in dims]
    if dims[-1] - dims[0] == len(dims) - 1:
        return tuple(rest[: dims[0]]) + broadcast + tuple(rest[dims[0]:])
    return broadcast + tuple(rest)


def getitem(input, index):
    """Indexing with tensors, lists, masks or bools, after the basic items (see torch.Tensor.__getitem__)."""
    if index is True:
        return Unsqueeze.apply(input, dim=0)  # PyTorch's shortcut: x[True] is x[None]
    refusal = _zero_dim_refusal(input, index)
    if refusal is not None:
        raise refusal
    result, indices = _parse(input, index)
    if indices is None:
        return Alias.apply(input) if result is input else result  # x[...], x[:, :]: a new view object
    return Index.apply(result, indices=indices)


def setitem(input, index, value):
    """``input[index] = value``: index_put_ for advanced indices, else copy_ into the view (see torch.Tensor)."""
    from ndgrad._tensor import Tensor

    number = not isinstance(value, Tensor)
    if number:
        value = value_tensor(value, input)  # first, as PyTorch converts the value before reading the index
    refusal = _zero_dim_refusal(input, index)
    if refusal is not None:
        raise refusal
    items = _items(index)
    if any(isinstance(item, (Tensor, list, np.ndarray)) or type(item) is bool for item in items):
        # index_put_ (of an index that may be advanced) refuses indices or values sharing the written memory
        for operand in (*items, value):
            if isinstance(operand, Tensor) and type(operand._data) is type(input._data) and namespace_of(
                    input._data).may_share_memory(operand._data, input._data):
                raise _overlap_error()
    result, indices = _parse(input, items, reading=False)  # input itself where the index keeps all of it
    if indices is None:
        _copy_to(result, value, number)
    else:
        value = _without_leading_ones(value)
        _index_put_checked(result, indices, value)
        IndexPut.apply_(result, value, indices=indices, accumulate=False)


def _copy_to(target, value, number):
    """PyTorch's copy into an indexed view: as is where the shapes agree; a number or 0-d cpu tensor fills; else the
    value, without its leading size-1 dims, is expanded to the view's shape (with expand's errors)."""
    if value.shape == target.shape:
        target.copy_(value)
    elif value.ndim == 0 and (number or value.device.type == "cpu"):
        target.fill_(value)
    else:
        target.copy_(_without_leading_ones(value).expand(target.shape))


def _without_leading_ones(value):
    kept = next((i for i, size in enumerate(value.shape) if size != 1), value.ndim)
    return value.reshape(value.shape[kept:]) if kept else value


def _overlap_error():
    return RuntimeError(
        "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
        "location. Please clone() the tensor before performing the operation."
    )


def _wrapped_number(value, like):
    """A number copied into ``like`` (``x.copy_(300)``) as PyTorch wraps it: a 0-d tensor of 64 bits (int64, float64
    or complex128), then cast as C casts (a uint8 tensor takes 300 as 44)."""
    from ndgrad._creation import tensor
    from ndgrad._dtype import complex128, float64, int64, wrapped_int

    if isinstance(value, (bool, np.bool_)):
        return tensor(value, dtype=bool_, device=like.device)
    if isinstance(value, (int, np.integer)):
        check_fits("scalar", int(value))
        return tensor(wrapped_int(int(value), int64), dtype=int64, device=like.device)
    return tensor(value, dtype=complex128 if isinstance(value, (complex, np.complexfloating)) else float64,
                  device=like.device)


def value_tensor(value, like):
    """A number written into ``like`` (``x[0] = 1.5``, ``x.real = 2``), as a 0-d tensor of its dtype: an int must fit
    64 bits, and the number ``like``'s dtype (a checked conversion, as fill_'s); PyTorch's TypeError for any other
    value (a list, a NumPy array, a NumPy float32)."""
    from ndgrad._creation import tensor

    if isinstance(value, (int, np.integer)):
        check_fits("int", value)
        value = int(value)
    elif not isinstance(value, (float, complex)):  # np.float64 is a float; np.float32 is not, and PyTorch refuses it
        raise TypeError(f"can't assign a {type_name(value)} to a {like.type()}")
    return tensor(real_scalar(value, like.dtype), dtype=like.dtype, device=like.device)


def _index_put_checked(input, indices, values):
    if values.dtype is not input.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{input.dtype.title} for the destination and {values.dtype.title} for the source."
        )
    target = _indexed_shape(input.shape, indices)
    try:
        np.broadcast_shapes(values.shape, target)
        if len(values.shape) > len(target):
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to indexing result of "
            f"shape {list(target)}"
        ) from None


# ---- the functions users call ----------------------------------------------------------------------------------
def _index_put(input, indices, values, accumulate, inplace):
    from ndgrad._tensor import Tensor

    for i, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(index).__name__}")
    consumed = sum(_consumed(index) for index in indices)
    if consumed > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {consumed})")
    arrays = []
    for index in indices:
        if _is_mask(index):
            arrays.extend(_mask_positions(index, input.shape, len(arrays)))
        elif index.dtype._category != 1:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        else:
            arrays.append(index._data)
    _check_broadcast(arrays)
    _index_put_checked(input, arrays, values)  # the values' dtype and shape, before the bounds, as PyTorch
    _check_in_bounds(input.shape, arrays)
    return _run(IndexPut, inplace, input, values, indices=tuple(arrays), accumulate=accumulate)


@parses("index_put(Tensor input, Tensor?[] indices, Tensor values, bool accumulate=False)")
def index_put(input, indices, values, accumulate=False):
    """A copy of input with values written (or added) at the advanced index ``indices`` (see torch.index_put)."""
    return _index_put(input, indices, values, accumulate, False)


@parses("index_put_(Tensor input, Tensor?[] indices, Tensor values, bool accumulate=False)")
def index_put_(input, indices, values, accumulate=False):
    """index_put in place (see torch.index_put_)."""
    return _index_put(input, indices, values, accumulate, True)


def _check_mask(mask, message):
    if mask.dtype is not bool_:
        raise RuntimeError(message)


_MASK_DTYPE_NAMES = {  # the C++ type names PyTorch's masked_fill message prints
    "float32": "float", "float64": "double", "int64": "long int", "int32": "int", "uint8": "unsigned char",
}


def _masked_fill(input, mask, value, inplace):
    from ndgrad._tensor import Tensor

    _check_mask(mask, "masked_fill_ only supports boolean masks, but got mask with dtype "
                f"{_MASK_DTYPE_NAMES.get(mask.dtype.name, mask.dtype.name)}")
    broadcast_shape(input.shape, mask.shape) if inplace else broadcast_shape(mask.shape, input.shape)
    if inplace and repeats_elements(input._data):
        warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing this "
             "operation. This also applies to advanced indexing e.g. tensor[mask] = scalar")
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        if value.dtype.is_complex:
            real_scalar(value.item(), input.dtype)  # PyTorch reads the value as a number of input's dtype
        return _run(MaskedFillTensor, inplace, input, value.to(input.dtype), mask=mask._data)
    return _run(MaskedFill, inplace, input, mask=mask._data, value=real_scalar(value, input.dtype))


@parses("masked_fill(Tensor input, Tensor mask, Tensor value)",
        "masked_fill(Tensor input, Tensor mask, Scalar value)")
def masked_fill(input, mask, value):
    """A copy of input with ``value`` where ``mask`` holds (see torch.masked_fill)."""
    return _masked_fill(input, mask, value, False)


def _masked_scatter(input, mask, source, inplace):
    _check_mask(mask, f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype.title}")
    if source.dtype is not input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{input.dtype.title} and {source.dtype.title}")
    if inplace:  # PyTorch expands the mask to input's shape
        shape = expanded_shape(mask, input.shape, f"CPU{mask.dtype.title}Type")
    else:
        shape = broadcast_shape(mask.shape, input.shape)
    count = int(namespace_of(mask._data).broadcast_to(mask._data, shape).sum())  # a sync, as torch's check
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return _run(MaskedScatter, inplace, input, source, mask=mask._data)


@parses("masked_scatter(Tensor input, Tensor mask, Tensor source)")
def masked_scatter(input, mask, source):
    """A copy of input with source's first elements written, in order, where ``mask`` holds
    (see torch.masked_scatter)."""
    return _masked_scatter(input, mask, source, False)


@parses("masked_select(Tensor input, Tensor mask, *, Tensor out=None)")
def masked_select(input, mask):
    """The elements of input where ``mask`` holds, as a 1-d tensor (see torch.masked_select)."""
    _check_mask(mask, "masked_select: expected BoolTensor for mask")
    broadcast_shape(mask.shape, input.shape)
    return MaskedSelect.apply(input, mask=mask._data)


def _check_flat(input, index, name):
    if index.dtype.name != "int64":
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {index.dtype.title}")
    size = input.numel()
    outside = (index._data < -size) | (index._data >= size)
    if outside.any():
        raise IndexError(f"out of range: tried to access index {int(index._data[outside].reshape(-1)[0])} on a "
                         f"tensor of {size} elements.")


@parses("take(Tensor input, Tensor index, *, Tensor out=None)")
def take(input, index):
    """Elements of input at flat positions ``index`` (see torch.take)."""
    if input.numel() == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    _check_flat(input, index, "take")
    return Take.apply(input, index=index._data)


def _put(input, index, source, accumulate, inplace):
    _check_flat(input, index, "put_")
    if source.dtype is not input.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{input.dtype.title} and source.dtype = {source.dtype.title}")
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    return _run(Put, inplace, input, source, index=index._data, accumulate=accumulate)


@parses("put(Tensor input, Tensor index, Tensor source, bool accumulate=False)")
def put(input, index, source, accumulate=False):
    """A copy of input with source written (or added) at flat positions ``index`` (see torch.put)."""
    return _put(input, index, source, accumulate, False)


def copy_(input, other, non_blocking=False):
    """Write other's values, broadcast and cast, into input (see torch.Tensor.copy_)."""
    from ndgrad._tensor import Tensor

    src = other if isinstance(other, Tensor) else _wrapped_number(other, input)
    error = broadcast_error(input.shape, src.shape)
    if error is not None or src.ndim > input.ndim and any(s != 1 for s in src.shape[: src.ndim - input.ndim]):
        raise error or RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape "
                                    f"{list(src.shape)}")
    if src.ndim > input.ndim:
        src = src.reshape(src.shape[src.ndim - input.ndim:])
    if src.dtype is not input.dtype or src.device != input.device:
        src = src.to(input.device, input.dtype)
    return Copy.apply_(input, src)


class IndexingMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def __setitem__(self, index, value):
        setitem(self, index, value)
    def __delitem__(self, index):
        raise TypeError("Tensor does not support deleting items")
    copy_ = tensor_method(copy_, "copy_(Tensor other, bool non_blocking=False)",
                          "copy_(Tensor other, bool async=False)|deprecated")
    @parses_method("index_put(Tensor?[] indices, Tensor values, bool accumulate=False)")
    def index_put(self, indices, values, accumulate=False):
        return _index_put(self, indices, values, accumulate, False)
    @parses_method("index_put_(Tensor?[] indices, Tensor values, bool accumulate=False)")
    def index_put_(self, indices, values, accumulate=False):
        return _index_put(self, indices, values, accumulate, True)
    @parses_method("masked_fill(Tensor mask, Tensor value)",
                   "masked_fill(Tensor mask, Scalar value)")
    def masked_fill(self, mask, value):
        return _masked_fill(self, mask, value, False)
    @parses_method("masked_fill_(Tensor mask, Tensor value)",
                   "masked_fill_(Tensor mask, Scalar value)")
    def masked_fill_(self, mask, value):
        return _masked_fill(self, mask, value, True)
    @parses_method("masked_scatter(Tensor mask, Tensor source)")
    def masked_scatter(self, mask, source):
        return _masked_scatter(self, mask, source, False)
    @parses_method("masked_scatter_(Tensor mask, Tensor source)")
    def masked_scatter_(self, mask, source):
        return _masked_scatter(self, mask, source, True)
    masked_select = tensor_method(masked_select)
    take = tensor_method(take)
    @parses_method("put(Tensor index, Tensor source, bool accumulate=False)")
    def put(self, index, source, accumulate=False):
        return _put(self, index, source, accumulate, False)
    @parses_method("put_(Tensor index, Tensor source, bool accumulate=False)")
    def put_(self, index, source, accumulate=False):
        return _put(self, index, source, accumulate, True)

    @parses_method("fill_diagonal_(Scalar fill_value, bool wrap=False)")
    def fill_diagonal_(self, fill_value, wrap=False):
        """Write ``fill_value`` on the main diagonal (element [i, i, ..., i]); ``wrap``: in a matrix taller than
        wide, again every ``columns + 1`` rows, as PyTorch's flat stride over the storage does."""
        if self.ndim < 2:
            raise RuntimeError("dimensions must larger than 1")
        if self.ndim > 2 and len(set(self.shape)) > 1:
            raise RuntimeError("all dimensions of input must be of equal length")
        rows, columns = self.shape[0], self.shape[1]
        starts = range(0, rows, columns + 1) if wrap and self.ndim == 2 else (0,)
        for start in starts:
            diagonal = self[start:start + columns]
            for _ in range(self.ndim - 1):  # each diagonal() folds two dims into one, the diagonal last
                diagonal = diagonal.diagonal(0, 0, -1)
            diagonal.fill_(fill_value)
        return self
