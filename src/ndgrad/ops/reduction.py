"""Reductions: sum, mean, prod, var/std, logsumexp, vector norms, the NaN-ignoring sums, any/all/count_nonzero.

The reductions that select elements (max, median, kthvalue, ...) live in ops.selection and are re-exported here.
"""

import math

from ndgrad._argument_parser import parses, tensor_method
from ndgrad._dtype import int64
from ndgrad._fpstate import mean_array
from ndgrad.ops._arrays import via_float32, xp_of
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops._broadcast import sum_to_size
from ndgrad.ops._checks import no_complex
from ndgrad.ops._linalg_base import check_floating, check_norm_dtype, check_norm_order, scalar_text
from ndgrad.ops._op import REDUCTION, Op
from ndgrad.ops.comparison import where
from ndgrad.ops.complex_numbers import real
from ndgrad.ops.scan import cumprod, flip, shift
from ndgrad.ops.selection import Max, MaxDim, Min, MinDim  # noqa: F401
from ndgrad.ops.shape import normalize_dims, wrap_dim

__all__ = [
    "sum", "mean", "prod", "var", "std", "var_mean", "std_mean", "logsumexp", "norm", "nansum", "nanmean", "any",
    "all", "count_nonzero",
]


def _restore(tensor, shape, dims, keepdim):
    """A reduced tensor back at the input's rank (the reduced dims as size 1), so it broadcasts against it."""
    if keepdim or not shape:
        return tensor
    return tensor.reshape(tuple(1 if i in dims else size for i, size in enumerate(shape)))


def _all_dims(dim, ndim):
    """The dims a reduction over ``dim`` runs over: None means all of them."""
    return tuple(range(ndim)) if dim is None else dim


def _count(shape, dims):
    return math.prod(shape[d] for d in dims)


def _spread_mean(grad, shape, count):
    """grad / count spread over ``shape``. PyTorch divides after spreading, which only tells for an empty input:
    the second derivative in grad is then a sum over no elements, 0, not 0 / 0."""
    return grad.expand(shape) / count if count == 0 else (grad / count).expand(shape)


def _spread_mean_array(grad, shape, count):
    """_spread_mean on a raw array."""
    xp = xp_of(grad)
    return xp.broadcast_to(grad, shape) / count if count == 0 else xp.broadcast_to(grad / count, shape)


def _contract(weights, x_t, dims, keepdim):
    """J x_t for a reduction whose outputs each read their own slice: d result / d x (the vjp at grad 1) times x_t,
    summed over the slice."""
    return (weights * x_t).sum(dims, keepdim=keepdim)


def ones_like(tensor):
    from ndgrad._creation import ones_like  # creation imports the Tensor, which imports this module

    return ones_like(tensor)


class Sum(Op):
    """torch.sum over all elements."""

    name, family = "sum", REDUCTION

    @staticmethod
    def forward(xp, x, dtype=None):
        if x.dtype.kind == "V" and dtype is None:  # bfloat16 accumulates in float32, as in PyTorch
            return via_float32(Sum.forward, xp, x)
        return xp.sum(x, dtype=dtype)

    formula = "grad_self = grad expanded to self's shape"
    @staticmethod
    def vjp(ctx, grad):
        return (grad.expand(ctx.input_shapes[0]),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (xp_of(grad).broadcast_to(grad, ctx.input_shapes[0]),)

    @staticmethod
    def jvp(ctx, x_t):
        return Sum.apply(x_t, dtype=ctx.dtype)


class SumDim(Op):
    """torch.sum over ``dim`` (a tuple of dims), keeping them as size 1 if keepdim."""

    name, family = "sum", REDUCTION
    node_name = "SumBackward1"

    @staticmethod
    def forward(xp, x, dim, keepdim, dtype=None):
        if x.dtype.kind == "V" and dtype is None:  # bfloat16 accumulates in float32, as in PyTorch
            return via_float32(SumDim.forward, xp, x, dim=dim, keepdim=keepdim)
        return xp.sum(x, axis=dim, keepdims=keepdim, dtype=dtype)

    formula = "grad_self = grad (unsqueezed at dim) expanded to self's shape"
    @staticmethod
    def vjp(ctx, grad):
        shape = ctx.input_shapes[0]
        return (_restore(grad, shape, ctx.dim, ctx.keepdim).expand(shape),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        shape = ctx.input_shapes[0]
        return (xp_of(grad).broadcast_to(_restore(grad, shape, ctx.dim, ctx.keepdim), shape),)

    @staticmethod
    def jvp(ctx, x_t):
        return SumDim.apply(x_t, dim=ctx.dim, keepdim=ctx.keepdim, dtype=ctx.dtype)


class Mean(Op):
    """torch.mean over all elements."""

    name, family = "mean", REDUCTION

    @staticmethod
    def forward(xp, x, dtype=None):
        if x.dtype.kind == "V" and dtype is None:  # bfloat16 accumulates in float32, as in PyTorch
            return via_float32(Mean.forward, xp, x)
        return mean_array(xp, x, dtype=dtype)

    formula = "grad_self = grad expanded to self's shape / self.numel()"
    @staticmethod
    def vjp(ctx, grad):
        shape = ctx.input_shapes[0]
        return (_spread_mean(grad, shape, _count(shape, range(len(shape)))),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        shape = ctx.input_shapes[0]
        return (_spread_mean_array(grad, shape, _count(shape, range(len(shape)))),)

    @staticmethod
    def jvp(ctx, x_t):
        return Mean.apply(x_t, dtype=ctx.dtype)


class MeanDim(Op):
    """torch.mean over ``dim``."""

    name, family = "mean", REDUCTION
    node_name = "MeanBackward1"

    @staticmethod
    def forward(xp, x, dim, keepdim, dtype=None):
        if x.dtype.kind == "V" and dtype is None:  # bfloat16 accumulates in float32, as in PyTorch
            return via_float32(MeanDim.forward, xp, x, dim=dim, keepdim=keepdim)
        return mean_array(xp, x, axis=dim, keepdims=keepdim, dtype=dtype)

    formula = "grad_self = grad (unsqueezed at dim) expanded to self's shape / (elements reduced)"
    @staticmethod
    def vjp(ctx, grad):
        shape = ctx.input_shapes[0]
        return (_spread_mean(_restore(grad, shape, ctx.dim, ctx.keepdim), shape, _count(shape, ctx.dim)),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        shape = ctx.input_shapes[0]
        return (_spread_mean_array(_restore(grad, shape, ctx.dim, ctx.keepdim), shape, _count(shape, ctx.dim)),)

    @staticmethod
    def jvp(ctx, x_t):
        return MeanDim.apply(x_t, dim=ctx.dim, keepdim=ctx.keepdim, dtype=ctx.dtype)


class Prod(Op):
    """torch.prod of all elements; exact where elements are zero, as PyTorch's."""

    name, family = "prod", REDUCTION
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, dtype=None):
        return xp.prod(x, dtype=dtype)

    formula = "grad_self = grad * result / self  (product of the others where self has zeros)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        if x.ndim == 0:
            return (grad,)
        if not (x._data == 0).any():
            return (grad * (result / x).conj(),)
        return (grad * _products_of_others(x.reshape(-1), 0).reshape(x.shape).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        (weights,) = Prod.vjp(ctx, ones_like(result))
        return _contract(weights.conj(), x_t, (), False)


class ProdDim(Op):
    """torch.prod along one ``dim``."""

    name, family = "prod", REDUCTION
    node_name = "ProdBackward1"
    saves = ("x", "result")

    # NOTE: `axis`, not `dim`: the drawn-dims test takes an op with `dim` to accept tuples of dims; prod takes one.
    @staticmethod
    def forward(xp, x, axis, keepdim, dtype=None):
        return xp.prod(x, axis=axis, keepdims=keepdim, dtype=dtype) if x.ndim else x.astype(dtype or x.dtype)

    formula = "grad_self = grad * result / self along dim  (product of the others where self has zeros)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        if x.ndim == 0:
            return (grad,)
        grad = _restore(grad, x.shape, (ctx.axis,), ctx.keepdim)
        if not (x._data == 0).any():
            return (grad * (_restore(result, x.shape, (ctx.axis,), ctx.keepdim) / x).conj(),)
        return (grad * _products_of_others(x, ctx.axis).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        (weights,) = ProdDim.vjp(ctx, ones_like(result))
        return _contract(weights.conj(), x_t, (ctx.axis,) if x.ndim else (), ctx.keepdim)


def _products_of_others(x, dim):
    """prod(x[i] for i != k) at each k along ``dim``: exclusive products from the left times those from the right.

    NOTE: result / x would divide by zero; this form is exact, and differentiable again through cumprod."""
    left = cumprod(shift(x, dim, 1.0), dim)
    right = flip(cumprod(shift(flip(x, dim), dim, 1.0), dim), dim)
    return left * right


class Var(Op):
    """torch.var over ``dim`` (None: all elements), divided by N - correction."""

    name, family = "var", REDUCTION
    saves = ("x",)

    @staticmethod
    def forward(xp, x, dims, correction, keepdim):
        return _variance(xp, x, dims, correction, keepdim)

    formula = "grad_self = grad * 2 * (self - mean) / (N - correction)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (_var_backward(grad, x, ctx.dims, ctx.correction, ctx.keepdim),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return _var_jvp(x_t, x, ctx)


class Std(Op):
    """torch.std: the square root of var; its gradient where std is 0 is 0, as PyTorch's."""

    name, family = "std", REDUCTION
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, dims, correction, keepdim):
        return xp.sqrt(_variance(xp, x, dims, correction, keepdim))

    formula = "grad_self = grad * (self - mean) / ((N - correction) * result)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (_std_backward(grad, x, result, ctx),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        return _std_jvp(x_t, x, result, ctx)


class VarMean(Op):
    """torch.var_mean: (var, mean) in one node."""

    name, family = "var_mean", REDUCTION
    outputs = ("var", "mean")
    saves = ("x",)

    @staticmethod
    def forward(xp, x, dims, correction, keepdim):
        return _variance(xp, x, dims, correction, keepdim), mean_array(xp, x, axis=dims, keepdims=keepdim)

    formula = "grad_self = grad_var * 2 * (self - mean) / (N - correction) + grad_mean / N"
    @staticmethod
    def vjp(ctx, grad_var, grad_mean):
        (x,) = ctx.saved_tensors
        return (_var_backward(grad_var, x, ctx.dims, ctx.correction, ctx.keepdim) + _mean_backward(grad_mean, x, ctx),)

    @staticmethod
    def jvp(ctx, x_t):
        return _var_jvp(x_t, ctx.saved_tensors[0], ctx), _mean_jvp(x_t, ctx)


class StdMean(Op):
    """torch.std_mean: (std, mean) in one node."""

    name, family = "std_mean", REDUCTION
    outputs = ("std", "mean")
    saves = ("x", "std")

    @staticmethod
    def forward(xp, x, dims, correction, keepdim):
        return xp.sqrt(_variance(xp, x, dims, correction, keepdim)), mean_array(xp, x, axis=dims, keepdims=keepdim)

    formula = "grad_self = grad_std * (self - mean) / ((N - correction) * std) + grad_mean / N"
    @staticmethod
    def vjp(ctx, grad_std, grad_mean):
        x, std = ctx.saved_tensors
        return (_std_backward(grad_std, x, std, ctx) + _mean_backward(grad_mean, x, ctx),)

    @staticmethod
    def jvp(ctx, x_t):
        x, std = ctx.saved_tensors
        return _std_jvp(x_t, x, std, ctx), _mean_jvp(x_t, ctx)


def _variance(xp, x, dims, correction, keepdim):
    deviations = x - mean_array(xp, x, axis=dims, keepdims=True)
    if x.dtype.kind == "c":  # |d|^2: a complex input has a real variance
        deviations = xp.abs(deviations)
    squares = xp.sum(deviations * deviations, axis=dims, keepdims=keepdim)
    count = x.size // squares.size if squares.size else 0
    return squares / (count - correction if count > correction else 0)  # correction >= N: divide by 0, as PyTorch


def _var_backward(grad, x, dims, correction, keepdim):
    dims = _all_dims(dims, x.ndim)
    dof = _count(x.shape, dims) - correction
    grad = _restore(grad, x.shape, dims, keepdim)
    deviations = x - x.mean(dims, keepdim=True) if x.ndim else x - x
    if dof <= 0:  # N <= correction: 2 / dof is infinite, and infinity * 0 is NaN where x equals the mean
        return grad * where(deviations == 0, math.nan, math.inf)
    return (2.0 / dof) * grad * deviations


def _std_backward(grad, x, std, ctx):
    zero = std == 0
    masked = where(zero, 0.0, grad / (2 * where(zero, 1.0, std)))  # no division by 0, even where masked
    return _var_backward(masked, x, ctx.dims, ctx.correction, ctx.keepdim)


def _var_jvp(x_t, x, ctx):
    """As PyTorch: sum over the dims of 2 / (N - correction) * Re(conj(x - mean) * x_t)."""
    dims = _all_dims(ctx.dims, x.ndim)
    dof = _count(x.shape, dims) - ctx.correction
    deviations = x - x.mean(dims, keepdim=True) if x.ndim else x - x
    return real(((2.0 / dof if dof > 0 else math.inf) * deviations.conj() * x_t).sum(dims, keepdim=ctx.keepdim))


def _std_jvp(x_t, x, std, ctx):
    """var's tangent / (2 std); 0 where std is 0, as PyTorch."""
    zero = std == 0
    return where(zero, 0.0, _var_jvp(x_t, x, ctx) / (2 * where(zero, 1.0, std)))


def _mean_jvp(x_t, ctx):
    return x_t.mean(_all_dims(ctx.dims, x_t.ndim), keepdim=ctx.keepdim)


def _mean_backward(grad, x, ctx):
    dims = _all_dims(ctx.dims, x.ndim)
    return (_restore(grad, x.shape, dims, ctx.keepdim) / _count(x.shape, dims)).expand(x.shape)


class Logsumexp(Op):
    """torch.logsumexp over ``dim``, computed without overflow."""

    name, family = "logsumexp", REDUCTION
    saves = ("x", "result")
    float_only = True

    @staticmethod
    def forward(xp, x, dim, keepdim):
        if x.size == 0:
            return xp.log(xp.sum(xp.exp(x), axis=dim, keepdims=keepdim))
        largest = xp.max(x.real, axis=dim, keepdims=True)  # a real shift, for complex inputs too
        largest = xp.where(xp.isinf(largest), 0, largest)  # all -inf (or an inf): shifting would give NaN
        result = xp.log(xp.sum(xp.exp(x - largest), axis=dim, keepdims=True)) + largest
        return result if keepdim else xp.squeeze(result, axis=dim)

    formula = "grad_self = grad * exp(self - result)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        grad, result = _restore(grad, x.shape, ctx.dim, ctx.keepdim), _restore(result, x.shape, ctx.dim, ctx.keepdim)
        return (grad * (x - result).exp().conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        tangent = _contract((x - _restore(result, x.shape, ctx.dim, ctx.keepdim)).exp(), x_t, ctx.dim, ctx.keepdim)
        # NOTE: PyTorch's tangent is sum(exp(x) x_t) / sum(exp(x)): over no elements, 0 / 0
        return tangent * math.nan if x.numel() == 0 else tangent


def norm_backward(grad, x, ord, norm, dims):
    """PyTorch's norm_backward: the gradient of the ``ord``-norm ``norm`` of x over ``dims``, with grad and norm
    broadcasting against x; None for ord 0 (PyTorch's gradient there is undefined, not zeros)."""
    if ord == 0:
        return None
    if ord == 1:
        return grad * x.sgn()
    if ord == 2:
        return x * where(norm == 0, 0.0, grad / where(norm == 0, 1.0, norm))  # no 0/0, even where masked
    if math.isinf(ord):
        mask = x.abs() == norm
        return x.sgn() * (grad / mask.sum(dims, keepdim=True)) * mask
    if ord < 1:
        scaled = x.sgn() * where(x == 0, 0.0, x.abs() ** (ord - 1))
        return scaled * grad * norm ** (1 - ord)
    scaled = x.sgn() * x.abs() ** (ord - 1) if ord < 2 else x * x.abs() ** (ord - 2)
    return scaled * where(norm == 0, 0.0, grad / norm ** (ord - 1))


class LinalgVectorNorm(Op):
    """torch.linalg.vector_norm (what torch.norm runs for vectors): the ``ord``-norm over ``dim`` (None: all).

    The gradient follows PyTorch's at zeros: 0 where the norm is 0, and sign(0) = 0 for ord 1 and ord < 1."""

    name, family = "norm", REDUCTION
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, dim, keepdim, ord=2, dtype=None):
        if dtype is not None:
            x = x.astype(dtype)
        magnitudes = xp.abs(x) if x.dtype.kind == "c" or ord != 2 else x
        if ord == 2:
            return xp.sqrt(xp.sum(magnitudes * magnitudes, axis=dim, keepdims=keepdim))
        if ord == math.inf:
            return xp.max(magnitudes, axis=dim, keepdims=keepdim)
        if ord == -math.inf:
            return xp.min(magnitudes, axis=dim, keepdims=keepdim)
        if ord == 0:
            return xp.sum(magnitudes != 0, axis=dim, keepdims=keepdim).astype(magnitudes.dtype)  # real, as |x|
        if ord == 1:
            return xp.sum(magnitudes, axis=dim, keepdims=keepdim)
        return xp.sum(magnitudes**ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)

    formula = "grad_self = grad * self |self|^(ord - 2) / result^(ord - 1)  (ord 2: grad * self / result)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        dims, ord = _all_dims(ctx.dim, x.ndim), ctx.ord
        grad, norm = _restore(grad, x.shape, dims, ctx.keepdim), _restore(result, x.shape, dims, ctx.keepdim)
        if ctx.dtype is not None:
            x = x.to(grad.dtype)
        return (norm_backward(grad, x, ord, norm, dims),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        if ctx.ord == 0:
            return None  # no tangent, as PyTorch
        (weights,) = LinalgVectorNorm.vjp(ctx, ones_like(result))
        x_t = x_t.to(result.dtype.to_complex() if x_t.is_complex() else result.dtype)
        return real(_contract(weights.conj(), x_t, _all_dims(ctx.dim, x.ndim), ctx.keepdim))


class Nansum(Op):
    """torch.nansum over ``dim`` (None: all elements): NaN counts as zero, and gets no gradient."""

    name, family = "nansum", REDUCTION
    saves = ("x",)

    @staticmethod
    def forward(xp, x, dim, keepdim, dtype=None):
        return xp.nansum(x, axis=dim, keepdims=keepdim, dtype=dtype)

    formula = "grad_self = where(isnan(self), 0, grad expanded to self's shape)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        grad = _restore(grad, x.shape, _all_dims(ctx.dim, x.ndim), ctx.keepdim)
        return (where(x != x, 0.0, grad.expand(x.shape)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        dims = _all_dims(ctx.dim, x.ndim)
        return SumDim.apply(where(x != x, 0.0, x_t), dim=dims, keepdim=ctx.keepdim, dtype=ctx.dtype)


class Any(Op):
    """torch.any; bool, or uint8 for uint8 input, as PyTorch."""

    differentiable = False

    @staticmethod
    def forward(xp, x, dim, keepdim):
        result = xp.any(x, axis=dim, keepdims=keepdim)
        return result.astype(x.dtype) if x.dtype == xp.uint8 else result


class All(Op):
    """torch.all."""

    differentiable = False

    @staticmethod
    def forward(xp, x, dim, keepdim):
        result = xp.all(x, axis=dim, keepdims=keepdim)
        return result.astype(x.dtype) if x.dtype == xp.uint8 else result


class CountNonzero(Op):
    """torch.count_nonzero: an int64 count."""

    differentiable = False

    @staticmethod
    def forward(xp, x, dim):
        return xp.asarray(xp.count_nonzero(x, axis=dim), dtype=xp.int64)


# ---- the functions users call ------------------------------------------------------------------------------
def _dims(dim, input):
    """A dim or dims as a sorted tuple; the empty tuple means all dims, as in PyTorch."""
    return normalize_dims(dim, input.ndim) or tuple(range(input.ndim))


def _sum_dtype(input, dtype):
    if dtype is not None:
        return dtype.numpy
    return int64.numpy if input.dtype._category < 2 else None  # integers and bools sum in int64, as in PyTorch


@parses("sum(Tensor input, *, ScalarType? dtype=None)",
        "sum(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None)")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of all elements, or over ``dim`` (int or tuple) (see torch.sum)."""
    dtype = _sum_dtype(input, dtype)
    if dim is None:
        return Sum.apply(input, dtype=dtype)
    return SumDim.apply(input, dim=_dims(dim, input), keepdim=keepdim, dtype=dtype)


@parses("mean(Tensor input, *, ScalarType? dtype=None, Tensor out=None)",
        "mean(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None)")
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of all elements, or over ``dim`` (see torch.mean)."""
    result_dtype = dtype or input.dtype
    if not (result_dtype.is_floating_point or result_dtype.is_complex):
        raise RuntimeError(
            "mean(): could not infer output dtype. "
            + ("Input" if dtype is None else "Optional") + " dtype must be either a floating point or complex dtype. "
            f"Got: {result_dtype.title}"
        )
    dtype = dtype and dtype.numpy
    if dim is None:
        return Mean.apply(input, dtype=dtype)
    return MeanDim.apply(input, dim=_dims(dim, input), keepdim=keepdim, dtype=dtype)


@parses("prod(Tensor input, *, ScalarType? dtype=None)",
        "prod(Tensor input, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None)")
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of all elements, or along one ``dim`` (see torch.prod)."""
    if AUTOCAST.active:
        (input,) = autocast_inputs("prod", input)
    dtype = _sum_dtype(input, dtype)
    if dim is None:
        return Prod.apply(input, dtype=dtype)
    return ProdDim.apply(input, axis=wrap_dim(dim, input.ndim), keepdim=keepdim, dtype=dtype)


def _variance_arguments(name, input, dim, unbiased, keepdim, correction):
    """PyTorch's var/std overloads: var(x, unbiased), var(x, dim, unbiased, keepdim), var(x, dim, *, correction)."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: both unbiased and correction")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"{'std and var' if name in ('std', 'var') else name} only support floating point and "
                           "complex dtypes")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif isinstance(correction, complex):  # PyTorch reads it as a double
        if correction.imag:
            raise RuntimeError("value cannot be converted to type double without overflow")
        correction = correction.real
    dims = None if dim is None else _dims(dim, input)
    return dict(dims=dims, correction=correction, keepdim=keepdim)


@parses("var(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor out=None)",
        "var(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor out=None)",
        "var(Tensor input, bool unbiased=True)")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim``, divided by N - correction (see torch.var)."""
    return Var.apply(input, **_variance_arguments("var", input, dim, unbiased, keepdim, correction))


@parses("std(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor out=None)",
        "std(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor out=None)",
        "std(Tensor input, bool unbiased=True)")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over ``dim`` (see torch.std)."""
    return Std.apply(input, **_variance_arguments("std", input, dim, unbiased, keepdim, correction))


@parses("var_mean(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False)",
        "var_mean(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)",
        "var_mean(Tensor input, bool unbiased=True)")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over ``dim`` (see torch.var_mean)."""
    return VarMean.apply(input, **_variance_arguments("var_mean", input, dim, unbiased, keepdim, correction))


@parses("std_mean(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False)",
        "std_mean(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)",
        "std_mean(Tensor input, bool unbiased=True)")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over ``dim`` (see torch.std_mean)."""
    return StdMean.apply(input, **_variance_arguments("std_mean", input, dim, unbiased, keepdim, correction))


@parses("logsumexp(Tensor input, int[1] dim, bool keepdim=False, *, Tensor out=None)")
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over ``dim``, computed stably (see torch.logsumexp)."""
    if isinstance(dim, (tuple, list)) and not dim and not keepdim and input.ndim:
        # no dims: PyTorch reduces all, then fails to write the result back
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {[1] * input.ndim}")
    return Logsumexp.apply(input, dim=_dims(dim, input), keepdim=keepdim)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The vector p-norm (p a number, None: 2), or 'fro' or 'nuc' matrix norm, over ``dim`` or all elements (see
    torch.norm, whose Python this mirrors: it calls linalg.vector_norm or linalg.matrix_norm)."""
    from ndgrad.ops.matrix_functions import matrix_norm  # that module's norms are built on this one's

    if not hasattr(input, "_data"):  # torch.norm reads the layout first
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'layout'")
    extra = {} if out is None else {"out": out}
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, dims, keepdim, dtype=dtype, **extra)
        return matrix_norm(input, p, list(range(input.ndim)) if dims is None else dims, keepdim, dtype=dtype, **extra)
    return vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype, **extra)


@parses("linalg_vector_norm(Tensor input, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None, Tensor out=None)")
def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ``ord``-norm over ``dim`` (see torch.linalg.vector_norm)."""
    check_floating("linalg.vector_norm", input)
    check_norm_order("linalg.vector_norm", ord)
    if input.numel() == 0 and (ord < 0 or ord == math.inf):  # max and min of nothing have no value
        dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
        if not dims:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {scalar_text(ord)} norm on an empty tensor "
                               "because the operation does not have an identity")
        for d in dims:
            if input.shape[wrap_dim(d, input.ndim)] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {scalar_text(ord)} norm on the dimension "
                                   f"{d}because this dimension is empty and the operation does not have an identity")
    check_norm_dtype("linalg.vector_norm", dtype, input.dtype)
    dims = None if dim is None else _dims(dim, input)
    return LinalgVectorNorm.apply(input, dim=dims, keepdim=keepdim, ord=float(ord), dtype=dtype and dtype.numpy)


@parses("nansum(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None)")
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero (see torch.nansum)."""
    no_complex(input, "nansum on CPU does not support complex inputs", RuntimeError)
    dims = None if dim is None else _dims(dim, input)
    return Nansum.apply(input, dim=dims, keepdim=keepdim, dtype=_sum_dtype(input, dtype))


@parses("nanmean(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None)")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-NaN elements (see torch.nanmean)."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype.title}"
        )
    no_complex(input, "nansum on CPU does not support complex inputs", RuntimeError)
    # A composite, as in PyTorch: its result is recorded by DivBackward0.
    return nansum(input, dim, keepdim, dtype=dtype) / sum(input == input, dim, keepdim)


def _logical(op, input, dim, keepdim):
    dims = None if dim is None else normalize_dims(dim, input.ndim)  # no dims: each element on its own, as PyTorch
    return op.apply(input, dim=dims, keepdim=keepdim)


@parses("any(Tensor input, *, Tensor out=None)",
        "any(Tensor input, int[]? dim=None, bool keepdim=False, *, Tensor out=None)",
        "any(Tensor input, int dim, bool keepdim=False, *, Tensor out=None)")
def any(input, dim=None, keepdim=False):
    """Whether any element is nonzero, over ``dim`` (see torch.any)."""
    return _logical(Any, input, dim, keepdim)


@parses("all(Tensor input, *, Tensor out=None)",
        "all(Tensor input, int[]? dim=None, bool keepdim=False, *, Tensor out=None)",
        "all(Tensor input, int dim, bool keepdim=False, *, Tensor out=None)")
def all(input, dim=None, keepdim=False):
    """Whether every element is nonzero, over ``dim`` (see torch.all)."""
    return _logical(All, input, dim, keepdim)


@parses("count_nonzero(Tensor input, int? dim=None)",
        "count_nonzero(Tensor input, int[] dim)")
def count_nonzero(input, dim=None):
    """Number of nonzero elements, over ``dim`` (see torch.count_nonzero)."""
    return CountNonzero.apply(input, dim=None if dim is None else _dims(dim, input))


class ReductionMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    sum = tensor_method(sum)
    sum_to_size = tensor_method(sum_to_size, "sum_to_size(SymInt[] size)")
    mean = tensor_method(mean)
    prod = tensor_method(prod)
    var = tensor_method(var)
    std = tensor_method(std)
    logsumexp = tensor_method(logsumexp)
    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return norm(self, p, dim, keepdim, dtype=dtype)
    nansum = tensor_method(nansum)
    nanmean = tensor_method(nanmean)
    any = tensor_method(any)
    all = tensor_method(all)
    count_nonzero = tensor_method(count_nonzero)
