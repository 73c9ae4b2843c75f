"""addcmul, addcdiv and addr (ops.multiply_add) against torch where the op table cannot reach: dtype rules,
in-place forms, the deprecated overloads, and bad arguments (exception type and message)."""

import warnings

import pytest

from .errors import assert_raises_like_torch, assert_result_like_torch

ERRORS = [
    "lib.addcmul(lib.tensor([1.0]), lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]))",
    "lib.addcmul(lib.tensor([True]), lib.tensor([True]), lib.tensor([True]))",
    "lib.addcmul(lib.tensor([1.0]), lib.tensor([1.0]), lib.tensor([1.0]), value=1j)",
    "lib.addcmul(lib.tensor([1.0]), lib.tensor([1.0]), lib.tensor([1.0]), 2)",
    "lib.addcdiv(lib.tensor([1, 2]), lib.tensor([1, 2]), lib.tensor([3, 4]))",
    "lib.addcdiv(lib.tensor([1.0, 2.0]), lib.tensor([1, 2]), lib.tensor([3, 4]))",
    "lib.tensor([1, 2]).addcmul_(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]), value=2)",
    "lib.tensor([1.0]).addcmul_(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]), value=2)",
    "lib.addr(lib.zeros(2, 3), lib.tensor([[1.0, 2.0]]), lib.tensor([3.0, 4.0, 5.0]))",
    "lib.addr(lib.zeros(2, 3), lib.tensor([1.0, 2.0]), lib.tensor(3.0))",
    "lib.addr(lib.zeros(2, 4), lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]))",
    "lib.addr(lib.zeros(2, 3, dtype=lib.int64), lib.tensor([1, 2]), lib.tensor([3, 4, 5]), alpha=2.5)",
    "lib.addr(lib.zeros(2, 3), lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]), alpha=1j)",
    "lib.zeros(2, 3).addr(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]), alpha=True)",
    "lib.zeros(3).addr_(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]))",
    "lib.addcmul(lib.tensor([1.0], requires_grad=True), lib.tensor([1.0]), lib.tensor([1.0])).addcmul_(1, 2)",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


RESULTS = [
    "lib.addcmul(lib.tensor([1, 2]), lib.tensor([1, 2]), lib.tensor([3, 4]), value=2.5)",
    "lib.addcmul(lib.tensor([1.0, 2.0]), lib.tensor([1, 2]), lib.tensor([3, 4]), value=2.5)",
    "lib.addcmul(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([3, 4]))",
    "lib.addcmul(lib.tensor([1]), lib.tensor([1.0, 2.0]), lib.tensor([[3], [4]]))",
    "lib.addcmul(lib.tensor([1j]), lib.tensor([1.0]), lib.tensor([1.0]), value=1j)",
    "lib.addcmul(lib.tensor([1.0]), 2, lib.tensor([1.0]), lib.tensor([3.0]))",
    "lib.addcdiv(lib.tensor([1, 2]), lib.tensor([1.0, 2.0]), lib.tensor([3, 4]))",
    "lib.addcdiv(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0]), lib.tensor([0.0, 4.0]), value=-2)",
    "lib.tensor([1.0, 2.0]).addcmul_(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]), value=2)",
    "lib.tensor([1.0, 2.0]).addcdiv_(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]), value=2)",
    "lib.tensor([1.0, 2.0]).addcdiv(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]))",
    "lib.addr(lib.zeros(3), lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]), beta=0.5, alpha=2)",
    "lib.addr(lib.zeros(2, 3, dtype=lib.int64), lib.tensor([1, 2]), lib.tensor([3, 4, 5]), alpha=2)",
    "lib.addr(lib.zeros(2, 3, dtype=lib.bool), lib.tensor([True, False]), lib.tensor([True, False, True]), beta=2)",
    "lib.addr(lib.ones(2, 3, dtype=lib.bool), lib.tensor([True, False]), lib.tensor([True, False, True]), "
    "beta=False)",
    "lib.addr(lib.zeros(2, 3), lib.tensor([1, 2]), lib.tensor([3.0, 4.0, 5.0]))",
    "lib.addr(lib.full((2, 3), float('nan')), lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]), beta=0)",
    "lib.zeros(2, 3).addr_(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]), alpha=3)",
]


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated overloads warn in both
        assert_result_like_torch(expression)
