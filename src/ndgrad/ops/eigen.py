"""Eigendecomposition of general (non-symmetric) square matrices: linalg.eig and linalg.eigvals. The results are
complex even for real input, as in PyTorch; the gradient is PyTorch's, refusing losses that depend on the
eigenvectors' phases (each eigenvector is only defined up to a factor e^{i phi})."""

import ndgrad.return_types as return_types
from ndgrad._argument_parser import parses
from ndgrad._dtype import bool_
from ndgrad.ops._linalg_base import check_kernel, check_square
from ndgrad.ops._op import MATMUL, Op
from ndgrad.ops.comparison import where
from ndgrad.ops.complex_numbers import imag, real
from ndgrad.ops.joining import diag_embed
from ndgrad.ops.linalg import matmul

__all__ = []
LINALG = ["eig", "eigvals"]  # the names torch.linalg has

_COMPLEX = {"float32": "complex64", "float64": "complex128", "complex64": "complex64", "complex128": "complex128"}
PHASE_ERROR = (
    "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by e^{i phi}. "
    "The specified loss function depends on this quantity, so it is ill-defined."
)


class LinalgEig(Op):
    """torch.linalg.eig: A V = V diag(L), each eigenvector of norm 1 with its largest component real (LAPACK's)."""

    name, family = "eig", MATMUL
    outputs = ("eigenvalues", "eigenvectors")
    saves = ("eigenvalues", "eigenvectors")

    @staticmethod
    def forward(xp, A):
        values, vectors = xp.linalg.eig(A)
        dtype = _COMPLEX[A.dtype.name]  # NumPy returns real results where every eigenvalue is real
        return values.astype(dtype, copy=False), vectors.astype(dtype, copy=False)

    formula = "grad_A = V^-H (diag(grad_L) + (V^H grad_V - V^H V Re(diag(V^H grad_V))) / conj(L_j - L_i)) V^H"
    @staticmethod
    def vjp(ctx, grad_values, grad_vectors):
        L, V = ctx.saved_tensors
        # gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(L_j - L_i)) V^H, as PyTorch
        Vh = V.mH
        VhgV = matmul(Vh, grad_vectors)
        diagonal = VhgV.diagonal(0, -2, -1)
        if not bool((imag(diagonal).abs() <= 1e-2).all()):  # allclose(Im, 0, rtol=1e-2, atol=1e-2)
            raise RuntimeError(PHASE_ERROR)
        inner = VhgV - matmul(Vh, V * real(diagonal).unsqueeze(-2))
        inner = inner / _gaps(L).conj()
        inner = inner - diag_embed(inner.diagonal(0, -2, -1)) + diag_embed(grad_values)
        return (_solve(Vh, matmul(inner, Vh)),)

    @staticmethod
    def jvp(ctx, A_t):
        L, V = ctx.saved_tensors
        if not A_t.is_complex():
            A_t = A_t.to(V.dtype)
        moved = _solve(V, matmul(A_t, V))  # V^{-1} dA V: its diagonal moves the eigenvalues
        L_t = moved.diagonal(0, -2, -1)
        mixing = moved / _gaps(L)
        V_t = matmul(V, mixing - diag_embed(mixing.diagonal(0, -2, -1)))
        # the vectors keep norm 1: no change along each vector itself
        return L_t, V_t - V * real(matmul(V.mH, V_t).diagonal(0, -2, -1)).unsqueeze(-2)


def _gaps(L):
    """E[i, j] = L[j] - L[i], with 1 on the diagonal (divided by there, then replaced)."""
    from ndgrad._creation import eye  # creation imports the Tensor, which imports the ops

    gaps = L.unsqueeze(-2) - L.unsqueeze(-1)
    return where(eye(L.shape[-1], dtype=bool_, device=L.device), 1.0, gaps)


def _solve(A, B):
    from ndgrad.ops.solvers import solve  # the solvers are another family, built on this one's neighbours

    return solve(A, B)


def _checked(function, A):
    """PyTorch's checks: the complex dtype of the results first (integers have none), then the shape, then the
    kernel's dtypes."""
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {A.dtype.title}")
    check_square(f"linalg.{function}", A)
    check_kernel("linalg_eig_out_cpu", A)
    return A


@parses("linalg_eig(Tensor input, *, Tensor[2] out=None)")
def eig(A):
    """Eigenvalues and eigenvectors of square matrices, complex (see torch.linalg.eig)."""
    return return_types.linalg_eig(LinalgEig.apply(_checked("eig", A)))


@parses("linalg_eigvals(Tensor input, *, Tensor out=None)")
def eigvals(A):
    """The eigenvalues of square matrices, complex (see torch.linalg.eigvals)."""
    return LinalgEig.apply(_checked("eigvals", A))[0]
