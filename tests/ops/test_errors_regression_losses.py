"""ndgrad.ops.regression_losses at its boundaries, against torch: the errors (type and message), the legacy
reduction arguments, and the losses PyTorch builds from other ops (l1_loss, the weighted forms, poisson_nll_loss,
gaussian_nll_loss), which the op table cannot list: values, grad_fn and derivatives (tests/ops/composites.py)."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .composites import assert_like_torch
from .errors import assert_raises_like_torch


def F(lib):
    return lib.nn.functional


ERRORS = [
    ("reduction", lambda lib: F(lib).mse_loss(lib.ones(3), lib.ones(3), reduction="foo")),
    ("mse_broadcast", lambda lib: F(lib).mse_loss(lib.ones(3, 4), lib.ones(2, 4))),
    ("mse_weight_size", lambda lib: F(lib).mse_loss(lib.ones(3), lib.ones(3), weight=lib.ones(2))),
    ("smooth_l1_negative_beta", lambda lib: F(lib).smooth_l1_loss(lib.ones(3), lib.ones(3), beta=-1.0)),
    ("huber_zero_delta", lambda lib: F(lib).huber_loss(lib.ones(3), lib.ones(3), delta=0.0)),
    ("poisson_reduction", lambda lib: F(lib).poisson_nll_loss(lib.ones(3), lib.ones(3), reduction="avg")),
    ("gaussian_negative_var", lambda lib: F(lib).gaussian_nll_loss(lib.ones(3), lib.ones(3), -lib.ones(3))),
    ("gaussian_negative_float_var", lambda lib: F(lib).gaussian_nll_loss(lib.ones(3), lib.ones(3), -1.0)),
    ("gaussian_var_size", lambda lib: F(lib).gaussian_nll_loss(lib.ones(3, 4), lib.ones(3, 4), lib.ones(2, 2))),
    ("gaussian_reduction", lambda lib: F(lib).gaussian_nll_loss(lib.ones(3), lib.ones(3), lib.ones(3),
                                                                reduction="avg")),
]


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("call", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


def draw(seed, shape, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


# (id, inputs as arrays: all differentiated, call)
COMPOSITES = [
    ("l1", (draw(0, (3, 4)), draw(1, (3, 4))), lambda lib, x, y: F(lib).l1_loss(x, y)),
    ("l1_none", (draw(0, (3, 4)), draw(1, (3, 4))), lambda lib, x, y: F(lib).l1_loss(x, y, reduction="none")),
    ("l1_weight", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4), 0.5, 2)),
     lambda lib, x, y, w: F(lib).l1_loss(x, y, weight=w)),
    ("mse_weight", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4), 0.5, 2)),
     lambda lib, x, y, w: F(lib).mse_loss(x, y, weight=w)),
    ("huber_weight", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4), 0.5, 2)),
     lambda lib, x, y, w: F(lib).huber_loss(x, y, weight=w)),
    ("smooth_l1_beta_0", (draw(0, (3, 4)), draw(1, (3, 4))), lambda lib, x, y: F(lib).smooth_l1_loss(x, y, beta=0.0)),
    ("poisson", (draw(0, (3, 4)), draw(1, (3, 4), 0, 3)), lambda lib, x, y: F(lib).poisson_nll_loss(x, y)),
    ("poisson_full", (draw(0, (3, 4), 0.5, 3), draw(1, (3, 4), 0.5, 3)),
     lambda lib, x, y: F(lib).poisson_nll_loss(x, y, log_input=False, full=True, reduction="sum")),
    ("gaussian", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4), 0.5, 2)),
     lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v)),
    ("gaussian_homoscedastic", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3,), 0.5, 2)),
     lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v, full=True, reduction="none")),
    ("gaussian_float_var", (draw(0, (3, 4)), draw(1, (3, 4))),
     lambda lib, x, y: F(lib).gaussian_nll_loss(x, y, 0.5, reduction="sum")),
]


@pytest.mark.parametrize(("inputs", "call"), [c[1:] for c in COMPOSITES], ids=[c[0] for c in COMPOSITES])
def test_composites_match_torch(inputs, call):
    assert_like_torch(call, *inputs)


def test_legacy_reduction_arguments_warn_and_apply():
    x, y = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    for size_average, reduce in [(False, None), (None, False), (True, True)]:
        results = []
        for lib in (ndgrad, torch):
            with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
                results.append(F(lib).mse_loss(lib.from_numpy(x), lib.from_numpy(y), size_average, reduce).numpy())
        assert_close(*results)


def test_size_mismatch_warns():
    with pytest.warns(UserWarning, match="Using a target size"):
        F(ndgrad).mse_loss(ndgrad.ones(3, 4), ndgrad.ones(4))
