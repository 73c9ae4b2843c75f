"""ndgrad.linalg: inverses, determinants, solves, decompositions and matrix norms."""

import math

from ndgrad.ops._op import MATMUL, Op
from ndgrad.ops.reduction import vector_norm

__all__ = ["inverse", "det", "slogdet", "logdet", "matrix_exp"]  # the names torch has at top level (torch.X)
FUNCTIONAL = []  # the names torch.nn.functional has (ndgrad.nn.functional re-exports them)
LINALG = [  # the names torch.linalg has (ndgrad.linalg re-exports them)
    "inv", "det", "slogdet", "solve", "cholesky", "eigh", "eigvalsh", "qr", "pinv", "matrix_exp", "svd", "svdvals",
    "matrix_norm", "vector_norm", "norm",
]


def _eye_like(x):
    from ndgrad import eye

    return eye(x.shape[-1], dtype=x.dtype)


def _trace(x):
    return x.diagonal(0, -2, -1).sum(-1)


class LinalgInvEx(Op):
    """torch.linalg.inv (through inv_ex, as PyTorch records it): the inverse of each square matrix."""

    name, family = "inv", MATMUL
    saves = ("result",)

    @staticmethod
    def forward(xp, A):
        return xp.linalg.inv(A)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (-(result.mT @ grad @ result.mT),)

    @staticmethod
    def jvp(ctx, A_t):
        (result,) = ctx.saved_tensors
        return -(result @ A_t @ result)


class LinalgDet(Op):
    """torch.linalg.det: the determinant of each square matrix."""

    name, family = "det", MATMUL
    saves = ("A", "result")

    @staticmethod
    def forward(xp, A):
        return xp.linalg.det(A)

    @staticmethod
    def vjp(ctx, grad):
        A, result = ctx.saved_tensors
        return ((grad * result).unsqueeze(-1).unsqueeze(-1) * inv(A).mT,)  # NOTE: invertible A only

    @staticmethod
    def jvp(ctx, A_t):
        A, result = ctx.saved_tensors
        return result * _trace(inv(A) @ A_t)


class LinalgSlogdet(Op):
    """torch.linalg.slogdet: (sign, log|det|) of each square matrix; the sign carries no gradient."""

    name, family = "slogdet", MATMUL
    outputs = ("sign", "logabsdet")
    saves = ("A",)

    @staticmethod
    def forward(xp, A):
        return tuple(xp.linalg.slogdet(A))  # a plain tuple: NumPy returns a namedtuple

    @staticmethod
    def vjp(ctx, grad_sign, grad_logabsdet):
        (A,) = ctx.saved_tensors
        if grad_logabsdet is None:
            return (None,)
        return (grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * inv(A).mT,)

    @staticmethod
    def jvp(ctx, A_t):
        (A,) = ctx.saved_tensors
        logabsdet_t = _trace(inv(A) @ A_t)
        return logabsdet_t * 0, logabsdet_t


class LinalgSolveEx(Op):
    """torch.linalg.solve (through solve_ex): X with A X = B (left) or X A = B; B a vector or a batch of them where
    ``vector`` (PyTorch's rule: B.ndim == 1, or B has A's batch shape without the last dim)."""

    name, family = "solve", MATMUL
    saves = ("A", "result")

    @staticmethod
    def forward(xp, A, B, left=True, vector=False):
        if vector:
            B = B[..., None]
        if left:
            X = xp.linalg.solve(A, B)
        else:
            X = xp.swapaxes(xp.linalg.solve(xp.swapaxes(A, -1, -2), xp.swapaxes(B, -1, -2)), -1, -2)
        return X[..., 0] if vector else X

    @staticmethod
    def vjp(ctx, grad):
        A, X = ctx.saved_tensors
        gB = solve(A.mT, grad, left=ctx.left)
        if ctx.vector:
            return -(gB.unsqueeze(-1) @ X.unsqueeze(-2)), gB
        return (-(gB @ X.mT) if ctx.left else -(X.mT @ gB)), gB

    @staticmethod
    def jvp(ctx, A_t, B_t):
        A, X = ctx.saved_tensors
        if ctx.vector:
            return solve(A, B_t - (A_t @ X.unsqueeze(-1)).squeeze(-1))
        return solve(A, B_t - (A_t @ X if ctx.left else X @ A_t), left=ctx.left)


class LinalgCholeskyEx(Op):
    """torch.linalg.cholesky (through cholesky_ex): L lower triangular with A = L L^T (upper: U = L^T)."""

    name, family = "cholesky", MATMUL
    saves = ("result",)

    @staticmethod
    def forward(xp, A, upper=False):
        L = xp.linalg.cholesky(A)
        return xp.swapaxes(L, -1, -2) if upper else L

    @staticmethod
    def vjp(ctx, grad):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, grad = L.mT, grad.mT
        gA = (L.mT @ grad).tril()
        gA = 0.5 * (gA + gA.tril(-1).mT)  # NOTE: PyTorch's rule, not symmetrised: only A's lower half is read
        L_inverse = inv(L)
        return (L_inverse.mT @ gA @ L_inverse,)

    @staticmethod
    def jvp(ctx, A_t):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L = L.mT
        L_inverse = inv(L)
        phi = (L_inverse @ A_t @ L_inverse.mT).tril()
        phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
        L_t = L @ phi
        return L_t.mT if ctx.upper else L_t


class LinalgEigh(Op):
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors) of each symmetric matrix, read from the ``UPLO``
    triangle. Repeated eigenvalues give infinite or NaN eigenvector gradients, as in PyTorch."""

    name, family = "eigh", MATMUL
    outputs = ("eigenvalues", "eigenvectors")
    saves = ("eigenvalues", "eigenvectors")

    @staticmethod
    def forward(xp, A, UPLO="L"):
        return tuple(xp.linalg.eigh(A, UPLO=UPLO))

    @staticmethod
    def vjp(ctx, grad_L, grad_V):
        L, V = ctx.saved_tensors
        if grad_V is None:
            if grad_L is None:
                return (None,)
            return (V @ (grad_L.diag_embed() @ V.mT),)
        VhgV = V.mT @ grad_V
        VhgV = 0.5 * (VhgV - VhgV.mT)
        gA = VhgV * _off_diagonal_inverse_gaps(L)
        if grad_L is not None:
            gA = gA + grad_L.diag_embed()
        return (V @ (gA @ V.mT),)

    @staticmethod
    def jvp(ctx, A_t):
        L, V = ctx.saved_tensors
        dP = V.mT @ A_t @ V
        return dP.diagonal(0, -2, -1), V @ (dP * _off_diagonal_inverse_gaps(L))


def _off_diagonal_inverse_gaps(L):
    """F[i, j] = 1 / (L[j] - L[i]) off the diagonal, 0 on it (where PyTorch overwrites the 0/0)."""
    from ndgrad import where

    gaps = L.unsqueeze(-2) - L.unsqueeze(-1)
    eye = _eye_like(gaps)
    return where(eye == 1, 0.0, 1 / where(eye == 1, 1.0, gaps))


class LinalgSvd(Op):
    """torch.linalg.svd: (U, S, Vh) with A = U diag(S) Vh, S descending. Repeated singular values give infinite or
    NaN singular-vector gradients, as in PyTorch; so does full_matrices=True with m != n on the extra vectors."""

    name, family = "svd", MATMUL
    outputs = ("U", "S", "Vh")
    saves = ("U", "S", "Vh")

    @staticmethod
    def forward(xp, A, full_matrices=True):
        return tuple(xp.linalg.svd(A, full_matrices=full_matrices))

    @staticmethod
    def vjp(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        if ctx.full_matrices:  # only the first k singular vectors enter A = U diag(S) Vh
            U, Vh = U[..., :k], Vh[..., :k, :]
            gU = None if gU is None else gU[..., :k]
            gVh = None if gVh is None else gVh[..., :k, :]
        m, n = U.shape[-2], Vh.shape[-1]
        if gU is None and gVh is None:
            if gS is None:
                return (None,)
            return (U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh,)
        E = _square_gaps(S)
        if gU is not None and gVh is not None:
            UhgU, VhgV = _skew(U.mT @ gU), _skew(Vh @ gVh.mT)
            gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
        elif gU is not None:
            gA = (_skew(U.mT @ gU) / E) * S.unsqueeze(-2)
        else:
            gA = S.unsqueeze(-1) * (_skew(Vh @ gVh.mT) / E)
        if gS is not None:
            gA = gA + gS.diag_embed()
        if m > n and gU is not None:  # the part of gU outside span(U)
            gUSinv = gU / S.unsqueeze(-2)
            gA = (U @ gA + gUSinv - U @ (U.mT @ gUSinv)) @ Vh
        elif m < n and gVh is not None:
            SinvgVh = gVh / S.unsqueeze(-1)
            gA = U @ (gA @ Vh + SinvgVh - (SinvgVh @ Vh.mT) @ Vh)
        else:
            gA = U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh
        return (gA,)

    @staticmethod
    def jvp(ctx, A_t):
        from ndgrad import cat, zeros

        U_full, S, Vh_full = ctx.saved_tensors
        k = S.shape[-1]
        U, Vh = (U_full[..., :k], Vh_full[..., :k, :]) if ctx.full_matrices else (U_full, Vh_full)
        m, n, V = U.shape[-2], Vh.shape[-1], Vh.mT
        dP = U.mT @ (A_t @ V) if m >= n else (U.mT @ A_t) @ V
        S_t = dP.diagonal(0, -2, -1)
        dP = dP - S_t.diag_embed()
        E = _square_gaps(S)
        U_t = U @ (_sym(dP * S.unsqueeze(-2)) / E)
        if m > k:
            dAVSinv = A_t @ (V / S.unsqueeze(-2))
            U_t = U_t + dAVSinv - U @ (U.mT @ dAVSinv)
        Vh_t = -(_sym(dP * S.unsqueeze(-1)) / E) @ Vh
        if n > k:
            UhdASinv = (U.mT / S.unsqueeze(-1)) @ A_t
            Vh_t = Vh_t + UhdASinv - (UhdASinv @ V) @ Vh
        if ctx.full_matrices:  # PyTorch's tangents of the extra singular vectors: zeros
            U_t = cat([U_t, zeros(*U_t.shape[:-1], m - k, dtype=U_t.dtype)], -1)
            Vh_t = cat([Vh_t, zeros(*Vh_t.shape[:-2], n - k, n, dtype=Vh_t.dtype)], -2)
        return U_t, S_t, Vh_t


def _skew(X):
    return X - X.mT


def _sym(X):
    return X + X.mT


def _square_gaps(S):
    """E[j, k] = S[k]^2 - S[j]^2 off the diagonal, 1 on it (only ever divides a zero there)."""
    from ndgrad import where

    S2 = S * S
    gaps = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    return where(_eye_like(gaps) == 1, 1.0, gaps)


class LinalgQr(Op):
    """torch.linalg.qr: (Q, R) with A = Q R, R upper triangular; mode 'reduced', 'complete' or 'r' (Q empty)."""

    name, family = "qr", MATMUL
    outputs = ("Q", "R")
    saves = ("Q", "R")

    @staticmethod
    def forward(xp, A, mode="reduced"):
        if mode == "r":
            return xp.zeros((0,), dtype=A.dtype), xp.linalg.qr(A, mode="r")
        return tuple(xp.linalg.qr(A, mode=mode))

    @staticmethod
    def vjp(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        m, n = _qr_differentiable(ctx, Q, R)
        if m >= n:
            return (_qr_backward(Q, R, gQ, gR),)
        # A = [X | Y] with X = Q R1 square and Y = Q R2: R2's gradient reaches Q and Y
        from ndgrad import cat, zeros

        gR1 = None if gR is None else gR[..., :m]
        if gR is not None:
            Y = Q @ R[..., m:]
            gQ = Y @ gR[..., m:].mT if gQ is None else gQ + Y @ gR[..., m:].mT
        gX = _qr_backward(Q, R[..., :m], gQ, gR1)
        gY = Q @ gR[..., m:] if gR is not None else zeros(*gX.shape[:-1], n - m, dtype=gX.dtype)
        return (cat([gX, gY], -1),)

    @staticmethod
    def jvp(ctx, A_t):
        Q, R = ctx.saved_tensors
        m, n = _qr_differentiable(ctx, Q, R)
        if m >= n:
            return _qr_jvp(Q, R, A_t)
        from ndgrad import cat

        Q_t, R1_t = _qr_jvp(Q, R[..., :m], A_t[..., :m])
        R2_t = Q_t.mT @ (Q @ R[..., m:]) + Q.mT @ A_t[..., m:]
        return Q_t, cat([R1_t, R2_t], -1)


def _qr_differentiable(ctx, Q, R):
    """(m, n), after PyTorch's checks that the mode computed what the derivative needs."""
    _check(ctx.mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    _check(ctx.mode != "complete" or m <= n,
           "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    return m, n


def _qr_backward(Q, R, gQ, gR):
    """m >= n: gA = (gQ + Q copyutl(gR R^T - Q^T gQ)) R^-T, copyutl mirroring the upper triangle."""
    if gQ is None:
        M = gR @ R.mT
    else:
        M = -(Q.mT @ gQ) if gR is None else gR @ R.mT - Q.mT @ gQ
    M = M.triu()
    gA = Q @ (M + M.triu(1).mT)
    if gQ is not None:
        gA = gA + gQ
    return gA @ inv(R).mT


def _qr_jvp(Q, R, A_t):
    """m >= n: with C = Q^T A_t R^-1, Q^T Q_t is C's skew lower part and R_t = (C - Q^T Q_t) R."""
    R_inverse = inv(R)
    C = Q.mT @ A_t @ R_inverse
    lower = C.tril(-1)
    R_t = (C - (lower - lower.mT)) @ R
    return (A_t - Q @ R_t) @ R_inverse, R_t


class LinalgPinv(Op):
    """torch.linalg.pinv: the pseudo-inverse, dropping singular values below max(atol, rtol * largest)."""

    name, family = "pinv", MATMUL
    saves = ("A", "result")

    @staticmethod
    def forward(xp, A, atol=None, rtol=None, hermitian=False):
        if rtol is None:
            rtol = 0.0 if atol is not None and atol > 0 else xp.finfo(A.dtype).eps * max(A.shape[-2:])
        if hermitian:
            L, V = xp.linalg.eigh(A)
            U, S, Vh = V, xp.abs(L), xp.swapaxes(V, -1, -2)
            S_signed = L
        else:
            U, S, Vh = xp.linalg.svd(A, full_matrices=False)
            S_signed = S
        largest = xp.max(S, axis=-1, keepdims=True, initial=0.0)
        tolerance = xp.maximum(0.0 if atol is None else atol, rtol * largest)
        keep = S > tolerance
        S_inverse = xp.where(keep, 1 / xp.where(keep, S_signed, 1.0), 0.0).astype(A.dtype)
        return (xp.swapaxes(Vh, -1, -2) * S_inverse[..., None, :]) @ xp.swapaxes(U, -1, -2)

    @staticmethod
    def vjp(ctx, grad):
        A, pinvA = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        pinvAh, gradh = pinvA.mT, grad.mT
        if m <= n:
            K = gradh @ pinvA
            KpinvAh = K @ pinvAh
            return (-(pinvA @ K).mT + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gradh - K @ A),)
        K = pinvA @ gradh
        pinvAhK = pinvAh @ K
        return (-(K @ pinvA).mT + (gradh - A @ K) @ pinvA @ pinvAh + pinvAhK - pinvAhK @ pinvA @ A,)

    @staticmethod
    def jvp(ctx, A_t):
        A, pinvA = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        dAh, pinvAh = A_t.mT, pinvA.mT
        if m <= n:
            K = pinvAh @ dAh
            return pinvA @ (K - K.mT - K @ (A @ pinvA)) + (dAh - pinvA @ (A @ dAh)) @ (pinvAh @ pinvA)
        K = pinvA @ A_t
        Kh = K.mT
        return (Kh - K - pinvA @ A @ Kh) @ pinvA + (pinvA @ pinvAh) @ (dAh - (dAh @ A) @ pinvA)


class LinalgMatrixExp(Op):
    """torch.linalg.matrix_exp: exp(A) for each square matrix, by scaling and squaring a Taylor series. The
    derivative in direction E is the top-right block of exp([[A, E], [0, A]]), as in PyTorch."""

    name, family = "matrix_exp", MATMUL
    saves = ("A",)

    @staticmethod
    def forward(xp, A):
        n = A.shape[-1]
        norm = float(xp.max(xp.sum(xp.abs(A), axis=-1), initial=0.0)) if A.size else 0.0
        squarings = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
        X = A / 2.0**squarings
        term = xp.broadcast_to(xp.eye(n, dtype=A.dtype), A.shape)
        result = term.copy()
        for k in range(1, 19):  # |X| <= 0.5: the remainder is below 0.5^19 / 19!
            term = term @ X / k
            result = result + term
        for _ in range(squarings):
            result = result @ result
        return result

    @staticmethod
    def vjp(ctx, grad):
        (A,) = ctx.saved_tensors
        return (_exp_differential(A.mT, grad),)

    @staticmethod
    def jvp(ctx, A_t):
        (A,) = ctx.saved_tensors
        return _exp_differential(A, A_t)


def _exp_differential(A, E):
    """The top-right block of exp([[A, E], [0, A]])."""
    from ndgrad import cat, zeros_like

    n = A.shape[-1]
    block = cat([cat([A, E], -1), cat([zeros_like(A), A], -1)], -2)
    return matrix_exp(block)[..., :n, n:]


# ---- functions ------------------------------------------------------------------------------------------------
def _check(condition, message, error=RuntimeError):
    if not condition:
        raise error(message)


def _check_square(name, A):
    _check(A.ndim >= 2, f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    _check(A.dtype.is_floating_point or A.dtype.is_complex,
           f"linalg.{name}: Expected a floating point or complex tensor as input. Got {A.dtype.title}")
    _check(A.shape[-1] == A.shape[-2],
           f"linalg.{name}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} "
           "matrices")


def inv(A):
    """The inverse of each square matrix (see torch.linalg.inv)."""
    _check_square("inv", A)
    return LinalgInvEx.apply(A)


def inverse(input):
    """The inverse of each square matrix (see torch.inverse)."""
    return inv(input)


def det(A):
    """The determinant of each square matrix (see torch.linalg.det)."""
    _check_square("det", A)
    return LinalgDet.apply(A)


def slogdet(A):
    """(sign, log |det|) of each square matrix (see torch.linalg.slogdet)."""
    _check_square("slogdet", A)
    return LinalgSlogdet.apply(A)


def logdet(input):
    """log det, NaN for a negative determinant (see torch.logdet)."""
    from ndgrad import where

    sign, logabsdet = slogdet(input)
    return where(sign == -1, math.nan, logabsdet)


def solve(A, B, *, left=True):
    """X with A X = B, or X A = B if not ``left`` (see torch.linalg.solve)."""
    _check_square("solve", A)
    _check(A.dtype is B.dtype,
           f"linalg.solve: Expected A and B to have the same dtype, but found A of type {A.dtype.title} and B of "
           f"type {B.dtype.title} instead")
    vector = left and (B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1])))
    rows = B.shape[-1] if vector else (B.shape[-2] if left else B.shape[-1])
    if rows != A.shape[-1]:
        shape_B = f"{B.shape[-1]}x1" if vector else f"{B.shape[-2]}x{B.shape[-1]}"
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {equation} ({A.shape[-2]}x{A.shape[-1]} "
            f"and {shape_B})"
        )
    return LinalgSolveEx.apply(A, B, left=left, vector=vector)


def cholesky(A, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix (see torch.linalg.cholesky)."""
    _check_square("cholesky", A)
    return LinalgCholeskyEx.apply(A, upper=upper)


def _check_uplo(UPLO):
    _check(UPLO.upper() in ("L", "U"), f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A, UPLO="L"):
    """(eigenvalues, eigenvectors) of each symmetric matrix (see torch.linalg.eigh)."""
    _check_square("eigh", A)
    _check_uplo(UPLO)
    return LinalgEigh.apply(A, UPLO=UPLO.upper())


def eigvalsh(A, UPLO="L"):
    """The eigenvalues, ascending, of each symmetric matrix (see torch.linalg.eigvalsh)."""
    _check_square("eigh", A)  # PyTorch's message names eigh here too
    _check_uplo(UPLO)
    return LinalgEigh.apply(A, UPLO=UPLO.upper())[0]


def qr(A, mode="reduced"):
    """(Q, R) of each matrix (see torch.linalg.qr)."""
    _check(mode in ("reduced", "r", "complete"),
           f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    _check_matrix("qr", A)
    return LinalgQr.apply(A, mode=mode)


def matrix_exp(A):
    """exp(A) of each square matrix (see torch.linalg.matrix_exp)."""
    _check_square("matrix_exp", A)
    return LinalgMatrixExp.apply(A)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse of each matrix (see torch.linalg.pinv)."""
    if A.ndim < 2 or not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(
            f"linalg.pinv({A.dtype.title}{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types"
        )
    return LinalgPinv.apply(A, atol=atol, rtol=rtol, hermitian=hermitian)


def svd(A, full_matrices=True, *, driver=None):
    """(U, S, Vh) of each matrix (see torch.linalg.svd)."""
    _check_matrix("svd", A)
    return LinalgSvd.apply(A, full_matrices=full_matrices)


def svdvals(A, *, driver=None):
    """The singular values, descending, of each matrix (see torch.linalg.svdvals)."""
    _check_matrix("svd", A)
    return LinalgSvd.apply(A, full_matrices=False)[1]


def _check_matrix(name, A):
    _check(A.ndim >= 2, f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    _check(A.dtype.is_floating_point or A.dtype.is_complex,
           f"linalg.{name}: Expected a floating point or complex tensor as input. Got {A.dtype.title}")


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The 'fro', 'nuc', 1, -1, 2, -2, inf or -inf norm of each matrix (see torch.linalg.matrix_norm)."""
    _check(A.ndim >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _check(A.dtype.is_floating_point or A.dtype.is_complex,
           f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {A.dtype.title}")
    _check(len(dim) == 2, f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    if ord == "fro":
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if ord in (1, -1, math.inf, -math.inf):
        row, col = (d % A.ndim for d in dim)
        if ord in (math.inf, -math.inf):
            row, col = col, row
        if not keepdim and col > row:
            col -= 1  # the row dim is gone from the sums
        sums = vector_norm(A, 1, row, keepdim=keepdim, dtype=dtype)
        return sums.amax(col, keepdim=keepdim) if ord > 0 else sums.amin(col, keepdim=keepdim)
    if ord in (2, -2, "nuc"):
        row, col = (d % A.ndim for d in dim)
        if dtype is not None:
            A = A.to(dtype)
        singular_values = svdvals(A.movedim((row, col), (-2, -1)))
        if ord == "nuc":
            result = singular_values.sum(-1, keepdim=keepdim)
        else:
            result = singular_values.amax(-1, keepdim) if ord == 2 else singular_values.amin(-1, keepdim)
        return result.unsqueeze(-1).movedim((-2, -1), (row, col)) if keepdim else result
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm, or a matrix norm for a str ``ord`` or a 2-tuple ``dim`` (see torch.linalg.norm)."""
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if isinstance(ord, str) or (ord is not None and (dim is not None and len(dim) == 2 or dim is None and A.ndim == 2)):
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


class DecompositionsMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def inverse(self):
        return inverse(self)

    def det(self):
        return det(self)

    def slogdet(self):
        return slogdet(self)

    def logdet(self):
        return logdet(self)

    def matrix_exp(self):
        return matrix_exp(self)
