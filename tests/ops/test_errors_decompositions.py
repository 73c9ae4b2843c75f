"""ndgrad.linalg against torch where the op table cannot reach: bad arguments and failed factorizations (the
exception type and message), and the composites (logdet, matrix_norm, vector_norm, norm, cond, matrix_rank, vander,
diagonal): values, grad_fn and gradients."""

import math

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .errors import assert_raises_like_torch, raised

RANK_ONE = "lib.tensor([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])"  # an exact zero on R's diagonal, whoever computes it
ERRORS = [
    "lib.linalg.inv(lib.ones(2, 3))",
    "lib.linalg.inv(lib.ones(3))",
    "lib.linalg.inv(lib.ones(2, 2, dtype=lib.int64))",
    "lib.inverse(lib.ones(2, 3))",
    "lib.linalg.det(lib.ones(2, 3))",
    "lib.det(lib.ones(3))",
    "lib.linalg.slogdet(lib.ones(2, 3))",
    "lib.linalg.solve(lib.ones(2, 2), lib.ones(3))",
    "lib.linalg.solve(lib.ones(2, 2), lib.ones(3, 1))",
    "lib.linalg.solve(lib.ones(2, 2), lib.ones(1, 3), left=False)",
    "lib.linalg.solve(lib.ones(2, 2, dtype=lib.float64), lib.ones(2, dtype=lib.float32))",
    "lib.linalg.solve(lib.ones(2, 3), lib.ones(2))",
    "lib.linalg.cholesky(lib.ones(2, 3))",
    "lib.linalg.eigh(lib.ones(2, 3))",
    "lib.linalg.eigh(lib.eye(2), UPLO='X')",
    "lib.linalg.eigvalsh(lib.ones(2, 3))",
    "lib.linalg.eigvalsh(lib.eye(2), UPLO='x')",
    "lib.linalg.matrix_norm(lib.ones(3))",
    "lib.linalg.matrix_norm(lib.ones(3, 3, dtype=lib.int64))",
    "lib.linalg.matrix_norm(lib.ones(3, 3), dim=(0, 1, 2))",
    "lib.linalg.matrix_norm(lib.ones(3, 3), 'abc')",
    "lib.linalg.matrix_norm(lib.ones(3, 3), 3)",
    "lib.linalg.svd(lib.ones(3))",
    "lib.linalg.svdvals(lib.ones(3, 3, dtype=lib.int64))",
    "lib.linalg.qr(lib.ones(3, 2), mode='x')",
    "lib.linalg.qr(lib.ones(3))",
    "lib.linalg.qr(lib.ones(3, 3, dtype=lib.int64))",
    "lib.linalg.qr(lib.randn(3, 2, requires_grad=True), mode='r')[1].sum().backward()",
    "lib.linalg.qr(lib.randn(3, 2, requires_grad=True), mode='complete')[1].sum().backward()",
    "lib.linalg.pinv(lib.ones(3))",
    "lib.linalg.pinv(lib.ones(2, 2, dtype=lib.int64))",
    "lib.linalg.matrix_exp(lib.ones(3))",
    "lib.linalg.matrix_exp(lib.ones(2, 3))",
    "lib.matrix_exp(lib.ones(2, 2, dtype=lib.int64))",
    "lib.linalg.vector_norm(lib.ones(3, dtype=lib.int64))",
    "lib.linalg.inv_ex(lib.ones(2, 3))",
    "lib.linalg.cholesky_ex(lib.ones(2, 3))",
    "lib.linalg.solve_ex(lib.ones(2, 3), lib.ones(2))",
    "lib.linalg.solve_triangular(lib.ones(2, 2), lib.ones(2), upper=True)",
    "lib.linalg.solve_triangular(lib.ones(2, 3), lib.ones(2, 1), upper=True)",
    "lib.linalg.solve_triangular(lib.ones(2, 2), lib.ones(3, 1), upper=True)",
    "lib.linalg.solve_triangular(lib.ones(2, 2), lib.ones(1, 3), upper=True, left=False)",
    "lib.linalg.solve_triangular(lib.ones(2), lib.ones(2, 1), upper=True)",
    "lib.linalg.solve_triangular(lib.ones(2, 2), lib.ones(2, 1))",
    "lib.linalg.lstsq(lib.ones(3, 2), lib.ones(2, 1))",
    "lib.linalg.lstsq(lib.ones(3, 2), lib.ones(3, 1), driver='foo')",
    "lib.linalg.lstsq(lib.ones(3, 2), lib.ones(3, 1, dtype=lib.float64))",
    "lib.linalg.lstsq(lib.ones(3, 2, dtype=lib.int64), lib.ones(3, 1, dtype=lib.int64))",
    "lib.linalg.lstsq(lib.ones(3), lib.ones(3))",
    "lib.linalg.lstsq(lib.ones(3, 2), lib.ones(4))",
    "lib.linalg.lstsq(lib.ones(4, 2), lib.ones(2, 4, 1))",
    "lib.linalg.householder_product(lib.ones(3, 2), lib.ones(3))",
    "lib.linalg.householder_product(lib.ones(2, 3), lib.ones(1))",
    "lib.linalg.householder_product(lib.ones(3), lib.ones(1))",
    "lib.linalg.householder_product(lib.ones(3, 2), lib.ones(2, dtype=lib.float64))",
    "lib.linalg.householder_product(lib.ones(2, 3, 2), lib.ones(3, 2))",
    "lib.linalg.householder_product(lib.ones(3, 2, dtype=lib.int64), lib.ones(2, dtype=lib.int64))",
    "lib.orgqr(lib.ones(3, 2), lib.ones(3))",
    "lib.linalg.vander(lib.ones(()))",
    "lib.linalg.vander(lib.ones(3), N=1)",
    "lib.linalg.vander(lib.tensor([True, False]))",
    "lib.linalg.diagonal(lib.ones(3))",
    "lib.linalg.matrix_rank(lib.ones(3))",
    "lib.linalg.matrix_rank(lib.ones(3, 3, dtype=lib.int64))",
    "lib.linalg.cond(lib.ones(3))",
    "lib.linalg.cond(lib.ones(2, 3), 1)",
    "lib.linalg.cond(lib.ones(2, 3), -1)",
    "lib.linalg.cond(lib.ones(2, 3), 'fro')",
    "lib.linalg.cond(lib.ones(2, 3), 'nuc')",
    "lib.linalg.cond(lib.ones(2, 3), float('inf'))",
    "lib.linalg.cond(lib.ones(2, 3), -float('inf'))",
    "lib.linalg.cond(lib.ones(3, 3), 3)",
    "lib.linalg.cond(lib.ones(3, 3), 1.5)",
    "lib.linalg.cond(lib.ones(3, 3), 'abc')",
    "lib.linalg.cond(lib.ones(3, 3, dtype=lib.int64))",
    "lib.linalg.lu_factor(lib.ones(3))",
    "lib.linalg.lu_factor_ex(lib.ones(3))",
    "lib.linalg.lu_factor(lib.ones(3, 3, dtype=lib.int64))",
    "lib.linalg.lu_factor(lib.eye(3), pivot=False)",
    "lib.linalg.lu(lib.eye(3), pivot=False)",
    "lib.linalg.lu(lib.ones(3))",
    "lib.linalg.lu_factor(lib.tensor([[1.0, 2.0], [2.0, 4.0]]))",
    "lib.linalg.lu_factor(lib.stack([lib.eye(2), lib.tensor([[1.0, 2.0], [2.0, 4.0]])]))",
    "lib.linalg.lu_factor_ex(lib.zeros(2, 2), check_errors=True)",
    "lib.linalg.lu_solve(lib.eye(3), lib.tensor([1, 2, 3], dtype=lib.int32), lib.ones(3))",
    "lib.linalg.lu_solve(lib.eye(3), lib.tensor([1, 2, 3], dtype=lib.int32), lib.ones(2, 1))",
    "lib.linalg.lu_solve(lib.eye(3), lib.tensor([1, 2, 3], dtype=lib.int64), lib.ones(3, 1))",
    "lib.linalg.lu_solve(lib.eye(3), lib.tensor([1, 2], dtype=lib.int32), lib.ones(3, 1))",
    "lib.linalg.lu_solve(lib.ones(2, 3), lib.tensor([1, 2], dtype=lib.int32), lib.ones(2, 1))",
    "lib.linalg.lu_solve(lib.eye(3), lib.tensor([1, 2, 3], dtype=lib.int32), lib.ones(3, 1, dtype=lib.float64))",
    "lib.linalg.lu_solve(lib.eye(3), lib.tensor([1, 2, 3], dtype=lib.int32), lib.ones(3, 1), left=False)",
    "lib.linalg.solve_triangular(lib.ones(2, 2), lib.ones(2, 1), upper=None)",
]

SINGULAR = "lib.tensor([[1.0, 2.0], [2.0, 4.0]])"
BATCH = f"lib.stack([lib.eye(2), {SINGULAR}])"
# Cholesky's refusals take a clearly indefinite matrix: of the singular one, the last pivot is 0 only by rounding
# (torch with MKL's reproducible path, MKL_CBWR=COMPATIBLE, found 4.8e-7 there and factored it)
INDEFINITE = "lib.tensor([[1.0, 2.0], [2.0, 1.0]])"
INDEFINITE_BATCH = f"lib.stack([lib.eye(2), {INDEFINITE}])"
LINALG_ERRORS = [  # torch.linalg.LinAlgError, a RuntimeError
    f"lib.linalg.inv({SINGULAR})",
    f"lib.linalg.inv({BATCH})",
    f"lib.linalg.inv({SINGULAR}[None])",
    f"lib.linalg.inv(lib.stack([lib.eye(2)] * 3 + [{SINGULAR}]).reshape(2, 2, 2, 2))",
    "lib.linalg.inv(lib.zeros(3, 3))",
    f"lib.inverse({SINGULAR})",
    f"lib.linalg.inv_ex({SINGULAR}, check_errors=True)",
    f"lib.linalg.solve({SINGULAR}, lib.ones(2))",
    f"lib.linalg.solve({BATCH}, lib.ones(2, 2))",
    f"lib.linalg.solve({SINGULAR}, lib.ones(3, 2, 1))",
    f"lib.linalg.solve_ex({SINGULAR}, lib.ones(2), check_errors=True)",
    f"lib.linalg.cholesky({INDEFINITE})",
    f"lib.linalg.cholesky({INDEFINITE_BATCH})",
    "lib.linalg.cholesky(-lib.eye(2))",
    "lib.linalg.cholesky(lib.diag(lib.tensor([1.0, 1.0, -1.0])))",
    "lib.linalg.cholesky(lib.tensor([[float('nan'), 1.0], [1.0, 1.0]]))",
    f"lib.linalg.cholesky_ex({INDEFINITE_BATCH}, check_errors=True)",
    f"lib.linalg.lstsq({RANK_ONE}, lib.ones(3, 1), driver='gels')",
    f"lib.linalg.lstsq(lib.stack([lib.eye(3)[:, :2], {RANK_ONE}]), lib.ones(2, 3, 1), driver='gels')",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


@pytest.mark.parametrize("call", LINALG_ERRORS)
def test_failed_factorizations_raise_linalg_error(call):
    """torch.linalg.LinAlgError is torch._C._LinAlgError: ndgrad's is ndgrad._C._LinAlgError, the same shape."""
    theirs, ours = raised(call, torch), raised(call, ndgrad)
    assert theirs is not None and ours is not None, (theirs, ours)
    assert theirs[0] is torch.linalg.LinAlgError and ours[0] is ndgrad.linalg.LinAlgError is ndgrad._C._LinAlgError
    assert issubclass(ours[0], RuntimeError) and ours[0].__name__ == theirs[0].__name__
    assert ours[1] == theirs[1]


def _square(lib, values):
    return lib.from_numpy(np.array(values)).requires_grad_()


COMPOSITES = [
    ("logdet", lambda lib, a: lib.logdet(a @ a.mT + lib.eye(3, dtype=a.dtype))),
    ("logdet of a negative determinant", lambda lib, a: lib.logdet(-(a + 5 * lib.eye(3, dtype=a.dtype)))),
    ("matrix_norm fro", lambda lib, a: lib.linalg.matrix_norm(a)),
    ("matrix_norm 1", lambda lib, a: lib.linalg.matrix_norm(a, 1)),
    ("matrix_norm -1 keepdim", lambda lib, a: lib.linalg.matrix_norm(a, -1, keepdim=True)),
    ("matrix_norm inf", lambda lib, a: lib.linalg.matrix_norm(a, math.inf)),
    ("matrix_norm -inf dim", lambda lib, a: lib.linalg.matrix_norm(a, -math.inf, dim=(1, 0))),
    ("matrix_norm 2", lambda lib, a: lib.linalg.matrix_norm(a, 2)),
    ("matrix_norm -2 keepdim", lambda lib, a: lib.linalg.matrix_norm(a, -2, keepdim=True)),
    ("matrix_norm nuc", lambda lib, a: lib.linalg.matrix_norm(a, "nuc")),
    ("matrix_norm nuc batched dim", lambda lib, a: lib.linalg.matrix_norm(a.reshape(3, 3, 1), "nuc", dim=(0, 2))),
    ("matrix_norm nuc keepdim dim", lambda lib, a: lib.linalg.matrix_norm(a.reshape(3, 1, 3), "nuc", (2, 0), True)),
    ("norm 2 of a matrix", lambda lib, a: lib.linalg.norm(a, 2)),
    ("svdvals", lambda lib, a: lib.linalg.svdvals(a)),
    ("vector_norm", lambda lib, a: lib.linalg.vector_norm(a, 3, dim=1)),
    ("norm", lambda lib, a: lib.linalg.norm(a)),
    ("norm vector", lambda lib, a: lib.linalg.norm(a[0])),
    ("norm ord 1 of a matrix", lambda lib, a: lib.linalg.norm(a, 1)),
    ("norm ord 1 dim", lambda lib, a: lib.linalg.norm(a, 1, dim=0)),
    ("norm fro dim", lambda lib, a: lib.linalg.norm(a, "fro", dim=(0, 1), keepdim=True)),
    ("norm inf of a vector", lambda lib, a: lib.linalg.norm(a.reshape(-1), math.inf)),
    ("cond", lambda lib, a: lib.linalg.cond(a)),
    ("cond 2", lambda lib, a: lib.linalg.cond(a, 2)),
    ("cond -2", lambda lib, a: lib.linalg.cond(a, -2)),
    ("cond nuc", lambda lib, a: lib.linalg.cond(a, "nuc")),
    ("vander", lambda lib, a: lib.linalg.vander(a[0])),
    ("vander N", lambda lib, a: lib.linalg.vander(a, N=5)),
    ("diagonal", lambda lib, a: lib.linalg.diagonal(a)),
    ("diagonal offset dims", lambda lib, a: lib.linalg.diagonal(a.reshape(3, 1, 3), offset=-1, dim1=2, dim2=0)),
]


@pytest.mark.parametrize("call", [c for _, c in COMPOSITES], ids=[name for name, _ in COMPOSITES])
def test_composites_match_torch(call):
    values = np.random.default_rng(0).uniform(-2.0, 2.0, (3, 3))
    ours, theirs = call(ndgrad, _square(ndgrad, values)), call(torch, _square(torch, values))
    assert_close(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    inputs = [_square(lib, values) for lib in (ndgrad, torch)]
    cotangent = np.random.default_rng(1).standard_normal(tuple(theirs.shape))
    (ours,) = ndgrad.autograd.grad(call(ndgrad, inputs[0]), inputs[0], ndgrad.from_numpy(cotangent.copy()))
    (theirs,) = torch.autograd.grad(call(torch, inputs[1]), inputs[1], torch.from_numpy(cotangent.copy()))
    assert_close(ours, theirs)


@pytest.mark.parametrize("p", [1, -1, math.inf, -math.inf, "fro"])
def test_cond_through_the_inverse_matches_torch(p):
    """cond for these p goes through inv_ex, whose result PyTorch fills in place: the value and grad_fn are
    torch's, and so is the error backward raises (the inverse its norm saved was modified)."""
    values = np.random.default_rng(0).uniform(-2.0, 2.0, (2, 3, 3))
    ours, theirs = (lib.linalg.cond(_square(lib, values), p) for lib in (ndgrad, torch))
    assert_close(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "NanToNumBackward0"
    singular = [[1.0, 2.0], [2.0, 4.0]]
    assert float(ndgrad.linalg.cond(ndgrad.tensor(singular), p)) == float(torch.linalg.cond(torch.tensor(singular), p))
    assert_raises_like_torch(lambda lib: lib.linalg.cond(_square(lib, values), p).sum().backward())
