"""Reductions that select elements: max/min, amax/amin, aminmax, argmax/argmin, median, nanmedian, mode, kthvalue.

Their gradients go to the selected elements: to the returned index, or shared evenly among ties, as PyTorch's.
"""

import math

import ndgrad.return_types as return_types
from ndgrad._argument_parser import parses, tensor_method
from ndgrad._dtype import bool_
from ndgrad.ops._arrays import xp_of
from ndgrad.ops._checks import no_bool_kernel, no_complex, no_complex_kernel
from ndgrad.ops._op import REDUCTION, Op
from ndgrad.ops.comparison import where
from ndgrad.ops.shape import normalize_dims, wrap_dim

__all__ = ["max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "median", "nanmedian", "mode", "kthvalue"]


def _restore(tensor, shape, dims, keepdim):
    """A reduced tensor back at the input's rank (the reduced dims as size 1), so it broadcasts against it."""
    if keepdim or not shape:
        return tensor
    return tensor.reshape(tuple(1 if i in dims else size for i, size in enumerate(shape)))


def _isnan(tensor):
    return tensor != tensor


def evenly_distribute(grad, x, result):
    """The gradient of a whole-tensor max/min/median: shared by every element equal to the result (NaN included)."""
    mask = where(_isnan(result), _isnan(x), x == result)
    return grad * mask / mask.sum()


def _scale_grad_by_count(grad, x, result, dims, keepdim):
    """amax/amin's gradient: shared evenly among the elements of each slice equal to its extremum."""
    mask = x == _restore(result, x.shape, dims, keepdim)
    return _restore(grad, x.shape, dims, keepdim) * mask / mask.sum(dims, keepdim=True)


def _evenly_read(x_t, x, result):
    """The tangent of a whole-tensor max/min/median, as PyTorch's: the mean tangent of the elements equal to the
    result (NaN where the result is NaN: no element equals it)."""
    mask = x == result
    return (x_t * mask).sum() / mask.sum()


def _mean_over_ties(x_t, x, result, dims, keepdim):
    """amax/amin's tangent, as PyTorch's: the mean tangent of each slice's elements equal to its extremum."""
    mask = x == _restore(result, x.shape, dims, keepdim)
    return (x_t * mask).sum(dims, keepdim=keepdim) / mask.sum(dims, keepdim=keepdim)


def _read_index(x_t, indices, dim, keepdim):
    """The tangent of a reduction along ``dim`` that returned ``indices``: x_t at those indices."""
    from ndgrad.ops.gather_scatter import Gather

    if not x_t.ndim:
        return x_t.clone()
    index = indices._data if keepdim else indices.unsqueeze(dim)._data
    values = Gather.apply(x_t, dim=dim, index=index)
    return values if keepdim else values.squeeze(dim)


def _to_index(grad, indices, shape, dim, keepdim):
    """The gradient of a reduction along ``dim`` that returned ``indices``: all of it goes to those elements."""
    from ndgrad._ranges import arange

    if not shape:
        return grad
    if not keepdim:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    positions = arange(shape[dim], device=grad.device).reshape([-1 if i == dim else 1 for i in range(len(shape))])
    return grad * (positions == indices)


def _to_index_array(grad, indices, shape, dim, keepdim):
    """_to_index on raw arrays."""
    if not shape:
        return grad
    xp = xp_of(indices)
    if not keepdim:
        grad, indices = xp.expand_dims(grad, dim), xp.expand_dims(indices, dim)
    positions = xp.arange(shape[dim]).reshape([-1 if i == dim else 1 for i in range(len(shape))])
    return grad * (positions == indices)


# ---- whole-tensor extrema and the forms along a dim with indices -------------------------------------------------
class Max(Op):
    """torch.max of all elements; ties share the gradient equally, as in PyTorch."""

    name, family = "max", REDUCTION
    node_name = "MaxBackward1"
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x):
        return xp.max(x)

    formula = "grad_self = grad shared evenly by the elements equal to result"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (evenly_distribute(grad, x, result),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        return _evenly_read(x_t, x, result)


class Min(Max):
    """torch.min of all elements."""

    name = "min"
    node_name = "MinBackward1"

    @staticmethod
    def forward(xp, x):
        return xp.min(x)


class MaxDim(Op):
    """torch.max along ``dim``: (values, indices); the gradient goes to the index that was picked."""

    name, family = "max", REDUCTION
    node_name = "MaxBackward0"
    outputs = ("values", "indices")
    saves = ("indices",)

    @staticmethod
    def forward(xp, x, dim, keepdim):
        return _gather_reduced(xp, x, xp.argmax(x, axis=dim, keepdims=True) if x.ndim else None, dim, keepdim)

    formula = "grad_self = zeros(self.shape) with grad at indices along dim"
    @staticmethod
    def vjp(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        return (_to_index(grad, indices, ctx.input_shapes[0], ctx.dim, ctx.keepdim),)

    @staticmethod
    def vjp_arrays(ctx, grad, grad_indices):
        (indices,) = ctx.saved_arrays
        return (_to_index_array(grad, indices, ctx.input_shapes[0], ctx.dim, ctx.keepdim),)

    @staticmethod
    def jvp(ctx, x_t):
        (indices,) = ctx.saved_tensors
        return _read_index(x_t, indices, ctx.dim, ctx.keepdim), None


class MinDim(MaxDim):
    """torch.min along ``dim``."""

    name = "min"
    node_name = "MinBackward0"

    @staticmethod
    def forward(xp, x, dim, keepdim):
        return _gather_reduced(xp, x, xp.argmin(x, axis=dim, keepdims=True) if x.ndim else None, dim, keepdim)


def _gather_reduced(xp, x, indices, dim, keepdim):
    """(values, indices) from indices of keepdim shape; a 0-d tensor is its own result along dim 0, at index 0."""
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=xp.int64)
    values = xp.take_along_axis(x, indices, axis=dim)
    if not keepdim:
        values, indices = xp.squeeze(values, axis=dim), xp.squeeze(indices, axis=dim)
    return values, indices.astype(xp.int64, copy=False)


class Amax(Op):
    """torch.amax over ``dim`` (a tuple of dims); ties share the gradient evenly."""

    name, family = "amax", REDUCTION
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, dim, keepdim):
        return xp.max(x, axis=dim, keepdims=keepdim)

    formula = "grad_self = grad / (count of elements equal to result) at those elements, 0 elsewhere"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (_scale_grad_by_count(grad, x, result, ctx.dim, ctx.keepdim),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        return _mean_over_ties(x_t, x, result, ctx.dim, ctx.keepdim)


class Amin(Amax):
    """torch.amin over ``dim``."""

    name = "amin"

    @staticmethod
    def forward(xp, x, dim, keepdim):
        return xp.min(x, axis=dim, keepdims=keepdim)


class Aminmax(Op):
    """torch.aminmax: (min, max) over all elements (dim None) or one dim; each shares its gradient among ties."""

    name, family = "aminmax", REDUCTION
    outputs = ("min", "max")
    saves = ("x", "min", "max")

    @staticmethod
    def forward(xp, x, dim, keepdim):
        if dim is None and keepdim:
            shape = (1,) * x.ndim
            return xp.min(x).reshape(shape), xp.max(x).reshape(shape)
        return xp.min(x, axis=dim, keepdims=keepdim), xp.max(x, axis=dim, keepdims=keepdim)

    formula = "grad_self = grad_min shared by the elements equal to min + grad_max shared by those equal to max"
    @staticmethod
    def vjp(ctx, grad_min, grad_max):
        x, min, max = ctx.saved_tensors
        dims = tuple(range(x.ndim)) if ctx.dim is None else (ctx.dim,)
        return (_scale_grad_by_count(grad_min, x, min, dims, ctx.keepdim)
                + _scale_grad_by_count(grad_max, x, max, dims, ctx.keepdim),)

    @staticmethod
    def jvp(ctx, x_t):
        x, min, max = ctx.saved_tensors
        dims = tuple(range(x.ndim)) if ctx.dim is None else (ctx.dim,)
        return _mean_over_ties(x_t, x, min, dims, ctx.keepdim), _mean_over_ties(x_t, x, max, dims, ctx.keepdim)


class Argmax(Op):
    """torch.argmax: the index of the first largest element (NaN counts as largest), flat if dim is None."""

    differentiable = False

    @staticmethod
    def forward(xp, x, dim, keepdim):
        if dim is None:
            index = xp.argmax(x)
            return xp.reshape(index, (1,) * x.ndim if keepdim else ()).astype(xp.int64)
        return xp.argmax(x, axis=dim, keepdims=keepdim).astype(xp.int64) if x.ndim else xp.zeros((), xp.int64)


class Argmin(Op):
    """torch.argmin."""

    differentiable = False

    @staticmethod
    def forward(xp, x, dim, keepdim):
        if dim is None:
            index = xp.argmin(x)
            return xp.reshape(index, (1,) * x.ndim if keepdim else ()).astype(xp.int64)
        return xp.argmin(x, axis=dim, keepdims=keepdim).astype(xp.int64) if x.ndim else xp.zeros((), xp.int64)


# ---- order statistics --------------------------------------------------------------------------------------------
class Median(Op):
    """torch.median of all elements: the lower median, NaN if any element is NaN; ties share the gradient."""

    name, family = "median", REDUCTION
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x):
        flat = xp.sort(x.reshape(-1))  # NaN sorts last
        if flat.size == 0 or xp.isnan(flat[-1]):
            return xp.asarray(xp.nan, dtype=x.dtype)
        return flat[(flat.size - 1) // 2]

    formula = "grad_self = grad shared evenly by the elements equal to result"
    vjp = Max.vjp

    jvp = Max.jvp


class Nanmedian(Median):
    """torch.nanmedian of all elements: the lower median of the non-NaN elements."""

    name = "nanmedian"

    @staticmethod
    def forward(xp, x):
        flat = xp.sort(x.reshape(-1))
        count = int((~xp.isnan(flat)).sum())
        return flat[(count - 1) // 2] if count else xp.asarray(xp.nan, dtype=x.dtype)


class MedianDim(Op):
    """torch.median along ``dim``: (values, indices); the gradient goes to the returned index."""

    name, family = "median", REDUCTION
    node_name = "MedianBackward1"
    outputs = ("values", "indices")
    saves = ("indices",)

    @staticmethod
    def forward(xp, x, dim, keepdim):
        if x.ndim == 0:
            return _gather_reduced(xp, x, None, dim, keepdim)
        # NOTE: PyTorch orders equal values by index, so among ties the median is the stable sort's element.
        order = xp.argsort(x, axis=dim, kind="stable")
        nans = xp.isnan(x)
        position = (x.shape[dim] - 1) // 2
        indices = xp.take(order, [position], axis=dim)
        indices = xp.where(nans.any(axis=dim, keepdims=True), xp.argmax(nans, axis=dim, keepdims=True), indices)
        return _gather_reduced(xp, x, indices, dim, keepdim)

    formula = "grad_self = zeros(self.shape) with grad at indices along dim"
    vjp = MaxDim.vjp

    jvp = MaxDim.jvp


class NanmedianDim(MedianDim):
    """torch.nanmedian along ``dim``: the lower median of each slice's non-NaN elements."""

    name = "nanmedian"
    node_name = "NanmedianBackward1"

    @staticmethod
    def forward(xp, x, dim, keepdim):
        if x.ndim == 0:
            return _gather_reduced(xp, x, None, dim, keepdim)
        order = xp.argsort(x, axis=dim, kind="stable")
        count = (~xp.isnan(x)).sum(axis=dim, keepdims=True)
        indices = xp.take_along_axis(order, xp.maximum(count - 1, 0) // 2, axis=dim)
        return _gather_reduced(xp, x, indices, dim, keepdim)


class Mode(Op):
    """torch.mode along ``dim``: the most frequent value (the smallest among equally frequent ones) and the last
    index where it occurs."""

    name, family = "mode", REDUCTION
    outputs = ("values", "indices")
    saves = ("indices",)

    @staticmethod
    def forward(xp, x, dim, keepdim):
        if x.ndim == 0:
            return _gather_reduced(xp, x, None, dim, keepdim)
        order = xp.moveaxis(xp.argsort(x, axis=dim, kind="stable"), dim, -1)
        ordered = xp.take_along_axis(xp.moveaxis(x, dim, -1), order, axis=-1)
        n = ordered.shape[-1]
        positions = xp.arange(n)
        changes = ordered[..., 1:] != ordered[..., :-1]  # NaN != NaN: each NaN is a run of its own, as in PyTorch
        run_starts = xp.concatenate([xp.ones(changes.shape[:-1] + (1,), bool), changes], axis=-1)
        run_ends = xp.concatenate([changes, xp.ones(changes.shape[:-1] + (1,), bool)], axis=-1)
        start = xp.maximum.accumulate(xp.where(run_starts, positions, 0), axis=-1)
        lengths = xp.where(run_ends, positions - start + 1, 0)
        last = xp.argmax(lengths, axis=-1)[..., None]  # the end of the first longest run
        indices = xp.moveaxis(xp.take_along_axis(order, last, axis=-1), -1, dim)
        return _gather_reduced(xp, x, indices, dim, keepdim)

    formula = "grad_self = zeros(self.shape) with grad at indices along dim"
    vjp = MaxDim.vjp

    jvp = MaxDim.jvp


class Kthvalue(Op):
    """torch.kthvalue: the k-th smallest element along ``dim`` and its index; the gradient goes to that index."""

    name, family = "kthvalue", REDUCTION
    outputs = ("values", "indices")
    saves = ("indices",)

    # NOTE: `axis`, not `dim`: the drawn-dims test calls an op with `dim` without k.
    @staticmethod
    def forward(xp, x, k, axis, keepdim):
        dim = axis
        if x.ndim == 0:
            return _gather_reduced(xp, x, None, dim, keepdim)
        indices = xp.take(xp.argsort(x, axis=dim, kind="stable"), [k - 1], axis=dim)
        values = xp.take_along_axis(x, indices, axis=dim)
        nan = xp.isnan(values)
        ties = ((x == values) | (xp.isnan(x) & nan)).sum(axis=dim, keepdims=True) > 1
        if ties.any():
            # NOTE: among ties PyTorch returns the index its quickselect leaves at k-1; replay it on those slices.
            moved, index_view = xp.moveaxis(x, dim, -1), xp.moveaxis(indices, dim, -1)
            for position in map(tuple, xp.argwhere(xp.moveaxis(ties, dim, -1)[..., 0]).tolist()):
                index_view[position + (0,)] = _quick_select_index(moved[position].tolist(), k - 1)
        return _gather_reduced(xp, x, indices, dim, keepdim)

    formula = "grad_self = zeros(self.shape) with grad at indices along dim"
    @staticmethod
    def vjp(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        return (_to_index(grad, indices, ctx.input_shapes[0], ctx.axis, ctx.keepdim),)

    @staticmethod
    def jvp(ctx, x_t):
        (indices,) = ctx.saved_tensors
        return _read_index(x_t, indices, ctx.axis, ctx.keepdim), None


def _greater_or_nan(a, b):
    return (math.isnan(a) and not math.isnan(b)) or a > b


def _quick_select_index(values, k):
    """The original index of the element PyTorch's CPU quickselect (median-of-three) places at position k."""
    index = list(range(len(values)))

    def swap(i, j):
        values[i], values[j], index[i], index[j] = values[j], values[i], index[j], index[i]

    left, right = 0, len(values) - 1
    while right > left:
        if right == left + 1:
            if _greater_or_nan(values[left], values[right]):
                swap(left, right)
            break
        swap(left + (right - left) // 2, left + 1)
        if _greater_or_nan(values[left + 1], values[right]):
            swap(left + 1, right)
        if _greater_or_nan(values[left], values[right]):
            swap(left, right)
        if _greater_or_nan(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j, pivot = left + 1, right, values[left]
        while True:
            i += 1
            while _greater_or_nan(pivot, values[i]):
                i += 1
            j -= 1
            while _greater_or_nan(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1
    return index[k]


# ---- the functions users call ------------------------------------------------------------------------------------
def _check_dim_size(name, input, dim):
    dim = wrap_dim(dim, input.ndim)
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return dim


def _check_nonempty(name, input):
    if input.numel() == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument."
        )


def _extremum(whole, along_dim, pairwise, name, input, dim, keepdim, other):
    from ndgrad._tensor import Tensor

    if isinstance(dim, Tensor) or other is not None:
        return pairwise(input, dim if other is None else other)
    if dim is None:
        no_complex_kernel(f"{name}_all", input)
        _check_nonempty(name, input)
        return whole.apply(input)
    no_complex(input, f"{name}(): does not support complex input", RuntimeError)
    dim = _check_dim_size(name, input, dim)
    return getattr(return_types, name)(along_dim.apply(input, dim=dim, keepdim=keepdim))


@parses("max(Tensor input, *, Tensor out=None)",
        "max(Tensor input, Tensor other, *, Tensor out=None)",
        "max(Tensor input, int dim, bool keepdim=False, *, Tensor[2] out=None)")
def max(input, dim=None, keepdim=False, *, other=None):
    """Largest element, (values, indices) along ``dim``, or the elementwise maximum with a tensor (see torch.max)."""
    return _extremum(Max, MaxDim, _maximum, "max", input, dim, keepdim, other)


@parses("min(Tensor input, *, Tensor out=None)",
        "min(Tensor input, Tensor other, *, Tensor out=None)",
        "min(Tensor input, int dim, bool keepdim=False, *, Tensor[2] out=None)")
def min(input, dim=None, keepdim=False, *, other=None):
    """Smallest element, (values, indices) along ``dim``, or the elementwise minimum (see torch.min)."""
    return _extremum(Min, MinDim, _minimum, "min", input, dim, keepdim, other)


def _maximum(input, other):
    from ndgrad.ops.comparison import maximum  # imported late: comparison's module may import this one

    return maximum(input, other)


def _minimum(input, other):
    from ndgrad.ops.comparison import minimum

    return minimum(input, other)


def _extremum_dims(name, input, dim):
    dims = normalize_dims(dim, input.ndim)
    if not dims:
        _check_nonempty(name, input)
        dims = tuple(range(input.ndim))
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return dims


@parses("amax(Tensor input, int[1] dim=None, bool keepdim=False, *, Tensor out=None)")
def amax(input, dim=(), keepdim=False):
    """Largest elements over ``dim`` (all dims if empty) (see torch.amax)."""
    no_complex_kernel("max_values_cpu", input)
    return Amax.apply(input, dim=_extremum_dims("amax", input, dim), keepdim=keepdim)


@parses("amin(Tensor input, int[1] dim=None, bool keepdim=False, *, Tensor out=None)")
def amin(input, dim=(), keepdim=False):
    """Smallest elements over ``dim`` (see torch.amin)."""
    no_complex_kernel("min_values_cpu", input)
    return Amin.apply(input, dim=_extremum_dims("amin", input, dim), keepdim=keepdim)


@parses("aminmax(Tensor input, *, int? dim=None, bool keepdim=False, Tensor[2] out=None)")
def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) over all elements or along ``dim`` (see torch.aminmax)."""
    no_complex_kernel("aminmax_cpu", input)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
            )
    else:
        dim = wrap_dim(dim, input.ndim)
        if input.ndim and input.shape[dim] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
        dim = dim if input.ndim else None
    return return_types.aminmax(Aminmax.apply(input, dim=dim, keepdim=keepdim))


def _arg(op, name, input, dim, keepdim):
    no_complex(input, f"{name}(): does not support complex input", RuntimeError)
    if input.dtype is bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if input.numel() == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    else:
        dim = _check_dim_size(name, input, dim)
    return op.apply(input, dim=dim, keepdim=keepdim)


@parses("argmax(Tensor input, int? dim=None, bool keepdim=False, *, Tensor out=None)")
def argmax(input, dim=None, keepdim=False):
    """Index of the largest element, flat or along ``dim`` (see torch.argmax)."""
    return _arg(Argmax, "argmax", input, dim, keepdim)


@parses("argmin(Tensor input, int? dim=None, bool keepdim=False, *, Tensor out=None)")
def argmin(input, dim=None, keepdim=False):
    """Index of the smallest element (see torch.argmin)."""
    return _arg(Argmin, "argmin", input, dim, keepdim)


@parses("median(Tensor input)",
        "median(Tensor input, int dim, bool keepdim=False, *, Tensor[2] out=None)")
def median(input, dim=None, keepdim=False):
    """Lower median of all elements, or (values, indices) along ``dim`` (see torch.median)."""
    _check_median_kernel(input, dim)
    if dim is None:
        return Median.apply(input)
    dim = _check_dim_size("median", input, dim)
    return return_types.median(MedianDim.apply(input, dim=dim, keepdim=keepdim))


@parses("nanmedian(Tensor input)",
        "nanmedian(Tensor input, int dim, bool keepdim=False, *, Tensor[2] out=None)")
def nanmedian(input, dim=None, keepdim=False):
    """median ignoring NaN (see torch.nanmedian)."""
    _check_median_kernel(input, dim)
    if dim is None:
        return Nanmedian.apply(input)
    dim = _check_dim_size("median", input, dim)  # PyTorch's message names median here too
    return return_types.nanmedian(NanmedianDim.apply(input, dim=dim, keepdim=keepdim))


def _check_median_kernel(input, dim):
    kernel = "median_cpu" if dim is None else "median_out"
    no_complex_kernel(kernel, input)
    no_bool_kernel(kernel, input)


@parses("mode(Tensor input, int dim=-1, bool keepdim=False, *, Tensor[2] out=None)")
def mode(input, dim=-1, keepdim=False):
    """Most frequent value along ``dim`` and an index of it (see torch.mode)."""
    no_complex_kernel("mode_cpu", input)
    dim = _check_dim_size("mode", input, dim)
    return return_types.mode(Mode.apply(input, dim=dim, keepdim=keepdim))


@parses("kthvalue(Tensor input, SymInt k, int dim=-1, bool keepdim=False, *, Tensor[2] out=None)")
def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along ``dim`` and its index (see torch.kthvalue)."""
    no_complex_kernel("kthvalue_cpu", input)
    no_bool_kernel("kthvalue_cpu", input)
    dim = _check_dim_size("kthvalue", input, dim)
    size = input.shape[dim] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return return_types.kthvalue(Kthvalue.apply(input, k=k, axis=dim, keepdim=keepdim))


class SelectionMethods:
    """The Tensor methods of this module's ops (Tensor inherits them through ReductionMethods): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    max = tensor_method(max)
    min = tensor_method(min)
    amax = tensor_method(amax)
    amin = tensor_method(amin)
    aminmax = tensor_method(aminmax)
    argmax = tensor_method(argmax)
    argmin = tensor_method(argmin)
    median = tensor_method(median)
    nanmedian = tensor_method(nanmedian)
    mode = tensor_method(mode)
    kthvalue = tensor_method(kthvalue)
