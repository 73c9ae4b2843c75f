"""F.linear, F.embedding, F.one_hot, F.cosine_similarity, F.pairwise_distance and F.pdist: torch's errors, and the
composite forms the op table cannot list (their grad_fn belongs to another op) checked against torch here."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad.autograd import gradcheck, gradgradcheck

from .errors import assert_raises_like_torch

F = "lib.nn.functional"


@pytest.mark.parametrize("call", [
    f"{F}.linear(lib.ones(2, 3), lib.ones(4, 5))",
    f"{F}.linear(lib.ones(2, 3), lib.ones(4, 3), lib.ones(5))",
    f"{F}.linear(lib.ones(2, 3), lib.ones(4, 3), lib.ones(2, 1, 4))",
    f"{F}.linear(lib.ones(2, 3), lib.ones(4, 3, dtype=lib.float64))",
    f"{F}.linear(lib.ones(()), lib.ones(4, 3))",
    f"{F}.linear(lib.ones(2, 3), lib.ones(3), lib.ones(()))",
    f"{F}.linear(lib.ones(2, 3), lib.ones(2, 4, 3))",
    f"{F}.embedding(lib.tensor([1.0]), lib.ones(4, 3))",
    f"{F}.embedding(lib.tensor([5]), lib.ones(4, 3))",
    f"{F}.embedding(lib.tensor([-1]), lib.ones(4, 3))",
    f"{F}.embedding(lib.tensor([1]), lib.ones(4, 3), padding_idx=4)",
    f"{F}.embedding(lib.tensor([1]), lib.ones(4, 3), padding_idx=-5)",
    f"{F}.embedding(lib.tensor([1]), lib.ones(4))",
    f"{F}.one_hot(lib.tensor([1.0]))",
    f"{F}.one_hot(lib.tensor([3]), 2)",
    f"{F}.one_hot(lib.tensor([-1]))",
    f"{F}.one_hot(lib.tensor([], dtype=lib.int64))",
    f"{F}.pairwise_distance(lib.ones(2, 3), lib.ones(2, 4))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(2, 2, 4), lib.ones(5, 3, 4))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(3, 4), lib.ones(5, 3, 4))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 2, 4))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 3))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 4), lib.ones(4))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 4), lib.ones(1, 5))",
    f"{F}.bilinear(lib.ones(()), lib.ones(()), lib.ones(5, 3, 4))",
    f"{F}.cosine_similarity(lib.ones(2, 3), lib.ones(2, 4))",
    f"{F}.cosine_similarity(lib.ones(2, 3, dtype=lib.complex128), lib.ones(2, 3))",
    f"{F}.cosine_similarity(lib.ones(2, 3, dtype=lib.complex64, requires_grad=True), lib.ones(2, 3, dtype=lib.cfloat))",
    f"{F}.cosine_similarity(lib.ones(2, 3).long(), lib.ones(2, 3).bool())",
    f"{F}.pdist(lib.ones(3))",
    f"{F}.pdist(lib.ones(3, 2), -1)",
    f"{F}.pdist(lib.ones(3, 2).long())",
    f"{F}.pdist(lib.ones(2, 3, 2))",
    # mixed dtypes: the fused (addmm) and matmul paths of linear word them differently
    *[f"{F}.linear(lib.ones({x}, dtype=lib.{a}), lib.ones(4, 3, dtype=lib.{b}), lib.ones({bias}, dtype=lib.{c}))"
      for x in ("(3,)", "(2, 3)", "(5, 2, 3)") for bias in ("(4,)", "(1, 4)")
      for a, b, c in (("complex128", "float64", "float64"), ("float64", "complex128", "complex128"),
                      ("float64", "float64", "complex128"), ("complex128", "complex128", "float32"))],
    f"{F}.linear(lib.ones(5, 3, 2, dtype=lib.complex128).transpose(1, 2), lib.ones(4, 3), lib.ones(4))",
    f"{F}.linear(lib.ones(3, dtype=lib.complex128), lib.ones(4, 3))",
    f"{F}.linear(lib.ones(5, 3, 2).transpose(1, 2), lib.ones(4, 3), lib.ones(4, dtype=lib.complex128))",
    f"{F}.bilinear(lib.ones(2, 3, dtype=lib.complex128), lib.ones(2, 4), lib.ones(5, 3, 4))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 4), lib.ones(5, dtype=lib.complex128))",
    f"{F}.bilinear(lib.ones(2, 3), lib.ones(3, 4, dtype=lib.float64), lib.ones(5, 3))",
    f"{F}.bilinear(lib.ones(2, 3, dtype=lib.complex128, requires_grad=True), lib.ones(2, 4, dtype=lib.complex128), "
    "lib.ones(5, 3, 4, dtype=lib.complex128))",
    f"{F}.bilinear(lib.ones(2, 3, dtype=lib.complex128), lib.ones(2, 4, dtype=lib.complex128), "
    "lib.ones(5, 3, 4, dtype=lib.complex128, requires_grad=True), lib.ones(5, dtype=lib.complex128))",
])
def test_errors_like_torch(call):
    assert_raises_like_torch(call)


def run(lib, fn, arrays):
    tensors = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
    return tensors, fn(lib, *tensors)


def check(fn, *shapes, seed=0, positive=False, grad_fn=True):
    """Values, grad_fn name and the VJP against torch; gradcheck and gradgradcheck on ndgrad alone."""
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, s) if positive else rng.uniform(-2.0, 2.0, s) for s in shapes]
    ours_in, ours = run(ndgrad, fn, arrays)
    theirs_in, theirs = run(torch, fn, arrays)
    assert_close(ours, theirs)
    if grad_fn:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    cotangent = rng.standard_normal(theirs.shape)
    ours_g = ndgrad.autograd.grad(ours, ours_in, ndgrad.from_numpy(cotangent.copy()))
    theirs_g = torch.autograd.grad(theirs, theirs_in, torch.from_numpy(cotangent.copy()))
    for a, b in zip(ours_g, theirs_g):
        assert_close(a, b)
    inputs = [ndgrad.from_numpy(a.copy()).requires_grad_() for a in arrays]
    assert gradcheck(lambda *t: fn(ndgrad, *t), inputs)
    assert gradgradcheck(lambda *t: fn(ndgrad, *t), inputs)


@pytest.mark.parametrize("shapes, bias", [
    (((2, 3), (4, 3)), False), (((3,), (4, 3)), True), (((3,), (4, 3)), False), (((2, 2, 3), (4, 3)), True),
    (((2, 2, 3), (4, 3)), False), (((2, 3), (3,)), False), (((2, 2, 3), (3,)), True),
])
def test_linear_forms(shapes, bias):
    if bias:
        out = shapes[1][0] if len(shapes[1]) == 2 else 1
        check(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), *shapes, (out,) if out > 1 else ())
    else:
        check(lambda lib, x, w: lib.nn.functional.linear(x, w), *shapes)


@pytest.mark.parametrize("kwargs", [{}, {"dim": 0}, {"dim": -1, "eps": 1e-3}])
def test_cosine_similarity(kwargs):
    check(lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y, **kwargs), (3, 4), (3, 4))
    check(lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y, **kwargs), (2, 3, 4), (3, 4), seed=1)


def test_cosine_similarity_of_a_zero_vector_is_zero():
    for lib in (ndgrad, torch):
        x = lib.zeros(2, 3, dtype=lib.float64)
        assert lib.nn.functional.cosine_similarity(x, lib.ones(2, 3, dtype=lib.float64)).tolist() == [0.0, 0.0]


def test_one_hot_values():
    for values, n in [([0, 2, 1], -1), ([[1, 0], [3, 3]], 5), (2, 4)]:
        ours = ndgrad.nn.functional.one_hot(ndgrad.tensor(values), n)
        theirs = torch.nn.functional.one_hot(torch.tensor(values), n)
        assert ours.dtype is ndgrad.int64 and not ours.requires_grad
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("kwargs", [{"scale_grad_by_freq": True}, {"padding_idx": 0, "scale_grad_by_freq": True}])
def test_embedding_scale_grad_by_freq_first_order(kwargs):
    """Only first order: torch's double backward ignores the scaling (ours does not: it is the true derivative)."""
    indices, weight = [[0, 3, 3], [1, 3, 0]], np.random.default_rng(0).standard_normal((4, 2))
    grads = []
    for lib in (ndgrad, torch):
        w = lib.from_numpy(weight.copy()).requires_grad_()
        out = lib.nn.functional.embedding(lib.tensor(indices), w, **kwargs)
        grads.append(lib.autograd.grad(out, w, lib.ones(2, 3, 2, dtype=lib.float64))[0].numpy())
    assert_close(*grads)


def test_embedding_max_norm_renormalises_rows_in_place():
    weight = np.random.default_rng(0).standard_normal((5, 3)) * 3
    results = []
    for lib in (ndgrad, torch):
        w = lib.from_numpy(weight.copy())
        out = lib.nn.functional.embedding(lib.tensor([0, 2, 2]), w, max_norm=1.5, norm_type=1.0)
        results.append((w.numpy().copy(), out.numpy().copy()))
    for a, b in zip(*results):
        assert_close(a, b)


@pytest.mark.parametrize("kwargs", [{}, {"p": 1.0}, {"p": 3.0, "keepdim": True}])
def test_pairwise_distance_broadcast_and_1d(kwargs):
    check(lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y, **kwargs), (4,), (3, 4))
    check(lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y, **kwargs), (4,), (4,), seed=2)


@pytest.mark.parametrize("shapes", [
    ((2, 3), (2, 2), (4, 3, 2)), ((3,), (2,), (4, 3, 2)), ((2, 1, 3), (2, 1, 2), (1, 3, 2)),
])
@pytest.mark.parametrize("bias", [False, True])
def test_bilinear_forms(shapes, bias):
    if bias:
        check(lambda lib, x, y, w, b: lib.nn.functional.bilinear(x, y, w, b), *shapes, (shapes[2][0],))
    else:
        check(lambda lib, x, y, w: lib.nn.functional.bilinear(x, y, w), *shapes)
