"""Matrix decompositions: cholesky, eigh, svd, qr, and householder_product (the Q that geqrf's reflectors encode).

Their gradients are PyTorch's. Eigenvectors and singular vectors are defined up to sign, so a loss must not depend
on the sign; repeated eigenvalues or singular values give infinite or NaN vector gradients, as in PyTorch.
"""

import ndgrad.return_types as return_types
from ndgrad._argument_parser import parses, tensor_method
from ndgrad._warnings import warn
from ndgrad.ops import _lapack as lapack
from ndgrad.ops._linalg_base import check, check_kernel, check_matrix, check_square, eye_like, raise_for_info
from ndgrad.ops._op import MATMUL, Op
from ndgrad.ops.comparison import allclose, where
from ndgrad.ops.joining import cat, stack
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
        return (lapack.conjugate_transpose(xp, L) if upper else L), info

    formula = "grad_A = L^-H Phi(L^H grad) L^-1  (Phi: lower triangle, diagonal halved)"
    @staticmethod
    def vjp(ctx, grad, grad_info):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, grad = L.mH, grad.mH
        gA = (L.mH @ grad).tril()
        gA = 0.5 * (gA + gA.tril(-1).mH)  # NOTE: PyTorch's rule, not symmetrised: only A's lower half is read
        L_inverse = _inverse(L)
        return (L_inverse.mH @ gA @ L_inverse,)

    @staticmethod
    def jvp(ctx, A_t):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L = L.mH
        L_inverse = _inverse(L)
        phi = (L_inverse @ A_t @ L_inverse.mH).tril()
        phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
        L_t = L @ phi
        return L_t.mH if ctx.upper else L_t


class LinalgEigh(Op):
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors) of each symmetric matrix, read from the ``UPLO``
    triangle."""

    name, family = "eigh", MATMUL
    outputs = ("eigenvalues", "eigenvectors")
    saves = ("eigenvalues", "eigenvectors")

    @staticmethod
    def forward(xp, A, UPLO="L"):
        return tuple(xp.linalg.eigh(A, UPLO=UPLO))

    formula = "grad_A = V (diag(grad_L) + skew(V^H grad_V) / (L_j - L_i)) V^H"
    @staticmethod
    def vjp(ctx, grad_L, grad_V):
        L, V = ctx.saved_tensors
        if _unused(grad_V):
            return ((V * grad_L.unsqueeze(-2)) @ V.mH,)
        VhgV = V.mH @ grad_V
        if V.is_complex():
            _check_phase_invariant(VhgV.diagonal(0, -2, -1).imag, "linalg_eigh_backward: The eigenvectors",
                                   "depends on this quantity, so it is ill-defined.")
        VhgV = 0.5 * (VhgV - VhgV.mH)
        gA = VhgV * _off_diagonal_inverse_gaps(L) + grad_L.diag_embed()
        return (V @ (gA @ V.mH),)

    @staticmethod
    def jvp(ctx, A_t):
        L, V = ctx.saved_tensors
        dP = V.mH @ A_t @ V
        L_t = dP.diagonal(0, -2, -1)
        return (L_t.real if L_t.is_complex() else L_t), V @ (dP * _off_diagonal_inverse_gaps(L))


def _check_phase_invariant(imaginary_diagonal, what, consequence):
    """PyTorch's refusal of a loss that depends on the phases e^{i phi} of complex eigen- or singular vectors, which
    no decomposition fixes: the imaginary diagonal of V^H grad_V must vanish (loosely, as in PyTorch)."""
    from ndgrad._creation import zeros_like  # creation imports the Tensor, which imports the ops

    check(allclose(imaginary_diagonal, zeros_like(imaginary_diagonal), rtol=1e-2, atol=1e-2),
          f"{what} in the complex case are specified up to multiplication by e^{{i phi}}. The specified loss function "
          f"{consequence}")


def _off_diagonal_inverse_gaps(L):
    """F[i, j] = 1 / (L[j] - L[i]) off the diagonal, 0 on it (where PyTorch overwrites the 0/0)."""
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

    formula = "grad_A = U (diag(grad_S) + terms of skew(U^H grad_U) and skew(V^H grad_V) / (S_j^2 - S_i^2)) V^H"
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
        UhgU = None if gU is None else _skew(U.mH @ gU)
        VhgV = None if gVh is None else _skew(Vh @ gVh.mH)
        if U.is_complex():  # a loss may depend on the phases of U's and V's columns only through U V^H
            imaginary = sum(X.diagonal(0, -2, -1).imag for X in (UhgU, VhgV) if X is not None)
            _check_phase_invariant(imaginary, "svd_backward: The singular vectors",
                                   "depends on this phase term, making it ill-defined.")
        if gU is not None and gVh is not None:
            gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
            if U.is_complex():
                gA = gA + (UhgU.diagonal(0, -2, -1) / (2 * S)).diag_embed()
        elif gU is not None:
            gA = (UhgU / E) * S.unsqueeze(-2)
        else:
            gA = S.unsqueeze(-1) * (VhgV / E)
        gA = gA + gS.diag_embed()
        if m > n and gU is not None:  # the part of gU outside span(U)
            gUSinv = gU / S.unsqueeze(-2)
            gA = (U @ gA + gUSinv - U @ (U.mH @ gUSinv)) @ Vh
        elif m < n and gVh is not None:
            SinvgVh = gVh / S.unsqueeze(-1)
            gA = U @ (gA @ Vh + SinvgVh - (SinvgVh @ Vh.mH) @ Vh)
        else:
            gA = U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh
        return (gA,)

    @staticmethod
    def jvp(ctx, A_t):
        from ndgrad._creation import zeros

        U_full, S, Vh_full = ctx.saved_tensors
        k = S.shape[-1]
        U, Vh = (U_full[..., :k], Vh_full[..., :k, :]) if ctx.full_matrices else (U_full, Vh_full)
        m, n, V = U.shape[-2], Vh.shape[-1], Vh.mH
        dP = U.mH @ (A_t @ V) if m >= n else (U.mH @ A_t) @ V
        S_t = dP.diagonal(0, -2, -1)
        if S_t.is_complex():  # the imaginary diagonal turns U's columns' phases (V's are held fixed)
            S_t = S_t.real
        dP = dP - S_t.diag_embed()
        E = _square_gaps(S)
        U_t = U @ (_sym(dP * S.unsqueeze(-2)) / E)
        if U.is_complex():
            U_t = U_t + U * (dP.diagonal(0, -2, -1) / S).unsqueeze(-2)
        if m > k:
            dAVSinv = A_t @ (V / S.unsqueeze(-2))
            U_t = U_t + dAVSinv - U @ (U.mH @ dAVSinv)
        Vh_t = -(_sym(dP * S.unsqueeze(-1)) / E) @ Vh
        if n > k:
            UhdASinv = (U.mH / S.unsqueeze(-1)) @ A_t
            Vh_t = Vh_t + UhdASinv - (UhdASinv @ V) @ Vh
        if ctx.full_matrices:  # PyTorch's tangents of the extra singular vectors: zeros
            U_t = cat([U_t, zeros(*U_t.shape[:-1], m - k, dtype=U_t.dtype)], -1)
            Vh_t = cat([Vh_t, zeros(*Vh_t.shape[:-2], n - k, n, dtype=Vh_t.dtype)], -2)
        return U_t, S_t, Vh_t


def _skew(X):
    return X - X.mH


def _sym(X):
    return X + X.mH


def _square_gaps(S):
    """E[j, k] = S[k]^2 - S[j]^2 off the diagonal, 1 on it (only ever divides a zero there)."""
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

    formula = "grad_A = (grad_Q + Q copyltu(M)) R^-H, M = R grad_R^H - grad_Q^H Q"
    @staticmethod
    def vjp(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        m, n = _qr_differentiable(ctx, Q, R)
        if m >= n:
            return (_qr_backward(Q, R, gQ, gR),)
        # A = [X | Y] with X = Q R1 square and Y = Q R2: R2's gradient reaches Q and Y
        Y = Q @ R[..., m:]
        gX = _qr_backward(Q, R[..., :m], gQ + Y @ gR[..., m:].mH, gR[..., :m])
        return (cat([gX, Q @ gR[..., m:]], -1),)

    @staticmethod
    def jvp(ctx, A_t):
        Q, R = ctx.saved_tensors
        m, n = _qr_differentiable(ctx, Q, R)
        if m >= n:
            return _qr_jvp(Q, R, A_t)
        Q_t, R1_t = _qr_jvp(Q, R[..., :m], A_t[..., :m])
        R2_t = Q_t.mH @ (Q @ R[..., m:]) + Q.mH @ A_t[..., m:]
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
    """m >= n: gA = (gQ + Q copyutl(gR R^H - Q^H gQ)) R^-H, copyutl mirroring the upper triangle (and keeping only
    the real part of the diagonal)."""
    M = (gR @ R.mH - Q.mH @ gQ).triu()
    M = M + M.triu(1).mH
    if M.is_complex():  # R's diagonal is real, so only the real part of M's diagonal reaches A
        M = M - (1j * M.diagonal(0, -2, -1).imag).diag_embed()
    return (Q @ M + gQ) @ _inverse(R).mH


def _qr_jvp(Q, R, A_t):
    """m >= n: with C = Q^H A_t R^-1, Q^H Q_t is C's skew lower part (plus, complex, C's imaginary diagonal) and
    R_t = (C - Q^H Q_t) R."""
    R_inverse = _inverse(R)
    C = Q.mH @ A_t @ R_inverse
    lower = C.tril(-1)
    QhQ_t = lower - lower.mH  # skew-Hermitian; R's real diagonal leaves C's imaginary diagonal to Q's phases
    if C.is_complex():
        QhQ_t = QhQ_t + (1j * C.diagonal(0, -2, -1).imag).diag_embed()
    R_t = (C - QhQ_t) @ R
    return (A_t - Q @ R_t) @ R_inverse, R_t


class LinalgHouseholderProduct(Op):
    """torch.linalg.householder_product: the first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i
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
            Q -= tau[..., i, None, None] * v * (xp.conj(xp.swapaxes(v, -1, -2)) @ Q)
        return Q

    formula = "grad_self, grad_tau: grad through each Householder reflector H_i = I - tau_i v_i v_i^H in turn"
    @staticmethod
    def vjp(ctx, grad):
        """With Q = P_i H_i S_i (P_i the reflectors before H_i, S_i those after, applied to I's first n columns),
        the loss's gradient with respect to H_i is M = P_i^H grad S_i^H, which gives tau_i's (-v^H M v) and v_i's
        (-(conj(tau) M v + tau M^H v))."""
        from ndgrad._creation import zeros

        A, tau = ctx.saved_tensors
        V, reflectors = _reflectors(A, tau)
        after = [None] * len(reflectors)  # after[i] = S_i
        S = _identity(A, A.shape[-1])
        for i in reversed(range(len(reflectors))):
            after[i] = S
            S = reflectors[i](S)
        gV, gtau, PtG = [], [], grad  # PtG = P_i^H grad
        for i in range(len(reflectors)):
            v, t = V[..., :, i], tau[..., i, None]
            a = (v.conj().unsqueeze(-2) @ PtG).squeeze(-2)  # v^H P_i^H grad
            b = (v.conj().unsqueeze(-2) @ after[i]).squeeze(-2)  # v^H S_i
            gtau.append(-(a * b.conj()).sum(-1))
            Mv, Mhv = PtG @ b.conj().unsqueeze(-1), after[i] @ a.conj().unsqueeze(-1)
            gV.append(-(t.conj() * Mv.squeeze(-1) + t * Mhv.squeeze(-1)))
            PtG = PtG - t.unsqueeze(-1).conj() * v.unsqueeze(-1) * a.unsqueeze(-2)  # H_i^H PtG
        gA = stack(gV, -1).tril(-1)
        n, k = A.shape[-1], gA.shape[-1]
        if k < n:
            gA = cat([gA, zeros(*A.shape[:-1], n - k, dtype=A.dtype, device=A.device)], -1)
        return gA, stack(gtau, -1)

    @staticmethod
    def jvp(ctx, A_t, tau_t):
        """dQ = sum_i P_i dH_i S_i, dH_i = -(dtau_i v v^H + tau_i (dv v^H + v dv^H))."""
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
            vS, v_tS = v.mH @ after[i], v_t.mH @ after[i]
            dHS = -(tau_t[..., i, None, None] * v * vS + tau[..., i, None, None] * (v_t * vS + v * v_tS))
            term = before @ dHS
            Q_t = term if Q_t is None else Q_t + term
            before = before - (before @ v) * tau[..., i, None, None] @ v.mH
        return Q_t


def _identity(A, n):
    """The first n columns of the identity matrix of A's row count, in A's batch shape."""
    from ndgrad._creation import eye

    m = A.shape[-2]
    return eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)


def _reflectors(A, tau):
    """V (A's columns below the diagonal, 1 on it) and, per reflector, the function X -> H_i X."""
    k = tau.shape[-1]
    V = A[..., :, :k].tril(-1) + _identity(A, k)

    def reflector(i):
        v = V[..., :, i, None]
        return lambda X: X - tau[..., i, None, None] * v * (v.mH @ X)

    return V, [reflector(i) for i in range(k)]


# ---- the functions users call ------------------------------------------------------------------------------------
def _not_positive_definite(code):
    return ("The factorization could not be completed because the input is not positive-definite (the leading minor "
            f"of order {code} is not positive-definite).")


@parses("linalg_cholesky_ex(Tensor input, *, bool upper=False, bool check_errors=False, Tensor[2] out=None)")
def cholesky_ex(A, *, upper=False, check_errors=False):
    """(L, info) of each symmetric matrix; info > 0 marks one that is not positive-definite (see
    torch.linalg.cholesky_ex)."""
    check_square("linalg.cholesky", A)
    check_kernel("cholesky_cpu", A)
    result = return_types.linalg_cholesky_ex(LinalgCholeskyEx.apply(A, upper=upper))
    if check_errors:
        raise_for_info("linalg.cholesky_ex", result.info._data, A.ndim > 2, _not_positive_definite)
    return result


@parses("linalg_cholesky(Tensor input, *, bool upper=False, Tensor out=None)")
def cholesky(A, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix (see torch.linalg.cholesky)."""
    L, info = cholesky_ex(A, upper=upper)
    raise_for_info("linalg.cholesky", info._data, A.ndim > 2, _not_positive_definite)
    return L


def _check_uplo(UPLO):
    check(UPLO.upper() in ("L", "U"), f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@parses('linalg_eigh(Tensor input, str UPLO="L", *, Tensor[2] out=None)')
def eigh(A, UPLO="L"):
    """(eigenvalues, eigenvectors) of each symmetric matrix (see torch.linalg.eigh)."""
    check_square("linalg.eigh", A, floating=False)  # the kernel refuses the dtypes it lacks, last
    _check_uplo(UPLO)
    check_kernel("linalg_eigh_cpu", A)
    return return_types.linalg_eigh(LinalgEigh.apply(A, UPLO=UPLO.upper()))


@parses('linalg_eigvalsh(Tensor input, str UPLO="L", *, Tensor out=None)')
def eigvalsh(A, UPLO="L"):
    """The eigenvalues, ascending, of each symmetric matrix (see torch.linalg.eigvalsh)."""
    check_square("linalg.eigh", A, floating=False)  # PyTorch's message names eigh here too
    _check_uplo(UPLO)
    check_kernel("linalg_eigh_cpu", A)
    return LinalgEigh.apply(A, UPLO=UPLO.upper())[0]


def _linalg_qr(A, mode="reduced"):
    check_matrix("linalg.qr", A)
    check(mode in ("reduced", "r", "complete"),
          f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    check_kernel("geqrf_cpu", A)
    return LinalgQr.apply(A, mode=mode)


@parses('linalg_qr(Tensor A, str mode="reduced", *, Tensor[2] out=None)')
def linalg_qr(A, mode="reduced"):
    """(Q, R) of each matrix (see torch.linalg.qr)."""
    return return_types.linalg_qr(_linalg_qr(A, mode))


_QR_DEPRECATION = [  # a list, emptied once it is shown: PyTorch warns once per process
    "ndgrad.qr is deprecated in favor of ndgrad.linalg.qr and will be removed in a future PyTorch release.\nThe "
    "boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = ndgrad.qr(A, some)\nshould be "
    "replaced with\nQ, R = ndgrad.linalg.qr(A, 'reduced' if some else 'complete')"
]


@parses("qr(Tensor input, bool some=True, *, Tensor[2] out=None)")
def qr(input, some=True):
    """(Q, R) of each matrix, reduced if ``some`` (see torch.qr, deprecated as there)."""
    if _QR_DEPRECATION:

        warn(_QR_DEPRECATION.pop(), UserWarning)
    return return_types.qr(_linalg_qr(input, "reduced" if some else "complete"))


@parses("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None, Tensor[3] out=None)")
def linalg_svd(A, full_matrices=True, *, driver=None):
    """(U, S, Vh) of each matrix (see torch.linalg.svd)."""
    _check_svd(A, driver)
    return return_types.linalg_svd(LinalgSvd.apply(A, full_matrices=full_matrices))


@parses("svd(Tensor input, bool some=True, bool compute_uv=True, *, Tensor[3] out=None)")
def svd(input, some=True, compute_uv=True):
    """(U, S, V) of each matrix, V = Vh^T; without ``compute_uv``, U and V are zeros (see torch.svd)."""
    check(input.ndim >= 2, f"linalg.svd: input should have at least 2 dimensions, but has {input.ndim} dimensions "
          "instead")
    if not compute_uv:
        from ndgrad._creation import zeros

        m, n = input.shape[-2:]
        S = svdvals(input)
        U = zeros(*input.shape[:-2], m, m, dtype=input.dtype, device=input.device)
        return return_types.svd((U, S, zeros(*input.shape[:-2], n, n, dtype=input.dtype, device=input.device)))
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    return return_types.svd((U, S, Vh.mT))


def _check_svd(A, driver):
    check_matrix("linalg.svd", A)
    check(driver is None, "ndgrad.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
          "cuSOLVER backend.")
    check_kernel("linalg_svd_cpu", A)


@parses("linalg_svdvals(Tensor A, *, str? driver=None, Tensor out=None)")
def svdvals(A, *, driver=None):
    """The singular values, descending, of each matrix (see torch.linalg.svdvals)."""
    _check_svd(A, driver)
    return LinalgSvd.apply(A, full_matrices=False)[1]


@parses("linalg_householder_product(Tensor input, Tensor tau, *, Tensor out=None)")
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


@parses("orgqr(Tensor input, Tensor input2, *, Tensor out=None)")
def orgqr(input, input2):
    """householder_product under LAPACK's name (see torch.orgqr)."""
    return householder_product(input, input2)


class DecompositionsMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    qr = tensor_method(qr)

    svd = tensor_method(svd)

    orgqr = tensor_method(orgqr)
