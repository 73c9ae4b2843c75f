"""Functions of matrices: matrix_exp, the matrix norms and the condition number, matrix_rank, vander, diagonal."""

import math

import numpy as np

from ndgrad._argument_parser import alias, parses
from ndgrad._dtype import int64
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.ops._linalg_base import (
    LAPACK_DTYPES,
    check,
    check_matrix,
    check_norm_dtype,
    check_norm_order,
    check_square,
    scalar_text,
)
from ndgrad.ops._op import MATMUL, Op
from ndgrad.ops.decompositions import svdvals
from ndgrad.ops.joining import cat
from ndgrad.ops.reduction import vector_norm
from ndgrad.ops.shape import wrap_dim
from ndgrad.ops.solvers import inv_ex

__all__ = ["matrix_exp"]  # the names torch has at top level (torch.X)
LINALG = ["matrix_exp", "matrix_norm", "vector_norm", "norm", "cond", "matrix_rank", "vander", "diagonal"]


class LinalgMatrixExp(Op):
    """torch.linalg.matrix_exp: exp(A) for each square matrix, by scaling and squaring a Taylor series. The
    derivative in direction E is the top-right block of exp([[A, E], [0, A]]), as in PyTorch."""

    name, family = "matrix_exp", MATMUL
    saves = ("A",)

    @staticmethod
    def forward(xp, A):
        n = A.shape[-1]
        norm = float(xp.max(xp.sum(xp.abs(A), axis=-1))) if A.size else 0.0  # a sync: the squarings depend on it
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

    formula = "grad_A = the Fréchet derivative of exp at A^H applied to grad"
    @staticmethod
    def vjp(ctx, grad):
        (A,) = ctx.saved_tensors
        return (_exp_differential(A.mH, grad),)

    @staticmethod
    def jvp(ctx, A_t):
        (A,) = ctx.saved_tensors
        return _exp_differential(A, A_t)


def _exp_differential(A, E):
    """The top-right block of exp([[A, E], [0, A]])."""
    from ndgrad._creation import zeros_like  # creation imports the Tensor, which imports the ops

    n = A.shape[-1]
    block = cat([cat([A, E], -1), cat([zeros_like(A), A], -1)], -2)
    return matrix_exp(block)[..., :n, n:]


# ---- the functions users call ------------------------------------------------------------------------------------
@parses("matrix_exp(Tensor input)")
def matrix_exp(A):
    """exp(A) of each square matrix (see torch.linalg.matrix_exp)."""
    check_square("linalg.matrix_exp", A)
    return LinalgMatrixExp.apply(A)


linalg_matrix_exp = alias(matrix_exp, "linalg_matrix_exp(Tensor input)")


@parses("linalg_matrix_norm(Tensor input, Scalar ord, int[] dim={-2,-1}, bool keepdim=False, *, "
        "ScalarType? dtype=None, Tensor out=None)",
        'linalg_matrix_norm(Tensor input, str ord="fro", int[] dim={-2,-1}, bool keepdim=False, *, '
        "ScalarType? dtype=None, Tensor out=None)")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The 'fro', 'nuc', 1, -1, 2, -2, inf or -inf norm of each matrix (see torch.linalg.matrix_norm)."""
    if isinstance(ord, str):
        check(ord in ("fro", "nuc"), f"linalg.matrix_norm: Order {ord} not supported.")
    else:
        check_norm_order("linalg.matrix_norm", ord)
        check(abs(ord) in (1, 2, math.inf), f"linalg.matrix_norm: Order {scalar_text(ord)} not supported.")
    check_matrix("linalg.matrix_norm", A, low_precision=ord not in (2, -2, "nuc"))  # those need the SVD
    check(len(dim) == 2, f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    row, col = (wrap_dim(d, A.ndim) for d in dim)
    check(row != col, f"linalg.matrix_norm: dims must be different. Got ({row}, {col})")
    check_norm_dtype("linalg.matrix_norm", dtype, A.dtype)
    if ord == "fro":
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if ord in (1, -1, math.inf, -math.inf):
        if ord in (math.inf, -math.inf):
            row, col = col, row
        if not keepdim and col > row:
            col -= 1  # the row dim is gone from the sums
        return _largest_or_smallest(vector_norm(A, 1, row, keepdim=keepdim, dtype=dtype), ord, col, keepdim)
    if dtype is not None:
        A = A.to(dtype)
    singular_values = svdvals(A.movedim((row, col), (-2, -1)))
    if ord == "nuc":
        result = singular_values.sum(-1, keepdim=keepdim)
    else:
        result = _largest_or_smallest(singular_values, ord, -1, keepdim)
    return result.unsqueeze(-1).movedim((-2, -1), (row, col)) if keepdim else result


def _largest_or_smallest(norms, ord, dim, keepdim):
    """The largest (ord > 0) or smallest of non-negative ``norms`` along ``dim``; the largest of none is 0, as in
    PyTorch, the smallest of none an error."""
    if ord > 0 and norms.shape[dim] == 0:
        from ndgrad._creation import zeros

        shape = list(norms.shape)
        shape[dim] = 1
        result = zeros(shape, dtype=norms.dtype, device=norms.device)
        return result if keepdim else result.squeeze(dim)
    return norms.amax(dim, keepdim) if ord > 0 else norms.amin(dim, keepdim)


@parses("linalg_norm(Tensor input, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None, Tensor out=None)",
        "linalg_norm(Tensor input, str ord, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
        "Tensor out=None)")
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm, or a matrix norm for a str ``ord`` or a 2-tuple ``dim`` (see torch.linalg.norm)."""
    if dim is not None:
        dim = (dim,) if isinstance(dim, int) else tuple(dim)
        check(len(dim) in (1, 2), f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None:
        check(A.ndim in (1, 2), "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
              f"{A.ndim}D.")
    if isinstance(ord, str) or (ord is not None and (dim is None and A.ndim == 2 or dim is not None and len(dim) == 2)):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


_COND_ORDERS = (None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


@parses("linalg_cond(Tensor input, Scalar? p=None, *, Tensor out=None)",
        "linalg_cond(Tensor input, str p, *, Tensor out=None)")
def cond(A, p=None):
    """The condition number of each matrix in the ``p`` norm (see torch.linalg.cond)."""
    check(A.ndim >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.")
    numeric = isinstance(p, (int, float)) and not isinstance(p, bool)
    check(p is None or p in ("fro", "nuc") if isinstance(p, str) or p is None else numeric and p in _COND_ORDERS,
          f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2):
        if A.numel() == 0:
            return _empty_cond(A)
        singular_values = svdvals(A)
        largest, smallest = singular_values[..., :1], singular_values[..., -1:]
        return (smallest / largest if p == -2 else largest / smallest).squeeze(-1)
    order = p if isinstance(p, str) else ("inf" if p == math.inf else "-inf" if p == -math.inf else int(p))
    check_square(f"linalg.cond(ord={order})", A)
    if A.numel() == 0:
        return _empty_cond(A)
    if p == "nuc":
        singular_values = svdvals(A)
        return singular_values.sum(-1) * singular_values.reciprocal().sum(-1)
    # NOTE: PyTorch's steps, in place as PyTorch writes them: so the inverse that the norm saved for its gradient
    # is modified, and backward raises PyTorch's error
    inverse, info = inv_ex(A)
    inverse.masked_fill_((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)  # a singular A: infinite
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).nan_to_num_(math.inf, math.inf, -math.inf)


def _empty_cond(A):
    """PyTorch's condition number of 0 x 0 matrices: 0."""
    from ndgrad._creation import zeros

    return zeros(A.shape[:-2], dtype=A.dtype, device=A.device)


@parses("linalg_matrix_rank(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False, "
        "Tensor out=None)",
        "linalg_matrix_rank(Tensor input, *, float? atol=None, float? rtol=None, bool hermitian=False, "
        "Tensor out=None)",
        "linalg_matrix_rank(Tensor input, Tensor tol, bool hermitian=False, *, Tensor out=None)",
        "linalg_matrix_rank(Tensor input, float tol, bool hermitian=False, *, Tensor out=None)")
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values above max(atol, rtol * the largest) (see torch.linalg.matrix_rank); ``tol``
    is an absolute tolerance, as atol with rtol = 0."""
    check(A.ndim >= 2, "ndgrad.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    check(A.dtype.name in LAPACK_DTYPES, "This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    if rtol is None:
        given_atol = atol is not None and (atol > 0 if isinstance(atol, (int, float)) else bool((atol > 0).all()))
        rtol = 0.0 if given_atol else float(np.finfo(A.dtype.numpy).eps) * max(A.shape[-2:])
    with no_grad():
        if hermitian:
            from ndgrad.ops.decompositions import eigvalsh

            singular_values = eigvalsh(A).abs()
        else:
            singular_values = svdvals(A)
        if singular_values.shape[-1] == 0:
            from ndgrad._creation import zeros

            return zeros(A.shape[:-2], dtype=int64, device=A.device)
        largest = singular_values.amax(-1, keepdim=True)
        tolerance = (largest * rtol).clamp_min(0.0 if atol is None else atol)
        return (singular_values > tolerance).sum(-1)


@parses("linalg_vander(Tensor x, *, SymInt? N=None)")
def vander(x, *, N=None):
    """The Vandermonde matrix of x: its columns are x ** 0, x ** 1, ..., x ** (N - 1) (see torch.linalg.vander)."""
    from ndgrad._creation import ones_like

    check(x.dtype.name not in ("bool", "float16"),
          f"linalg.vander supports floating point, complex, and integer tensors, but got {x.dtype.title}")
    N = (x.shape[-1] if x.ndim else 1) if N is None else N
    check(N > 1, "N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x.shape, N - 1).cumprod(-1)
    return cat([ones_like(x).unsqueeze(-1), powers], -1)


@parses("linalg_diagonal(Tensor A, *, int offset=0, int dim1=-2, int dim2=-1)")
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of each matrix, a view (see torch.linalg.diagonal)."""
    from ndgrad.ops.shape import diagonal

    return diagonal(A, offset, dim1, dim2)


class MatrixFunctionsMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def matrix_exp(self):
        return matrix_exp.__wrapped__(self)
