"""Solving linear systems: inv, solve, solve_triangular, and the least-squares solutions lstsq and pinv.

Each returns PyTorch's results also where LAPACK fails: the ``_ex`` forms report a singular matrix in ``info`` and
divide by its zero pivot, the others raise torch.linalg.LinAlgError with PyTorch's message.
"""

import ndgrad.return_types as return_types
from ndgrad._argument_parser import parses, tensor_method
from ndgrad.ops import _lapack as lapack
from ndgrad.ops._linalg_base import (
    LAPACK_DTYPES,
    check,
    check_floating,
    check_kernel,
    check_same_dtype,
    check_square,
    raise_for_info,
    singular_inverse,
)
from ndgrad.ops._op import MATMUL, Op

__all__ = ["inverse", "pinverse"]  # the names torch has at top level (torch.X)
LINALG = ["inv", "inv_ex", "solve", "solve_ex", "solve_triangular", "lstsq", "pinv"]  # the names torch.linalg has


def _swap(xp, x):
    return xp.swapaxes(x, -1, -2)


_adjoint = lapack.conjugate_transpose


class LinalgInvEx(Op):
    """torch.linalg.inv_ex: the inverse of each square matrix, and LAPACK's info (the first zero pivot, or 0)."""

    name, family = "inv", MATMUL
    outputs = ("inverse", "info")
    saves = ("inverse",)

    @staticmethod
    def forward(xp, A):
        try:
            return xp.linalg.inv(A), xp.zeros(A.shape[:-2], dtype=xp.int32)
        except xp.linalg.LinAlgError:  # singular somewhere: LAPACK's factors say where, and divide by zero there
            LU, pivots, info = lapack.lu_factor(xp, A)
            return lapack.lu_solve(xp, LU, pivots, xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape)), info

    formula = "grad_A = -result^H @ grad @ result^H"
    @staticmethod
    def vjp(ctx, grad, grad_info):
        (result,) = ctx.saved_tensors
        return (-(result.mH @ grad @ result.mH),)

    @staticmethod
    def jvp(ctx, A_t):
        (result,) = ctx.saved_tensors
        return -(result @ A_t @ result)


class LinalgSolveEx(Op):
    """torch.linalg.solve_ex: X with A X = B (left) or X A = B, and LAPACK's info for A. B is a vector or a batch of
    them where ``vector`` (PyTorch's rule: B.ndim == 1, or B has A's batch shape without the last dim)."""

    name, family = "solve", MATMUL
    outputs = ("result", "info")
    saves = ("A", "result")

    @staticmethod
    def forward(xp, A, B, left=True, vector=False):
        if vector:
            B = B[..., None]
        try:  # X A = B is A^T X^T = B^T
            X = xp.linalg.solve(A, B) if left else _swap(xp, xp.linalg.solve(_swap(xp, A), _swap(xp, B)))
            info = xp.zeros(A.shape[:-2], dtype=xp.int32)
        except xp.linalg.LinAlgError:  # singular somewhere: solve with A's LU, dividing by its zero pivot
            LU, pivots, info = lapack.lu_factor(xp, A)
            X = lapack.lu_solve(xp, LU, pivots, B) if left else _swap(
                xp, lapack.lu_solve(xp, LU, pivots, _swap(xp, B), adjoint=True))
        return (X[..., 0] if vector else X), info

    formula = "grad_B = solve(A^H, grad); grad_A = -grad_B @ result^H"
    @staticmethod
    def vjp(ctx, grad, grad_info):
        A, X = ctx.saved_tensors
        gB = _solve(A.mH, grad, ctx.left, ctx.vector)
        if ctx.vector:
            return -(gB.unsqueeze(-1) @ X.conj().unsqueeze(-2)), gB
        return (-(gB @ X.mH) if ctx.left else -(X.mH @ gB)), gB

    @staticmethod
    def jvp(ctx, A_t, B_t):
        A, X = ctx.saved_tensors
        if ctx.vector:
            return _solve(A, B_t - (A_t @ X.unsqueeze(-1)).squeeze(-1), True, True)
        return _solve(A, B_t - (A_t @ X if ctx.left else X @ A_t), ctx.left, False)


def _solve(A, B, left, vector):
    """The solution alone, with no check: inside gradients a singular matrix gives PyTorch's infinities."""
    return LinalgSolveEx.apply(A, B, left=left, vector=vector)[0]


def _inverse(A):
    return LinalgInvEx.apply(A)[0]


class LinalgSolveTriangular(Op):
    """torch.linalg.solve_triangular: X with A X = B (left) or X A = B, reading only A's ``upper`` or lower triangle,
    and taking its diagonal as ones if ``unitriangular``. A zero on the diagonal gives inf and nan, as LAPACK."""

    name, family = "solve_triangular", MATMUL
    saves = ("A", "result")

    @staticmethod
    def forward(xp, A, B, upper, left=True, unitriangular=False):
        T = xp.triu(A) if upper else xp.tril(A)
        if unitriangular:
            diagonal = xp.arange(A.shape[-1])
            T[..., diagonal, diagonal] = 1
        if left:
            return lapack.triangular_solve(xp, T, B, upper)
        return _swap(xp, lapack.triangular_solve(xp, _swap(xp, T), _swap(xp, B), not upper))

    formula = "grad_B = solve_triangular(A^H, grad); grad_A = -grad_B @ result^H (its triangle)"
    @staticmethod
    def vjp(ctx, grad):
        A, X = ctx.saved_tensors
        gB = solve_triangular(A.mH, grad, upper=not ctx.upper, left=ctx.left, unitriangular=ctx.unitriangular)
        if not ctx.needs_input_grad[0]:
            return None, gB
        gA = -(gB @ X.mH) if ctx.left else -(X.mH @ gB)
        return _triangle(gA, ctx.upper, ctx.unitriangular), gB

    @staticmethod
    def jvp(ctx, A_t, B_t):
        A, X = ctx.saved_tensors
        A_t = _triangle(A_t, ctx.upper, ctx.unitriangular)
        rhs = B_t - (A_t @ X if ctx.left else X @ A_t)
        return solve_triangular(A, rhs, upper=ctx.upper, left=ctx.left, unitriangular=ctx.unitriangular)


def _triangle(X, upper, strict):
    """The part of X a triangular solve reads: its upper or lower triangle, without the diagonal if ``strict``."""
    if upper:
        return X.triu(1 if strict else 0)
    return X.tril(-1 if strict else 0)


LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class LinalgLstsq(Op):
    """torch.linalg.lstsq: the least-squares (or least-norm) solution X of A X = B, and what the CPU ``driver``
    reports: squared ``residuals`` per column (tall, full-rank A; not gelsy), ``rank`` (not gels), and
    ``singular_values`` (gelsd, gelss). What a driver does not report is an empty tensor."""

    name, family = "lstsq", MATMUL
    outputs = ("solution", "residuals", "rank", "singular_values")
    saves = ("A", "B", "solution", "residuals")

    @staticmethod
    def forward(xp, A, B, rcond, driver, vector):
        if vector:
            B = B[..., None]
        batch = xp.broadcast_shapes(A.shape[:-2], B.shape[:-2])
        A, B = xp.broadcast_to(A, batch + A.shape[-2:]), xp.broadcast_to(B, batch + B.shape[-2:])
        m, n = A.shape[-2:]
        empty = xp.zeros((0,), dtype=A.real.dtype)  # residuals and singular values are real
        if driver == "gels":
            X = _least_squares_qr(xp, A, B)
            rank, singular_values, full_rank = xp.zeros((0,), dtype=xp.int64), empty, True
        else:
            U, S, Vh = xp.linalg.svd(A, full_matrices=False)
            if rcond is None:
                rcond = float(xp.finfo(A.dtype).eps) * max(m, n)
            keep = S > rcond * S[..., :1]
            S_inverse = xp.where(keep, 1 / xp.where(keep, S, 1), 0).astype(A.dtype)
            X = _adjoint(xp, Vh) @ (S_inverse[..., None] * (_adjoint(xp, U) @ B))
            rank = keep.sum(-1).astype(xp.int64)
            singular_values = S if driver in ("gelsd", "gelss") else empty
            full_rank = bool(xp.all(rank == n))
        residuals = empty
        if m > n and driver != "gelsy" and full_rank:
            residuals = (xp.abs(A @ X - B) ** 2).sum(-2)
        return (X[..., 0] if vector else X), residuals, rank, singular_values

    formula = "grad_A = pinv_backward(grad @ B^H); grad_B = pinv(A)^H @ grad  (+ the residuals' terms)"
    @staticmethod
    def vjp(ctx, gX, gL, grad_rank, grad_singular_values):
        A, B, X, _ = ctx.saved_tensors
        if ctx.vector:
            B, X, gX = B.unsqueeze(-1), X.unsqueeze(-1), gX.unsqueeze(-1)
        need_A, need_B = ctx.needs_input_grad
        pinvA = LinalgPinv.apply(A)
        gA = pinv_backward(gX @ B.mH, pinvA, A) if need_A else None
        gB = pinvA.mH @ gX if need_B else None
        if gL.numel():  # only the residuals' gradient: A X - B, X held at the optimum
            weighted = gL.unsqueeze(-2) * (A @ X - B)
            gA = gA + 2 * (weighted @ X.mH) if need_A else None
            gB = gB - 2 * weighted if need_B else None
        if ctx.vector and gB is not None:
            gB = gB.squeeze(-1)
        return gA, gB

    @staticmethod
    def jvp(ctx, A_t, B_t):
        A, B, X, residuals = ctx.saved_tensors
        if ctx.vector:
            B, X, B_t = B.unsqueeze(-1), X.unsqueeze(-1), B_t.unsqueeze(-1)
        pinvA = LinalgPinv.apply(A)
        X_t = pinv_jvp(A, pinvA, A_t) @ B + pinvA @ B_t
        residuals_t = None
        if residuals.numel():
            residuals_t = 2 * ((A @ X - B).conj() * (A_t @ X - B_t)).real.sum(-2)
        return (X_t.squeeze(-1) if ctx.vector else X_t), residuals_t, None, None


def _least_squares_qr(xp, A, B):
    """The gels driver: A's QR (tall) or A^T's (wide), for full-rank A; a zero on R's diagonal is LAPACK's error."""
    m, n = A.shape[-2:]
    zero = xp.all(A == 0, axis=(-2, -1))  # LAPACK answers X = 0 for A = 0 rather than failing
    Q, R = xp.linalg.qr(A if m >= n else _adjoint(xp, A))
    pivots = xp.diagonal(R, axis1=-2, axis2=-1)
    first_zero = (pivots != 0).argmin(-1) + 1 if pivots.shape[-1] else xp.zeros(pivots.shape[:-1], int)  # 0 x n
    failed = xp.where(zero, 0, xp.where((pivots == 0).any(-1), first_zero, 0))
    raise_for_info("ndgrad.linalg.lstsq", failed, A.ndim > 2, lambda code: (
        "The least squares solution could not be computed because the input matrix does not have full rank (error "
        f"code: {code})."))
    if m >= n:
        X = lapack.triangular_solve(xp, R, _adjoint(xp, Q) @ B, upper=True)
    else:
        X = Q @ lapack.triangular_solve(xp, _adjoint(xp, R), B, upper=False)
    return xp.where(zero[..., None, None], 0, X).astype(A.dtype)


class LinalgPinv(Op):
    """torch.linalg.pinv: the pseudo-inverse, dropping singular values below max(atol, rtol * largest)."""

    name, family = "pinv", MATMUL
    saves = ("A", "result")

    @staticmethod
    def forward(xp, A, atol=None, rtol=None, hermitian=False):
        if rtol is None:
            rtol = 0.0 if atol is not None and atol > 0 else float(xp.finfo(A.dtype).eps) * max(A.shape[-2:])
        if hermitian:
            L, V = xp.linalg.eigh(A)
            U, S, Vh = V, xp.abs(L), _adjoint(xp, V)
            S_signed = L
        else:
            U, S, Vh = xp.linalg.svd(A, full_matrices=False)
            S_signed = S
        # (no initial=: CuPy's max has none; an empty S needs no tolerance)
        largest = xp.max(S, axis=-1, keepdims=True) if S.shape[-1] else xp.zeros(S.shape[:-1] + (1,), S.dtype)
        tolerance = xp.maximum(0.0 if atol is None else atol, rtol * largest)
        keep = S > tolerance
        S_inverse = xp.where(keep, 1 / xp.where(keep, S_signed, 1.0), 0.0).astype(A.dtype)
        return (_adjoint(xp, Vh) * S_inverse[..., None, :]) @ _adjoint(xp, U)

    formula = "grad_A = -result^H grad result^H + the terms that leave A's range and null space"
    @staticmethod
    def vjp(ctx, grad):
        A, pinvA = ctx.saved_tensors
        return (pinv_backward(grad, pinvA, A),)

    @staticmethod
    def jvp(ctx, A_t):
        A, pinvA = ctx.saved_tensors
        return pinv_jvp(A, pinvA, A_t)


def pinv_backward(grad, pinvA, A):
    """The gradient of pinv(A) for the cotangent ``grad``, as PyTorch's (exact where A's rank is locally constant)."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = pinvA.mH, grad.mH
    if m <= n:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return -(pinvA @ K).mH + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gradh - K @ A)
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return -(K @ pinvA).mH + (gradh - A @ K) @ pinvA @ pinvAh + pinvAhK - pinvAhK @ pinvA @ A


def pinv_jvp(A, pinvA, A_t):
    """The tangent of pinv(A) in the direction A_t."""
    m, n = A.shape[-2], A.shape[-1]
    dAh, pinvAh = A_t.mH, pinvA.mH
    if m <= n:
        K = pinvAh @ dAh
        return pinvA @ (K - K.mH - K @ (A @ pinvA)) + (dAh - pinvA @ (A @ dAh)) @ (pinvAh @ pinvA)
    K = pinvA @ A_t
    Kh = K.mH
    return (Kh - K - pinvA @ A @ Kh) @ pinvA + (pinvA @ pinvAh) @ (dAh - (dAh @ A) @ pinvA)


# ---- the functions users call ------------------------------------------------------------------------------------
@parses("linalg_inv_ex(Tensor A, *, bool check_errors=False, Tensor[2] out=None)")
def inv_ex(A, *, check_errors=False):
    """(inverse, info) of each square matrix; info > 0 marks a singular one (see torch.linalg.inv_ex)."""
    check_square("linalg.inv", A, low_precision=False)
    result = return_types.linalg_inv_ex(LinalgInvEx.apply(A))
    if check_errors:
        raise_for_info("linalg.inv_ex", result.info._data, A.ndim > 2, singular_inverse)
    return result


@parses("linalg_inv(Tensor A, *, Tensor out=None)")
def inv(A):
    """The inverse of each square matrix (see torch.linalg.inv)."""
    inverse, info = inv_ex(A)
    raise_for_info("linalg.inv", info._data, A.ndim > 2, singular_inverse)
    return inverse


@parses("inverse(Tensor input, *, Tensor out=None)")
def inverse(input):
    """The inverse of each square matrix (see torch.inverse)."""
    return inv(input)


def _singular_solver(code):
    return "The solver failed because the input matrix is singular."


@parses("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False, Tensor[2] out=None)")
def solve_ex(A, B, *, left=True, check_errors=False):
    """(X, info) with A X = B, or X A = B if not ``left``; info > 0 marks a singular A (see torch.linalg.solve_ex)."""
    check_floating("linalg.solve", A)
    check_same_dtype("linalg.solve", A, B)
    vector = left and (B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1])))
    check_square("linalg.solve", A, floating=False)
    check(vector or B.ndim >= 2, "linalg.solve: The input tensor B must have at least 2 dimensions.")
    rows = B.shape[-1] if vector else (B.shape[-2] if left else B.shape[-1])
    if rows != A.shape[-1]:
        shape_B = f"{B.shape[-1]}x1" if vector else f"{B.shape[-2]}x{B.shape[-1]}"
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {equation} ({A.shape[-2]}x{A.shape[-1]} "
            f"and {shape_B})"
        )
    check_kernel("lu_cpu", A)
    result = return_types.linalg_solve_ex(LinalgSolveEx.apply(A, B, left=left, vector=vector))
    if check_errors:
        raise_for_info("ndgrad.linalg.solve_ex", result.info._data, A.ndim > 2, _singular_solver)
    return result


@parses("linalg_solve(Tensor A, Tensor B, *, bool left=True, Tensor out=None)")
def solve(A, B, *, left=True):
    """X with A X = B, or X A = B if not ``left`` (see torch.linalg.solve)."""
    X, info = solve_ex(A, B, left=left)
    raise_for_info("ndgrad.linalg.solve", info._data, A.ndim > 2, _singular_solver)
    return X


_REQUIRED = object()


@parses("linalg_solve_triangular(Tensor input, Tensor B, *, bool upper, bool left=True, bool unitriangular=False, "
        "Tensor out=None)")
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with A X = B (or X A = B) for triangular A (see torch.linalg.solve_triangular)."""
    check_square("linalg.solve_triangular", A, floating=False)  # the kernel refuses the dtypes it lacks, last
    check(B.ndim >= 2, "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    if (B.shape[-2] if left else B.shape[-1]) != A.shape[-1]:
        raise RuntimeError(
            f"linalg.solve_triangular: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'}"
            f" ({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})"
        )
    check_kernel("triangular_solve_cpu", A)
    return LinalgSolveTriangular.apply(A, B.to(A.dtype), upper=upper, left=left, unitriangular=unitriangular)


@parses("linalg_lstsq(Tensor input, Tensor b, float? rcond=None, *, str? driver=None, Tensor[4] out=None)")
def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of A X = B, with what the driver reports (see torch.linalg.lstsq)."""
    check(A.ndim >= 2, "ndgrad.linalg.lstsq: input must have at least 2 dimensions.")
    check(B.ndim >= 1, "ndgrad.linalg.lstsq: other must have at least 1 dimension.")
    check(A.dtype is B.dtype, "ndgrad.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
          f"dtype {A.dtype.title} and other's dtype {B.dtype.title}")
    check(A.dtype.name in LAPACK_DTYPES, "This function doesn't handle types other than float and double")
    vector = A.ndim - B.ndim == 1
    check(vector or A.ndim == B.ndim, "ndgrad.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
          "(input.dim() - other.dim()) <= 1")
    check(A.shape[-2] == B.shape[-1 if vector else -2],
          f"ndgrad.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})")
    driver = "gelsy" if driver is None else driver
    check(driver in LSTSQ_DRIVERS,
          "ndgrad.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    solution, residuals, rank, singular_values = LinalgLstsq.apply(A, B, rcond=rcond, driver=driver, vector=vector)
    return return_types.linalg_lstsq((solution, residuals, rank, singular_values.detach()))


@parses("linalg_pinv(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False, Tensor out=None)",
        "linalg_pinv(Tensor input, *, float? atol=None, float? rtol=None, bool hermitian=False, Tensor out=None)",
        "linalg_pinv(Tensor input, Tensor rcond, bool hermitian=False, *, Tensor out=None)",
        "linalg_pinv(Tensor input, float rcond, bool hermitian=False, *, Tensor out=None)")
def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse of each matrix (see torch.linalg.pinv)."""
    if A.ndim < 2 or A.dtype.name not in LAPACK_DTYPES:
        raise RuntimeError(
            f"linalg.pinv({A.dtype.title}{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types"
        )
    return LinalgPinv.apply(A, atol=atol, rtol=rtol, hermitian=hermitian)


@parses("pinverse(Tensor input, float rcond=1e-15)")
def pinverse(input, rcond=1e-15):
    """The pseudo-inverse, dropping singular values below rcond times the largest (see torch.pinverse)."""
    return pinv(input, rtol=rcond)


class SolversMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def inverse(self):
        return inverse.__wrapped__(self)

    pinverse = tensor_method(pinverse)
