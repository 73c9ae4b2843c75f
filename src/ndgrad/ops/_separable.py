"""What pooling and resampling share: gather and scatter along flattened planes (max pooling, unpooling), and
linear maps that are one sparse matrix per spatial dim (average pooling, padding, interpolation) with their rules.
Those matrices depend on sizes alone: they are host tables (NumPy), moved to the data's device where they are used."""

import math

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
        return (Scatter.apply(grad, index=ctx.index, size=ctx.input_shapes[0][1], unique=False),)

    @staticmethod
    def jvp(ctx, x_t):
        return Gather.apply(x_t, index=ctx.index)


class Scatter(Op):
    """out[b, index[b, q]] += grad[b, q] into (B, size) zero planes: the vjp of max pooling. ``unique``: no position
    repeats in a plane (windows that do not overlap), so each is written once instead of summed."""

    @staticmethod
    def forward(xp, grad, index, size, unique):
        batch = grad.shape[0]
        flat = (xp.arange(batch)[:, None] * size + index).ravel()
        if unique:  # NOTE: a write, without bincount's float64 sums over all the planes (and their page faults)
            out = xp.zeros(batch * size, grad.dtype)
            out[flat] = grad.ravel()
            return out.reshape(batch, size)
        sums = xp.bincount(flat, weights=grad.ravel(), minlength=batch * size)  # NOTE: sums in float64
        return sums.reshape(batch, size).astype(grad.dtype)

    formula = "grad_self = grad gathered at the scattered positions"
    @staticmethod
    def vjp(ctx, grad):
        return (Gather.apply(grad, index=ctx.index),)

    @staticmethod
    def jvp(ctx, grad_t):
        return Scatter.apply(grad_t, index=ctx.index, size=ctx.size, unique=ctx.unique)


class SparseMatrix:
    """One spatial dim's (out, size) matrix, kept as each row's taps: output o is the sum over j of
    weights[o, j] * x[sources[o, j]] where ``valid`` (None: everywhere). The forward sums over the taps alone, as
    PyTorch's kernels do, so an infinite or NaN input reaches only the outputs that read it (a dense product adds
    0 * inf = NaN to all the others); the rules, linear in finite numbers, multiply by ``dense``."""

    def __init__(self, sources, weights, size, valid=None):
        sources = np.asarray(sources)  # (out, taps); spelled out, as no -1 can be inferred with no outputs
        self.sources = sources.reshape(len(sources), math.prod(sources.shape[1:]))
        self.weights = np.broadcast_to(np.asarray(weights, dtype=np.float64), self.sources.shape)
        self.valid = valid
        self.dense = np.zeros((len(self.sources), size))
        rows = np.broadcast_to(np.arange(len(self.sources))[:, None], self.sources.shape)
        np.add.at(self.dense, (rows, self.sources), self.weights if valid is None else np.where(valid, self.weights, 0))
        self.strided = _strided_taps(self.sources, self.weights, valid)


def _strided_taps(sources, weights, valid):
    """(first, step, gap, weight) where every tap is valid, has one weight, and tap j of output o reads
    first + o * step + j * gap (average pooling without padding, any stride): then each tap over all the outputs is a
    strided view of the input, and the forward sums views instead of gathering copies. None otherwise."""
    out, taps = sources.shape
    if not out or not taps or (valid is not None and not np.all(valid)) or np.any(weights != weights[0, 0]):
        return None
    first = int(sources[0, 0])
    step = int(sources[1, 0]) - first if out > 1 else 1
    gap = int(sources[0, 1]) - first if taps > 1 else 1
    regular = sources == first + np.arange(out)[:, None] * step + np.arange(taps) * gap
    return (first, step, gap, float(weights[0, 0])) if step > 0 and gap > 0 and regular.all() else None


def apply_sparse(xp, x, matrices):
    """Each of the last len(matrices) dims of x through its SparseMatrix."""
    for dim, matrix in zip(range(-len(matrices), 0), matrices):
        if matrix.strided is not None:
            x = _sum_views(x, dim, *matrix.strided, *matrix.sources.shape)
        else:
            terms = xp.moveaxis(x, dim, -1)[..., xp.asarray(matrix.sources)] * xp.asarray(matrix.weights, dtype=x.dtype)
            if matrix.valid is not None:
                terms = xp.where(xp.asarray(matrix.valid), terms, 0)
            x = xp.moveaxis(terms.sum(-1), -1, dim)
    return x


def _sum_views(x, dim, first, step, gap, weight, out, taps):
    """A strided SparseMatrix along ``dim``: the taps' views of x summed, times their weight."""
    total = x[along(dim, first, step, out)].copy()
    for tap in range(1, taps):
        total += x[along(dim, first + tap * gap, step, out)]
    total *= weight
    return total


def apply_transposed(x, matrices):
    """Each of the last len(matrices) dims of the Tensor x through its (out, size) matrix transposed."""
    for dim, matrix in zip(range(-len(matrices), 0), matrices):
        x = (x.transpose(dim, -1) @ matrix).transpose(dim, -1)
    return x


def _integer_quotient(xp, out):
    """An integer window's sum over its count truncated, as C++'s integer division; the sum times 1 / count can
    miss an exact quotient by one rounding (49 * (1 / 49) < 1), so a value that close to an integer is that one."""
    nearest = xp.round(out)
    return xp.where(xp.abs(out - nearest) <= 1e-9 * xp.maximum(xp.abs(nearest), 1), nearest, xp.trunc(out))


class Separable(Op):
    """A linear map that is one matrix per spatial dim: avg and adaptive avg pooling, padding, interpolation."""

    family = SHAPE

    @staticmethod
    def forward(xp, x, matrices):
        out = apply_sparse(xp, x.astype(x.dtype if x.dtype.kind in "fcV" else np.float64), matrices)
        return out if out.dtype == x.dtype else _integer_quotient(xp, out).astype(x.dtype)

    formula = "grad_self = grad through the transposed per-dimension matrices of the forward (a linear map)"
    @staticmethod
    def vjp(ctx, grad):
        return (apply_transposed(grad, _constants(grad, [m.dense for m in ctx.matrices])),)

    @classmethod
    def jvp(cls, ctx, x_t):
        return cls.apply(x_t, matrices=ctx.matrices)


def _constants(like, matrices):
    from ndgrad._tensor import Tensor

    xp = array_namespace(like.device)
    return [Tensor._wrap(xp.asarray(m, dtype=like._data.dtype)) for m in matrices]


def selection_matrix(sources, size):
    """The (len(sources), size) SparseMatrix that picks input position sources[o] for output position o."""
    return SparseMatrix(sources, 1.0, size)


def along(axis, first, step, count):
    """The index of ``count`` positions ``step`` apart from ``first`` along ``axis`` (negative): a strided view."""
    return (Ellipsis, slice(first, first + (count - 1) * step + 1, step)) + (slice(None),) * (-axis - 1)


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
