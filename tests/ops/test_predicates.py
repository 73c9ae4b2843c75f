"""The predicates on tensors (is_nonzero, is_same_size, is_signed, is_floating_point) and scalar_tensor, as
top-level functions and methods, against torch."""

import pytest
import torch

import ndgrad

from .errors import assert_raises_like_torch

RESULTS = [
    'lib.is_nonzero(lib.tensor([1.]))',
    'lib.is_nonzero(lib.tensor(0j))',
    'lib.tensor([3]).is_nonzero()',
    'lib.is_same_size(lib.zeros(2), lib.zeros(2, 1))',
    'lib.zeros(2).is_same_size(lib.zeros(2))',
    'lib.is_signed(lib.zeros(2, dtype=lib.uint8))',
    'lib.is_signed(lib.zeros(2))',
    'lib.is_floating_point(lib.zeros(2))',
    'lib.is_floating_point(lib.zeros(2, dtype=lib.int32))',
    'lib.scalar_tensor(3)',
    'lib.scalar_tensor(3, dtype=lib.int64)',
    'lib.scalar_tensor(True)',
    'lib.scalar_tensor(2.5, requires_grad=True).requires_grad',
]


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    ours, theirs = eval(expression, {"lib": ndgrad}), eval(expression, {"lib": torch})
    if isinstance(theirs, torch.Tensor):
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert ours.shape == theirs.shape and ours.item() == theirs.item()
    else:
        assert ours == theirs


ERRORS = [
    'lib.is_nonzero(lib.tensor([]))',
    'lib.is_nonzero(lib.tensor([1, 2]))',
    'lib.zeros(2).is_same_size(2)',
    'lib.is_floating_point(2)',
    'lib.scalar_tensor(1j)',
    'lib.scalar_tensor(lib.tensor([1, 2]))',
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)
