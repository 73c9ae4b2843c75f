"""Pooling (ops.max_pooling, ops.pooling) against torch where the op table cannot reach: bad arguments (the
exception type and message), and the forms torch builds from other ops: the 1-d ones (2-d pooling + squeeze),
power-average pooling, the *_with_indices names; fractional max pooling's arguments."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .composites import assert_like_torch
from .errors import assert_raises_like_torch

F = "lib.nn.functional"
X4, X5 = "lib.zeros(1, 2, 6, 6)", "lib.zeros(1, 2, 6, 6, 6)"
POOLED = f"{F}.max_pool2d(lib.arange(32.0).reshape(1, 2, 4, 4), 2, return_indices=True)"
ERRORS = [
    f"{F}.max_pool2d({X4}, 0)",
    f"{F}.max_pool2d({X4}, 2, 0)",
    f"{F}.max_pool2d({X4}, 0, 1)",
    f"{F}.max_pool2d({X4}, 2, -1)",
    f"{F}.max_pool2d({X4}, 2, padding=2)",
    f"{F}.max_pool2d({X4}, 2, dilation=0)",
    f"{F}.max_pool2d({X4}, (2, 2, 2))",
    f"{F}.max_pool2d({X4}, 7)",
    f"{F}.max_pool2d(lib.zeros(6), 2)",
    f"{F}.max_pool3d({X5}, 0)",
    f"{F}.max_pool3d({X5}, -1, 1)",
    f"{F}.max_pool3d({X5}, 2, -1)",
    f"{F}.max_pool3d({X5}, 2, padding=2)",
    f"{F}.max_pool3d({X5}, 2, dilation=0)",
    f"{F}.max_pool3d({X5}, (2, 2))",
    f"{F}.max_pool3d({X5}, 2, (1, 1))",
    f"{F}.max_pool3d({X5}, 2, 1, (1, 1))",
    f"{F}.max_pool3d({X5}, 2, 1, 0, (1, 1))",
    f"{F}.max_pool3d({X5}, 7)",
    f"{F}.max_pool3d(lib.zeros(6, 6), 2)",
    f"{F}.avg_pool2d({X4}, 0)",
    f"{F}.avg_pool2d({X4}, 2, padding=2)",
    f"{F}.avg_pool2d({X4}, 7)",
    f"{F}.avg_pool2d({X4}, 2, divisor_override=0)",
    f"{F}.avg_pool2d({X4}, (2, 2, 2))",
    f"{F}.avg_pool2d({X4}, 2, (1, 1, 1))",
    f"{F}.avg_pool3d({X5}, 0)",
    f"{F}.avg_pool3d({X5}, -1, 1)",
    f"{F}.avg_pool3d({X5}, 2, padding=2)",
    f"{F}.avg_pool3d({X5}, 7)",
    f"{F}.avg_pool3d(lib.zeros(1, 1, 2, 2, 2), 3, 1, 1)",
    f"{F}.avg_pool3d({X5}, 2, divisor_override=0)",
    f"{F}.avg_pool3d({X5}, (2, 2))",
    f"{F}.avg_pool3d({X5}, 2, (1, 1))",
    f"{F}.avg_pool3d({X5}, 2, 1, (1, 1))",
    f"{F}.avg_pool3d(lib.zeros(6, 6), 2)",
    f"{F}.max_pool1d(lib.zeros(2, 6), 0)",
    f"{F}.max_pool1d({X4}, 2)",
    f"{F}.avg_pool1d({X4}, 2)",
    f"{F}.adaptive_avg_pool2d({X4}, (2, 2, 2))",
    f"{F}.adaptive_avg_pool2d(lib.zeros(6), 2)",
    f"{F}.adaptive_avg_pool2d({X4}.long(), 2)",
    f"{F}.adaptive_max_pool2d(lib.zeros(6), 2)",
    f"{F}.adaptive_max_pool2d({X4}.long(), 2)",
    f"{F}.adaptive_avg_pool2d({X4}, -1)",
    f"{F}.adaptive_avg_pool1d({X4}, 2)",
    f"{F}.adaptive_avg_pool3d({X5}, (2, 2))",
    f"{F}.adaptive_avg_pool3d(lib.zeros(6, 6), 2)",
    f"{F}.adaptive_avg_pool3d({X5}, -1)",
    f"{F}.adaptive_avg_pool3d({X5}.long(), 2)",
    f"{F}.adaptive_max_pool3d(lib.zeros(6, 6), 2)",
    f"{F}.adaptive_max_pool3d({X5}, (2, 2))",
    f"{F}.adaptive_max_pool3d({X5}.long(), 2)",
    f"{F}.adaptive_max_pool1d(lib.zeros(2, 6), (2, 2))",
    f"{F}.lp_pool2d({X4}, 2, (2, 2, 2))",
    f"{F}.lp_pool3d({X5}, 2, (2, 2))",
    f"{F}.max_unpool2d({POOLED}[0], {POOLED}[1] * 5, 2)",
    f"{F}.max_unpool2d({POOLED}[0], -{POOLED}[1] - 1, 2)",
    f"{F}.max_unpool2d({POOLED}[0], {POOLED}[1][:, :1], 2)",
    f"{F}.max_unpool2d({POOLED}[0], {POOLED}[1].float(), 2)",
    f"{F}.max_unpool2d({POOLED}[0][0, 0], {POOLED}[1][0, 0], 2)",
    f"{F}.max_unpool2d({POOLED}[0], {POOLED}[1], 2, output_size=(9, 4))",
    f"{F}.max_unpool2d({POOLED}[0], {POOLED}[1], 2, output_size=(4, 4, 4))",
    f"{F}.max_unpool3d({POOLED}[0][None], {POOLED}[1][None] * 9, 2)",
    f"{F}.max_unpool3d({POOLED}[0][0, 0], {POOLED}[1][0, 0], 2)",
    f"{F}.fractional_max_pool2d(lib.randn(2, 3, 7, 8), 2)",
    f"{F}.fractional_max_pool2d(lib.randn(2, 3, 7, 8), 2, output_ratio=0.5)",
    f"{F}.fractional_max_pool2d(lib.randn(2, 3, 7, 8), 2, output_size=7)",
    f"{F}.fractional_max_pool2d(lib.randn(2, 3, 7, 8), 8, output_size=2)",
    f"{F}.fractional_max_pool2d(lib.randn(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.rand(2, 3, 3))",
    f"{F}.fractional_max_pool2d(lib.randn(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.rand(2, 2, 2))",
    f"{F}.fractional_max_pool2d(lib.randn(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.rand(1, 3, 2))",
    f"{F}.fractional_max_pool2d(lib.randn(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.rand(2, 3, 2).double())",
    f"{F}.fractional_max_pool2d(lib.randn(7, 8), 2, output_size=3)",
    f"{F}.fractional_max_pool3d(lib.randn(1, 1, 4, 4, 4), 2)",
    f"{F}.fractional_max_pool3d(lib.randn(1, 1, 3, 4, 3), 2, output_size=2)",
    f"{F}.fractional_max_pool3d(lib.randn(1, 1, 4, 5, 4), 2, output_size=(2, 4, 2))",
    f"{F}.fractional_max_pool3d(lib.randn(4, 4, 4), 2, output_size=2)",
]


@pytest.mark.parametrize("call", ERRORS)
def test_error_matches_torch(call):
    assert_raises_like_torch(call)


ONE_D = [
    "F.max_pool1d(x, 3, 2, 1)",
    "F.max_pool1d(x, 2, return_indices=True)",
    "F.max_pool1d(x, 3, 1, ceil_mode=True, dilation=2)",
    "F.max_pool1d_with_indices(x, 3, 2)",
    "F.avg_pool1d(x, 3, 2, 1)",
    "F.avg_pool1d(x, 2, ceil_mode=True, count_include_pad=False)",
    "F.adaptive_avg_pool1d(x, 3)",
    "F.adaptive_max_pool1d(x, 3, True)",
    "F.adaptive_max_pool1d_with_indices(x, 2)",
    "F.adaptive_avg_pool2d(x.unsqueeze(-1), 1)",
    "F.adaptive_avg_pool3d(x.unsqueeze(-1).unsqueeze(-1), 1)",
    "F.max_pool2d_with_indices(x.unsqueeze(0), 2)",
    "F.max_pool3d_with_indices(x.unsqueeze(0), (1, 2, 3))",
    "F.adaptive_max_pool2d_with_indices(x, (2, 3))",
    "F.adaptive_max_pool3d_with_indices(x.unsqueeze(0), (1, 2, 3))",
    "F.fractional_max_pool2d_with_indices(x, (1, 2), (2, 3), _random_samples=lib.tensor([[[0.3, 0.6], [0.8, 0.1]]],"
    " dtype=x.dtype))",
    "F.fractional_max_pool3d_with_indices(x.unsqueeze(0), 1, output_ratio=(0.5, 0.6, 0.5),"
    " _random_samples=lib.tensor([[[0.1, 0.5, 0.9]]], dtype=x.dtype))",
    "F.lp_pool2d(x, 2, (2, 3), 1)",
    "F.lp_pool2d(x, 1.5, 2, ceil_mode=True)",
    "F.lp_pool1d(x, 3, 2)",
    "F.lp_pool3d(x.unsqueeze(0), 2, (1, 2, 2))",
    "F.lp_pool3d(x.unsqueeze(0), 1.5, 2, 1)",
    "F.lp_pool2d(x, float('inf'), 2)",
    "F.lp_pool1d(x, -float('inf'), 3, 2)",
]


@pytest.mark.parametrize("call", ONE_D)
def test_composite_forms_match_torch(call):
    """Values, indices, grad_fn (SqueezeBackward1, MeanBackward1, PowBackward0) and gradients, as torch's."""
    low = 0.5 if "lp_pool" in call and "inf" not in call else -2.0  # lp pooling of negative values: NaN
    base = np.random.default_rng(0).uniform(low, 2.0, (2, 3, 7))
    results = []
    for lib in (torch, ndgrad):
        x = lib.from_numpy(base.copy()).requires_grad_()
        out = eval(call, {"F": lib.nn.functional, "x": x, "lib": lib})
        values = out[0] if isinstance(out, tuple) else out
        (grad,) = lib.autograd.grad((values * values).sum(), x)
        indices = out[1].numpy() if isinstance(out, tuple) else None
        results.append((values.detach().numpy(), indices, grad.numpy(), type(values.grad_fn).__name__))
    (values, indices, grad, node), (ours, our_indices, our_grad, our_node) = results
    assert_close(ours, values)
    assert_close(our_grad, grad)
    assert our_node == node
    if indices is not None:
        np.testing.assert_array_equal(our_indices, indices)


def unpool1d(lib, x, indices):
    return lib.nn.functional.max_unpool1d(x, indices, 2, output_size=[9])


def test_max_unpool1d_matches_torch():
    """max_unpool2d over a width of 1 and a squeeze, as torch's."""
    indices = np.arange(4) * 2 + np.random.default_rng(1).integers(0, 2, (2, 3, 4))
    assert_like_torch(unpool1d, np.random.default_rng(2).standard_normal((2, 3, 4)), indices)


def test_max_pool_round_trip_through_unpool_matches_torch():
    def round_trip(lib, x):
        values, indices = lib.nn.functional.max_pool3d(x, 2, return_indices=True)
        return lib.nn.functional.max_unpool3d(values, indices, 2, output_size=x.shape[-3:])

    assert_like_torch(round_trip, np.random.default_rng(3).standard_normal((1, 2, 4, 5, 4)))
