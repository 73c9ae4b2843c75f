"""msort and unique_consecutive against torch: values, inverse and counts over hypothesis-drawn inputs with runs,
the node each records, msort's gradient, and the errors (type and message)."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ndgrad

from .errors import assert_raises_like_torch, raised


def as_numpy(tensor):
    return np.asarray(tensor.detach().numpy())


@st.composite
def runs(draw):
    """A small array of few distinct values (so equal neighbours are common), and a dim (None: all elements)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    data = draw(hnp.arrays(np.float64, shape, elements=st.sampled_from([0.0, 1.0, 2.5, np.nan])))
    dim = draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    return data, dim


@settings(max_examples=60, deadline=None)
@given(runs(), st.booleans(), st.booleans())
def test_unique_consecutive_matches_torch(drawn, return_inverse, return_counts):
    data, dim = drawn

    def call(lib):
        x = lib.from_numpy(data.copy())
        return lib.unique_consecutive(x, return_inverse=return_inverse, return_counts=return_counts, dim=dim)

    theirs = raised(call, torch)
    if theirs is not None:
        assert raised(call, ndgrad) == theirs
        return
    ours, expected = call(ndgrad), call(torch)
    assert isinstance(ours, tuple) == isinstance(expected, tuple)
    ours, expected = (ours, expected) if isinstance(ours, tuple) else ((ours,), (expected,))
    for a, b in zip(ours, expected):
        assert a.dtype.is_floating_point == b.dtype.is_floating_point
        np.testing.assert_array_equal(as_numpy(a), b.numpy())


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_consecutive_node_and_method(dim):
    data = np.array([[1.0, 1.0], [1.0, 1.0], [2.0, 0.5]])
    ours = ndgrad.from_numpy(data.copy()).requires_grad_().unique_consecutive(return_counts=True, dim=dim)
    theirs = torch.from_numpy(data.copy()).requires_grad_().unique_consecutive(return_counts=True, dim=dim)
    assert type(ours[0].grad_fn).__name__ == type(theirs[0].grad_fn).__name__
    np.testing.assert_array_equal(as_numpy(ours[1]), theirs[1].numpy())
    assert raised(lambda lib: (ours if lib is ndgrad else theirs)[0].sum().backward(), ndgrad) == raised(
        lambda lib: theirs[0].sum().backward(), torch)


@pytest.mark.parametrize("shape", [(), (5,), (4, 3), (3, 2, 2)])
def test_msort_matches_torch(shape):
    data = np.random.default_rng(len(shape)).standard_normal(shape)
    cotangent = np.random.default_rng(7).standard_normal(shape)
    results = []
    for lib in (ndgrad, torch):
        x = lib.from_numpy(data.copy()).requires_grad_()
        out = lib.msort(x) if shape else x.msort()
        (grad,) = lib.autograd.grad(out, x, lib.from_numpy(cotangent.copy()))
        results.append((type(out.grad_fn).__name__, as_numpy(out), as_numpy(grad)))
    assert results[0][0] == results[1][0]
    for ours, theirs in zip(results[0][1:], results[1][1:]):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("call", [
    "lib.msort(lib.ones(3, dtype=lib.complex128))",
    "lib.unique_consecutive(lib.ones(3, dtype=lib.complex128))",
    "lib.unique_consecutive(lib.ones(3, 2, dtype=lib.complex128), dim=0)",
    "lib.unique_consecutive(lib.ones(3, 2), dim=2)",
    "lib.unique_consecutive(lib.tensor(1.0), dim=0)",
    "lib.unique_consecutive(lib.ones(2, 0), dim=0)",
])
def test_errors_like_torch(call):
    assert_raises_like_torch(call)
