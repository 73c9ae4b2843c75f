"""Pooling, padding, pixel shuffle and interpolation (ops.pooling) against torch where the op table cannot reach:
bad arguments (the exception type and message) and the 1-d forms, which torch builds as 2-d pooling + squeeze."""

import numpy as np
import pytest
import torch

import ndgrad

from .errors import assert_raises_like_torch

X4 = "lib.zeros(1, 2, 6, 6)"
ERRORS = [
    f"lib.nn.functional.max_pool2d({X4}, 0)",
    f"lib.nn.functional.max_pool2d({X4}, 2, 0)",
    f"lib.nn.functional.max_pool2d({X4}, 0, 1)",
    f"lib.nn.functional.max_pool2d({X4}, 2, -1)",
    f"lib.nn.functional.max_pool2d({X4}, 2, padding=2)",
    f"lib.nn.functional.max_pool2d({X4}, 2, dilation=0)",
    f"lib.nn.functional.max_pool2d({X4}, (2, 2, 2))",
    f"lib.nn.functional.max_pool2d({X4}, 7)",
    "lib.nn.functional.max_pool2d(lib.zeros(6), 2)",
    f"lib.nn.functional.avg_pool2d({X4}, 0)",
    f"lib.nn.functional.avg_pool2d({X4}, 2, padding=2)",
    f"lib.nn.functional.avg_pool2d({X4}, 7)",
    f"lib.nn.functional.avg_pool2d({X4}, 2, divisor_override=0)",
    "lib.nn.functional.max_pool1d(lib.zeros(2, 6), 0)",
    f"lib.nn.functional.max_pool1d({X4}, 2)",
    f"lib.nn.functional.avg_pool1d({X4}, 2)",
    f"lib.nn.functional.adaptive_avg_pool2d({X4}, (2, 2, 2))",
    "lib.nn.functional.adaptive_avg_pool2d(lib.zeros(6), 2)",
    "lib.nn.functional.adaptive_max_pool2d(lib.zeros(6), 2)",
    f"lib.nn.functional.adaptive_avg_pool2d({X4}, -1)",
    f"lib.nn.functional.adaptive_avg_pool1d({X4}, 2)",
    f"lib.nn.functional.pad({X4}, (1,))",
    f"lib.nn.functional.pad({X4}, (1, 1), mode='foo')",
    f"lib.nn.functional.pad({X4}, (1, 1), mode='reflect')",
    f"lib.nn.functional.pad({X4}, (7, 7, 1, 1), mode='reflect')",
    f"lib.nn.functional.pad({X4}, (1, 1, 6, 2), mode='reflect')",
    f"lib.nn.functional.pad({X4}, (1, 1, 7, 2), mode='circular')",
    f"lib.nn.functional.pad({X4}, (-7, 1))",
    f"lib.nn.functional.pad({X4}, (1,) * 10)",
    f"lib.nn.functional.pixel_shuffle({X4}, 4)",
    f"lib.nn.functional.pixel_shuffle({X4}, 0)",
    "lib.nn.functional.pixel_shuffle(lib.zeros(6), 2)",
    f"lib.nn.functional.pixel_unshuffle({X4}, 4)",
    f"lib.nn.functional.pixel_unshuffle({X4}, 0)",
    f"lib.nn.functional.interpolate({X4}, size=3, scale_factor=2)",
    f"lib.nn.functional.interpolate({X4})",
    f"lib.nn.functional.interpolate({X4}, scale_factor=2, mode='linear')",
    f"lib.nn.functional.interpolate({X4}, scale_factor=2, align_corners=True)",
    f"lib.nn.functional.interpolate({X4}, size=(3, 3, 3))",
]


@pytest.mark.parametrize("call", ERRORS)
def test_error_matches_torch(call):
    assert_raises_like_torch(call)


ONE_D = [
    "F.max_pool1d(x, 3, 2, 1)",
    "F.max_pool1d(x, 2, return_indices=True)",
    "F.max_pool1d(x, 3, 1, ceil_mode=True, dilation=2)",
    "F.avg_pool1d(x, 3, 2, 1)",
    "F.avg_pool1d(x, 2, ceil_mode=True, count_include_pad=False)",
    "F.adaptive_avg_pool1d(x, 3)",
    "F.adaptive_max_pool1d(x, 3, True)",
    "F.adaptive_avg_pool2d(x.unsqueeze(-1), 1)",
    "F.lp_pool2d(x, 2, (2, 3), 1)",
    "F.lp_pool2d(x, 1.5, 2, ceil_mode=True)",
    "F.lp_pool1d(x, 3, 2)",
]


@pytest.mark.parametrize("call", ONE_D)
def test_one_d_forms_match_torch(call):
    """Values, indices, grad_fn (SqueezeBackward1, MeanBackward1) and gradients, as torch's composites."""
    low = 0.5 if "lp_pool" in call else -2.0  # lp pooling of negative values: NaN, or pow's kink at 0
    base = np.random.default_rng(0).uniform(low, 2.0, (2, 3, 7))
    results = []
    for lib in (torch, ndgrad):
        x = lib.from_numpy(base.copy()).requires_grad_()
        out = eval(call, {"F": lib.nn.functional, "x": x})
        values = out[0] if isinstance(out, tuple) else out
        (grad,) = lib.autograd.grad((values * values).sum(), x)
        indices = out[1].numpy() if isinstance(out, tuple) else None
        results.append((values.detach().numpy(), indices, grad.numpy(), type(values.grad_fn).__name__))
    (values, indices, grad, node), (ours, our_indices, our_grad, our_node) = results
    np.testing.assert_allclose(ours, values, rtol=1e-12)
    np.testing.assert_allclose(our_grad, grad, rtol=1e-12)
    assert our_node == node
    if indices is not None:
        np.testing.assert_array_equal(our_indices, indices)
