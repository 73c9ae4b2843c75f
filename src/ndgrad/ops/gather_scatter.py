"""Gather and scatter along a dim: gather, scatter, scatter_add, scatter_reduce, index_select/add/copy/fill.

Index arrays are keyword parameters, never inputs: they have no gradient and must not be promoted.
"""

import numpy as np

from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad._dtype import real_scalar
from ndgrad.ops._broadcast import broadcast_shape
from ndgrad.ops._checks import no_complex_kernel
from ndgrad.ops._op import INDEXING, Op, WithoutDerivative, _mixed_devices
from ndgrad.ops.shape import wrap_dim

__all__ = [
    "gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_copy", "index_fill",
    "take_along_dim",
]


def _zeros(shape, like):
    from ndgrad._creation import zeros

    return zeros(shape, dtype=like.dtype, device=like.device)


def _lifted(x):
    """A 0-d array as 1-d, so that the kernels below can always index a dim (PyTorch treats 0-d as 1-d here)."""
    return x.reshape(1) if getattr(x, "ndim", 1) == 0 else x


def _positions(xp, index, dim):
    """Coordinates of the elements ``index`` points at: the index itself along ``dim``, its own position elsewhere."""
    grid = list(xp.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _along(dim, index):
    return (slice(None),) * dim + (index,)


def _run(cls, inplace, *inputs, **params):
    return cls.apply_(*inputs, **params) if inplace else cls.apply(*inputs, **params)


def _check_bounds(index, size, dim, error=IndexError, prefix="", negative=True):
    outside = (index < (-size if negative else 0)) | (index >= size)
    if outside.any():
        value = int(index[outside].reshape(-1)[0])
        raise error(f"{prefix}index {value} is out of bounds for dimension {dim} with size {size}")


# ---- gather and scatter along a dim ----------------------------------------------------------------------------
class Gather(Op):
    """torch.gather: ``result[i][j] = x[index[i][j]][j]`` for dim 0, and so on."""

    name, family = "gather", INDEXING

    @staticmethod
    def forward(xp, x, dim, index):
        return _lifted(x)[_positions(xp, _lifted(index), dim)].reshape(index.shape)

    formula = "grad_self = zeros(self.shape).scatter_add(dim, index, grad)"
    @staticmethod
    def vjp(ctx, grad):
        return (ScatterAdd.apply(_zeros(ctx.input_shapes[0], grad), grad, dim=ctx.dim, index=ctx.index),)

    @staticmethod
    def jvp(ctx, x_t):
        return Gather.apply(x_t, dim=ctx.dim, index=ctx.index)


def _scattered(xp, x, src, dim, index, combine=None):
    """A copy of x with src's leading part (the index's shape) written, or combined by a ufunc, at ``index``."""
    if not index.size:  # an empty index writes nothing, whatever its dims (PyTorch checks none for it)
        return x.copy()
    out, index = _lifted(x).copy(), _lifted(index)
    if hasattr(src, "shape"):
        src = _lifted(src)[tuple(slice(0, size) for size in index.shape)]
    if combine is None:
        out[_positions(xp, index, dim)] = src
    else:
        combine.at(out, _positions(xp, index, dim), src)
    return out.reshape(x.shape)


class Scatter(Op):
    """torch.scatter with a ``src`` tensor."""

    name, family = "scatter", INDEXING

    @staticmethod
    def forward(xp, x, src, dim, index):
        return _scattered(xp, x, src, dim, index)

    formula = "grad_self = grad.scatter(dim, index, 0); grad_src = grad.gather(dim, index)"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_src = ctx.needs_input_grad
        grad_x = ScatterValue.apply(grad, dim=ctx.dim, index=ctx.index, value=0) if need_x else None
        return grad_x, (Gather.apply(grad, dim=ctx.dim, index=ctx.index) if need_src else None)

    @staticmethod
    def jvp(ctx, x_t, src_t):
        return Scatter.apply(x_t, src_t, dim=ctx.dim, index=ctx.index)


class ScatterValue(Op):
    """torch.scatter with a number ``value``."""

    name, family = "scatter", INDEXING
    node_name = "ScatterBackward1"

    @staticmethod
    def forward(xp, x, dim, index, value):
        return _scattered(xp, x, value, dim, index)

    formula = "grad_self = grad.scatter(dim, index, 0)"
    @staticmethod
    def vjp(ctx, grad):
        return (ScatterValue.apply(grad, dim=ctx.dim, index=ctx.index, value=0),)

    @staticmethod
    def jvp(ctx, x_t):
        return ScatterValue.apply(x_t, dim=ctx.dim, index=ctx.index, value=0)


class ScatterAdd(Op):
    """torch.scatter_add: repeated indices accumulate."""

    name, family = "scatter_add", INDEXING

    @staticmethod
    def forward(xp, x, src, dim, index):
        return _scattered(xp, x, src, dim, index, xp.add)

    formula = "grad_self = grad; grad_src = grad.gather(dim, index)"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_src = ctx.needs_input_grad
        return grad, (Gather.apply(grad, dim=ctx.dim, index=ctx.index) if need_src else None)

    @staticmethod
    def jvp(ctx, x_t, src_t):
        return ScatterAdd.apply(x_t, src_t, dim=ctx.dim, index=ctx.index)


_UFUNCS = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


class ScatterAccumulate(WithoutDerivative):
    """torch.scatter with ``reduce``: src added into x ('add') or multiplied into it ('multiply') at ``index``.
    PyTorch defines no derivative for it: the node it records is NotImplemented, whose backward raises."""

    node_name = "NotImplemented"
    aten = "scatter"

    @staticmethod
    def forward(xp, x, src, dim, index, reduce):
        return _scattered(xp, x, src, dim, index, xp.add if reduce == "add" else xp.multiply)


class ScatterReduce(Op):
    """torch.scatter_reduce: src reduced into x at ``index`` (sum, prod, mean, amax, amin), x included or not."""

    name, family = "scatter_reduce", INDEXING
    saves = ("x", "src", "result")
    complex_autograd = False  # as PyTorch's

    @staticmethod
    def forward(xp, x, src, dim, index, reduce, include_self):
        if not include_self:
            x = _scattered(xp, x, _identity(xp, reduce, x.dtype), dim, index)
        out = _scattered(xp, x, src, dim, index, getattr(xp, _UFUNCS[reduce]))
        if reduce == "mean":
            count = _scattered(xp, xp.full(x.shape, int(include_self)), 1, dim, index, xp.add)
            count = xp.maximum(count, 1).astype(out.dtype)
            out = out // count if out.dtype.kind in "iub" else out / count
        return out

    formula = "grad_self, grad_src = grad routed back by the reduction (sum, mean, prod, amax/amin: shared by ties)"
    @staticmethod
    def vjp(ctx, grad):
        from ndgrad.ops.comparison import where

        x, src, result = ctx.saved_tensors
        dim, index, reduce, include_self = ctx.dim, ctx.index, ctx.reduce, ctx.include_self

        def gather(t):
            return Gather.apply(t, dim=dim, index=index)

        def scatter_add(t, s):
            return ScatterAdd.apply(t, s, dim=dim, index=index)

        def reduced(t, s):
            return ScatterReduce.apply(t, s, dim=dim, index=index, reduce=reduce, include_self=include_self)

        if reduce == "sum":
            grad_x, grad_src = grad, gather(grad)
        elif reduce == "mean":
            count = scatter_add(_zeros(x.shape, x) + int(include_self), _zeros(src.shape, src) + 1)
            grad_x = grad / where(count == 0, 1.0, count)
            grad_src = gather(grad_x)
        elif reduce == "prod":
            # NOTE: as PyTorch does: the products that leave out one factor are recomputed with the zeros
            # masked to 1, so that a single zero factor still receives the product of the others.
            masked_x = where(x == 0, 1.0, x)
            grad_x = grad * reduced(masked_x, src) / masked_x
            src_zero = src == 0
            zeros_here = gather(scatter_add(_zeros(x.shape, x), src_zero.to(x.dtype)))
            single_zero = src_zero.logical_and(zeros_here == 1)
            without_src = reduced(x, where(single_zero, 1.0, src))
            grad_src = where(single_zero, gather(grad * without_src), gather(grad * result) / where(src_zero, 1.0, src))
        else:  # amax, amin: the elements equal to the result share its gradient equally
            x_is_result = (x == result).to(x.dtype)
            src_is_result = (src == gather(result)).to(x.dtype)
            grad_shared = grad / scatter_add(x_is_result, src_is_result)
            grad_x, grad_src = x_is_result * grad_shared, src_is_result * gather(grad_shared)
        if not include_self:
            grad_x = ScatterValue.apply(grad_x, dim=dim, index=index, value=0)
        return grad_x, grad_src

    @staticmethod
    def jvp(ctx, x_t, src_t):
        params = dict(dim=ctx.dim, index=ctx.index, include_self=ctx.include_self)
        if ctx.reduce in ("sum", "mean"):  # linear: the same reduction of the tangents
            return ScatterReduce.apply(x_t, src_t, reduce=ctx.reduce, **params)
        if ctx.reduce == "prod":
            # NOTE: PyTorch 2.13 gives no tangent here; ndgrad gives the exact one: each output's partial
            # derivatives (the vjp with a cotangent of ones) weight the tangents of its factors.
            from ndgrad._creation import ones_like, zeros_like

            x, _, result = ctx.saved_tensors
            d_x, d_src = ScatterReduce.vjp(ctx, ones_like(result))
            return d_x * x_t + ScatterAdd.apply(zeros_like(x), d_src * src_t, dim=ctx.dim, index=ctx.index)
        # amax, amin: the mean tangent of the elements equal to the result, as PyTorch
        x, src, result = ctx.saved_tensors
        x_is_result = (x == result).to(x_t.dtype)
        src_is_result = (src == Gather.apply(result, dim=ctx.dim, index=ctx.index)).to(x_t.dtype)
        total = ScatterReduce.apply(x_t * x_is_result, src_t * src_is_result, reduce="sum", **params)
        return total / ScatterReduce.apply(x_is_result, src_is_result, reduce="sum", **params)


def _identity(xp, reduce, dtype):
    """The value that leaves a reduction unchanged: what x's scattered slots hold when include_self=False."""
    if reduce in ("sum", "mean", "prod"):
        return int(reduce == "prod")
    if dtype.kind in "fV":
        return -xp.inf if reduce == "amax" else xp.inf
    if dtype.kind == "b":
        return reduce == "amin"
    return xp.iinfo(dtype).min if reduce == "amax" else xp.iinfo(dtype).max


# ---- slices at an index along a dim ----------------------------------------------------------------------------
class IndexSelect(Op):
    """torch.index_select."""

    name, family = "index_select", INDEXING

    @staticmethod
    def forward(xp, x, dim, index):
        result = xp.take(_lifted(x), index.reshape(-1), axis=dim)
        return result.reshape(()) if x.ndim == 0 else result

    formula = "grad_self = zeros(self.shape).index_add(dim, index, grad)"
    @staticmethod
    def vjp(ctx, grad):
        return (IndexAdd.apply(_zeros(ctx.input_shapes[0], grad), grad, dim=ctx.dim, index=ctx.index, alpha=1),)

    @staticmethod
    def jvp(ctx, x_t):
        return IndexSelect.apply(x_t, dim=ctx.dim, index=ctx.index)
class IndexAdd(Op):
    """torch.index_add: ``alpha * source`` added at ``index`` along ``dim``; repeated indices accumulate."""

    name, family = "index_add", INDEXING

    @staticmethod
    def forward(xp, x, source, dim, index, alpha):
        out = _lifted(x).copy()
        xp.add.at(out, _along(dim, index.reshape(-1)), _lifted(source) if alpha == 1 else _lifted(source) * alpha)
        return out.reshape(x.shape)

    formula = "grad_self = grad; grad_source = grad.index_select(dim, index) * alpha"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_source = ctx.needs_input_grad
        grad_source = None
        if need_source:
            grad_source = IndexSelect.apply(grad, dim=ctx.dim, index=ctx.index).reshape(ctx.input_shapes[1])
            grad_source = grad_source if ctx.alpha == 1 else grad_source * ctx.alpha
        return grad, grad_source

    @staticmethod
    def jvp(ctx, x_t, source_t):
        return IndexAdd.apply(x_t, source_t, dim=ctx.dim, index=ctx.index, alpha=ctx.alpha)


class IndexCopy(Op):
    """torch.index_copy: ``source``'s slices written at ``index`` along ``dim``."""

    name, family = "index_copy", INDEXING

    @staticmethod
    def forward(xp, x, source, dim, index):
        out = _lifted(x).copy()
        out[_along(dim, index.reshape(-1))] = _lifted(source)
        return out.reshape(x.shape)

    formula = "grad_self = grad.index_fill(dim, index, 0); grad_source = grad.index_select(dim, index)"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_source = ctx.needs_input_grad
        grad_x = IndexFill.apply(grad, dim=ctx.dim, index=ctx.index, value=0) if need_x else None
        if need_source:
            return grad_x, IndexSelect.apply(grad, dim=ctx.dim, index=ctx.index).reshape(ctx.input_shapes[1])
        return grad_x, None

    @staticmethod
    def jvp(ctx, x_t, source_t):
        return IndexCopy.apply(x_t, source_t, dim=ctx.dim, index=ctx.index)


class IndexFill(Op):
    """torch.index_fill with a number ``value``."""

    name, family = "index_fill", INDEXING

    @staticmethod
    def forward(xp, x, dim, index, value):
        out = _lifted(x).copy()
        out[_along(dim, index.reshape(-1))] = value
        return out.reshape(x.shape)

    formula = "grad_self = grad.index_fill(dim, index, 0)"
    @staticmethod
    def vjp(ctx, grad):
        return (IndexFill.apply(grad, dim=ctx.dim, index=ctx.index, value=0),)

    @staticmethod
    def jvp(ctx, x_t):
        return IndexFill.apply(x_t, dim=ctx.dim, index=ctx.index, value=0)


class IndexFillTensor(Op):
    """torch.index_fill with a 0-d tensor ``value``, which gets the gradient of every filled element once."""

    name, family = "index_fill", INDEXING
    node_name = "IndexFillBackward1"

    @staticmethod
    def forward(xp, x, value, dim, index):
        return IndexFill.forward(xp, x, dim, index, value)

    formula = "grad_self = grad.index_fill(dim, index, 0); grad_value = grad at the filled positions, summed"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_value = ctx.needs_input_grad
        grad_x = IndexFill.apply(grad, dim=ctx.dim, index=ctx.index, value=0) if need_x else None
        filled = IndexFill.apply(_zeros(grad.shape, grad), dim=ctx.dim, index=ctx.index, value=1)
        return grad_x, ((grad * filled).sum() if need_value else None)

    @staticmethod
    def jvp(ctx, x_t, value_t):
        return IndexFillTensor.apply(x_t, value_t, dim=ctx.dim, index=ctx.index)


# ---- the functions users call ----------------------------------------------------------------------------------
def _check_index_device(input, index):
    """PyTorch refuses an index on another device than the input here (unlike indexing, ``x[index]``)."""
    if type(index._data) is type(input._data) and type(input._data) is np.ndarray:
        return
    first, second = input.device, index.device
    if first != second:
        raise _mixed_devices(*((first, second) if first.type != "cpu" else (second, first)))


def _check_index_dtype(index, message, allowed=("int64", "int32")):
    if index.dtype.name not in allowed:
        raise RuntimeError(message)


def _check_along(input, dim, index, src=None, gather=False, reduce=None):
    """gather and scatter's checks, in PyTorch's order: dtypes (index, then src), dims and sizes (none for an empty
    index; src's sizes read as PyTorch reads them), scatter's ``reduce``, bounds."""
    name = "gather" if gather else "scatter"
    if index.numel():
        _check_index_dtype(index, f"{name}(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel():
        _check_shapes_along(input, dim, index, src, gather)
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    _check_bounds(index._data, input.shape[dim] if input.ndim else 1, dim, RuntimeError, negative=False)


def _check_shapes_along(input, dim, index, src, gather):
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {'input' if gather else 'self'} "
                           "tensor")
    sizes = tuple(index.shape) or (1,)
    too_big = next((d for d, size in enumerate(sizes) if d != dim and size > (input.shape[d] if input.ndim else 1)),
                   None)
    if gather and too_big is not None:
        raise RuntimeError(f"Size does not match at dimension {too_big} expected index {list(index.shape)} to be no "
                           f"larger than self {list(input.shape)} apart from dimension {dim}")
    if src is not None and too_big is None:  # src.size(d) for each of the index's dims: PyTorch's IndexError if none
        too_big = next((d for d, size in enumerate(sizes) if size > (_size_along(src, d) if src.ndim else 1)), None)
    if src is not None and max(src.ndim, 1) != len(sizes):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if too_big is not None:
        message = (f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} apart from "
                   f"dimension {dim}")
        if src is not None:
            message += f" and to be no larger size than src {list(src.shape)}"
        raise RuntimeError(message)


def _size_along(tensor, d):
    return tensor.shape[wrap_dim(d, tensor.ndim)]


@parses("gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False, Tensor out=None)")
def gather(input, dim, index, *, sparse_grad=False):
    """Values of input at ``index`` along ``dim`` (see torch.gather)."""
    _check_index_device(input, index)
    dim = wrap_dim(dim, input.ndim)
    _check_along(input, dim, index, gather=True)
    return Gather.apply(input, dim=dim, index=index._data)


def _scatter(input, dim, index, src, value, reduce, inplace):
    from ndgrad._creation import full
    from ndgrad._tensor import Tensor

    _check_index_device(input, index)
    dim = wrap_dim(dim, input.ndim)
    if isinstance(src, Tensor):
        _check_along(input, dim, index, src, reduce=reduce)
        if reduce is None:
            return _run(Scatter, inplace, input, src, dim=dim, index=index._data)
        return _run(ScatterAccumulate, inplace, input, src, dim=dim, index=index._data, reduce=reduce)
    value = real_scalar(src if value is None else value, input.dtype)  # written into input's dtype
    _check_along(input, dim, index, reduce=reduce)
    if reduce is None:
        return _run(ScatterValue, inplace, input, dim=dim, index=index._data, value=value)
    values = full(index.shape, value, dtype=input.dtype, device=input.device)
    return _run(ScatterAccumulate, inplace, input, values, dim=dim, index=index._data, reduce=reduce)


@parses("scatter(Tensor input, int dim, Tensor index, Tensor src, *, Tensor out=None)",
        "scatter(Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor out=None)",
        "scatter(Tensor input, int dim, Tensor index, Scalar value, *, Tensor out=None)",
        "scatter(Tensor input, int dim, Tensor index, Scalar value, *, str reduce, Tensor out=None)")
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """A copy of input with src's elements (or ``value``) written at ``index`` along ``dim`` (see torch.scatter)."""
    return _scatter(input, dim, index, src, value, reduce, False)


def _scatter_add(input, dim, index, src, inplace):
    _check_index_device(input, index)
    dim = wrap_dim(dim, input.ndim)
    _check_along(input, dim, index, src)
    return _run(ScatterAdd, inplace, input, src, dim=dim, index=index._data)


@parses("scatter_add(Tensor input, int dim, Tensor index, Tensor src, *, Tensor out=None)")
def scatter_add(input, dim, index, src):
    """A copy of input with src's elements added at ``index`` along ``dim`` (see torch.scatter_add)."""
    return _scatter_add(input, dim, index, src, False)


def _scatter_reduce(input, dim, index, src, reduce, include_self, inplace):
    if reduce not in _UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _check_index_device(input, index)
    dim = wrap_dim(dim, input.ndim)
    _check_along(input, dim, index, src)
    if reduce in ("amax", "amin"):
        no_complex_kernel(f"scatter_gather_tensor_cpu_reduce_{reduce}", input)
    return _run(ScatterReduce, inplace, input, src, dim=dim, index=index._data, reduce=reduce,
                include_self=include_self)


@parses("scatter_reduce(Tensor input, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True, "
        "Tensor out=None)")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """src reduced into input at ``index`` along ``dim`` (see torch.scatter_reduce)."""
    return _scatter_reduce(input, dim, index, src, reduce, include_self, False)


@parses("index_select(Tensor input, int dim, Tensor index, *, Tensor out=None)")
def index_select(input, dim, index):
    """The slices of input at ``index`` along ``dim`` (see torch.index_select)."""
    _check_index_device(input, index)
    dim = wrap_dim(dim, input.ndim)
    _check_index_dtype(index, "index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if input.ndim == 0 and index.numel() != 1:
        raise IndexError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    size = input.shape[dim] if input.ndim else 1
    outside = (index._data < 0) | (index._data >= size)
    if outside.any():
        if dim == 1:  # PyTorch's kernel for dim 1 words it otherwise
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(index._data[outside].reshape(-1)[0])} "
                               f"axis_dim={size}")
        raise IndexError("index out of range in self")
    return IndexSelect.apply(input, dim=dim, index=index._data)


def _check_vector_index(input, dim, index, source, name, negative):
    if index.ndim > 1:
        if name == "index_fill_":
            raise RuntimeError("Index has to be a vector/scalar")
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    _check_bounds(index._data, input.shape[dim] if input.ndim else 1, dim,
                  RuntimeError if name == "index_add_" else IndexError, "index_copy_(): " * (name == "index_copy_"),
                  negative)


def _index_add(input, dim, index, source, alpha, inplace):
    _check_index_device(input, index)
    dim = wrap_dim(dim, input.ndim)
    _check_index_dtype(index, f"index_add_(): Expected dtype int32/int64 for index but got: {index.dtype.title}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_add_(): self ({input.dtype.title}) and source ({source.dtype.title}) must have the "
                           "same scalar type")
    source_size = source.shape[dim] if source.ndim else 1
    if index.numel() != source_size:
        raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({source_size}), for dim: {dim}")
    _check_vector_index(input, dim, index, source, "index_add_", negative=False)
    return _run(IndexAdd, inplace, input, source, dim=dim, index=index._data, alpha=real_scalar(alpha, input.dtype))


@parses("index_add(Tensor input, int dim, Tensor index, Tensor source, *, Scalar alpha=1, Tensor out=None)")
def index_add(input, dim, index, source, *, alpha=1):
    """A copy of input with ``alpha * source`` added at ``index`` along ``dim`` (see torch.index_add)."""
    return _index_add(input, dim, index, source, alpha, False)


def _index_copy(input, dim, index, source, inplace):
    _check_index_device(input, index)
    dim = wrap_dim(dim, input.ndim)
    if index.dtype.name != "int64":
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index.dtype.title}")
    if source.dtype is not input.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{input.dtype.title} and (source) {source.dtype.title}")
    source_size = source.shape[dim] if source.ndim else 1
    if index.numel() != source_size:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
                         f"({source_size})")
    _check_vector_index(input, dim, index, source, "index_copy_", negative=False)
    return _run(IndexCopy, inplace, input, source, dim=dim, index=index._data)


@parses("index_copy(Tensor input, int dim, Tensor index, Tensor source, *, Tensor out=None)")
def index_copy(input, dim, index, source):
    """A copy of input with source's slices written at ``index`` along ``dim`` (see torch.index_copy)."""
    return _index_copy(input, dim, index, source, False)


def _index_fill(input, dim, index, value, inplace):
    from ndgrad._tensor import Tensor

    _check_index_device(input, index)
    dim = wrap_dim(dim, input.ndim)
    if index.dtype.name != "int64":
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    _check_vector_index(input, dim, index, None, "index_fill_", negative=True)
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    if (value.dtype.is_complex if isinstance(value, Tensor) else isinstance(value, complex)) and \
            not input.dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    if isinstance(value, Tensor):
        return _run(IndexFillTensor, inplace, input, value.to(input.dtype), dim=dim, index=index._data)
    return _run(IndexFill, inplace, input, dim=dim, index=index._data, value=value)


@parses("index_fill(Tensor input, int dim, Tensor index, Tensor value)",
        "index_fill(Tensor input, int dim, Tensor index, Scalar value)")
def index_fill(input, dim, index, value):
    """A copy of input with ``value`` at ``index`` along ``dim`` (see torch.index_fill)."""
    return _index_fill(input, dim, index, value, False)


@parses("take_along_dim(Tensor input, Tensor indices, int? dim=None, *, Tensor out=None)")
def take_along_dim(input, indices, dim=None):
    """gather with indices broadcast against input; without ``dim``, over the flattened input
    (see torch.take_along_dim)."""
    _check_index_device(input, indices)
    if indices.dtype.name != "int64":
        raise RuntimeError(f"ndgrad.take_along_dim(): dtype of indices should be Long but got {indices.dtype.title}")
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))  # a view, as PyTorch: non-contiguous input fails
    dim = wrap_dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError("ndgrad.take_along_dim(): input and indices should have the same number of dimensions, but "
                           f"got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    input_shape = list(input.shape)
    input_shape[dim] = indices.shape[dim]  # broadcast all dims but dim, as PyTorch: input's dim takes indices' size
    indices_shape = list(broadcast_shape(input_shape, indices.shape))
    input_shape = list(indices_shape)
    input_shape[dim] = input.shape[dim]
    input = input if tuple(input.shape) == tuple(input_shape) else input.expand(input_shape)
    indices = indices if tuple(indices.shape) == tuple(indices_shape) else indices.expand(indices_shape)
    indices = indices % input.shape[dim]  # PyTorch wraps the indices along dim (an empty dim: its ZeroDivisionError)
    return gather(input, dim, indices)


class GatherScatterMethods:
    """The Tensor methods of this module's ops (Tensor inherits them through IndexingMethods): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    @parses_method("gather(int dim, Tensor index, *, bool sparse_grad=False)")
    def gather(self, dim, index, *, sparse_grad=False):
        return gather(self, dim, index)
    @parses_method("scatter(int dim, Tensor index, Tensor src)",
                   "scatter(int dim, Tensor index, Tensor src, *, str reduce)",
                   "scatter(int dim, Tensor index, Scalar value)",
                   "scatter(int dim, Tensor index, Scalar value, *, str reduce)")
    def scatter(self, dim, index, src=None, value=None, *, reduce=None):
        return _scatter(self, dim, index, src, value, reduce, False)
    @parses_method("scatter_(int dim, Tensor index, Tensor src)",
                   "scatter_(int dim, Tensor index, Tensor src, *, str reduce)",
                   "scatter_(int dim, Tensor index, Scalar value)",
                   "scatter_(int dim, Tensor index, Scalar value, *, str reduce)")
    def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
        return _scatter(self, dim, index, src, value, reduce, True)
    @parses_method("scatter_add(int dim, Tensor index, Tensor src)")
    def scatter_add(self, dim, index, src):
        return _scatter_add(self, dim, index, src, False)
    @parses_method("scatter_add_(int dim, Tensor index, Tensor src)")
    def scatter_add_(self, dim, index, src):
        return _scatter_add(self, dim, index, src, True)
    @parses_method("scatter_reduce(int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True)")
    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return _scatter_reduce(self, dim, index, src, reduce, include_self, False)
    @parses_method("scatter_reduce_(int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True)")
    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        return _scatter_reduce(self, dim, index, src, reduce, include_self, True)
    index_select = tensor_method(index_select)
    @parses_method("index_add(int dim, Tensor index, Tensor source, *, Scalar alpha=1)")
    def index_add(self, dim, index, source, *, alpha=1):
        return _index_add(self, dim, index, source, alpha, False)
    @parses_method("index_add_(int dim, Tensor index, Tensor source, *, Scalar alpha=1)")
    def index_add_(self, dim, index, source, *, alpha=1):
        return _index_add(self, dim, index, source, alpha, True)
    @parses_method("index_copy(int dim, Tensor index, Tensor source)")
    def index_copy(self, dim, index, source):
        return _index_copy(self, dim, index, source, False)
    @parses_method("index_copy_(int dim, Tensor index, Tensor source)")
    def index_copy_(self, dim, index, source):
        return _index_copy(self, dim, index, source, True)
    @parses_method("index_fill(int dim, Tensor index, Tensor value)",
                   "index_fill(int dim, Tensor index, Scalar value)")
    def index_fill(self, dim, index, value):
        return _index_fill(self, dim, index, value, False)
    @parses_method("index_fill_(int dim, Tensor index, Tensor value)",
                   "index_fill_(int dim, Tensor index, Scalar value)")
    def index_fill_(self, dim, index, value):
        return _index_fill(self, dim, index, value, True)
    take_along_dim = tensor_method(take_along_dim)
