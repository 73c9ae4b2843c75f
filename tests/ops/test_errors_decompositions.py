"""Decompositions (ops.decompositions) against torch where the op table cannot reach: bad arguments (the exception
type and message), and the composites (logdet, matrix_norm, vector_norm, norm): values, grad_fn and gradients."""

import math

import numpy as np
import pytest
import torch

import ndgrad

from .errors import assert_raises_like_torch

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
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


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
]


@pytest.mark.parametrize("call", [c for _, c in COMPOSITES], ids=[name for name, _ in COMPOSITES])
def test_composites_match_torch(call):
    values = np.random.default_rng(0).uniform(-2.0, 2.0, (3, 3))
    ours, theirs = call(ndgrad, _square(ndgrad, values)), call(torch, _square(torch, values))
    torch.testing.assert_close(torch.from_numpy(np.array(ours.detach().numpy())), theirs.detach(), equal_nan=True)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    inputs = [_square(lib, values) for lib in (ndgrad, torch)]
    cotangent = np.random.default_rng(1).standard_normal(tuple(theirs.shape))
    (ours,) = ndgrad.autograd.grad(call(ndgrad, inputs[0]), inputs[0], ndgrad.from_numpy(cotangent.copy()))
    (theirs,) = torch.autograd.grad(call(torch, inputs[1]), inputs[1], torch.from_numpy(cotangent.copy()))
    torch.testing.assert_close(torch.from_numpy(np.array(ours.numpy())), theirs, equal_nan=True)
