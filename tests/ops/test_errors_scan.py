"""Scans (ops.scan) against torch where the op table cannot reach: bad arguments (exception type and message),
integer and bool dtype rules, in-place forms, and the gradients at cumprod's zeros and cummax's ties."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .errors import assert_raises_like_torch

ERRORS = [
    "lib.cumsum(lib.tensor([1.0, 2.0]), 1)",
    "lib.cumprod(lib.tensor([1.0, 2.0]), -2)",
    "lib.cummax(lib.tensor([1.0, 2.0]), 1)",
    "lib.cummin(lib.tensor(1.0), 2)",
    "lib.logcumsumexp(lib.tensor([1, 2]), 0)",
    "lib.logcumsumexp(lib.tensor([True]), 0)",
    "lib.logcumsumexp(lib.tensor([1.0]), 1)",
    "lib.tensor([1.0, 2.0], requires_grad=True).cumsum_(0)",
    "lib.tensor([1.0, 2.0]).cumprod_(3)",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


RESULTS = [
    "lib.cumsum(lib.tensor([1, 2], dtype=lib.int8), 0)",
    "lib.cumsum(lib.tensor([True, True, False]), 0)",
    "lib.cumsum(lib.tensor([[1.5, 2.5]]), 1, dtype=lib.int64)",
    "lib.cumsum(lib.tensor(2.0), -1)",
    "lib.cumprod(lib.tensor([[1, 2], [3, 4]], dtype=lib.int32), 0)",
    "lib.cumprod(lib.tensor([True, True]), 0)",
    "lib.cumprod(lib.tensor([1.0, 2.0], dtype=lib.float32), 0, dtype=lib.float64)",
    "lib.cummax(lib.tensor([1, 3, 2, 3]), 0)",
    "lib.cummax(lib.tensor([True, False]), 0)",
    "lib.cummin(lib.tensor([[1.0, float('nan'), 0.0], [2.0, 1.0, 1.0]]), 1)",
    "lib.logcumsumexp(lib.tensor([-1000.0, 0.0, 1000.0]), 0)",
    "lib.logcumsumexp(lib.tensor([float('-inf'), float('-inf'), 1.0]), 0)",
    "lib.tensor([[1, 2], [3, 4]], dtype=lib.int32).cumsum_(1)",
    "lib.tensor([[1.0, 2.0], [3.0, 4.0]]).cumprod_(0)",
    "lib.tensor([[1.0, 2.0], [3.0, 4.0]]).cumsum(-1, dtype=lib.float64)",
]


def assert_same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert_close(ours, theirs)


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    ours, theirs = eval(expression, {"lib": ndgrad}), eval(expression, {"lib": torch})
    if isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__
        for a, b in zip(ours, theirs, strict=True):
            assert_same(a, b)
    else:
        assert_same(ours, theirs)


@pytest.mark.parametrize("name, values", [
    ("cumprod", [[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 0.0, 1.0, 2.0, 0.0]]),
    ("cummax", [[1.0, 3.0, 3.0, 2.0, 3.0], [5.0, 5.0, 5.0, 6.0, 6.0]]),
    ("cummin", [[1.0, 1.0, 0.0, 0.0, 2.0], [3.0, 3.0, 3.0, 3.0, 3.0]]),
    ("logcumsumexp", [[0.0, 1.0, 2.0, 3.0, 4.0], [-1.0, -2.0, 5.0, 6.0, 0.5]]),
])
def test_backward_accumulates_as_torch(name, values):
    """.backward() (not autograd.grad) through the in-place-free scans, twice: .grad accumulates the same."""
    grads = []
    for lib in (ndgrad, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        weights = lib.tensor(np.arange(10.0).reshape(2, 5))
        for _ in range(2):
            out = getattr(lib, name)(x, 1)
            out = out[0] if isinstance(out, tuple) else out
            (out * weights).sum().backward()
        grads.append(x.grad.numpy())
    assert_close(*grads)
