"""Linear algebra and products against torch for wrong and edge calls: each check in torch's order (a matrix's shape
before its dtype, LAPACK's kernels refusing half precision and integers, bool matrix products refused), the norms'
argument rules, einsum's parser and dtypes, and the Python functions torch writes over its ops (tensordot, cdist,
chain_matmul)."""

import pytest

from .errors import assert_raises_like_torch, assert_result_like_torch

INT_3X2 = "lib.tensor([[1, 2], [3, 4], [5, 6]])"
HALF_4 = "lib.eye(4, dtype=lib.float16)"

ERRORS = [
    # squareness before dtype, then the kernel's dtypes
    *(f"lib.linalg.{name}({INT_3X2})" for name in ("det", "slogdet", "inv", "cholesky", "eigh", "eigvalsh",
                                                   "matrix_exp", "inv_ex", "cholesky_ex")),
    f"lib.logdet({INT_3X2})",
    "lib.logdet(lib.ones(4))",
    "lib.logdet(lib.eye(2, dtype=lib.int32))",
    f"lib.linalg.solve_triangular({INT_3X2}, lib.ones(3, 3), upper=False)",
    *(f"lib.linalg.{name}({HALF_4})" for name in ("det", "cholesky", "eigh", "eigvals", "eig", "qr", "svd", "svdvals",
                                                  "lu_factor", "lu", "cond", "matrix_rank", "pinv", "slogdet", "inv")),
    f"lib.linalg.vander({HALF_4}[0])",
    "lib.linalg.eigh(lib.eye(3, dtype=lib.int16))",
    "lib.linalg.solve_triangular(lib.eye(2, dtype=lib.int32), lib.eye(2, dtype=lib.int32), upper=True)",
    f"lib.linalg.solve({HALF_4}, {HALF_4})",
    "lib.linalg.solve(lib.eye(3), lib.tensor(1.0))",
    "lib.linalg.lstsq(lib.eye(3), lib.tensor(2.0))",
    "lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int64), lib.ones(3, 2))",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.eye(3)), lib.ones(2, 2, dtype=lib.float64))",
    "lib.linalg.eigvals(lib.ones(2, 4, dtype=lib.int16))",
    "lib.linalg.matrix_power(lib.ones(5), 2)",
    "lib.matrix_power(lib.tensor(3.0), 0)",
    "lib.linalg.svd(lib.eye(2), driver='gesvd')",
    "lib.svd(lib.ones(4))",
    # norms
    "lib.linalg.vector_norm(lib.ones(4), ord=2j)",
    "lib.linalg.vector_norm(lib.ones(0, 3), ord=-2)",
    "lib.linalg.vector_norm(lib.ones(3, 0), ord=float('inf'), dim=-1)",
    "lib.linalg.vector_norm(lib.ones(3, 0), ord=-1.5, dim=(0, 1))",
    "lib.linalg.vector_norm(lib.ones(3), dtype=lib.int32)",
    "lib.linalg.vector_norm(lib.ones(3, dtype=lib.complex128), dtype=lib.float64)",
    "lib.linalg.vector_norm(lib.ones(3), dtype=lib.complex128)",
    "lib.linalg.vector_norm(lib.ones(3, dtype=lib.float64), dtype=lib.float32)",
    "lib.linalg.matrix_norm(lib.eye(3), dim=(1, -1))",
    "lib.linalg.matrix_norm(lib.eye(3), ord=-3)",
    "lib.linalg.matrix_norm(lib.eye(3), ord=2 + 1j)",
    "lib.linalg.matrix_norm(lib.eye(3, dtype=lib.float16), ord='nuc')",
    "lib.linalg.matrix_norm(lib.eye(3), dtype=lib.int16)",
    "lib.linalg.matrix_norm(lib.ones(0, 3), ord=-float('inf'))",
    "lib.linalg.norm(lib.ones(2, 2, 2), ord=1)",
    "lib.linalg.norm(lib.ones(2, 3), dim=(0, 1, 0))",
    "lib.linalg.norm(lib.ones(2, 3), 'nuc', dim=[])",
    "lib.linalg.norm(lib.ones(4), ord=3j)",
    "lib.norm(lib.ones(2, 3), p='nuc', dim=0)",
    "lib.norm(lib.ones(2, 2, 2), p='fro', dim=(0, 1, 2))",
    "lib.norm(lib.ones(2, 3), p='x')",
    "lib.norm(2.5)",
    "lib.ones(2, 3).norm(2, 0, 'no')",
    # products: bool kernels, and each check in torch's order
    "lib.mm(lib.ones(2, 2, dtype=lib.bool), lib.ones(2, 2, dtype=lib.bool))",
    "lib.bmm(lib.ones(1, 2, 2, dtype=lib.bool), lib.ones(1, 2, 2, dtype=lib.bool))",
    "lib.mv(lib.ones(2, 2, dtype=lib.bool), lib.ones(2, dtype=lib.bool))",
    "lib.dot(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool))",
    "lib.vdot(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool))",
    "lib.matmul(lib.ones(2, 2, 2, dtype=lib.bool), lib.ones(2, 2, dtype=lib.bool))",
    "lib.inner(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool))",
    "lib.trace(lib.eye(2, dtype=lib.bool))",
    "lib.addmm(lib.ones(2, 2, dtype=lib.bool), lib.ones(2, 2, dtype=lib.bool), lib.ones(2, 2, dtype=lib.bool))",
    "lib.linalg.multi_dot([lib.ones(2, 2, dtype=lib.bool), lib.ones(2, dtype=lib.bool)])",
    "lib.dot(lib.ones(3), lib.ones(2, dtype=lib.float64))",
    "lib.addmm(lib.ones(4, 4), lib.ones(2, 3), lib.ones(2, 3, dtype=lib.float64))",
    "lib.addbmm(lib.ones(3, dtype=lib.int64), lib.ones(2, 2, 4), lib.ones(2, 4, 2))",
    "lib.addbmm(lib.ones(2, 2), lib.ones(4), lib.ones(2, 4, 2))",
    "lib.addbmm(lib.ones(2, 2), lib.ones(2, 2, 4), lib.ones(2, 4, 2, dtype=lib.float64))",
    "lib.baddbmm(lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 2, 4), lib.ones(2, 4, 2))",
    "lib.baddbmm(lib.ones(2, 2, 2), lib.ones(2, 2), lib.ones(2, 2, 2))",
    "lib.baddbmm(lib.ones(2, 2, 2, dtype=lib.bool), lib.ones(2, 2, 2, dtype=lib.bool), "
    "lib.ones(2, 2, 2, dtype=lib.bool))",
    "lib.linalg.cross(lib.ones(4, 3), lib.ones(2, 3, dtype=lib.float64))",
    "lib.linalg.cross(lib.ones(2, 3), lib.ones(2, 3, dtype=lib.float64))",
    "lib.linalg.cross(lib.ones(2, 3, dtype=lib.bool), lib.ones(2, 3, dtype=lib.bool))",
    "lib.cross(lib.ones(2, 2), lib.ones(2, 2))",
    "lib.linalg.multi_dot([lib.ones(2, 4), lib.ones(3, 2), lib.ones(2, 2)])",
    "lib.linalg.multi_dot([lib.ones(4), lib.ones(4, 4), lib.ones(3)])",
    "lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(4, 2, dtype=lib.float64)])",
    "lib.chain_matmul(lib.ones(2, 2), lib.ones(2))",
    "lib.chain_matmul()",
    "lib.linalg.vecdot(lib.ones(2, dtype=lib.int32), lib.ones(2, dtype=lib.int32))",
    "lib.inner(lib.ones(2, 3), lib.ones(4, 3, dtype=lib.float64))",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 2), dims=2.0)",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 2), dims=(0, 1))",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 2), dims=lib.tensor(-2))",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 2), dims=([1, 1], [0, 1]))",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 2), dims=([0], [9]))",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 2, dtype=lib.int64), dims=([1], [0]))",
    "lib.tensordot([1.0], lib.ones(2), 1)",
    "lib.tensordot(lib.ones(2), 'y', 1)",
    "lib.cdist(lib.ones(2, 3), lib.ones(2, 3, dtype=lib.float64), p=3.0)",
    "lib.cdist(lib.ones(30, 3), lib.ones(2, 3, dtype=lib.float64))",
    "lib.cdist(lib.ones(2, 3, dtype=lib.float16), lib.ones(2, 3, dtype=lib.float16), p=1.0)",
    "lib.cdist(lib.ones(2, 3), lib.ones(2, 3), compute_mode=None)",
    "lib.cdist(lib.ones(2, 3), lib.ones(2, 3), p='two')",
    "lib.cdist([1.0], lib.ones(2, 3))",
    "lib.pdist(lib.ones(3, 2, dtype=lib.float16))",
    # einsum: the Python's argument forms, the parser's errors, the dtypes of the contractions
    "lib.einsum('i')",
    "lib.einsum(2.0, lib.ones(2))",
    "lib.einsum('i,i', lib.ones(2), [1.0])",
    "lib.einsum('i', [lib.ones(2), 'x'])",
    "lib.einsum('i$', lib.ones(2))",
    "lib.einsum('i->i->', lib.ones(2))",
    "lib.einsum('i..', lib.ones(2))",
    "lib.einsum('i...,...j', lib.ones(2, 2), lib.ones(3, 3))",
    "lib.einsum('ij->ji..', lib.ones(2, 2))",
    "lib.einsum('ii', lib.ones(2, 3))",
    "lib.einsum('i,i,i->', lib.ones(2), lib.ones(2))",
    "lib.einsum('ij,jk->ik', lib.ones(2, 2, dtype=lib.bool), lib.ones(2, 2, dtype=lib.bool))",
    "lib.einsum('i,i->', lib.ones(2, dtype=lib.int32), lib.ones(2, dtype=lib.int64))",
    "lib.einsum(lib.ones(2), [60])",
    "lib.einsum(lib.ones(2), [1.5])",
]

RESULTS = [
    "lib.einsum('ij->j', lib.ones(2, 3, dtype=lib.bool))",
    "lib.einsum('ii', lib.ones(2, 2, dtype=lib.int32))",
    "lib.einsum('ij->i', lib.ones(2, 1, dtype=lib.bool))",
    "lib.einsum('j,ij->j', lib.ones(3, dtype=lib.bool), lib.ones(1, 3, dtype=lib.bool))",
    "lib.einsum('j,ij->j', lib.ones(3, dtype=lib.bool), lib.ones(2, 3, dtype=lib.bool))",
    "lib.einsum('ij,j->j', lib.ones(1, 3, dtype=lib.bool), lib.ones(3, dtype=lib.bool))",
    "lib.einsum('i,j->ij', lib.ones(2, dtype=lib.int32), lib.ones(3))",
    "lib.einsum('ij,kl->', lib.ones(2, 2, dtype=lib.bool), lib.ones(1, 3, dtype=lib.bool))",
    "lib.einsum('i j -> j i', lib.arange(6.0).reshape(2, 3))",
    "lib.einsum(lib.arange(6.0).reshape(2, 3), [0, 1], [Ellipsis, 1])",
    "lib.tensordot(lib.arange(6.0).reshape(2, 1, 3), lib.arange(8.0).reshape(4, 2), dims=([1], [0]))",
    "lib.tensordot(lib.arange(3.0), lib.arange(3.0), dims=lib.tensor(1))",
    "lib.tensordot(lib.arange(6.0).reshape(2, 3), lib.arange(6.0).reshape(3, 2), dims=lib.tensor([[1], [0]]))",
    "lib.addbmm(lib.ones(2, 2, dtype=lib.int32), lib.ones(3, 2, 4, dtype=lib.int32), "
    "lib.ones(3, 4, 2, dtype=lib.int32))",
    "lib.trace(lib.ones(3, 3, dtype=lib.uint8))",
    "lib.logdet(lib.tensor([[2.0 + 1j, 0.5], [0.0, 1.0 - 1j]]))",
    "lib.linalg.matrix_norm(lib.ones(0, 4), ord=2)",
    "lib.linalg.matrix_norm(lib.ones(4, 0), ord=float('inf'))",
    "lib.linalg.matrix_norm(lib.ones(2, 0, 3), ord=1, keepdim=True)",
    "lib.linalg.vector_norm(lib.ones(3, dtype=lib.complex64), ord=0)",
    "lib.norm(lib.arange(6.0).reshape(2, 3), p='nuc')",
    "lib.linalg.lu_factor(lib.ones(3, 0, 0))",
    "lib.linalg.lu(lib.ones(0, 0))",
    "lib.matrix_power(lib.ones(3, 0, 0), 3)",
    "lib.linalg.matrix_rank(lib.tensor([[1.0 + 1j, 0.0], [0.0, 0.0]]))",
    "lib.chain_matmul(lib.arange(4.0).reshape(2, 2))",
    "lib.cdist(lib.ones(0, 3), lib.ones(2, 3, dtype=lib.float64))",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


@pytest.mark.filterwarnings("ignore:.*chain_matmul is deprecated")
@pytest.mark.parametrize("call", RESULTS)
def test_results_match_torch(call):
    assert_result_like_torch(call)
