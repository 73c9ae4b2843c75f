"""The LU family: lu_factor, lu, lu_solve, and the determinants an LU gives (det, slogdet, logdet).

A = P L U with partial pivoting, P and ``pivots`` as LAPACK's getrf chooses them. Gradients of the factors follow
PyTorch's formulas, written with triangular solves so that they are differentiable again.
"""

import math

import ndgrad.return_types as return_types
from ndgrad._argument_parser import alias, parses
from ndgrad.autograd.grad_mode import STATE
from ndgrad.ops import _lapack as lapack
from ndgrad.ops._linalg_base import (
    check,
    check_floating,
    check_kernel,
    check_same_dtype,
    check_square,
    eye_like,
    raise_for_info,
    trace,
)
from ndgrad.ops._op import MATMUL, Op
from ndgrad.ops.comparison import where
from ndgrad.ops.joining import cat
from ndgrad.ops.solvers import _solve, solve_triangular

__all__ = ["det", "slogdet", "logdet"]  # the names torch has at top level (torch.X)
LINALG = ["det", "slogdet", "lu_factor", "lu_factor_ex", "lu", "lu_solve"]  # the names torch.linalg has


class LinalgDet(Op):
    """torch.linalg.det: the determinant of each square matrix."""

    name, family = "det", MATMUL
    saves = ("A", "result")

    @staticmethod
    def forward(xp, A):
        return xp.linalg.det(A)

    formula = "grad_A = grad * result * A^-T"
    @staticmethod
    def vjp(ctx, grad):
        """grad det A^-T, as a solve with A^T. Where det is exactly zero PyTorch gives zeros, and, if the gradient
        is to be differentiated again, the cofactor matrix through the SVD."""
        A, det = ctx.saved_tensors
        singular = det == 0
        d = (grad * det.conj()).unsqueeze(-1).expand(*det.shape, A.shape[-1]).diag_embed()
        if not singular.any():
            return (_solve(A.mH, d, True, False),)
        if STATE.grad_enabled:
            return (_det_backward_by_svd(A, grad),)
        return (_solve(where(singular.unsqueeze(-1).unsqueeze(-1), eye_like(A), A).mH, d, True, False),)

    @staticmethod
    def jvp(ctx, A_t):
        A, det = ctx.saved_tensors
        A = where((det == 0).unsqueeze(-1).unsqueeze(-1), eye_like(A), A)  # as the vjp: zero where det is zero
        return det * trace(_solve(A, A_t, True, False))


def _det_backward_by_svd(A, grad):
    """grad times the cofactor matrix of A, from A = U diag(S) Vh: det A = det U det Vh prod(S)."""
    from ndgrad._creation import ones_like  # creation imports the Tensor, which imports the ops
    from ndgrad.ops.decompositions import LinalgSvd

    U, S, Vh = LinalgSvd.apply(A, full_matrices=False)
    alpha = LinalgDet.apply(U) * LinalgDet.apply(Vh) * grad
    one = ones_like(S[..., :1])
    before = cat([one, S[..., :-1]], -1).cumprod(-1)  # prod(S[:i]) and prod(S[i + 1:]): no division by a zero S
    after = cat([S[..., 1:], one], -1).flip(-1).cumprod(-1).flip(-1)
    return (U * (alpha.unsqueeze(-1) * before * after).unsqueeze(-2)) @ Vh


class LinalgSlogdet(Op):
    """torch.linalg.slogdet: (sign, log|det|) of each square matrix; the sign carries no gradient."""

    name, family = "slogdet", MATMUL
    outputs = ("sign", "logabsdet")
    saves = ("A", "sign")

    @staticmethod
    def forward(xp, A):
        return tuple(xp.linalg.slogdet(A))  # a plain tuple: NumPy returns a namedtuple

    formula = "grad_A = grad_logabsdet * A^-T"
    @staticmethod
    def vjp(ctx, grad_sign, grad_logabsdet):
        """log det A = logabsdet + i angle(sign) is holomorphic with derivative A^-T: the gradient reaching it is
        grad_logabsdet, plus, for complex A, i Im(conj(sign) grad_sign) from the sign = exp(i angle)."""
        A, sign = ctx.saved_tensors
        grad_log = grad_logabsdet
        if A.is_complex():
            grad_log = grad_log + 1j * (sign.conj() * grad_sign).imag
        # a solve with A^H, as PyTorch: a singular A gives its infinities
        return (_solve(A.mH, grad_log.unsqueeze(-1).unsqueeze(-1) * eye_like(A), True, False),)

    @staticmethod
    def jvp(ctx, A_t):
        A, sign = ctx.saved_tensors
        log_t = trace(_solve(A, A_t, True, False))  # the tangent of log det A
        if not A.is_complex():
            return log_t * 0, log_t
        return sign * (1j * log_t.imag), log_t.real


# ---- LU --------------------------------------------------------------------------------------------------------
def _permutation_matrix(xp, pivots, m, dtype):
    """P with A = P L U, from LAPACK's pivots."""
    order = lapack.permutation(xp, pivots, m)
    return (order[..., None, :] == xp.arange(m)[:, None]).astype(dtype)  # P[order[i], i] = 1


def _unpack(LU, pivots):
    """(P, L, U) Tensors from a packed LU and its pivots (an array); P is a constant."""
    from ndgrad._creation import eye
    from ndgrad._device import array_namespace
    from ndgrad._tensor import Tensor

    m, n = LU.shape[-2:]
    k = min(m, n)
    xp = array_namespace(LU.device)
    P = Tensor._wrap(_permutation_matrix(xp, pivots, m, LU._data.dtype))
    L = LU[..., :, :k].tril(-1) + eye(m, k, dtype=LU.dtype, device=LU.device)
    return P, L, LU[..., :k, :].triu()


class LinalgLuFactorEx(Op):
    """torch.linalg.lu_factor_ex: (LU, pivots, info), L and U packed in one matrix as LAPACK's getrf leaves them."""

    name, family = "lu_factor", MATMUL
    outputs = ("LU", "pivots", "info")
    saves = ("LU", "pivots")

    @staticmethod
    def forward(xp, A):
        return lapack.lu_factor(xp, A)

    formula = "grad_A = grad through A = P L U (grad_LU's strict lower part to L, upper part to U)"
    @staticmethod
    def vjp(ctx, grad, grad_pivots, grad_info):
        LU, pivots = ctx.saved_tensors
        k = min(LU.shape[-2:])
        P, L, U = _unpack(LU, pivots._data)
        return (lu_backward(grad[..., :, :k].tril(-1), grad[..., :k, :].triu(), P, L, U),)

    @staticmethod
    def jvp(ctx, A_t):
        from ndgrad._creation import zeros

        LU, pivots = ctx.saved_tensors
        m, n = LU.shape[-2:]
        L_t, U_t = lu_jvp(A_t, *_unpack(LU, pivots._data))
        if m > n:  # packed as getrf packs L and U: U below, L to the right padded with zeros
            U_t = cat([U_t, zeros(*U_t.shape[:-2], m - n, n, dtype=U_t.dtype, device=U_t.device)], -2)
        elif m < n:
            L_t = cat([L_t, zeros(*L_t.shape[:-1], n - m, dtype=L_t.dtype, device=L_t.device)], -1)
        return L_t + U_t, None, None


class LinalgLu(Op):
    """torch.linalg.lu: (P, L, U) with A = P L U; P carries no gradient."""

    name, family = "lu", MATMUL
    outputs = ("P", "L", "U")
    saves = ("P", "L", "U")

    @staticmethod
    def forward(xp, A):
        m, n = A.shape[-2:]
        k = min(m, n)
        LU, pivots, _ = lapack.lu_factor(xp, A)
        L = xp.tril(LU[..., :, :k], -1) + xp.eye(m, k, dtype=A.dtype)
        return _permutation_matrix(xp, pivots, m, A.dtype), L, xp.triu(LU[..., :k, :])

    formula = "grad_A = P L^-H ((L^H grad_L).tril(-1) + (grad_U U^H).triu()) U^-H"
    @staticmethod
    def vjp(ctx, grad_P, grad_L, grad_U):
        P, L, U = ctx.saved_tensors
        return (lu_backward(grad_L, grad_U, P, L, U),)

    @staticmethod
    def jvp(ctx, A_t):
        P, L, U = ctx.saved_tensors
        return (None, *lu_jvp(A_t, P, L, U))


def lu_backward(gL, gU, P, L, U):
    """The gradient of A = P L U from those of L (strictly lower) and U (upper): P L^-H (the two triangles) U^-H
    for square A, with the extra columns of a wide U or rows of a tall L handled first."""
    m, n = L.shape[-2], U.shape[-1]
    if m < n:  # U = [U1 U2]: U2 = L^-1 (A2 - ...) passes its gradient to A2 and, through L, back to L
        U1, U2, gU1, gU2 = U[..., :m], U[..., m:], gU[..., :m], gU[..., m:]
        gA2 = solve_triangular(L.mH, gU2, upper=True, unitriangular=True)
        return P @ cat([_lu_square_backward(gL - gA2 @ U2.mH, gU1, L, U1), gA2], -1)
    if m > n:  # L = [L1; L2]: L2 = (A2 - ...) U^-1
        L1, L2, gL1, gL2 = L[..., :n, :], L[..., n:, :], gL[..., :n, :], gL[..., n:, :]
        gA2 = solve_triangular(U.mH, gL2, upper=False, left=False)
        return P @ cat([_lu_square_backward(gL1, gU - L2.mH @ gA2, L1, U), gA2], -2)
    return P @ _lu_square_backward(gL, gU, L, U)


def _lu_square_backward(gL, gU, L, U):
    M = (L.mH @ gL).tril(-1) + (gU @ U.mH).triu()
    M = solve_triangular(U.mH, M, upper=False, left=False)
    return solve_triangular(L.mH, M, upper=True, unitriangular=True)


def lu_jvp(A_t, P, L, U):
    """(L_t, U_t): with X = L^-1 P^T A_t U^-1, L_t = L tril(X, -1) and U_t = triu(X) U for the square part."""
    m, n = L.shape[-2], U.shape[-1]
    A_t = P.mT @ A_t
    if m < n:
        L_t, U1_t = _lu_square_jvp(A_t[..., :m], L, U[..., :m])
        U2_t = solve_triangular(L, A_t[..., m:] - L_t @ U[..., m:], upper=False, unitriangular=True)
        return L_t, cat([U1_t, U2_t], -1)
    if m > n:
        L1_t, U_t = _lu_square_jvp(A_t[..., :n, :], L[..., :n, :], U)
        L2_t = solve_triangular(U, A_t[..., n:, :] - L[..., n:, :] @ U_t, upper=True, left=False)
        return cat([L1_t, L2_t], -2), U_t
    return _lu_square_jvp(A_t, L, U)


def _lu_square_jvp(A_t, L, U):
    X = solve_triangular(L, A_t, upper=False, unitriangular=True)
    X = solve_triangular(U, X, upper=True, left=False)
    return L @ X.tril(-1), X.triu() @ U


class LinalgLuSolve(Op):
    """torch.linalg.lu_solve: X with A X = B from lu_factor's (LU, pivots); A^H if ``adjoint``, X A if not ``left``.
    The pivots (an integer array) are a parameter: they select rows, they carry no gradient."""

    name, family = "lu_solve", MATMUL
    saves = ("LU", "result")

    @staticmethod
    def forward(xp, LU, B, pivots, left=True, adjoint=False):
        if left:
            return lapack.lu_solve(xp, LU, pivots, B, adjoint)
        return xp.swapaxes(lapack.lu_solve(xp, LU, pivots, xp.swapaxes(B, -1, -2), not adjoint), -1, -2)

    formula = "grad_B = lu_solve(LU, grad, adjoint=not adjoint); grad_LU = -(grad_B @ X^H) moved onto L and U"
    @staticmethod
    def vjp(ctx, grad):
        LU, X = ctx.saved_tensors
        left, adjoint, pivots = ctx.left, ctx.adjoint, ctx.pivots
        gB = LinalgLuSolve.apply(LU, grad, pivots=pivots, left=left, adjoint=not adjoint)
        if not ctx.needs_input_grad[0]:
            return None, gB
        if left:
            gA = -(X @ gB.mH) if adjoint else -(gB @ X.mH)
        else:
            gA = -(gB.mH @ X) if adjoint else -(X.mH @ gB)
        P, L, U = _unpack(LU, pivots)
        gA = P.mT @ gA
        return (gA @ U.mH).tril(-1) + (L.mH @ gA).triu(), gB

    @staticmethod
    def jvp(ctx, LU_t, B_t):
        LU, X = ctx.saved_tensors
        P, L, U = _unpack(LU, ctx.pivots)
        A_t = P @ (LU_t.tril(-1) @ U + L @ LU_t.triu())
        if ctx.adjoint:
            A_t = A_t.mH
        rhs = B_t - (A_t @ X if ctx.left else X @ A_t)
        return LinalgLuSolve.apply(LU, rhs, pivots=ctx.pivots, left=ctx.left, adjoint=ctx.adjoint)


# ---- the functions users call ------------------------------------------------------------------------------------
@parses("det(Tensor input)")
def det(A):
    """The determinant of each square matrix (see torch.linalg.det)."""
    check_square("linalg.det", A)
    check_kernel("lu_cpu", A)
    return LinalgDet.apply(A)


linalg_det = alias(det, "linalg_det(Tensor A, *, Tensor out=None)")


@parses("linalg_slogdet(Tensor A, *, Tensor[2] out=None)")
def linalg_slogdet(A):
    """(sign, log |det|) of each square matrix (see torch.linalg.slogdet)."""
    check_square("linalg.slogdet", A, low_precision=False)
    return return_types.linalg_slogdet(LinalgSlogdet.apply(A))


@parses("slogdet(Tensor input, *, Tensor[2] out=None)")
def slogdet(input):
    """(sign, log |det|) of each square matrix (see torch.slogdet)."""
    return return_types.slogdet(linalg_slogdet(input))


@parses("logdet(Tensor input)")
def logdet(input):
    """log det, NaN for a negative real determinant, complex for a complex matrix (see torch.logdet)."""
    check_square("logdet", input, low_precision=False)
    sign, logabsdet = linalg_slogdet(input)
    if input.dtype.is_complex:
        return sign.log() + logabsdet
    return where(sign == -1, math.nan, logabsdet)


def _check_lu_input(name, A, pivot):
    check(A.ndim >= 2, f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    check_kernel("lu_cpu", A)
    check(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _zero_pivot(code):
    return (f"U[{code},{code}] is zero and using it on lu_solve would result in a division by zero. If you still want "
            "to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


@parses("linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False, Tensor[3] out=None)")
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info) of each matrix (see torch.linalg.lu_factor_ex)."""
    _check_lu_input("ndgrad.lu_factor", A, pivot)
    result = return_types.linalg_lu_factor_ex(LinalgLuFactorEx.apply(A))
    if check_errors:
        raise_for_info("ndgrad.linalg.lu_factor_ex", result.info._data, A.ndim > 2, _zero_pivot, RuntimeError)
    return result


@parses("linalg_lu_factor(Tensor A, *, bool pivot=True, Tensor[2] out=None)")
def lu_factor(A, *, pivot=True):
    """(LU, pivots) of each matrix, refusing a zero pivot (see torch.linalg.lu_factor)."""
    _check_lu_input("ndgrad.lu_factor", A, pivot)
    LU, pivots, info = LinalgLuFactorEx.apply(A)
    raise_for_info("ndgrad.linalg.lu_factor", info._data, A.ndim > 2, _zero_pivot, RuntimeError)
    return return_types.linalg_lu_factor((LU, pivots))


@parses("linalg_lu(Tensor A, *, bool pivot=True, Tensor[3] out=None)")
def lu(A, *, pivot=True):
    """(P, L, U) with A = P L U (see torch.linalg.lu)."""
    _check_lu_input("linalg.lu", A, pivot)
    P, L, U = LinalgLu.apply(A)
    return return_types.linalg_lu((P.detach(), L, U))


@parses("linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False, Tensor out=None)")
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (A^T X = B if ``adjoint``; X A = B if not ``left``) from lu_factor's result (see
    torch.linalg.lu_solve)."""
    check_floating("ndgrad.linalg.lu_solve", LU)
    check_same_dtype("linalg.lu_solve", LU, B, ("LU", "B"))
    check(pivots.dtype.name == "int32", "linalg.lu_solve: pivots should be a Tensor of scalar type ndgrad.int32")
    check_square("ndgrad.linalg.lu_solve", LU, floating=False)
    check(B.ndim >= 2, "linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if (B.shape[-2] if left else B.shape[-1]) != LU.shape[-1]:
        raise RuntimeError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
            f"({LU.shape[-2]}x{LU.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})"
        )
    check(pivots.shape[-1] == LU.shape[-1],
          "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix")
    return LinalgLuSolve.apply(LU, B, pivots=pivots._data, left=left, adjoint=adjoint)


class LuMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def det(self):
        return det.__wrapped__(self)

    def slogdet(self):
        return slogdet.__wrapped__(self)

    def logdet(self):
        return logdet.__wrapped__(self)
