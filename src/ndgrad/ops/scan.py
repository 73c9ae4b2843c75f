"""Scans along a dim: cumsum, cumprod, cummax, cummin, logcumsumexp, cumulative_trapezoid (a cumsum of trapezoids)
and trapezoid (its total), and diff, their inverse; and the flip, shift and scatter helpers their gradients use."""

import numpy as np

import ndgrad.return_types as return_types
from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad._dtype import bool_, get_default_dtype, int64
from ndgrad.ops._checks import no_complex_kernel
from ndgrad.ops._op import SCAN, Op
from ndgrad.ops.arithmetic import DivScalar
from ndgrad.ops.comparison import where
from ndgrad.ops.shape import wrap_dim

__all__ = [
    "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "cumulative_trapezoid", "trapezoid", "trapz", "diff",
]


class Cumsum(Op):
    """torch.cumsum along ``dim``; integer and bool inputs sum in int64."""

    name, family = "cumsum", SCAN

    @staticmethod
    def forward(xp, x, dim, dtype):
        return xp.cumsum(x, axis=dim, dtype=dtype) if x.ndim else x.astype(dtype or x.dtype)

    formula = "grad_self = grad cumulatively summed from the end along dim"
    @staticmethod
    def vjp(ctx, grad):
        return (reversed_cumsum(grad, ctx.dim),)

    @staticmethod
    def jvp(ctx, x_t):
        return Cumsum.apply(x_t, dim=ctx.dim, dtype=ctx.dtype)


class Cumprod(Op):
    """torch.cumprod along ``dim``; its gradient is exact where inputs are zero, as PyTorch's."""

    name, family = "cumprod", SCAN
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, dim, dtype):
        return xp.cumprod(x, axis=dim, dtype=dtype) if x.ndim else x.astype(dtype or x.dtype)

    formula = "grad_self = reversed_cumsum(grad * result, dim) / self  (without the division where self has zeros)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        dim = ctx.dim
        if x.ndim == 0 or x.shape[dim] == 1:
            return (grad,)
        if not (x._data == 0).any():
            return (reversed_cumsum(grad * result.conj(), dim) / x.conj(),)
        return (_cumprod_backward_with_zeros(grad, x, dim),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        dim = ctx.dim
        if x.ndim == 0 or x.shape[dim] == 1:
            return x_t.to(result.dtype)
        if not (x._data == 0).any():
            return cumsum(x_t / x, dim) * result
        return (_cumprod_partials(x, dim) * x_t.unsqueeze(dim + 1)).sum(dim)  # exact where x has zeros


def _cumprod_backward_with_zeros(grad, x, dim):
    """sum over j >= k of grad[j] * prod(x[i] for i <= j, i != k), as a differentiable O(n^2) expression.

    NOTE: result / x is undefined at zeros; PyTorch, too, takes this quadratic path when building a graph."""
    return (_cumprod_partials(x, dim).conj() * grad.unsqueeze(dim)).sum(dim + 1)


def _cumprod_partials(x, dim):
    """d result[j] / d x[k] = prod(x[i] for i <= j, i != k) if j >= k, else 0; k along ``dim``, j along dim + 1."""
    from ndgrad._ranges import arange

    n, ndim = x.shape[dim], x.ndim
    square = [n if axis in (dim, dim + 1) else 1 for axis in range(ndim + 1)]  # axes k (dim) and i or j (dim + 1)
    k, i = arange(n, device=x.device).unsqueeze(1), arange(n, device=x.device).unsqueeze(0)
    others = where((k == i).reshape(square), 1.0, x.unsqueeze(dim))  # row k: x with x[k] replaced by 1
    products = cumprod(others, dim + 1)  # products[k, j] = prod(x[i] for i <= j, i != k)
    return products * (i >= k).reshape(square)


class Cummax(Op):
    """torch.cummax: running maximum along ``dim`` and the index where it was last reached; the gradient goes to
    that index."""

    name, family = "cummax", SCAN
    outputs = ("values", "indices")
    saves = ("indices",)

    @staticmethod
    def forward(xp, x, dim):
        return _running_extremum(xp, x, dim, xp.maximum)

    formula = "grad_self = zeros_like(self).scatter_add(dim, indices, grad)"
    @staticmethod
    def vjp(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        if indices.ndim == 0:
            return (grad,)
        return (ScatterAdd.apply(grad, indices=indices._data, dim=ctx.dim),)

    @staticmethod
    def jvp(ctx, x_t):
        (indices,) = ctx.saved_tensors
        return TakeAlongDim.apply(x_t, indices=indices._data, dim=ctx.dim) if x_t.ndim else x_t.clone(), None


class Cummin(Cummax):
    """torch.cummin."""

    name = "cummin"

    @staticmethod
    def forward(xp, x, dim):
        return _running_extremum(xp, x, dim, xp.minimum)


def _running_extremum(xp, x, dim, ufunc):
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=xp.int64)
    values = ufunc.accumulate(x, axis=dim)  # maximum/minimum propagate NaN, as PyTorch's running extrema do
    # NOTE: PyTorch moves the index on ties (>=), so it is the last position so far holding the running value.
    reached = (x == values) | xp.isnan(x)
    positions = xp.arange(x.shape[dim]).reshape([-1 if axis == dim else 1 for axis in range(x.ndim)])
    indices = xp.maximum.accumulate(xp.where(reached, positions, 0), axis=dim)
    return values, indices.astype(xp.int64)


class Logcumsumexp(Op):
    """torch.logcumsumexp: log of the running sum of exp along ``dim``, without overflow."""

    name, family = "logcumsumexp", SCAN
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, dim):
        if x.ndim == 0:
            return x.copy()
        if x.dtype.kind == "c":  # NumPy has no complex logaddexp: shift by the largest real part instead
            shift = xp.max(x.real, axis=dim, keepdims=True)
            return xp.log(xp.cumsum(xp.exp(x - shift), axis=dim)) + shift
        return xp.logaddexp.accumulate(x, axis=dim)

    formula = "grad_self[k] = sum over j >= k of grad[j] * exp(self[k] - result[j])"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        if x.ndim == 0:
            return (grad,)
        if x.is_complex():  # sum over j >= k of grad[j] * conj(exp(x[k] - result[j])), shifted by a constant
            shift = x.real.amax(ctx.dim, keepdim=True).detach()
            back = reversed_cumsum(grad * (shift - result).exp().conj(), ctx.dim)
            return (back * (x - shift).exp().conj(),)
        # NOTE: as PyTorch: sum over j >= k of grad[j] * exp(x[k] - result[j]), the positive and negative parts of
        # grad each summed in log space, so that no exp overflows.
        lowest = float(np.finfo(x._data.dtype).min)
        log_grad = grad.abs().log()
        positive = where(grad > 0, log_grad, lowest)
        negative = where(grad < 0, log_grad, lowest)
        reverse = _reversed_logcumsumexp
        return ((reverse(positive - result, ctx.dim) + x).exp() - (reverse(negative - result, ctx.dim) + x).exp(),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        if x.ndim == 0:
            return x_t.clone()
        # NOTE: as PyTorch: cumsum(w * x_t) / (cumsum(w) + 1e-13), w = exp(x - max along dim). Where the sum of w
        # underflows (a running value far below the max), the tangent is 0, not the exact one finite differences see.
        weights = (x - x.real.amax(ctx.dim, keepdim=True)).exp()
        return cumsum(weights * x_t, ctx.dim) / (cumsum(weights, ctx.dim) + 1e-13)


def _reversed_logcumsumexp(x, dim):
    return flip(logcumsumexp(flip(x, dim), dim), dim)


# ---- helpers the gradients are written with --------------------------------------------------------------------
class Flip(Op):
    """The elements in reverse order along ``dim`` (a copy, like torch.flip)."""

    @staticmethod
    def forward(xp, x, dim):
        return xp.flip(x, axis=dim).copy()

    formula = "grad_self = grad.flip(dim)"
    @staticmethod
    def vjp(ctx, grad):
        return (flip(grad, ctx.dim),)

    @staticmethod
    def jvp(ctx, x_t):
        return flip(x_t, ctx.dim)


class Shift(Op):
    """Each element moved one step along ``dim`` (forward: to index + 1; else to index - 1); the freed end holds
    ``fill``. Shifting x forward with fill 1 and taking cumprod gives the exclusive products."""

    @staticmethod
    def forward(xp, x, dim, fill, forward):
        result = xp.full_like(x, fill)
        n = x.shape[dim]
        early, late = [slice(None)] * x.ndim, [slice(None)] * x.ndim
        early[dim], late[dim] = slice(0, n - 1), slice(1, n)
        source, target = (early, late) if forward else (late, early)
        result[tuple(target)] = x[tuple(source)]
        return result

    formula = "grad_self = grad shifted back the other way (zeros fill)"
    @staticmethod
    def vjp(ctx, grad):
        return (Shift.apply(grad, dim=ctx.dim, fill=0, forward=not ctx.forward),)

    @staticmethod
    def jvp(ctx, x_t):
        return Shift.apply(x_t, dim=ctx.dim, fill=0, forward=ctx.forward)


class ScatterAdd(Op):
    """Zeros of grad's shape, into which each grad element is added at its ``indices`` position along ``dim``."""

    @staticmethod
    def forward(xp, grad, indices, dim):
        result = xp.zeros_like(grad)
        where_to = list(xp.indices(grad.shape, sparse=True))
        where_to[dim] = indices
        xp.add.at(result, tuple(where_to), grad)
        return result

    formula = "grad_self = grad.take_along_dim(indices, dim)"
    @staticmethod
    def vjp(ctx, grad):
        return (TakeAlongDim.apply(grad, indices=ctx.indices, dim=ctx.dim),)

    @staticmethod
    def jvp(ctx, grad_t):
        return ScatterAdd.apply(grad_t, indices=ctx.indices, dim=ctx.dim)


class TakeAlongDim(Op):
    """The elements of x at ``indices`` along ``dim``; the gradient of ScatterAdd."""

    @staticmethod
    def forward(xp, x, indices, dim):
        return xp.take_along_axis(x, indices, axis=dim)

    formula = "grad_self = zeros(self.shape).scatter_add(dim, indices, grad)"
    @staticmethod
    def vjp(ctx, grad):
        return (ScatterAdd.apply(grad, indices=ctx.indices, dim=ctx.dim),)

    @staticmethod
    def jvp(ctx, x_t):
        return TakeAlongDim.apply(x_t, indices=ctx.indices, dim=ctx.dim)


def flip(input, dim):
    return Flip.apply(input, dim=dim) if input.ndim else input


def shift(input, dim, fill):
    """input moved one step forward along ``dim``, with ``fill`` at the start."""
    return Shift.apply(input, dim=dim, fill=fill, forward=True)


def reversed_cumsum(input, dim):
    """Sums from each position to the end along ``dim``: the gradient of cumsum."""
    return flip(cumsum(flip(input, dim), dim), dim) if input.ndim else input


# ---- the functions users call --------------------------------------------------------------------------------
def _scan_(cls, self, dim, dtype):
    """cumsum_ and cumprod_ accumulate in self's own dtype (a uint8 sum wraps), which has no bool kernel."""
    if dtype is not None and dtype is not self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {self.dtype.cpp_name} and output tensor dtype "
                           f"{dtype.cpp_name} should match")
    if self.dtype is bool_:
        raise NotImplementedError(f"\"{cls.name}_out_cpu\" not implemented for 'Bool'")
    return cls.apply_(self, dim=wrap_dim(dim, self.ndim), dtype=self._data.dtype)


def _accumulation_dtype(input, dtype):
    if dtype is not None:
        return dtype.numpy
    return int64.numpy if input.dtype._category < 2 else None  # integers and bools accumulate in int64


@parses("cumsum(Tensor input, int dim, *, ScalarType? dtype=None, Tensor out=None)")
def cumsum(input, dim, *, dtype=None):
    """Running sums along ``dim`` (see torch.cumsum)."""
    dim = wrap_dim(dim, input.ndim)
    return Cumsum.apply(input, dim=dim, dtype=_accumulation_dtype(input, dtype))


@parses("cumprod(Tensor input, int dim, *, ScalarType? dtype=None, Tensor out=None)")
def cumprod(input, dim, *, dtype=None):
    """Running products along ``dim`` (see torch.cumprod)."""
    dim = wrap_dim(dim, input.ndim)
    return Cumprod.apply(input, dim=dim, dtype=_accumulation_dtype(input, dtype))


def _extremum_dim(name, input, dim):
    no_complex_kernel(f"{name}_cpu", input)
    if input.ndim == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    return wrap_dim(dim, input.ndim)


@parses("cummax(Tensor input, int dim, *, Tensor[2] out=None)")
def cummax(input, dim):
    """(values, indices) of the running maximum along ``dim`` (see torch.cummax)."""
    return return_types.cummax(Cummax.apply(input, dim=_extremum_dim("cummax", input, dim)))


@parses("cummin(Tensor input, int dim, *, Tensor[2] out=None)")
def cummin(input, dim):
    """(values, indices) of the running minimum along ``dim`` (see torch.cummin)."""
    return return_types.cummin(Cummin.apply(input, dim=_extremum_dim("cummin", input, dim)))


@parses("logcumsumexp(Tensor input, int dim, *, Tensor out=None)")
def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along ``dim``, computed stably (see torch.logcumsumexp)."""
    dim = wrap_dim(dim, input.ndim)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{input.dtype.title}'")
    return Logcumsumexp.apply(input, dim=dim)


@parses("diff(Tensor input, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None, *, Tensor out=None)")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward differences along dim, of input with prepend and append joined at its ends (see torch.diff):
    a composite of slices and sub (logical_xor for bool), so differentiable as they are."""
    from ndgrad.ops.comparison import logical_xor
    from ndgrad.ops.joining import cat

    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, input.ndim)
    for extra in (prepend, append):
        if extra is None:
            continue
        if extra.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for axis in range(input.ndim):
            if axis != dim and extra.shape[axis] != input.shape[axis]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of input except along the "
                    f"differencing dimension; input.size({axis}) = {input.shape[axis]}, but got "
                    f"tensor.size({axis}) = {extra.shape[axis]}"
                )
    if n == 0:  # no differences: input's values, without prepend and append (as torch)
        return input.clone()
    parts = [t for t in (prepend, input, append) if t is not None]
    result = cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = result.shape[dim]
        if length == 0:
            break
        later, earlier = result.narrow(dim, 1, length - 1), result.narrow(dim, 0, length - 1)
        result = logical_xor(later, earlier) if result.dtype is bool_ else later - earlier
    return result


@parses("cumulative_trapezoid(Tensor y, Tensor x, *, int dim=-1)",
        "cumulative_trapezoid(Tensor y, *, Scalar dx=1, int dim=-1)")
def cumulative_trapezoid(y, x=None, *, dx=1, dim=-1):
    """The running trapezoidal-rule integral of y along dim, at sample points x or spacing dx (see
    torch.cumulative_trapezoid): PyTorch's composite, so its grad_fn is cumsum's (a division's, with x)."""
    if x is None:
        if y.dtype is bool_:
            raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is not supported")
        if isinstance(dx, (bool, complex)):
            raise RuntimeError("cumulative_trapezoid: Currently, we only support dx as a real number.")
        left, right, dim = _trapezoid_ends(y, dim)
        return (float(dx) / 2.0 * (left + right)).cumsum(dim)
    x, dim = _sample_points("cumulative_trapezoid", y, x, dim)
    x_left, x_right, _ = _trapezoid_ends(x, dim)
    left, right, _ = _trapezoid_ends(y, dim)
    summed = ((left + right) * (x_right - x_left)).cumsum(dim)  # in this order, for the shape error
    if not (summed.dtype.is_floating_point or summed.dtype.is_complex):
        summed = summed.to(get_default_dtype())  # as an integer tensor / 2. gives the default float dtype
    return DivScalar.apply(summed, other=2.0)


@parses("trapezoid(Tensor y, Tensor x, *, int dim=-1)", "trapezoid(Tensor y, *, Scalar dx=1, int dim=-1)")
def trapezoid(y, x=None, *, dx=1, dim=-1):
    """The trapezoidal-rule integral of y along dim, at sample points x or spacing dx (see torch.trapezoid):
    PyTorch's composite, (sum - the ends' halves) * dx, or the sum of the trapezoids / 2 with x."""
    if y.ndim and y.shape[wrap_dim(dim, y.ndim)] == 0:  # no samples integrate to 0, as NumPy's trapz
        dim = wrap_dim(dim, y.ndim)
        return y.new_zeros(y.shape[:dim] + y.shape[dim + 1:])
    if x is None:
        if y.dtype is bool_:
            raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
        if isinstance(dx, (bool, complex)):
            raise RuntimeError("trapezoid: Currently, we only support dx as a real number.")
        dim = wrap_dim(dim, y.ndim)
        return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * float(dx)
    x, dim = _sample_points("trapezoid", y, x, dim)
    x_left, x_right, _ = _trapezoid_ends(x, dim)
    left, right, _ = _trapezoid_ends(y, dim)
    return ((left + right) * (x_right - x_left)).sum(dim) / 2.0  # this order, for the shape error


@parses("trapz(Tensor y, *, float dx=1, int dim=-1)", "trapz(Tensor y, Tensor x, *, int dim=-1)")
def trapz(y, x=None, *, dx=1, dim=-1):
    """torch.trapz, trapezoid's older name (its dx is a float)."""
    return trapezoid.__wrapped__(y, x, dx=dx, dim=dim)


def _sample_points(function, y, x, dim):
    """x viewed so that it broadcasts against y along dim (a 1-d x holds dim's sample points), and dim wrapped;
    with PyTorch's checks."""
    dim = wrap_dim(dim, y.ndim)
    if y.dtype is bool_ or x.dtype is bool_:
        raise RuntimeError(f"{function}: received a bool input for `x` or `y`, but bool is not supported")
    if x.ndim == 1:  # the sample points of dim, for every slice
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{function}: There must be one `x` value for each sample point")
        x = x.reshape([x.shape[0] if d == dim else 1 for d in range(y.ndim)])
    elif x.ndim < y.ndim:
        x = x.reshape((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    return x, dim


def _trapezoid_ends(tensor, dim):
    """The left and right ends of the intervals along dim (all but the last element, all but the first), and dim
    wrapped."""
    if tensor.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, tensor.ndim)
    before = (slice(None),) * dim
    return tensor[before + (slice(None, -1),)], tensor[before + (slice(1, None),)], dim


class ScanMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    cumsum = tensor_method(cumsum)
    cumprod = tensor_method(cumprod)
    cummax = tensor_method(cummax)
    cummin = tensor_method(cummin)
    logcumsumexp = tensor_method(logcumsumexp)
    diff = tensor_method(diff)
    @parses_method("cumsum_(int dim, *, ScalarType? dtype=None)")
    def cumsum_(self, dim, *, dtype=None):
        return _scan_(Cumsum, self, dim, dtype)
    @parses_method("cumprod_(int dim, *, ScalarType? dtype=None)")
    def cumprod_(self, dim, *, dtype=None):
        return _scan_(Cumprod, self, dim, dtype)

