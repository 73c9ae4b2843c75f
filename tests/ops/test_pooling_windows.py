"""Max and average pooling against torch on both sides of their shortcuts: max pooling writes each gradient once
where windows do not overlap (and sums them where they do); average pooling sums strided views of the input where
no window reaches padding (and gathers its taps where one does). Values are drawn to test torch's pick: ties, several
NaNs in a window, windows of -inf only, signed zeros."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad.ops import max_pooling, pooling

from .composites import assert_like_torch

NAN, INF = float("nan"), float("inf")


def draw(shape, fill, dtype, seed=0):
    """Small integers (ties in most windows), then ``fill`` at about a fifth of the cells: NaN, -inf, or -0.0
    among zeros."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-2, 3, shape).astype(dtype)
    where = rng.random(shape) < 0.2
    if fill == "nan":
        values[where] = NAN
        values[rng.random(shape) < 0.05] = INF
    elif fill == "-inf":
        values[:] = -INF  # whole windows of -inf: torch picks the first cell inside the input
        values[where] = rng.integers(-2, 3, shape)[where]
    elif fill == "zeros":
        values[:] = 0.0
        values[where] = -0.0
    return values


def pooled(lib, name, data, kwargs, cotangent_seed=1):
    """(values, indices or None, the input's gradient for a random cotangent, the pooling op's node)."""
    x = lib.tensor(data, requires_grad=data.dtype.kind == "f")
    out = getattr(lib.nn.functional, name)(x, **kwargs)
    values, indices = out if isinstance(out, tuple) else (out, None)
    if not x.requires_grad:
        return values, indices, None, None
    cotangent = np.random.default_rng(cotangent_seed).standard_normal(tuple(values.shape)).astype(data.dtype)
    (grad,) = lib.autograd.grad(values, x, lib.tensor(cotangent))
    node = values.grad_fn
    while lib is ndgrad and node.op.__module__ not in POOLING_MODULES:
        node = node.next_functions[0][0]  # under the 1-d forms' squeeze
    return values.detach(), indices, grad, node


POOLING_MODULES = (max_pooling.__name__, pooling.__name__)


def assert_same_pooling(name, shape, kwargs, fill, dtype):
    """Values and indices exactly as torch's (NaN where torch has NaN, signed zeros too), gradients close."""
    data = draw(shape, fill, dtype)
    (values, indices, grad, node), (ref, ref_indices, ref_grad, _) = (
        pooled(lib, name, data, kwargs) for lib in (ndgrad, torch))
    np.testing.assert_array_equal(values.numpy(), ref.numpy())
    np.testing.assert_array_equal(np.signbit(values.numpy()), np.signbit(ref.numpy()))
    if ref_indices is not None:
        np.testing.assert_array_equal(indices.numpy(), ref_indices.numpy())
    if grad is not None:
        assert_close(grad, ref_grad)
    return node


MAX_WINDOWS = [  # (name, shape, keywords, whether no two windows overlap)
    ("max_pool2d", (2, 3, 8, 8), {"kernel_size": 2}, True),  # a CNN's pooling
    ("max_pool2d", (2, 3, 7, 9), {"kernel_size": 2}, True),  # odd sizes: the last row and column unread
    ("max_pool2d", (3, 8, 8), {"kernel_size": (2, 3), "stride": (3, 4)}, True),  # unbatched; a stride past the kernel
    ("max_pool2d", (2, 3, 7, 7), {"kernel_size": 2, "ceil_mode": True}, True),  # partial windows at the end
    ("max_pool2d", (2, 3, 8, 8), {"kernel_size": 3, "stride": 3, "padding": 1}, True),
    ("max_pool2d", (2, 3, 8, 8), {"kernel_size": 2, "stride": 1}, False),
    ("max_pool2d", (2, 3, 9, 8), {"kernel_size": 3, "stride": 2, "padding": 1}, False),
    ("max_pool2d", (2, 3, 8, 8), {"kernel_size": 2, "dilation": 2}, False),  # a window spans 3 > its stride 2
    ("max_pool1d", (2, 3, 9), {"kernel_size": 3}, True),
    ("max_pool1d", (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}, False),
    ("max_pool3d", (1, 2, 4, 6, 6), {"kernel_size": 2}, True),
    ("max_pool3d", (1, 2, 5, 5, 5), {"kernel_size": 3, "stride": 2, "padding": 1}, False),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fill", ["ties", "nan", "-inf", "zeros"])
@pytest.mark.parametrize(("name", "shape", "kwargs", "disjoint"), MAX_WINDOWS)
def test_max_pool_matches_torch(name, shape, kwargs, disjoint, fill, dtype):
    node = assert_same_pooling(name, shape, {**kwargs, "return_indices": True}, fill, dtype)
    assert node.op.disjoint(node) is disjoint


@pytest.mark.parametrize(("name", "shape", "kwargs", "disjoint"), MAX_WINDOWS[:4:3] + MAX_WINDOWS[5:8:2])
def test_max_pool_of_integers_matches_torch(name, shape, kwargs, disjoint):
    assert_same_pooling(name, shape, {**kwargs, "return_indices": True}, "ties", np.int64)


@pytest.mark.parametrize("kwargs", [{"kernel_size": 2}, {"kernel_size": 2, "stride": 1}])
def test_max_pool_higher_derivatives_match_torch(kwargs):
    """Second derivatives, forward mode and finite differences, through both ways of placing the gradient."""
    data = np.random.default_rng(2).permutation(2 * 4 * 4).reshape(1, 2, 4, 4) / 8.0  # no ties: smooth
    assert_like_torch(lambda lib, x: lib.nn.functional.max_pool2d(x, **kwargs), data)


@pytest.mark.parametrize("call", [
    lambda F, x: F.adaptive_max_pool2d(x, 2, return_indices=True),  # windows that tile the input
    lambda F, x: F.adaptive_max_pool2d(x, 3, return_indices=True),  # windows that overlap
    lambda F, x: F.adaptive_max_pool1d(x[0], 3, return_indices=True),
    lambda F, x: F.fractional_max_pool2d(x, 2, output_size=3, return_indices=True,
                                         _random_samples=x.new_tensor([[[0.3, 0.6]] * 3])),
])
@pytest.mark.parametrize("fill", ["ties", "nan"])
def test_adaptive_and_fractional_max_pool_pick_as_torch(call, fill):
    """The last NaN of a window, as torch's scan (as the sliding windows above)."""
    data = draw((1, 3, 6, 6), fill, np.float64)
    results = []
    for lib in (ndgrad, torch):
        x = lib.tensor(data, requires_grad=True)
        values, indices = call(lib.nn.functional, x)
        (grad,) = lib.autograd.grad(values, x, lib.ones_like(values))
        results.append((values.detach().numpy(), indices.numpy(), grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


AVG_WINDOWS = [  # (name, shape, keywords, whether every dim sums strided views)
    ("avg_pool2d", (2, 3, 8, 8), {"kernel_size": 2}, True),
    ("avg_pool2d", (2, 3, 7, 9), {"kernel_size": 2}, True),
    ("avg_pool2d", (3, 8, 8), {"kernel_size": (2, 3), "stride": (3, 4)}, True),
    ("avg_pool2d", (2, 3, 8, 8), {"kernel_size": 3, "stride": 1}, True),  # overlapping windows are views too
    ("avg_pool2d", (2, 3, 8, 8), {"kernel_size": 2, "divisor_override": 3}, True),
    ("avg_pool2d", (2, 3, 7, 7), {"kernel_size": 2, "ceil_mode": True}, False),
    ("avg_pool2d", (2, 3, 9, 8), {"kernel_size": 3, "stride": 2, "padding": 1}, False),
    ("avg_pool2d", (2, 3, 9, 8), {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}, False),
    ("avg_pool1d", (2, 3, 9), {"kernel_size": 3}, True),
    ("avg_pool1d", (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}, False),
    ("avg_pool3d", (1, 2, 4, 6, 6), {"kernel_size": 2}, True),
    ("avg_pool3d", (1, 2, 5, 5, 5), {"kernel_size": 3, "stride": 2, "padding": 1}, False),
]


def assert_avg_pooling_close(name, shape, kwargs, fill, dtype):
    data = draw(shape, fill, dtype) + np.random.default_rng(3).uniform(0, 1, shape).astype(dtype)  # not exact
    (values, _, grad, node), (ref, _, ref_grad, _) = (pooled(lib, name, data, kwargs) for lib in (ndgrad, torch))
    assert_close(values, ref)
    if grad is not None:
        assert_close(grad, ref_grad)
    return node


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fill", ["ties", "nan", "-inf"])
@pytest.mark.parametrize(("name", "shape", "kwargs", "strided"), AVG_WINDOWS)
def test_avg_pool_matches_torch(name, shape, kwargs, strided, fill, dtype):
    """An infinity or NaN reaches only the windows that read it, on either side."""
    node = assert_avg_pooling_close(name, shape, kwargs, fill, dtype)
    assert all(matrix.strided is not None for matrix in node.matrices) is strided


@pytest.mark.parametrize(("name", "shape", "kwargs", "strided"), AVG_WINDOWS[:2] + AVG_WINDOWS[6:7])
def test_avg_pool_of_integers_matches_torch(name, shape, kwargs, strided):
    """Integer windows divide as C++ does (towards zero)."""
    data = draw(shape, "ties", np.int64) * 7
    values, ref = (lib.nn.functional.avg_pool2d(lib.tensor(data), **kwargs) for lib in (ndgrad, torch))
    assert_close(values, ref)


@pytest.mark.parametrize("fill", ["ties", "nan"])
def test_max_pool_of_large_windows_matches_torch(fill):
    """Windows of more cells than int8 offsets count (the scan's offsets widen), as a global pooling has."""
    assert_same_pooling("max_pool2d", (2, 3, 13, 13), {"kernel_size": 13, "return_indices": True}, fill, np.float32)
