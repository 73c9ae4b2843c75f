"""Matrix decompositions: cholesky, eigh, svd, qr, and householder_product (the Q that geqrf's reflectors encode).

Their gradients are PyTorch's. Eigenvectors and singular vectors are defined up to sign, so a loss must not depend
on the sign; repeated eigenvalues or singular values give infinite or NaN vector gradients, as in PyTorch.
"""

from ndgrad import return_types
from ndgrad.ops import _lapack as lapack
from ndgrad.ops._linalg_base import check, check_matrix, check_square, eye_like, raise_for_info
from ndgrad.ops._op import MATMUL, Op
from ndgrad.ops.solvers import _inverse

__all__ = ["svd", "qr", "orgqr"]  # the names torch has at top level (torch.X)
LINALG = ["cholesky", "cholesky_ex", "eigh", "eigvalsh", "qr", "svd", "svdvals", "householder_product"]


def _unused(grad):
    """An output's gradient that contributes nothing: the engine passes zeros for an output nobody used, where
    PyTorch passes none, and the formulas below divide by gaps that are zero for repeated values."""
    return grad is None or not grad.any()


class LinalgCholeskyEx(Op):
    """torch.linalg.cholesky_ex: L lower triangular with A = L L^T (upper: U = L^T), and LAPACK's info (the order of
    the first leading minor that is not positive-definite, or 0)."""

    name, family = "cholesky", MATMUL
    outputs = ("L", "info")
    saves = ("L",)

    @staticmethod
    def forward(xp, A, upper=False):
        L, info = lapack.cholesky(xp, A)
        return (xp.swapaxes(L, -1, -2) if upper else L), info

    @staticmethod
    def vjp(ctx, grad, grad_info):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, grad = L.mT, grad.mT
        gA = (L.mT @ grad).tril()
        gA = 0.5 * (gA + gA.tril(-1).mT)  # NOTE: PyTorch's rule, not symmetrised: only A's lower half is read
        L_inverse = _inverse(L)
        return (L_inverse.mT @ gA @ L_inverse,)

    @staticmethod
    def jvp(ctx, A_t):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L = L.mT
        L_inverse = _inverse(L)
        phi = (L_inverse @ A_t @ L_inverse.mT).tril()
        phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
        L_t = L @ phi
        return L_t.mT if ctx.upper else L_t


class LinalgEigh(Op):
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors) of each symmetric matrix, read from the ``UPLO``
    triangle."""

    name, family = "eigh", MATMUL
    outputs = ("eigenvalues", "eigenvectors")
    saves = ("eigenvalues", "eigenvectors")

    @staticmethod
    def forward(xp, A, UPLO="L"):
        return tuple(xp.linalg.eigh(A, UPLO=UPLO))

    @staticmethod
    def vjp(ctx, grad_L, grad_V):
        L, V = ctx.saved_tensors
        if _unused(grad_V):
            return (V @ (grad_L.diag_embed() @ V.mT),)
        VhgV = V.mT @ grad_V
        VhgV = 0.5 * (VhgV - VhgV.mT)
        gA = VhgV * _off_diagonal_inverse_gaps(L) + grad_L.diag_embed()
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
    eye = eye_like(gaps)
    return where(eye == 1, 0.0, 1 / where(eye == 1, 1.0, gaps))


class LinalgSvd(Op):
    """torch.linalg.svd: (U, S, Vh) with A = U diag(S) Vh, S descending. With full_matrices=True only the first
    min(m, n) singular vectors reach the gradient, as in PyTorch."""

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
        gU, gVh = (None if _unused(gU) else gU), (None if _unused(gVh) else gVh)
        if ctx.full_matrices:  # only the first k singular vectors enter A = U diag(S) Vh
            U, Vh = U[..., :k], Vh[..., :k, :]
            gU, gVh = (None if gU is None else gU[..., :k]), (None if gVh is None else gVh[..., :k, :])
        m, n = U.shape[-2], Vh.shape[-1]
        if gU is None and gVh is None:
            return (U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh,)
        E = _square_gaps(S)
        if gU is not None and gVh is not None:
            UhgU, VhgV = _skew(U.mT @ gU), _skew(Vh @ gVh.mT)
            gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
        elif gU is not None:
            gA = (_skew(U.mT @ gU) / E) * S.unsqueeze(-2)
        else:
            gA = S.unsqueeze(-1) * (_skew(Vh @ gVh.mT) / E)
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
    return where(eye_like(gaps) == 1, 1.0, gaps)


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
        from ndgrad import cat

        Y = Q @ R[..., m:]
        gX = _qr_backward(Q, R[..., :m], gQ + Y @ gR[..., m:].mT, gR[..., :m])
        return (cat([gX, Q @ gR[..., m:]], -1),)

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
    check(ctx.mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
          "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    check(ctx.mode != "complete" or m <= n,
          "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    return m, n


def _qr_backward(Q, R, gQ, gR):
    """m >= n: gA = (gQ + Q copyutl(gR R^T - Q^T gQ)) R^-T, copyutl mirroring the upper triangle."""
    M = (gR @ R.mT - Q.mT @ gQ).triu()
    return (Q @ (M + M.triu(1).mT) + gQ) @ _inverse(R).mT


def _qr_jvp(Q, R, A_t):
    """m >= n: with C = Q^T A_t R^-1, Q^T Q_t is C's skew lower part and R_t = (C - Q^T Q_t) R."""
    R_inverse = _inverse(R)
    C = Q.mT @ A_t @ R_inverse
    lower = C.tril(-1)
    R_t = (C - (lower - lower.mT)) @ R
    return (A_t - Q @ R_t) @ R_inverse, R_t


class LinalgHouseholderProduct(Op):
    """torch.linalg.householder_product: the first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i
    the i-th column of A below the diagonal and 1 on it (the Q that geqrf's (A, tau) encode)."""

    name, family = "householder_product", MATMUL
    saves = ("A", "tau")

    @staticmethod
    def forward(xp, A, tau):
        m, n = A.shape[-2:]
        k = tau.shape[-1]
        V = xp.tril(A[..., :, :k], -1) + xp.eye(m, k, dtype=A.dtype)
        Q = xp.broadcast_to(xp.eye(m, n, dtype=A.dtype), A.shape).copy()
        for i in reversed(range(k)):  # Q = H_i Q
            v = V[..., :, i, None]
            Q -= tau[..., i, None, None] * v * (xp.swapaxes(v, -1, -2) @ Q)
        return Q

    @staticmethod
    def vjp(ctx, grad):
        """With Q = P_i H_i S_i (P_i the reflectors before H_i, S_i those after, applied to I's first n columns),
        the loss's gradient with respect to H_i is P_i^T grad S_i^T, which gives tau_i's and v_i's."""
        from ndgrad import cat, stack, zeros

        A, tau = ctx.saved_tensors
        V, reflectors = _reflectors(A, tau)
        after = [None] * len(reflectors)  # after[i] = S_i
        S = _identity(A, A.shape[-1])
        for i in reversed(range(len(reflectors))):
            after[i] = S
            S = reflectors[i](S)
        gV, gtau, PtG = [], [], grad
        for i, reflect in enumerate(reflectors):
            v = V[..., :, i]
            a = (v.unsqueeze(-2) @ PtG).squeeze(-2)  # PtG^T v
            b = (v.unsqueeze(-2) @ after[i]).squeeze(-2)  # S_i^T v
            gtau.append(-(a * b).sum(-1))
            gV.append(-tau[..., i, None] * ((PtG @ b.unsqueeze(-1)) + (after[i] @ a.unsqueeze(-1))).squeeze(-1))
            PtG = reflect(PtG)
        gA = stack(gV, -1).tril(-1)
        n, k = A.shape[-1], gA.shape[-1]
        if k < n:
            gA = cat([gA, zeros(*A.shape[:-1], n - k, dtype=A.dtype, device=A.device)], -1)
        return gA, stack(gtau, -1)

    @staticmethod
    def jvp(ctx, A_t, tau_t):
        """dQ = sum_i P_i dH_i S_i, dH_i = -(dtau_i v v^T + tau_i (dv v^T + v dv^T))."""
        A, tau = ctx.saved_tensors
        V, reflectors = _reflectors(A, tau)
        k = len(reflectors)
        V_t = A_t[..., :, :k].tril(-1)
        after, S = [None] * k, _identity(A, A.shape[-1])
        for i in reversed(range(k)):
            after[i] = S
            S = reflectors[i](S)
        Q_t, before = None, _identity(A, A.shape[-2])  # before = P_i
        for i in range(k):
            v, v_t = V[..., :, i, None], V_t[..., :, i, None]
            vS, v_tS = v.mT @ after[i], v_t.mT @ after[i]
            dHS = -(tau_t[..., i, None, None] * v * vS + tau[..., i, None, None] * (v_t * vS + v * v_tS))
            term = before @ dHS
            Q_t = term if Q_t is None else Q_t + term
            before = before - (before @ v) * tau[..., i, None, None] @ v.mT
        return Q_t


def _identity(A, n):
    """The first n columns of the identity matrix of A's row count, in A's batch shape."""
    from ndgrad import eye

    m = A.shape[-2]
    return eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)


def _reflectors(A, tau):
    """V (A's columns below the diagonal, 1 on it) and, per reflector, the function X -> H_i X."""
    k = tau.shape[-1]
    V = A[..., :, :k].tril(-1) + _identity(A, k)

    def reflector(i):
        v = V[..., :, i, None]
        return lambda X: X - tau[..., i, None, None] * v * (v.mT @ X)

    return V, [reflector(i) for i in range(k)]


# ---- the functions users call ------------------------------------------------------------------------------------
def _not_positive_definite(code):
    return ("The factorization could not be completed because the input is not positive-definite (the leading minor "
            f"of order {code} is not positive-definite).")


def cholesky_ex(A, *, upper=False, check_errors=False):
    """(L, info) of each symmetric matrix; info > 0 marks one that is not positive-definite (see
    torch.linalg.cholesky_ex)."""
    check_square("linalg.cholesky", A)
    result = return_types.linalg_cholesky_ex(LinalgCholeskyEx.apply(A, upper=upper))
    if check_errors:
        raise_for_info("linalg.cholesky_ex", result.info._data, A.ndim > 2, _not_positive_definite)
    return result


def cholesky(A, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix (see torch.linalg.cholesky)."""
    L, info = cholesky_ex(A, upper=upper)
    raise_for_info("linalg.cholesky", info._data, A.ndim > 2, _not_positive_definite)
    return L


def _check_uplo(UPLO):
    check(UPLO.upper() in ("L", "U"), f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A, UPLO="L"):
    """(eigenvalues, eigenvectors) of each symmetric matrix (see torch.linalg.eigh)."""
    check_square("linalg.eigh", A)
    _check_uplo(UPLO)
    return return_types.linalg_eigh(LinalgEigh.apply(A, UPLO=UPLO.upper()))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues, ascending, of each symmetric matrix (see torch.linalg.eigvalsh)."""
    check_square("linalg.eigh", A)  # PyTorch's message names eigh here too
    _check_uplo(UPLO)
    return LinalgEigh.apply(A, UPLO=UPLO.upper())[0]


def _linalg_qr(A, mode="reduced"):
    check(mode in ("reduced", "r", "complete"),
          f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    check_matrix("linalg.qr", A)
    return LinalgQr.apply(A, mode=mode)


def linalg_qr(A, mode="reduced"):
    """(Q, R) of each matrix (see torch.linalg.qr)."""
    return return_types.linalg_qr(_linalg_qr(A, mode))


_QR_DEPRECATION = [  # a list, emptied once it is shown: PyTorch warns once per process
    "ndgrad.qr is deprecated in favor of ndgrad.linalg.qr and will be removed in a future PyTorch release.\nThe "
    "boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = ndgrad.qr(A, some)\nshould be "
    "replaced with\nQ, R = ndgrad.linalg.qr(A, 'reduced' if some else 'complete')"
]


def qr(input, some=True):
    """(Q, R) of each matrix, reduced if ``some`` (see torch.qr, deprecated as there)."""
    if _QR_DEPRECATION:
        import warnings

        warnings.warn(_QR_DEPRECATION.pop(), UserWarning, stacklevel=2)
    return return_types.qr(_linalg_qr(input, "reduced" if some else "complete"))


def linalg_svd(A, full_matrices=True, *, driver=None):
    """(U, S, Vh) of each matrix (see torch.linalg.svd)."""
    check_matrix("linalg.svd", A)
    return return_types.linalg_svd(LinalgSvd.apply(A, full_matrices=full_matrices))


def svd(input, some=True, compute_uv=True):
    """(U, S, V) of each matrix, V = Vh^T; without ``compute_uv``, U and V are zeros (see torch.svd)."""
    if not compute_uv:
        from ndgrad import zeros

        m, n = input.shape[-2:]
        S = svdvals(input)
        U = zeros(*input.shape[:-2], m, m, dtype=input.dtype, device=input.device)
        return return_types.svd((U, S, zeros(*input.shape[:-2], n, n, dtype=input.dtype, device=input.device)))
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    return return_types.svd((U, S, Vh.mT))


def svdvals(A, *, driver=None):
    """The singular values, descending, of each matrix (see torch.linalg.svdvals)."""
    check_matrix("linalg.svd", A)
    return LinalgSvd.apply(A, full_matrices=False)[1]


def householder_product(A, tau):
    """The product of the Householder reflectors that (A, tau) encode, its first n columns (see
    torch.linalg.householder_product)."""
    name = "ndgrad.linalg.householder_product"
    check(A.ndim >= 2, f"{name}: input must have at least 2 dimensions.")
    check(A.shape[-2] >= A.shape[-1], f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    check(A.shape[-1] >= tau.shape[-1], f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    check(tau.ndim == A.ndim - 1 and tuple(tau.shape[:-1]) == tuple(A.shape[:-2]),
          f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}")
    check(A.dtype is tau.dtype, f"{name}: tau dtype {tau.dtype.title} does not match input dtype {A.dtype.title}")
    check(A.dtype.is_floating_point or A.dtype.is_complex, f'"orgqr_cpu" not implemented for \'{A.dtype.title}\'',
          NotImplementedError)
    return LinalgHouseholderProduct.apply(A, tau)


def orgqr(input, tau):
    """householder_product under LAPACK's name (see torch.orgqr)."""
    return householder_product(input, tau)


class DecompositionsMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def qr(self, some=True):
        return qr(self, some)

    def svd(self, some=True, compute_uv=True):
        return svd(self, some, compute_uv)

    def orgqr(self, input2):
        return orgqr(self, input2)
