"""Views of parts of a tensor: pieces along a dim (unbind, split, chunk, tensor_split, narrow, select) and
sliding windows (unfold). Several pieces come from one op and share its node, as in PyTorch."""

from itertools import accumulate

from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad.ops._op import SHAPE, Op
from ndgrad.ops.joining import cat, stack
from ndgrad.ops.shape import Select, Slice, wrap_dim

__all__ = [
    "unbind", "split", "split_with_sizes", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "narrow", "select",
]


# ---- ops -------------------------------------------------------------------------------------------------------
class Unfold(Op):
    """Tensor.unfold: windows of ``size`` elements, every ``step`` along ``dimension``, as a new last dim."""

    name, family = "unfold", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, dimension, size, step):
        if x.ndim == 0:
            return xp.lib.stride_tricks.as_strided(x, (size,), (x.itemsize,))
        count = (x.shape[dimension] - size) // step + 1
        shape = x.shape[:dimension] + (count,) + x.shape[dimension + 1 :] + (size,)
        stride = x.strides[dimension]
        strides = x.strides[:dimension] + (stride * step,) + x.strides[dimension + 1 :] + (stride,)
        return xp.lib.stride_tricks.as_strided(x, shape, strides)

    formula = "grad_self = the windows of grad added back into self's shape"
    @staticmethod
    def vjp(ctx, grad):
        return (UnfoldBackward.apply(grad, shape=ctx.input_shapes[0], dimension=ctx.dimension, size=ctx.size,
                                     step=ctx.step),)

    @staticmethod
    def jvp(ctx, x_t):
        return Unfold.apply(x_t, dimension=ctx.dimension, size=ctx.size, step=ctx.step)


class UnfoldBackward(Op):
    """The gradient of unfold: each window's gradient added back where the window came from."""

    @staticmethod
    def forward(xp, grad, shape, dimension, size, step):
        if not shape:
            return grad.sum()
        result = xp.zeros(shape, dtype=grad.dtype)
        count = grad.shape[dimension]
        for k in range(size):  # the k-th element of every window: one strided slice, without overlaps
            window = [slice(None)] * len(shape)
            window[dimension] = slice(k, k + step * (count - 1) + 1, step)
            result[tuple(window)] += grad[..., k]
        return result

    formula = "grad_grad = grad.unfold(dimension, size, step)"
    @staticmethod
    def vjp(ctx, grad):
        return (Unfold.apply(grad, dimension=ctx.dimension, size=ctx.size, step=ctx.step),)

    @staticmethod
    def jvp(ctx, grad_t):
        return UnfoldBackward.apply(grad_t, shape=ctx.shape, dimension=ctx.dimension, size=ctx.size, step=ctx.step)


class Unbind(Op):
    """torch.unbind: every index along ``dim``, as several views that share one node."""

    name, family = "unbind", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, dim):
        return tuple(x[(slice(None),) * dim + (i, Ellipsis)] for i in range(x.shape[dim]))

    formula = "grad_self = stack(grads, dim)"
    @staticmethod
    def vjp(ctx, *grads):
        return (stack(grads, ctx.dim),)

    @staticmethod
    def jvp(ctx, x_t):
        return Unbind.apply(x_t, dim=ctx.dim)


class Split(Op):
    """torch.split into pieces of ``split_size`` (the last may be shorter), as views that share one node."""

    name, family = "split", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, split_size, dim):
        size = x.shape[dim]
        starts = range(0, size, split_size) if size else (0,)
        return tuple(x[(slice(None),) * dim + (slice(start, start + split_size),)] for start in starts)

    formula = "grad_self = cat(grads, dim)"
    @staticmethod
    def vjp(ctx, *grads):
        return (cat(grads, ctx.dim),)

    @staticmethod
    def jvp(ctx, x_t):
        return Split.apply(x_t, split_size=ctx.split_size, dim=ctx.dim)


class SplitWithSizes(Split):
    """torch.split into pieces of the given sizes; PyTorch names its node apart."""

    name = "split"
    node_name = "SplitWithSizesBackward0"

    @staticmethod
    def forward(xp, x, split_sizes, dim):
        bounds = list(accumulate(split_sizes, initial=0))
        return tuple(x[(slice(None),) * dim + (slice(start, stop),)] for start, stop in zip(bounds, bounds[1:]))

    @staticmethod
    def jvp(ctx, x_t):
        return SplitWithSizes.apply(x_t, split_sizes=ctx.split_sizes, dim=ctx.dim)


# ---- the functions users call ----------------------------------------------------------------------------------
def unfold(input, dimension, size, step):
    """Windows of ``size`` every ``step`` along ``dimension``, as a view (see torch.Tensor.unfold)."""
    dimension = wrap_dim(dimension, input.ndim)
    length = input.shape[dimension] if input.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dimension} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(input, dimension=dimension, size=size, step=step)


@parses("unbind(Tensor input, int dim=0)")
def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of views (see torch.unbind)."""
    dim = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return Unbind.apply(input, dim=dim)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` each, or of the given sizes, along ``dim``, as views (see torch.split, whose Python
    this mirrors: it calls the tensor's method)."""
    return tensor.split(split_size_or_sections, dim)


@parses("split(Tensor input, SymInt split_size, int dim=0)",
        "split(Tensor input, SymInt[] split_size, int dim=0)")
def _split(tensor, split_size, dim=0):
    if not isinstance(split_size, int):
        return split_with_sizes(tensor, split_size, dim)
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, tensor.ndim)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and tensor.shape[dim]:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {tensor.shape[dim]}"
        )
    return Split.apply(tensor, split_size=split_size, dim=dim)


@parses("split_with_sizes(Tensor input, SymInt[] split_sizes, int dim=0)")
def split_with_sizes(input, split_sizes, dim=0):
    """Pieces of the given sizes along ``dim``, as views (see torch.split_with_sizes)."""
    split_sizes = tuple(int(s) for s in split_sizes)
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, input.ndim)
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={list(split_sizes)}"
        )
    if sum(split_sizes) != input.shape[dim]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {input.shape[dim]} (input tensor's size at "
            f"dimension {dim}), but got split_sizes={list(split_sizes)}"
        )
    return SplitWithSizes.apply(input, split_sizes=split_sizes, dim=dim)


@parses("chunk(Tensor input, int chunks, int dim=0)")
def chunk(input, chunks, dim=0):
    """At most ``chunks`` pieces of equal size (the last may be smaller), as views (see torch.chunk)."""
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if size == 0:  # a split of size 0 would give one piece, not ``chunks`` empty ones
        return split_with_sizes(input, (0,) * chunks, dim)
    return split(input, -(-size // chunks), dim)


@parses("tensor_split(Tensor input, SymInt[] indices, int dim=0)",
        "tensor_split(Tensor input, Tensor tensor_indices_or_sections, int dim=0)",
        "tensor_split(Tensor input, SymInt sections, int dim=0)")
def tensor_split(input, indices_or_sections, dim=0):
    """Pieces from a number of sections or a list of split indices, as views (see torch.tensor_split)."""
    if input.ndim == 0:
        raise RuntimeError(
            f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with {input.ndim} dims"
        )
    if hasattr(indices_or_sections, "_data"):
        indices_or_sections = _split_indices_tensor(indices_or_sections)
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        lengths = [size // sections + (i < size % sections) for i in range(sections)]
        bounds = list(accumulate(lengths, initial=0))
    else:
        bounds = [0, *indices_or_sections, size]
    return tuple(
        Slice.apply(input, dim=dim, start=start, stop=stop, step=1)
        for start, stop, _ in (slice(a, b).indices(size) for a, b in zip(bounds, bounds[1:]))
    )


def _split_indices_tensor(tensor):
    if tensor.dtype.name != "int64":
        raise RuntimeError(
            f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got {tensor.dtype.title}"
        )
    if tensor.ndim > 1:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, "
            f"but got a tensor with {tensor.ndim} dims"
        )
    return tensor.tolist()


def _split_along(name, input, indices_or_sections, least, dim):
    """hsplit, vsplit, dsplit: tensor_split along one dim, where a number of sections must divide it evenly."""
    if input.ndim < least:
        raise RuntimeError(
            f"ndgrad.{name} requires a tensor with at least {least} dimension, but got a tensor with {input.ndim} "
            "dimensions!"
        )
    if isinstance(indices_or_sections, int) and input.shape[dim] % indices_or_sections:
        raise RuntimeError(
            f"ndgrad.{name} attempted to split along dimension {dim}, but the size of the dimension "
            f"{input.shape[dim]} is not divisible by the split_size {indices_or_sections}!"
        )
    return tensor_split(input, indices_or_sections, dim)


@parses("hsplit(Tensor input, int sections)",
        "hsplit(Tensor input, int[] indices)")
def hsplit(input, indices_or_sections):
    """tensor_split along dim 1 (dim 0 of a 1-d tensor) (see torch.hsplit)."""
    return _split_along("hsplit", input, indices_or_sections, 1, 0 if input.ndim == 1 else 1)


@parses("vsplit(Tensor input, int sections)",
        "vsplit(Tensor input, int[] indices)")
def vsplit(input, indices_or_sections):
    """tensor_split along dim 0 of a tensor with at least 2 dims (see torch.vsplit)."""
    return _split_along("vsplit", input, indices_or_sections, 2, 0)


@parses("dsplit(Tensor input, int sections)",
        "dsplit(Tensor input, int[] indices)")
def dsplit(input, indices_or_sections):
    """tensor_split along dim 2 of a tensor with at least 3 dims (see torch.dsplit)."""
    return _split_along("dsplit", input, indices_or_sections, 3, 2)


@parses("narrow(Tensor input, int dim, Tensor start, SymInt length)",
        "narrow(Tensor input, int dim, SymInt start, SymInt length)")
def narrow(input, dim, start, length):
    """A view of ``length`` elements from ``start`` along ``dim`` (see torch.narrow)."""
    if hasattr(start, "_data"):  # the Tensor overload's check comes first
        if start.ndim or start.dtype._category != 1:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return Slice.apply(input, dim=dim, start=start, stop=start + length, step=1)


@parses("select(Tensor input, int dim, SymInt index)")
def select(input, dim, index):
    """A view of ``input`` at ``index`` along ``dim``, without that dim (see torch.select)."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size [{', '.join(map(str, input.shape))}] at "
            f"dimension {dim}"
        )
    return Select.apply(input, dim=dim, index=index % size)


class SplittingMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    @parses_method("unfold(int dimension, int size, int step)")
    def unfold(self, dimension, size, step):
        return unfold(self, dimension, size, step)
    unbind = tensor_method(unbind)
    def split(self, split_size, dim=0):
        """Tensor.split's Python: an int (a one-element tensor counts) splits evenly, anything else by sizes."""
        from ndgrad._tensor import Tensor

        if isinstance(split_size, Tensor):
            try:
                split_size = int(split_size)
            except ValueError:
                pass
        if isinstance(split_size, int):
            return _split(self, split_size, dim)
        return split_with_sizes(self, split_size, dim)
    split_with_sizes = tensor_method(split_with_sizes)
    chunk = tensor_method(chunk)
    tensor_split = tensor_method(tensor_split)
    hsplit = tensor_method(hsplit)
    vsplit = tensor_method(vsplit)
    dsplit = tensor_method(dsplit)
    narrow = tensor_method(narrow)
    select = tensor_method(select)
