"""Shape ops: views (view, transpose, permute, squeeze, expand, basic indexing), copies, and dtype/device moves.

Views share memory with their input, as in PyTorch; their vjps are views or sums of the incoming gradient.
"""


import numpy as np

from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad._device import to_device
from ndgrad._dtype import legacy_type_name
from ndgrad._warnings import warn
from ndgrad.ops._arrays import xp_of
from ndgrad.ops._broadcast import sum_array_to, sum_to
from ndgrad.ops._op import SHAPE, Op

__all__ = [
    "view", "reshape", "flatten", "transpose", "permute", "t", "squeeze", "unsqueeze", "expand", "clone",
    "broadcast_to", "swapaxes", "swapdims", "adjoint", "movedim", "moveaxis", "unflatten", "ravel", "diagonal",
]


def wrap_dim(dim, ndim):
    """A dim in [-ndim, ndim) as a non-negative index, or PyTorch's IndexError."""
    bound = ndim if ndim else 1  # a 0-d tensor accepts dim 0 and -1
    if not -bound <= dim < bound:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})"
        )
    return dim % bound


def normalize_dims(dim, ndim):
    """An int or a sequence of dims as a sorted tuple of non-negative dims."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    wrapped = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        repeated = next(d for d in wrapped if wrapped.count(d) > 1)
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    return tuple(sorted(wrapped)) if ndim else ()


# ---- views -----------------------------------------------------------------------------------------------------
class View(Op):
    """Tensor.view: the same elements in a new shape, without copying."""

    name, family = "view", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, shape):
        return xp.reshape(x, shape, copy=False)

    formula = "grad_self = grad.reshape(self.shape)"
    @staticmethod
    def vjp(ctx, grad):
        return (grad.reshape(ctx.input_shapes[0]),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (grad.reshape(ctx.input_shapes[0]),)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t.reshape(ctx.shape)  # a view of the tangent where its layout allows, as the primal is


class ViewDtype(Op):
    """Tensor.view(dtype): the same memory read as another dtype, the last dim scaled by the ratio of the element
    sizes. Not differentiable (PyTorch records nothing), and a view PyTorch rebuilds by replaying it."""

    is_view = True
    replayed_view = True
    differentiable = False

    @staticmethod
    def forward(xp, x, dtype):
        return x.view(dtype)


class ReshapeAlias(View):
    """The reshape of a non-contiguous tensor that can still be a view; PyTorch names it apart."""

    name = None


class UnsafeView(View):
    """The reshape that follows a copy (reshape of a non-contiguous tensor); PyTorch names it apart."""

    name = None
    is_view = False


class Alias(Op):
    """``x[...]``: a new tensor object viewing all of x."""

    is_view = True

    @staticmethod
    def forward(xp, x):
        return x.view()

    formula = "grad_self = grad"
    @staticmethod
    def vjp(ctx, grad):
        return (grad,)

    @staticmethod
    def jvp(ctx, x_t):
        return Alias.apply(x_t)


class Transpose(Op):
    """torch.transpose: swap two dims."""

    name, family = "transpose", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, dim0, dim1):
        return xp.swapaxes(x, dim0, dim1) if x.ndim else x.view()  # a 0-d tensor accepts dims 0 and -1

    formula = "grad_self = grad.transpose(dim0, dim1)"
    @staticmethod
    def vjp(ctx, grad):
        return (grad.transpose(ctx.dim0, ctx.dim1),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (grad.swapaxes(ctx.dim0, ctx.dim1) if grad.ndim else grad,)

    @staticmethod
    def jvp(ctx, x_t):
        return Transpose.apply(x_t, dim0=ctx.dim0, dim1=ctx.dim1)


class T(Op):
    """Tensor.t: transpose of a tensor with at most 2 dims."""

    name, family = "t", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x):
        return x.T

    formula = "grad_self = grad.t()"
    @staticmethod
    def vjp(ctx, grad):
        return (grad.t(),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (grad.T,)

    @staticmethod
    def jvp(ctx, x_t):
        return T.apply(x_t)


class Permute(Op):
    """torch.permute: reorder dims."""

    name, family = "permute", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, dims):
        return xp.transpose(x, dims)

    formula = "grad_self = grad.permute(inverse of dims)"
    @staticmethod
    def vjp(ctx, grad):
        return (grad.permute(np.argsort(ctx.dims).tolist()),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (grad.transpose(np.argsort(ctx.dims).tolist()),)

    @staticmethod
    def jvp(ctx, x_t):
        return Permute.apply(x_t, dims=ctx.dims)


class Squeeze(Op):
    """torch.squeeze with no dim: drop every size-1 dim."""

    name, family = "squeeze", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x):
        return xp.squeeze(x)

    formula = "grad_self = grad.reshape(self.shape)"
    @staticmethod
    def vjp(ctx, grad):
        return (grad.reshape(ctx.input_shapes[0]),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (grad.reshape(ctx.input_shapes[0]),)

    @staticmethod
    def jvp(ctx, x_t):
        return Squeeze.apply(x_t)


class SqueezeDim(Squeeze):
    """torch.squeeze with one dim: drop it if it has size 1."""

    name = "squeeze"
    node_name = "SqueezeBackward1"

    @staticmethod
    def forward(xp, x, dims):
        return xp.squeeze(x, axis=tuple(d for d in dims if x.shape[d] == 1))

    @staticmethod
    def jvp(ctx, x_t):
        return SqueezeDim.apply(x_t, dims=ctx.dims)


class SqueezeDims(SqueezeDim):
    """torch.squeeze with a tuple of dims: drop those of them that have size 1; PyTorch names its node apart."""

    name = "squeeze"
    node_name = "SqueezeBackward2"


class SqueezeInplace(SqueezeDim):
    """The squeeze_ that matmul of a vector and a matrix ends with; PyTorch names its node SqueezeBackward4."""

    name = None
    node_name = "SqueezeBackward4"


class Unsqueeze(Op):
    """torch.unsqueeze: insert a size-1 dim."""

    name, family = "unsqueeze", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, dim):
        return xp.expand_dims(x, dim)

    formula = "grad_self = grad.squeeze(dim)"
    @staticmethod
    def vjp(ctx, grad):
        return (grad.squeeze(ctx.dim),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (grad.reshape(ctx.input_shapes[0]),)

    @staticmethod
    def jvp(ctx, x_t):
        return Unsqueeze.apply(x_t, dim=ctx.dim)


class Expand(Op):
    """Tensor.expand: broadcast to a larger shape without copying."""

    name, family = "expand", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, shape):
        # NOTE: as_strided, not broadcast_to's read-only array: an expand that repeats no element (to the same
        # shape, or adding dims of size 1) takes in-place writes, as in PyTorch (see ops._op._check_overlap)
        return xp.lib.stride_tricks.as_strided(x, shape, _expanded_strides(x, shape))

    formula = "grad_self = grad summed down to self's shape"
    @staticmethod
    def vjp(ctx, grad):
        return (sum_to(grad, ctx.input_shapes[0]),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (sum_array_to(grad, ctx.input_shapes[0]),)

    @staticmethod
    def jvp(ctx, x_t):
        return Expand.apply(x_t, shape=ctx.shape)


def _expanded_strides(x, shape):
    """PyTorch's strides for x expanded to ``shape``: 0 where a dim grows from size 1 (or is new and larger); a new
    dim of size 1 steps over the dims after it (which decides whether two tensors cover memory in the same way)."""
    strides = [0] * len(shape)
    lead = len(shape) - x.ndim
    for i in reversed(range(len(shape))):
        if i >= lead:
            strides[i] = x.strides[i - lead] if x.shape[i - lead] == shape[i] else 0
        elif shape[i] == 1 and i + 1 < len(shape):  # (the last dim is new only if x is 0-d: stride 0)
            strides[i] = shape[i + 1] * strides[i + 1]
    return tuple(strides)


class Select(Op):
    """torch.select and ``x[i]``: index ``index`` along ``dim``, which the result drops."""

    name, family = "select", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, dim, index):
        return x[(slice(None),) * dim + (index, Ellipsis)]  # the Ellipsis keeps a 0-d result a view, not a copy

    formula = "grad_self = zeros(self.shape) with grad at [dim: index]"
    @staticmethod
    def vjp(ctx, grad):
        return (_embed(grad, ctx.input_shapes[0], (slice(None),) * ctx.dim + (ctx.index,)),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        index = (slice(None),) * ctx.dim + (ctx.index,)
        return (IndexBackward.forward(xp_of(grad), grad, ctx.input_shapes[0], index),)

    @staticmethod
    def jvp(ctx, x_t):
        return Select.apply(x_t, dim=ctx.dim, index=ctx.index)


class Slice(Op):
    """``x[start:stop:step]`` along one dim."""

    is_view = True

    @staticmethod
    def forward(xp, x, dim, start, stop, step):
        return x[(slice(None),) * dim + (slice(start, stop, step),)]

    formula = "grad_self = zeros(self.shape) with grad at [dim: start:stop:step]"
    @staticmethod
    def vjp(ctx, grad):
        index = (slice(None),) * ctx.dim + (slice(ctx.start, ctx.stop, ctx.step),)
        return (_embed(grad, ctx.input_shapes[0], index),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        index = (slice(None),) * ctx.dim + (slice(ctx.start, ctx.stop, ctx.step),)
        return (IndexBackward.forward(xp_of(grad), grad, ctx.input_shapes[0], index),)

    @staticmethod
    def jvp(ctx, x_t):
        return Slice.apply(x_t, dim=ctx.dim, start=ctx.start, stop=ctx.stop, step=ctx.step)


class IndexBackward(Op):
    """The gradient of basic indexing: zeros of the input's shape with ``grad`` written at ``index``.

    Its own gradient is the indexing again, so second derivatives through x[i] work.
    """

    @staticmethod
    def forward(xp, grad, shape, index):
        result = xp.zeros(shape, dtype=grad.dtype)
        result[index] = grad
        return result

    formula = "grad_grad = grad[index]"
    @staticmethod
    def vjp(ctx, grad):
        from ndgrad.ops.indexing import getitem  # indexing builds on this module's view ops

        return (getitem(grad, ctx.index),)

    @staticmethod
    def jvp(ctx, grad_t):
        return IndexBackward.apply(grad_t, shape=ctx.shape, index=ctx.index)


def keeps_whole_dim(item, size):
    """Whether PyTorch skips this slice inside an index tuple: it judges the slice as written, so ``0:``, ``:9``
    on a dim of 4 are skipped but ``-4:`` is not."""
    return item.start in (None, 0) and item.step in (None, 1) and (item.stop is None or item.stop >= size)


def _embed(grad, shape, index):
    return IndexBackward.apply(grad, shape=shape, index=index)


# ---- diagonals -------------------------------------------------------------------------------------------------
class Diagonal(Op):
    """torch.diagonal: the diagonal of dims dim1 and dim2 (shifted by offset), as a new last dim."""

    name, family = "diagonal", SHAPE
    is_view = True

    @staticmethod
    def forward(xp, x, offset, dim1, dim2):
        corner = [slice(None)] * x.ndim
        corner[dim2 if offset >= 0 else dim1] = slice(abs(offset), None)
        start = x[tuple(corner)]
        size = min(start.shape[dim1], start.shape[dim2])
        rest = [i for i in range(x.ndim) if i not in (dim1, dim2)]
        shape = tuple(x.shape[i] for i in rest) + (size,)
        strides = tuple(x.strides[i] for i in rest) + (x.strides[dim1] + x.strides[dim2],)
        # NOTE: as_strided, not xp.diagonal: NumPy's diagonal is read-only, and a view must take in-place writes.
        return xp.lib.stride_tricks.as_strided(start, shape, strides)

    formula = "grad_self = zeros(self.shape) with grad on the diagonal (offset, dim1, dim2)"
    @staticmethod
    def vjp(ctx, grad):
        return (diagonal_backward(grad, ctx.input_shapes[0], ctx.offset, ctx.dim1, ctx.dim2),)

    @staticmethod
    def jvp(ctx, x_t):
        return Diagonal.apply(x_t, offset=ctx.offset, dim1=ctx.dim1, dim2=ctx.dim2)


class DiagonalBackward(Op):
    """The gradient of a diagonal: zeros of the input's shape with ``grad`` on the diagonal."""

    @staticmethod
    def forward(xp, grad, shape, offset, dim1, dim2):
        result = xp.zeros(shape, dtype=grad.dtype)
        Diagonal.forward(xp, result, offset, dim1, dim2)[...] = grad
        return result

    formula = "grad_grad = grad.diagonal(offset, dim1, dim2)"
    @staticmethod
    def vjp(ctx, grad):
        return (Diagonal.apply(grad, offset=ctx.offset, dim1=ctx.dim1, dim2=ctx.dim2),)

    @staticmethod
    def jvp(ctx, grad_t):
        return diagonal_backward(grad_t, ctx.shape, ctx.offset, ctx.dim1, ctx.dim2)


def diagonal_backward(grad, shape, offset, dim1, dim2):
    return DiagonalBackward.apply(grad, shape=shape, offset=offset, dim1=dim1, dim2=dim2)


# ---- copies ----------------------------------------------------------------------------------------------------
class Clone(Op):
    """torch.clone: a copy with its own memory."""

    name, family = "clone", SHAPE

    @staticmethod
    def forward(xp, x):
        return x.copy()

    formula = "grad_self = grad"
    @staticmethod
    def vjp(ctx, grad):
        return (grad,)

    vjp_arrays = vjp  # the same rule on arrays

    @staticmethod
    def jvp(ctx, x_t):
        return Clone.apply(x_t)


class ToCopy(Op):
    """Tensor.to: a copy in another dtype and/or on another device."""

    @staticmethod
    def forward(xp, x, dtype, device, input_device):  # input_device: where vjp sends the gradient back
        moved = to_device(x, device)
        fresh = moved is not x  # a copy across devices is already a new array: no second copy for the dtype
        if moved.dtype.kind == "c" and dtype.numpy.kind in "fiuV":
            moved = moved.real  # what NumPy's cast keeps too, without its warning (to_copy gives PyTorch's)
        return moved.astype(dtype.numpy, copy=not fresh)

    formula = "grad_self = grad.to(self.dtype)  (the real part for a real self)"
    @staticmethod
    def vjp(ctx, grad):
        dtype = ctx.input_dtypes[0]
        # a real input's gradient: the real part
        return ((grad if dtype.is_complex else grad.real).to(device=ctx.input_device, dtype=dtype),)

    @staticmethod
    def jvp(ctx, x_t):
        return ToCopy.apply(x_t if ctx.dtype.is_complex else x_t.real, dtype=ctx.dtype, device=ctx.device,
                            input_device=ctx.input_device)


# ---- the functions users call ----------------------------------------------------------------------------------
def _size_args(shape):
    """A size or dims argument (a list, tuple or Size of ints: the parser turned ``view(2, 3)`` into one) as a
    tuple."""
    return tuple(int(s) for s in shape)


def _infer_shape(shape, numel):
    shape = _size_args(shape)
    unknown = []
    for index, size in enumerate(shape):  # in order, as PyTorch reads them
        if size == -1 and unknown:
            raise RuntimeError("only one dimension can be inferred")
        if size == -1:
            unknown.append(index)
        elif size < 0:
            raise RuntimeError(f"invalid shape dimension {size} at index {index} of shape "
                               f"[{', '.join(map(str, shape))}]")
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if unknown:
        if known == 0 and numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape [{', '.join(map(str, shape))}] because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


def view(input, shape):
    """The same data in a new shape, or read as another dtype; fails if that needs a copy (see
    torch.Tensor.view)."""
    from ndgrad._dtype import dtype

    if type(shape) is dtype:
        return _view_dtype(input, shape)
    shape = _infer_shape(shape, input.numel())
    try:
        return View.apply(input, shape=shape)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            "two contiguous subspaces). Use .reshape(...) instead."
        ) from None


def _view_dtype(input, dtype):
    """PyTorch's checks of a view as ``dtype``: elements of another size need a last dim of unit stride (and, to
    grow, a size, other strides and an offset divisible by the ratio)."""
    if getattr(input, "_conj_bit", False):
        raise RuntimeError("ndgrad.Tensor.view is not supported for conjugate view tensors when converting to a "
                           "different dtype.")
    old, new = input.dtype.itemsize, dtype.itemsize
    if old != new:
        what = f"to view {input.dtype.title} as {dtype.title} (different element sizes)"
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        strides = input.stride() if input.numel() else (1,) * input.ndim  # NumPy's strides of no elements are any
        if old < new:
            ratio = new // old
            if input.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {input.shape[-1]}")
            offset = _storage_offset(input._data)
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        for dim, stride in enumerate(strides[:-1] if old < new else ()):
            if stride % (new // old):
                raise RuntimeError(f"self.stride({dim}) must be divisible by {new // old} {what}, but got {stride}")
    return ViewDtype.apply(input, dtype=dtype.numpy)


def _storage_offset(array):
    """Where ``array`` starts in the memory it views, in elements."""
    root = array
    while getattr(root, "base", None) is not None and hasattr(root.base, "shape"):
        root = root.base
    if hasattr(array, "__array_interface__"):
        start, origin = array.__array_interface__["data"][0], root.__array_interface__["data"][0]
    else:  # a GPU array: its pointer, and that of the memory it was allocated in
        start, origin = array.data.ptr, array.data.mem.ptr
    return (start - origin) // array.itemsize


@parses("reshape(Tensor input, SymInt[] shape)")
def reshape(input, shape):
    """A view when the layout allows, else a copy (see torch.reshape)."""
    shape = _infer_shape(shape, input.numel())
    if input._data.flags.c_contiguous:
        return View.apply(input, shape=shape)
    try:
        return ReshapeAlias.apply(input, shape=shape)
    except ValueError:
        return UnsafeView.apply(clone(input), shape=shape)


@parses("flatten(Tensor input, int start_dim=0, int end_dim=-1)")
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one (see torch.flatten)."""
    if input.ndim == 0:
        return reshape(input, (1,))
    start, end = wrap_dim(start_dim, input.ndim), wrap_dim(end_dim, input.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input.shape
    return reshape(input, shape[:start] + (-1,) + shape[end + 1 :])


@parses("transpose(Tensor input, int dim0, int dim1)")
def transpose(input, dim0, dim1):
    ndim = input.ndim
    return Transpose.apply(input, dim0=wrap_dim(dim0, ndim), dim1=wrap_dim(dim1, ndim))


@parses("t(Tensor input)")
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return T.apply(input)


@parses("permute(Tensor input, int[] dims)")
def permute(input, dims):
    dims = _size_args(dims)
    if len(dims) != input.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            f"ordering of dimensions i.e. input.dim() = {input.ndim} is not equal to len(dims) = {len(dims)}"
        )
    wrapped = tuple(wrap_dim(d, input.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, dims=wrapped)


def reverse_dims(input):
    """Tensor.T: all dims in reverse order."""
    if input.ndim == 0:
        warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning,
        )
    elif input.ndim != 2:
        warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
            "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
            "`x.permute(*ndgrad.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
            UserWarning,
        )
    return Permute.apply(input, dims=tuple(range(input.ndim - 1, -1, -1)))


def conjugate_transpose(input):
    """Tensor.H: the conjugate transpose of a matrix."""
    if input.ndim == 0:
        warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning)
        return input.conj()
    if input.ndim != 2:
        advice = " For batches of matrices, consider using tensor.mH" if input.ndim > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {input.ndim}-D tensor.{advice}"
        )
    return transpose(input, 0, 1).conj()


@parses("squeeze(Tensor input)",
        "squeeze(Tensor input, int dim)",
        "squeeze(Tensor input, int[] dim)")
def squeeze(input, dim=None):
    if dim is None:
        return Squeeze.apply(input)
    return (SqueezeDim if isinstance(dim, int) else SqueezeDims).apply(input, dims=normalize_dims(dim, input.ndim))


@parses("unsqueeze(Tensor input, int dim)")
def unsqueeze(input, dim):
    return Unsqueeze.apply(input, dim=wrap_dim(dim, input.ndim + 1))


def expand(input, sizes):
    """Broadcast to ``sizes`` (-1 keeps a dim) without copying (see torch.Tensor.expand)."""
    return Expand.apply(input, shape=expanded_shape(input, sizes))


def expanded_shape(input, sizes, type_name=None):
    """The shape ``input.expand(sizes)`` has, or PyTorch's error; dims are matched from the last, as PyTorch does.
    ``type_name``: how the error names input's type where PyTorch's C++ names it otherwise ("CPUBoolType")."""
    sizes, shape = _size_args(sizes), input.shape
    if len(sizes) < len(shape):
        type_name = type_name or legacy_type_name(input.dtype, input.device.type)
        raise RuntimeError(
            f"expand({type_name}{{[{', '.join(map(str, shape))}]}}, "
            f"size=[{', '.join(map(str, sizes))}]): "
            "the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    lead, target = len(sizes) - len(shape), list(sizes)
    for i in range(len(sizes) - 1, -1, -1):
        size = shape[i - lead] if i >= lead else 1
        if target[i] == -1 and shape:  # a 0-d tensor takes -1 as a size, which fails below as PyTorch's does
            if i < lead:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            target[i] = size
        if size != target[i] and size != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[i]}) must match the existing size ({size}) at "
                f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                f"Tensor sizes: [{', '.join(map(str, shape))}]"
            )
    if any(size < 0 for size in target):
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(target)


@parses("broadcast_to(Tensor input, SymInt[] size)")
def broadcast_to(input, size):
    """``input`` broadcast to ``size`` without copying (see torch.broadcast_to)."""
    return expand(input, size)


@parses("swapaxes(Tensor input, int axis0, int axis1)")
def swapaxes(input, axis0, axis1):
    """Swap two dims; NumPy's name for transpose (see torch.swapaxes)."""
    return transpose(input, axis0, axis1)


@parses("swapdims(Tensor input, int dim0, int dim1)")
def swapdims(input, dim0, dim1):
    """Swap two dims (see torch.swapdims)."""
    return transpose(input, dim0, dim1)


@parses("adjoint(Tensor input)")
def adjoint(input):
    """The conjugate transpose of the last two dims (see torch.adjoint)."""
    return _matrix_transpose(input, "adjoint()", "tensor.adjoint()", conjugate=True)


def _matrix_transpose(input, name, spelled, conjugate=False):
    """mT, mH and adjoint: the last two dims swapped (and conjugated for mH and adjoint); 0-d tensors pass through
    with PyTorch's warning."""
    if input.ndim == 0:
        advice = "This function is the identity in these cases." if name == "Tensor.mT" else "Consider using x.conj()."
        warn(f"{name} is deprecated on 0-D tensors. {advice}", UserWarning)
        return input.conj() if conjugate else input
    if input.ndim < 2:
        raise RuntimeError(f"{spelled} is only supported on matrices or batches of matrices. Got 1-D tensor.")
    result = transpose(input, -2, -1)
    return result.conj() if conjugate else result


@parses("movedim(Tensor input, int source, int destination)",
        "movedim(Tensor input, int[] source, int[] destination)")
def movedim(input, source, destination):
    """Move dims from ``source`` to ``destination`` positions, keeping the others in order (see torch.movedim)."""
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({source} dims) should contain the same number "
            f"of dims as destination ({destination} dims)"
        )
    ndim = input.ndim
    wrapped_source = [wrap_dim(d, ndim) for d in source]
    wrapped_destination = [wrap_dim(d, ndim) for d in destination]
    for dims, wrapped, which in ((source, wrapped_source, "source"), (destination, wrapped_destination, "destination")):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{which}` ({dims})")
    order = [None] * max(ndim, 1)
    for s, d in zip(wrapped_source, wrapped_destination):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in wrapped_source)
    order = tuple(next(rest) if d is None else d for d in order)[:ndim]
    return Permute.apply(input, dims=order)


@parses("moveaxis(Tensor input, int source, int destination)",
        "moveaxis(Tensor input, int[] source, int[] destination)")
def moveaxis(input, source, destination):
    """NumPy's name for movedim (see torch.moveaxis)."""
    return movedim(input, source, destination)


@parses("unflatten(Tensor input, int dim, SymInt[] sizes)")
def unflatten(input, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (one may be -1) (see torch.unflatten)."""
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if input.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    known = int(np.prod([s for s in sizes if s != -1], dtype=np.int64))
    if -1 in sizes and known == size == 0:
        raise RuntimeError(
            f"unflatten got an unexpected error:\ncannot reshape tensor of 0 elements into shape {list(sizes)} because "
            "the unspecified dimension size -1 can be any value and is ambiguous"
        )
    if (-1 in sizes and (known == 0 or size % known)) or (-1 not in sizes and known != size):
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({size}) in the "
            "input tensor"
        )
    sizes = tuple(size // known if s == -1 else s for s in sizes)  # inferred within the dim, not the whole shape
    return view(input, input.shape[:dim] + sizes + input.shape[dim + 1 :])


@parses("ravel(Tensor input)")
def ravel(input):
    """All elements in one dim: a view of a contiguous input, else a copy (see torch.ravel)."""
    return view(input.contiguous(), (-1,))


@parses("diagonal(Tensor input, int offset=0, int dim1=0, int dim2=1)")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """A view of the diagonal of dims dim1 and dim2, shifted by ``offset`` (see torch.diagonal)."""
    first, second = wrap_dim(dim1, input.ndim), wrap_dim(dim2, input.ndim)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, offset=offset, dim1=first, dim2=second)


@parses("clone(Tensor input, *, MemoryFormat? memory_format=None)")
def clone(input):
    return Clone.apply(input)


def to_copy(input, dtype, device):
    if input.dtype.is_complex and dtype.numpy.kind in "fiuV":  # to bool: whether nonzero, nothing is dropped
        warn_complex_to_real()
    return ToCopy.apply(input, dtype=dtype, device=device, input_device=input.device)


class _Warned:
    complex_to_real = False


def warn_complex_to_real():
    """PyTorch's warning for a cast that drops imaginary parts; like PyTorch's, given once per process."""
    if not _Warned.complex_to_real:
        _Warned.complex_to_real = True
        warn("Casting complex values to real discards the imaginary part", UserWarning)


_unflatten_method = tensor_method(unflatten)


class ShapeMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    reshape = tensor_method(reshape, "reshape(SymInt[] shape)")
    view = tensor_method(view, "view(ScalarType dtype)", "view(SymInt[] size)")
    flatten = tensor_method(flatten)
    transpose = tensor_method(transpose)
    permute = tensor_method(permute)
    def t(self):
        return t.__wrapped__(self)
    @property
    def T(self):
        return reverse_dims(self)
    @property
    def mT(self):
        return _matrix_transpose(self, "Tensor.mT", "tensor.mT")
    @property
    def mH(self):
        return _matrix_transpose(self, "Tensor.mH", "tensor.mH", conjugate=True)
    @property
    def H(self):
        return conjugate_transpose(self)
    def adjoint(self):
        return adjoint.__wrapped__(self)
    squeeze = tensor_method(squeeze)
    unsqueeze = tensor_method(unsqueeze)
    expand = tensor_method(expand, "expand(SymInt[] size, *, bool implicit=False)")
    @parses_method("expand_as(Tensor other)")
    def expand_as(self, other):
        return expand(self, other.shape)
    @parses_method("view_as(Tensor other)")
    def view_as(self, other):
        return view(self, other.shape)
    @parses_method("reshape_as(Tensor other)")
    def reshape_as(self, other):
        return reshape(self, other.shape)
    broadcast_to = tensor_method(broadcast_to)
    swapaxes = tensor_method(swapaxes)
    swapdims = tensor_method(swapdims)
    movedim = tensor_method(movedim)
    @parses_method("moveaxis(int source, int destination)",
                   "moveaxis(int[] source, int[] destination)")
    def moveaxis(self, source, destination):
        return movedim(self, source, destination)
    def unflatten(self, dim, sizes):
        if not sizes:  # Tensor.unflatten's Python, before the parsed method
            raise RuntimeError("unflatten: sizes must be non-empty")
        return _unflatten_method(self, dim, sizes)
    def ravel(self):
        return ravel.__wrapped__(self)
    diagonal = tensor_method(diagonal)
