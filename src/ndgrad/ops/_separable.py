"""What pooling and resampling share: gather and scatter along flattened planes (max pooling, unpooling), and
linear maps that are one matrix per spatial dim (average pooling, padding, interpolation) with their rules. Those
matrices depend on sizes alone: they are host tables (NumPy), moved to the data's device where they are applied."""

import numpy as np

from ndgrad._device import array_namespace
from ndgrad.ops._op import SHAPE, Op


class Gather(Op):
    """out[b, q] = x[b, index[b, q]] on (B, P) planes; its transpose is Scatter."""

    @staticmethod
    def forward(xp, x, index):
        return xp.take_along_axis(x, xp.broadcast_to(index, (x.shape[0], index.shape[1])), axis=1)

    formula = "grad_self = grad scattered back to the gathered positions"
    @staticmethod
    def vjp(ctx, grad):
        return (Scatter.apply(grad, index=ctx.index, size=ctx.input_shapes[0][1]),)

    @staticmethod
    def jvp(ctx, x_t):
        return Gather.apply(x_t, index=ctx.index)


class Scatter(Op):
    """out[b, index[b, q]] += grad[b, q] into (B, size) zero planes: the vjp of max pooling."""

    @staticmethod
    def forward(xp, grad, index, size):
        batch = grad.shape[0]
        flat = (xp.arange(batch)[:, None] * size + index).ravel()
        sums = xp.bincount(flat, weights=grad.ravel(), minlength=batch * size)  # NOTE: sums in float64
        return sums.reshape(batch, size).astype(grad.dtype)

    formula = "grad_self = grad gathered at the scattered positions"
    @staticmethod
    def vjp(ctx, grad):
        return (Gather.apply(grad, index=ctx.index),)

    @staticmethod
    def jvp(ctx, grad_t):
        return Scatter.apply(grad_t, index=ctx.index, size=ctx.size)


def apply_matrices(xp, x, matrices, transpose=False):
    """Multiply the last len(matrices) dims of x, each by its (out, in) matrix (or its transpose)."""
    for dim, matrix in zip(range(-len(matrices), 0), matrices):
        x = xp.swapaxes(xp.matmul(xp.swapaxes(x, dim, -1), matrix if transpose else matrix.T), dim, -1)
    return x


class Separable(Op):
    """A linear map that is one matrix per spatial dim: avg and adaptive avg pooling, padding, interpolation."""

    family = SHAPE

    @staticmethod
    def forward(xp, x, matrices):
        dtype = x.dtype if x.dtype.kind in "fc" else np.float64
        out = apply_matrices(xp, x.astype(dtype), [xp.asarray(m, dtype=dtype) for m in matrices])
        return out if out.dtype == x.dtype else xp.trunc(out).astype(x.dtype)  # integer division, as C++

    formula = "grad_self = grad through the transposed per-dimension matrices of the forward (a linear map)"
    @staticmethod
    def vjp(ctx, grad):
        return (apply_matrices(_TensorLib, grad, _constants(grad, ctx.matrices), transpose=True),)

    @classmethod
    def jvp(cls, ctx, x_t):
        return cls.apply(x_t, matrices=ctx.matrices)


class _TensorLib:
    """xp's swapaxes and matmul, spelled with ndgrad ops, so rules share apply_matrices with forward."""

    swapaxes = staticmethod(lambda x, a, b: x.transpose(a, b))
    matmul = staticmethod(lambda x, y: x @ y)


def _constants(like, matrices):
    from ndgrad._tensor import Tensor

    xp = array_namespace(like.device)
    return [Tensor._wrap(xp.asarray(m, dtype=like._data.dtype)) for m in matrices]


def selection_matrix(sources, size):
    """The (len(sources), size) matrix that picks input position sources[o] for output position o."""
    matrix = np.zeros((len(sources), size))
    matrix[np.arange(len(sources)), sources] = 1.0
    return matrix


def check(condition, message, error=RuntimeError):
    if not condition:
        raise error(message)


def as_tuple(value, n, message):
    """An int or a sequence of ints as an n-tuple; a wrong length raises torch's message."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    check(len(value) == n, message)
    return value
