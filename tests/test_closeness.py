"""The suite's comparisons (tests/closeness.py) accept what differs between CPUs and nothing else."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close, printed_alike

import ndgrad

ROUNDING = [  # the same values, rounded differently by other kernels
    ("tensor([-0.0000, 0.8413,    nan])", "tensor([0.0000, 0.8413,    nan])"),  # torch's gelu(-40.) on another CPU
    ("tensor([0.1235, 2.5000])", "tensor([0.1234, 2.5000])"),
    ("tensor(1.2346e+05)", "tensor(1.2345e+05)"),
    ("0.8413447141647339", "0.84134471416473"),  # Python's repr of a float: its length varies
    ("tensor([1.0000+2.0001j])", "tensor([1.0000+2.0000j])"),
    ("tensor([ 0.0000,  1.0000])", "tensor([-0.0000,  1.0000])"),
]
DIFFERENT = [  # a wrong value, a wrong format, wrong padding with the same numbers, a wrong integer
    ("tensor([0.1237, 2.5000])", "tensor([0.1234, 2.5000])"),
    ("tensor([1.0000, 2.0000])", "tensor([1., 2.])"),
    ("tensor([1., 2.])", "tensor([ 1., 2.])"),
    ("tensor([1.0000e-23, 1.0000e+00])", "tensor([0., 1.])"),
    ("tensor([1, 2])", "tensor([1, 3])"),
    ("torch.Size([2, 3]) 0.5", "torch.Size([2, 4]) 0.5001"),
    ("tensor([2.0000j])", "tensor([2.0000])"),
    ("float32 1.0", "float64 1.0001"),
]


@pytest.mark.parametrize(("ours", "theirs"), ROUNDING)
def test_printed_rounding_is_accepted(ours, theirs):
    assert printed_alike(ours, theirs) and printed_alike(theirs, ours)


@pytest.mark.parametrize(("ours", "theirs"), DIFFERENT)
def test_printed_differences_are_caught(ours, theirs):
    assert not printed_alike(ours, theirs) and not printed_alike(theirs, ours)


def test_assert_close_per_dtype():
    values = np.array([1.0, -2.0, np.nan])
    assert_close(ndgrad.tensor(values * (1 + 1e-9)), torch.tensor(values))
    assert_close(ndgrad.tensor(values * (1 + 1e-5), dtype=ndgrad.float32), torch.tensor(values, dtype=torch.float32))
    for ours, theirs in [
        (ndgrad.tensor(values * (1 + 1e-5)), torch.tensor(values)),  # float64: a float32-sized error is too big
        (ndgrad.tensor(values, dtype=ndgrad.float32), torch.tensor(values)),  # another dtype
        (ndgrad.tensor([1, 2]), torch.tensor([1, 3])),  # integers exactly
        (ndgrad.tensor([np.nan, 1.0]), torch.tensor([1.0, np.nan])),
    ]:
        with pytest.raises(AssertionError):
            assert_close(ours, theirs)
