"""isin, diff, tril_indices/triu_indices and the window functions against torch: values, dtypes, shapes, errors,
and diff's gradients (shapes drawn by hypothesis)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ndgrad

from .composites import assert_like_torch
from .errors import assert_raises_like_torch, assert_result_like_torch

RESULTS = [
    'lib.isin(lib.tensor([1,2,3]), lib.tensor([2,5]))',
    'lib.isin(lib.tensor([1,2,3]), 2)',
    'lib.isin(2, lib.tensor([1,2]))',
    'lib.isin(lib.tensor([1,2,3]), lib.tensor([2.,5]))',
    'lib.isin(lib.tensor([1.,2,3]), lib.tensor([2,5]), invert=True)',
    'lib.isin(lib.tensor([1.5,2,3]), 1.5)',
    'lib.isin(lib.tensor([[1,2],[3,4]]), lib.tensor([4, 1]), assume_unique=True)',
    'lib.isin(lib.tensor([1,2,3], dtype=lib.uint8), lib.tensor([2], dtype=lib.int8))',
    "lib.isin(lib.tensor([float('nan')]), lib.tensor([float('nan')]))",
    'lib.isin(lib.tensor(2), lib.tensor([1, 2]))',
    'lib.isin(lib.tensor([300], dtype=lib.int64), lib.tensor([44], dtype=lib.uint8))',
    'lib.diff(lib.tensor([1,3,6]))',
    'lib.diff(lib.tensor([True,False, False]))',
    'lib.diff(lib.tensor([1,3,6]), n=0)',
    'lib.diff(lib.tensor([1,3,6]), n=5)',
    'lib.diff(lib.tensor([[1,3,6]]), prepend=lib.tensor([[0]]), append=lib.tensor([[1.5]]))',
    'lib.diff(lib.tensor([[1.,3,6], [2, 2, 0]]), n=2, dim=0)',
    'lib.diff(lib.tensor([[1.,3,6], [2, 2, 0]]), n=2, dim=1)',
    'lib.tensor([1., 4, 9]).diff()',
    'lib.tril_indices(3, 3)',
    'lib.triu_indices(3, 4, 1)',
    'lib.tril_indices(4, 3, -1)',
    'lib.tril_indices(3, 3, dtype=lib.int32)',
    'lib.triu_indices(3, 3, -5)',
    'lib.triu_indices(0, 3)',
    'lib.tril_indices(2, 5, 10)',
    'lib.hann_window(5)',
    'lib.hann_window(5, False)',
    'lib.hann_window(1)',
    'lib.hann_window(0)',
    'lib.hann_window(8, dtype=lib.float64)',
    'lib.hamming_window(5, True, 0.5, 0.3)',
    'lib.hamming_window(6)',
    'lib.hamming_window(6, False, 0.6)',
    'lib.blackman_window(5)',
    'lib.blackman_window(7, False, dtype=lib.float64)',
    'lib.bartlett_window(5)',
    'lib.bartlett_window(6, periodic=False)',
    'lib.kaiser_window(5)',
    'lib.kaiser_window(5, False, 3.0, dtype=lib.float64)',
    'lib.kaiser_window(2, True, 3.0)',
]


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    assert_result_like_torch(expression)


ERRORS = [
    'lib.isin(lib.tensor([1j]), lib.tensor([1j]))',
    'lib.isin(lib.tensor([True]), lib.tensor([1]))',
    'lib.isin(lib.tensor([1]), lib.tensor([True]))',
    "lib.isin(lib.tensor([1,2,3]), 'a')",
    'lib.diff(lib.tensor([1,3,6]), n=-1)',
    'lib.diff(lib.tensor(1))',
    'lib.diff(lib.tensor([[1,3,6]]), prepend=lib.tensor([0]))',
    'lib.diff(lib.tensor([[1.,3,6], [2, 2, 0]]), dim=2)',
    'lib.diff(lib.tensor([[1.,3,6]]), append=lib.tensor([[1.5], [2]]))',
    'lib.tril_indices(3, 3, dtype=lib.float32)',
    'lib.tril_indices(-1, 3)',
    'lib.triu_indices(3, -2)',
    'lib.hann_window(-1)',
    'lib.hann_window(5, dtype=lib.int64)',
    'lib.hann_window(5.5)',
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_window_requires_grad_when_asked(name):
    assert getattr(ndgrad, name)(4, requires_grad=True).requires_grad


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), n=st.integers(0, 3), data=st.data())
def test_diff_gradients_match_torch(shape, n, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    prepend = data.draw(st.booleans())
    assume(shape[dim] + 2 * prepend > n)  # some differences are left (empty results are checked in RESULTS)
    rng = np.random.default_rng(len(shape) * 10 + n)
    extra = list(shape)
    extra[dim] = 2
    arrays = [rng.standard_normal(shape)] + ([rng.standard_normal(extra)] if prepend else [])

    def call(lib, x, *before):
        return lib.diff(x, n=n, dim=dim, prepend=before[0] if before else None)

    assert_like_torch(call, *arrays, grad_fn=n > 0)
