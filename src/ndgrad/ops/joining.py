"""Ops that copy: joining (cat, stack and their h/v/d forms), flips, rolls, rotations, repeats, diagonal
matrices and triangles."""


from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad._device import array_namespace
from ndgrad.ops import gather_scatter
from ndgrad.ops._checks import check_storage_size
from ndgrad.ops._op import JOINING, SHAPE, Op
from ndgrad.ops.grids import atleast_1d, atleast_2d, atleast_3d
from ndgrad.ops.shape import (
    Diagonal,
    Select,
    Slice,
    diagonal_backward,
    expand,
    flatten,
    normalize_dims,
    reshape,
    unsqueeze,
    wrap_dim,
)

__all__ = [
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack", "flip",
    "fliplr", "flipud", "roll", "rot90", "tile", "repeat_interleave", "diag", "diag_embed", "tril", "triu",
]


def _skipped(shape):
    """PyTorch's legacy rule: cat ignores 1-d empty tensors, whatever the other shapes are."""
    return shape == (0,)


class Cat(Op):
    """torch.cat: tensors joined along an existing dim."""

    name, family = "cat", JOINING

    @staticmethod
    def forward(xp, *arrays, dim, sizes):
        kept = [a for a in arrays if not _skipped(a.shape)]
        return xp.concatenate(kept or arrays, axis=dim if kept else 0)

    formula = "grad_tensors[i] = grad.narrow(dim, offset_i, size_i)"
    @staticmethod
    def vjp(ctx, grad):
        grads, start = [], 0
        for size, needed in zip(ctx.sizes, ctx.needs_input_grad):
            if size is None:  # a skipped empty tensor
                grads.append(_empty_like_grad(grad) if needed else None)
                continue
            grads.append(Slice.apply(grad, dim=ctx.dim, start=start, stop=start + size, step=1) if needed else None)
            start += size
        return tuple(grads)

    @staticmethod
    def jvp(ctx, *tangents):
        return Cat.apply(*tangents, dim=ctx.dim, sizes=ctx.sizes)


def _empty_like_grad(grad):
    from ndgrad._creation import zeros  # creation imports the Tensor, which imports this module

    return zeros(0, dtype=grad.dtype, device=grad.device)


class Stack(Op):
    """torch.stack: tensors of one shape joined along a new dim."""

    name, family = "stack", JOINING

    @staticmethod
    def forward(xp, *arrays, dim):
        return xp.stack(arrays, axis=dim)

    formula = "grad_tensors[i] = grad.select(dim, i)"
    @staticmethod
    def vjp(ctx, grad):
        return tuple(Select.apply(grad, dim=ctx.dim, index=i) if needed else None
                     for i, needed in enumerate(ctx.needs_input_grad))

    @staticmethod
    def jvp(ctx, *tangents):
        return Stack.apply(*tangents, dim=ctx.dim)


class Flip(Op):
    """torch.flip: reverse the order along dims."""

    name, family = "flip", SHAPE

    @staticmethod
    def forward(xp, x, dims):
        return xp.flip(x, axis=dims).copy()  # NumPy's flip is a view; PyTorch's a copy

    formula = "grad_self = grad.flip(dims)"
    @staticmethod
    def vjp(ctx, grad):
        return (Flip.apply(grad, dims=ctx.dims),)

    @staticmethod
    def jvp(ctx, x_t):
        return Flip.apply(x_t, dims=ctx.dims)


class Roll(Op):
    """torch.roll: shift elements cyclically along dims (along the flattened tensor if no dims)."""

    name, family = "roll", SHAPE

    @staticmethod
    def forward(xp, x, shifts, dims):
        if not dims:
            return xp.roll(x.reshape(-1), shifts).reshape(x.shape)
        return xp.roll(x, shifts, axis=dims)

    formula = "grad_self = grad.roll(-shifts, dims)"
    @staticmethod
    def vjp(ctx, grad):
        return (Roll.apply(grad, shifts=tuple(-s for s in ctx.shifts), dims=ctx.dims),)

    @staticmethod
    def jvp(ctx, x_t):
        return Roll.apply(x_t, shifts=ctx.shifts, dims=ctx.dims)


class Rot90(Op):
    """torch.rot90: rotate by k quarter turns in the plane of two dims."""

    name, family = "rot90", SHAPE

    @staticmethod
    def forward(xp, x, k, dims):
        return xp.rot90(x, k, axes=dims).copy()  # NumPy's rot90 is a view

    formula = "grad_self = grad.rot90(-k, dims)"
    @staticmethod
    def vjp(ctx, grad):
        return (Rot90.apply(grad, k=-ctx.k, dims=ctx.dims),)

    @staticmethod
    def jvp(ctx, x_t):
        return Rot90.apply(x_t, k=ctx.k, dims=ctx.dims)


class Repeat(Op):
    """Tensor.repeat: the tensor tiled ``repeats`` times along each dim (leading new dims allowed)."""

    name, family = "repeat", SHAPE

    @staticmethod
    def forward(xp, x, repeats):
        return xp.tile(x, repeats)

    formula = "grad_self = grad summed over the repeated copies"
    @staticmethod
    def vjp(ctx, grad):
        # Each output dim of size r*s splits into (r, s): summing over the r copies gives the input's gradient.
        shape = ctx.input_shapes[0]
        padded = (1,) * (len(ctx.repeats) - len(shape)) + tuple(shape)
        split = [size for pair in zip(ctx.repeats, padded) for size in pair]
        copies = tuple(range(0, len(split), 2))
        grad = grad.reshape(split)
        return ((grad.sum(copies) if copies else grad).reshape(shape),)

    @staticmethod
    def jvp(ctx, x_t):
        return Repeat.apply(x_t, repeats=ctx.repeats)


class Diag(Op):
    """torch.diag of a matrix: a copy of one of its diagonals."""

    name, family = "diag", SHAPE
    node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(xp, x, diagonal):
        return Diagonal.forward(xp, x, diagonal, 0, 1).copy()

    formula = "grad_self = grad.diagonal(diagonal), or for a matrix self: zeros with grad's diagonal"
    @staticmethod
    def vjp(ctx, grad):
        return (diagonal_backward(grad, ctx.input_shapes[0], ctx.diagonal, 0, 1),)

    @staticmethod
    def jvp(ctx, x_t):
        return Diag.apply(x_t, diagonal=ctx.diagonal)


class DiagEmbed(Op):
    """torch.diag_embed: the last dim written on a diagonal of two new dims, zeros elsewhere."""

    name, family = "diag_embed", SHAPE

    @staticmethod
    def forward(xp, x, offset, dim1, dim2):
        size = x.shape[-1] + abs(offset)
        shape = list(x.shape[:-1])
        for dim in sorted((dim1, dim2)):
            shape.insert(dim, size)
        result = xp.zeros(shape, dtype=x.dtype)
        Diagonal.forward(xp, result, offset, dim1, dim2)[...] = x
        return result

    formula = "grad_self = grad.diagonal(offset, dim1, dim2)"
    @staticmethod
    def vjp(ctx, grad):
        return (Diagonal.apply(grad, offset=ctx.offset, dim1=ctx.dim1, dim2=ctx.dim2),)

    @staticmethod
    def jvp(ctx, x_t):
        return DiagEmbed.apply(x_t, offset=ctx.offset, dim1=ctx.dim1, dim2=ctx.dim2)


class Tril(Op):
    """torch.tril: the lower triangle of the last two dims, zeros above diagonal ``diagonal``."""

    name, family = "tril", SHAPE

    @staticmethod
    def forward(xp, x, diagonal):
        return xp.tril(x, diagonal)

    formula = "grad_self = grad.tril(diagonal)"
    @staticmethod
    def vjp(ctx, grad):
        return (Tril.apply(grad, diagonal=ctx.diagonal),)

    @staticmethod
    def jvp(ctx, x_t):
        return Tril.apply(x_t, diagonal=ctx.diagonal)


class Triu(Op):
    """torch.triu: the upper triangle of the last two dims."""

    name, family = "triu", SHAPE

    @staticmethod
    def forward(xp, x, diagonal):
        return xp.triu(x, diagonal)

    formula = "grad_self = grad.triu(diagonal)"
    @staticmethod
    def vjp(ctx, grad):
        return (Triu.apply(grad, diagonal=ctx.diagonal),)

    @staticmethod
    def jvp(ctx, x_t):
        return Triu.apply(x_t, diagonal=ctx.diagonal)


# ---- the functions users call ----------------------------------------------------------------------------------
@parses("cat(Tensor[] tensors, int dim=0, *, Tensor out=None)")
def cat(tensors, dim=0):
    """Join tensors along an existing dim (see torch.cat)."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("ndgrad.cat(): expected a non-empty list of Tensors")
    for position, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    kept = [(i, t.shape) for i, t in enumerate(tensors) if not _skipped(t.shape)]
    if kept:
        first = kept[0][1]
        dim = wrap_dim(dim, len(first))
        for i, shape in kept[1:]:
            if len(shape) != len(first):
                raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and {len(shape)}")
            for d, (expected, got) in enumerate(zip(first, shape)):
                if d != dim and expected != got:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {dim}. Expected size {expected} but got "
                        f"size {got} for tensor number {i} in the list."
                    )
    else:
        dim = 0
    sizes = tuple(None if _skipped(t.shape) else t.shape[dim] for t in tensors)
    return Cat.apply(*tensors, dim=dim, sizes=sizes)


@parses("concat(Tensor[] tensors, int dim=0, *, Tensor out=None)")
def concat(tensors, dim=0):
    """Alias of cat (see torch.concat)."""
    return cat(tensors, dim)


@parses("concatenate(Tensor[] tensors, int dim=0, *, Tensor out=None)")
def concatenate(tensors, dim=0):
    """Alias of cat, often called with NumPy's keyword ``axis`` (see torch.concatenate)."""
    return cat(tensors, dim)


@parses("stack(Tensor[] tensors, int dim=0, *, Tensor out=None)")
def stack(tensors, dim=0):
    """Join tensors of one shape along a new dim (see torch.stack)."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0].shape
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != first:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 and {list(t.shape)} "
                f"at entry {i}"
            )
    return Stack.apply(*tensors, dim=wrap_dim(dim, len(first) + 1))


def _nonempty(tensors, name):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


@parses("hstack(Tensor[] tensors, *, Tensor out=None)")
def hstack(tensors):
    """Join along dim 1 (dim 0 for 1-d tensors) (see torch.hstack)."""
    tensors = atleast_1d(_nonempty(tensors, "hstack"))
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


@parses("vstack(Tensor[] tensors, *, Tensor out=None)")
def vstack(tensors):
    """Join along dim 0, after making each tensor at least 2-d (see torch.vstack)."""
    return cat(atleast_2d(_nonempty(tensors, "vstack")), 0)


@parses("row_stack(Tensor[] tensors, *, Tensor out=None)")
def row_stack(tensors):
    """Alias of vstack (see torch.row_stack)."""
    return cat(atleast_2d(_nonempty(tensors, "row_stack")), 0)


@parses("dstack(Tensor[] tensors, *, Tensor out=None)")
def dstack(tensors):
    """Join along dim 2, after making each tensor at least 3-d (see torch.dstack)."""
    return cat(atleast_3d(_nonempty(tensors, "dstack")), 2)


@parses("column_stack(Tensor[] tensors, *, Tensor out=None)")
def column_stack(tensors):
    """Join as columns: tensors of at most 1 dim become columns (see torch.column_stack)."""
    tensors = _nonempty(tensors, "column_stack")
    return hstack([reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors])


@parses("flip(Tensor input, int[] dims)")
def flip(input, dims):
    """Reverse the order along ``dims`` (see torch.flip)."""
    return Flip.apply(input, dims=normalize_dims(dims, input.ndim))


@parses("fliplr(Tensor input)")
def fliplr(input):
    """Reverse the order along dim 1 (see torch.fliplr)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return Flip.apply(input, dims=(1,))


@parses("flipud(Tensor input)")
def flipud(input):
    """Reverse the order along dim 0 (see torch.flipud)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return Flip.apply(input, dims=(0,))


@parses("roll(Tensor input, SymInt[1] shifts, int[1] dims=None)")
def roll(input, shifts, dims=None):
    """Shift elements cyclically along ``dims``, or along the flattened tensor (see torch.roll)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if input.ndim == 0 and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return Roll.apply(input, shifts=shifts, dims=tuple(wrap_dim(d, input.ndim) for d in dims))


@parses("rot90(Tensor input, int k=1, int[] dims={0,1})")
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by ``k`` quarter turns from the first of ``dims`` towards the second (see torch.rot90)."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    first, second = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if first == second:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    return Rot90.apply(input, k=k % 4, dims=(first, second))


def repeat(input, repeats):
    """The tensor tiled ``repeats`` times along each dim (see torch.Tensor.repeat)."""
    repeats = tuple(int(r) for r in repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    padded = (1,) * (len(repeats) - input.ndim) + tuple(input.shape)
    shape = [r * s for r, s in zip(repeats, padded)]
    if any(s < 0 for s in shape):
        negative = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {shape}")
    return Repeat.apply(input, repeats=repeats)


@parses("tile(Tensor input, SymInt[] dims)")
def tile(input, dims):
    """The tensor tiled ``dims`` times; missing leading counts are 1 (see torch.tile)."""
    dims = tuple(dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


@parses("repeat_interleave(Tensor input, Tensor repeats, int? dim=None, *, SymInt? output_size=None)",
        "repeat_interleave(Tensor repeats, *, SymInt? output_size=None)",
        "repeat_interleave(Tensor input, SymInt repeats, int? dim=None, *, SymInt? output_size=None)")
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times along ``dim`` (see torch.repeat_interleave).

    With a single int64 tensor argument, returns the indices each position repeats, as torch does.
    """
    if repeats is None:
        return _repeat_indices(input)
    if dim is None:
        input, dim = flatten(input), 0
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim] if input.ndim else 1
    if hasattr(repeats, "_data"):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.numel() == 1:
            repeats = expand(reshape(repeats, (1,)), (size,))
        elif repeats.shape[0] != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats.shape[0]} and input.size({dim}) = {size}"
            )
        return gather_scatter.index_select(input, dim, _repeat_indices(repeats, output_size))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    if output_size is not None and output_size != size * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {size * repeats} but got {output_size}")
    # As PyTorch records it: a new dim after ``dim``, expanded, copied, and merged back.
    shape = list(unsqueeze(input, dim + 1).shape)
    shape[dim + 1] = repeats
    return flatten(expand(unsqueeze(input, dim + 1), shape).clone(), dim, dim + 1)


def _repeat_indices(repeats, output_size=None):
    """repeat_interleave of an int64 tensor of counts: index i repeated repeats[i] times."""
    if repeats.dtype.name not in ("int64", "int32"):
        raise NotImplementedError(f"\"repeat_interleave_{repeats.device.type}\" not implemented for "
                                  f"'{repeats.dtype.title}'")
    xp = array_namespace(repeats.device)
    counts = repeats._data.reshape(-1)
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    total = int(counts.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but got {output_size}")
    return type(repeats)._wrap(xp.repeat(xp.arange(counts.shape[0]), counts).astype(repeats.dtype.numpy))


@parses("diag(Tensor input, int diagonal=0, *, Tensor out=None)")
def diag(input, diagonal=0):
    """A 1-d tensor on a diagonal of a square matrix, or a copy of a matrix's diagonal (see torch.diag)."""
    if input.ndim == 1:
        return _diag_embedded(input, diagonal, 0, 1)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return Diag.apply(input, diagonal=diagonal)


@parses("diag_embed(Tensor input, int offset=0, int dim1=-2, int dim2=-1)")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (in dims dim1, dim2) with the last dim of ``input`` on a diagonal (see torch.diag_embed)."""
    first, second = wrap_dim(dim1, input.ndim + 1), wrap_dim(dim2, input.ndim + 1)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _diag_embedded(input, offset, first, second)


def _diag_embedded(input, offset, dim1, dim2):
    size = (input.shape[-1] if input.ndim else 1) + abs(offset)
    shape = list(input.shape[:-1])
    for dim in sorted((dim1, dim2)):
        shape.insert(dim, size)
    check_storage_size(shape, input.dtype.itemsize)
    return DiagEmbed.apply(input, offset=offset, dim1=dim1, dim2=dim2)


@parses("tril(Tensor input, SymInt diagonal=0, *, Tensor out=None)")
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (see torch.tril)."""
    return Tril.apply(_matrices(input, "tril"), diagonal=diagonal)


@parses("triu(Tensor input, SymInt diagonal=0, *, Tensor out=None)")
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (see torch.triu)."""
    return Triu.apply(_matrices(input, "triu"), diagonal=diagonal)


def _matrices(input, name):
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return input


class JoiningMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    flip = tensor_method(flip)
    def fliplr(self):
        return fliplr.__wrapped__(self)
    def flipud(self):
        return flipud.__wrapped__(self)
    roll = tensor_method(roll)
    rot90 = tensor_method(rot90)
    repeat = tensor_method(repeat, "repeat(SymInt[] repeats)")
    tile = tensor_method(tile, "tile(SymInt[] dims)")
    repeat_interleave = tensor_method(repeat_interleave)
    diag = tensor_method(diag)
    diag_embed = tensor_method(diag_embed)
    tril = tensor_method(tril)
    triu = tensor_method(triu)
    @parses_method("tril_(SymInt diagonal=0)")
    def tril_(self, diagonal=0):
        return Tril.apply_(_matrices(self, "tril"), diagonal=diagonal)
    @parses_method("triu_(SymInt diagonal=0)")
    def triu_(self, diagonal=0):
        return Triu.apply_(_matrices(self, "triu"), diagonal=diagonal)
