"""Reductions: sum, mean, max/min (whole tensor, or along a dim with indices), and the 2-norm."""

from collections import namedtuple

from ndgrad.ops._op import REDUCTION, Op
from ndgrad.ops.arithmetic import where
from ndgrad.ops.shape import normalize_dims, wrap_dim

__all__ = ["sum", "mean", "max", "min", "norm"]


def _kept_shape(input_shape, dims):
    """The shape a reduction over ``dims`` has with keepdim=True: those dims become 1."""
    return tuple(1 if i in dims else size for i, size in enumerate(input_shape))


def _unreduce(grad, ctx):
    """Bring a reduction's gradient back to the input's rank, so it broadcasts over the reduced dims."""
    if ctx.keepdim:
        return grad
    return grad.reshape(_kept_shape(ctx.input_shapes[0], ctx.dim))


class Sum(Op):
    """torch.sum over all elements."""

    name, family = "sum", REDUCTION

    @staticmethod
    def forward(xp, x):
        return xp.sum(x)

    @staticmethod
    def vjp(ctx, grad):
        return (grad.expand(ctx.input_shapes[0]),)


class SumDim(Op):
    """torch.sum over ``dim`` (a tuple of dims), keeping them as size 1 if keepdim."""

    name, family = "sum", REDUCTION
    node_name = "SumBackward1"

    @staticmethod
    def forward(xp, x, dim, keepdim):
        return xp.sum(x, axis=dim, keepdims=keepdim)

    @staticmethod
    def vjp(ctx, grad):
        return (_unreduce(grad, ctx).expand(ctx.input_shapes[0]),)


class Mean(Op):
    """torch.mean over all elements."""

    name, family = "mean", REDUCTION

    @staticmethod
    def forward(xp, x):
        return xp.mean(x)

    @staticmethod
    def vjp(ctx, grad):
        shape = ctx.input_shapes[0]
        return ((grad / _count(shape, range(len(shape)))).expand(shape),)


class MeanDim(Op):
    """torch.mean over ``dim``."""

    name, family = "mean", REDUCTION
    node_name = "MeanBackward1"

    @staticmethod
    def forward(xp, x, dim, keepdim):
        return xp.mean(x, axis=dim, keepdims=keepdim)

    @staticmethod
    def vjp(ctx, grad):
        shape = ctx.input_shapes[0]
        return ((_unreduce(grad, ctx) / _count(shape, ctx.dim)).expand(shape),)


def _reduced_dims(dim, ndim):
    """The dims a reduction runs over: an empty tuple means all of them, as in PyTorch."""
    return normalize_dims(dim, ndim) or tuple(range(ndim))


def _count(shape, dims):
    count = 1
    for d in dims:
        count *= shape[d]
    return count


class Max(Op):
    """torch.max of all elements; ties share the gradient equally, as in PyTorch."""

    name, family = "max", REDUCTION
    node_name = "MaxBackward1"
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x):
        return xp.max(x)

    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        mask = x == result
        return (grad * mask / mask.sum(),)


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
        return _gather_reduced(xp, x, xp.argmax, dim, keepdim)

    @staticmethod
    def vjp(ctx, grad, grad_indices):
        from ndgrad._creation import arange

        (indices,) = ctx.saved_tensors
        shape = ctx.input_shapes[0]
        if not shape:
            return (grad,)
        if not ctx.keepdim:
            grad, indices = grad.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
        positions = arange(shape[ctx.dim], device=grad.device).reshape(
            [-1 if i == ctx.dim else 1 for i in range(len(shape))]
        )
        return (grad * (positions == indices),)


class MinDim(MaxDim):
    """torch.min along ``dim``."""

    name = "min"
    node_name = "MinBackward0"

    @staticmethod
    def forward(xp, x, dim, keepdim):
        return _gather_reduced(xp, x, xp.argmin, dim, keepdim)


def _gather_reduced(xp, x, pick, dim, keepdim):
    if x.ndim == 0:  # a 0-d tensor is its own extremum along dim 0, at index 0
        return x.copy(), xp.zeros((), dtype=xp.int64)
    indices = pick(x, axis=dim, keepdims=True)
    values = xp.take_along_axis(x, indices, axis=dim)
    if not keepdim:
        values, indices = xp.squeeze(values, axis=dim), xp.squeeze(indices, axis=dim)
    return values, indices


class LinalgVectorNorm(Op):
    """The 2-norm over ``dim`` (None: all elements); its gradient at a zero norm is 0, as PyTorch's."""

    name, family = "norm", REDUCTION
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, dim, keepdim):
        return xp.sqrt(xp.sum(x * x, axis=dim, keepdims=keepdim))

    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        dims = ctx.dim if ctx.dim is not None else tuple(range(x.ndim))
        if not ctx.keepdim:
            shape = _kept_shape(ctx.input_shapes[0], dims)
            grad, result = grad.reshape(shape), result.reshape(shape)
        zero = result == 0
        return (x * where(zero, 0.0, grad / where(zero, 1.0, result)),)  # no 0/0 computed, even where masked


# ---- the functions users call ------------------------------------------------------------------------------
_return_types = {}


def _values_indices(name):
    """PyTorch's named result (values, indices) of max/min along a dim."""
    if name not in _return_types:
        base = namedtuple(name, ["values", "indices"])
        base.__repr__ = lambda self: f"ndgrad.return_types.{name}(\nvalues={self.values},\nindices={self.indices})"
        _return_types[name] = base
    return _return_types[name]


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of all elements, or over ``dim`` (int or tuple) (see torch.sum)."""
    if dtype is not None:
        input = input.to(dtype)
    elif input.dtype._category < 2:
        input = input.long()  # integers and bools sum in int64, as in PyTorch
    if dim is None:
        return Sum.apply(input)
    return SumDim.apply(input, dim=_reduced_dims(dim, input.ndim), keepdim=keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of all elements, or over ``dim`` (see torch.mean)."""
    if dtype is not None:
        input = input.to(dtype)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {input.dtype.title}"
        )
    if dim is None:
        return Mean.apply(input)
    return MeanDim.apply(input, dim=_reduced_dims(dim, input.ndim), keepdim=keepdim)


def _extremum(whole, along_dim, name, input, dim, keepdim):
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                "dim with the 'dim' argument."
            )
        return whole.apply(input)
    dim = wrap_dim(dim, input.ndim)
    if input.ndim and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return _values_indices(name)(*along_dim.apply(input, dim=dim, keepdim=keepdim))


def max(input, dim=None, keepdim=False):
    """Largest element, or (values, indices) along ``dim`` (see torch.max)."""
    return _extremum(Max, MaxDim, "max", input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    """Smallest element, or (values, indices) along ``dim`` (see torch.min)."""
    return _extremum(Min, MinDim, "min", input, dim, keepdim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The 2-norm (p=2 or 'fro') of all elements or over ``dim`` (see torch.norm)."""
    if p not in (2, 2.0, "fro", None):
        raise NotImplementedError(f"ndgrad.norm supports p=2 and p='fro'; got p={p!r}")
    if dtype is not None:
        input = input.to(dtype)
    dims = None if dim is None else _reduced_dims(dim, input.ndim)
    return LinalgVectorNorm.apply(input, dim=dims, keepdim=keepdim)


class ReductionMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return sum(self, dim, keepdim, dtype=dtype)
    def mean(self, dim=None, keepdim=False, *, dtype=None):
        return mean(self, dim, keepdim, dtype=dtype)
    def max(self, dim=None, keepdim=False):
        return max(self, dim, keepdim)
    def min(self, dim=None, keepdim=False):
        return min(self, dim, keepdim)
    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return norm(self, p, dim, keepdim, dtype=dtype)
