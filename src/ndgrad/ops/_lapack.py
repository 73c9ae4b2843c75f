"""Array routines the array libraries lack, with LAPACK's results: LU with partial pivoting (getrf), solves with its
factors (getrs), triangular solves (trsm), and a Cholesky factorization that reports where it failed (potrf).

They work on stacks of matrices through ``xp`` and loop over columns, so ops call them only where LAPACK's own
answer matters: the factors and pivots users see, and singular or indefinite inputs the fast paths refuse.
"""

import math


def lu_factor(xp, A):
    """(LU, pivots, info) of each (m, n) matrix, as LAPACK's getrf: P A = L U with L unit lower triangular (stored
    below the diagonal of LU), 1-based int32 row ``pivots``, ``info`` the first zero pivot (1-based; 0 if none)."""
    *batch, m, n = A.shape
    LU = A.reshape(math.prod(batch), m, n).copy()  # the count spelled out: an empty matrix infers no -1
    count, k = LU.shape[0], min(m, n)
    pivots = xp.empty((count, k), dtype=xp.int32)
    info = xp.zeros(count, dtype=xp.int32)
    stack = xp.arange(count)
    for j in range(k):
        p = j + xp.argmax(_magnitude(xp, LU[:, j:, j]), axis=1)  # the first largest entry, as i?amax
        pivots[:, j] = p + 1
        row = LU[stack, j].copy()
        LU[stack, j] = LU[stack, p]
        LU[stack, p] = row
        pivot = LU[:, j, j]
        zero = pivot == 0
        info = xp.where((info == 0) & zero, j + 1, info).astype(xp.int32)
        multipliers = LU[:, j + 1:, j] / xp.where(zero, 1, pivot)[:, None]  # a zero pivot's column is all zeros
        LU[:, j + 1:, j] = multipliers
        LU[:, j + 1:, j + 1:] -= multipliers[:, :, None] * LU[:, j, None, j + 1:]
    return LU.reshape(A.shape), pivots.reshape(*batch, k), info.reshape(batch)


def _magnitude(xp, values):
    """What LAPACK's pivot search compares: |x|, and for complex numbers |Re z| + |Im z| (izamax's cabs1)."""
    if values.dtype.kind == "c":
        return xp.abs(values.real) + xp.abs(values.imag)
    return xp.abs(values)


def conjugate_transpose(xp, M):
    """The conjugate transpose of each matrix."""
    M = xp.swapaxes(M, -1, -2)
    return xp.conj(M) if M.dtype.kind == "c" else M


def permutation(xp, pivots, m):
    """The row order P^T applies: row i of P^T A is row order[i] of A, from LAPACK's sequence of swaps."""
    order = xp.broadcast_to(xp.arange(m), (*pivots.shape[:-1], m)).copy()
    count = math.prod(pivots.shape[:-1])
    flat, swaps = order.reshape(count, m), pivots.reshape(count, pivots.shape[-1]) - 1
    stack = xp.arange(flat.shape[0])
    for j in range(swaps.shape[-1]):
        p = swaps[:, j]
        row = flat[stack, j].copy()
        flat[stack, j] = flat[stack, p]
        flat[stack, p] = row
    return flat.reshape(order.shape)


def lu_solve(xp, LU, pivots, B, adjoint=False):
    """X with A X = B for A = P L U given by getrf's (LU, pivots); ``adjoint``: A^H X = B. Like getrs, a zero
    pivot divides by zero (inf and nan), it does not raise. The batch dimensions broadcast."""
    batch = xp.broadcast_shapes(LU.shape[:-2], pivots.shape[:-1], B.shape[:-2])
    LU, B = xp.broadcast_to(LU, batch + LU.shape[-2:]), xp.broadcast_to(B, batch + B.shape[-2:])
    pivots = xp.broadcast_to(pivots, batch + pivots.shape[-1:])
    n = LU.shape[-1]
    order = permutation(xp, pivots, n)
    L = xp.tril(LU, -1) + xp.eye(n, dtype=LU.dtype)
    U = xp.triu(LU)
    if not adjoint:  # L U X = P^T B
        rows = xp.take_along_axis(B, xp.broadcast_to(order[..., None], B.shape[:-1] + (1,)), axis=-2)
        return triangular_solve(xp, U, triangular_solve(xp, L, rows, upper=False), upper=True)
    # U^H L^H (P^T X) = B
    Y = triangular_solve(xp, conjugate_transpose(xp, U), B, upper=False)
    Y = triangular_solve(xp, conjugate_transpose(xp, L), Y, upper=True)
    rows = xp.argsort(order, axis=-1)  # X's row order[i] is Y's row i
    return xp.take_along_axis(Y, xp.broadcast_to(rows[..., None], Y.shape[:-1] + (1,)), axis=-2)


def triangular_solve(xp, T, B, upper):
    """X with T X = B for triangular T (only its triangle is read); a zero diagonal gives inf and nan, as trsm."""
    T = xp.triu(T) if upper else xp.tril(T)
    diagonal = xp.diagonal(T, axis1=-2, axis2=-1)
    if xp.all(diagonal != 0) and xp.all(xp.isfinite(T)):
        shape = xp.broadcast_shapes(T.shape[:-2], B.shape[:-2])
        return xp.linalg.solve(xp.broadcast_to(T, shape + T.shape[-2:]), xp.broadcast_to(B, shape + B.shape[-2:]))
    n = T.shape[-1]
    X = xp.zeros(xp.broadcast_shapes(T.shape[:-1], B.shape[:-1]) + B.shape[-1:], dtype=xp.result_type(T, B))
    for i in range(n - 1, -1, -1) if upper else range(n):
        done = slice(i + 1, n) if upper else slice(0, i)
        known = T[..., i, None, done] @ X[..., done, :]
        X[..., i, :] = (B[..., i, :] - known[..., 0, :]) / diagonal[..., i, None]
    return X


def cholesky(xp, A):
    """(L, info) of each symmetric matrix, from its lower triangle, as LAPACK's potrf: ``info`` is the order of the
    first leading minor that is not positive-definite (0 if none). There L holds the failed pivot on the diagonal
    and A's values from that column on, as potrf leaves them."""
    try:
        L = xp.linalg.cholesky(A)
        if not xp.isnan(xp.diagonal(L, axis1=-2, axis2=-1)).any():  # LAPACK stops at a NaN pivot; NumPy does not
            return L, xp.zeros(A.shape[:-2], dtype=xp.int32)
    except xp.linalg.LinAlgError:
        pass
    *batch, n, _ = A.shape
    L = xp.tril(A).reshape(math.prod(batch), n, n).copy()
    info = xp.zeros(L.shape[0], dtype=xp.int32)
    for j in range(n):
        active = info == 0
        pivot = (L[:, j, j] - (xp.abs(L[:, j, :j]) ** 2).sum(-1)).real  # potrf reads the real diagonal
        failed = active & ~(pivot > 0)
        info[failed] = j + 1
        L[failed, j, j] = pivot[failed]
        going = active & ~failed
        root = xp.sqrt(xp.where(going, pivot, 1))
        below = (L[:, j + 1:, j] - (L[:, j + 1:, :j] @ xp.conj(L[:, j, :j, None]))[..., 0]) / root[:, None]
        L[going, j, j] = root[going]
        L[going, j + 1:, j] = below[going]
    return L.reshape(A.shape), info.reshape(batch)
