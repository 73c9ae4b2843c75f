"""ndgrad.ops.more_activations at its boundaries, against torch: the errors (type and message), the in-place forms,
and rrelu in training, whose random slopes are checked by their range, spread and gradient."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .errors import assert_raises_like_torch

F = "lib.nn.functional"
X = "lib.ones(2, 3, 4)"
ERRORS = [
    f"{F}.softshrink({X}, -1.0)",
    f"{F}.softshrink({X}.double(), -0.5)",
    f"{F}.hardshrink({X}.long())",
    f"{F}.softshrink({X}.long())",
    f"{F}.threshold({X}.bool(), 0, 1)",
    f"{F}.glu({X}, 1)",
    f"{F}.glu(lib.tensor(1.0))",
    f"{F}.glu({X}.long())",
    f"{F}.glu({X}, 3)",
    f"{F}.prelu({X}, lib.ones(2))",
    f"{F}.prelu(lib.tensor(1.0), lib.ones(2))",
    f"{F}.prelu({X}, lib.ones(3, dtype=lib.float64))",
    f"{F}.prelu({X}, lib.ones(3, 1))",
    f"{F}.prelu({X}.long(), lib.ones(1).long())",
    f"{F}.prelu(lib.ones(4), lib.ones(4))",
    f"{F}.rrelu({X}.long())",
    f"{F}.rrelu({X}, 0.5, 0.1, True)",
]


@pytest.mark.parametrize("call", ERRORS)
def test_error_matches_torch(call):
    assert_raises_like_torch(call)


@pytest.mark.parametrize("call", ["threshold(x, 0.2, -1.0, inplace=True)", "threshold_(x, 0.2, -1.0)",
                                  "rrelu(x, 0.1, 0.3, inplace=True)", "rrelu_(x)"])
def test_in_place_forms_match_torch(call):
    base = np.random.default_rng(0).standard_normal((3, 4))
    results = []
    for lib in (ndgrad, torch):
        leaf = lib.from_numpy(base.copy()).requires_grad_()
        x = leaf * 1
        out = eval(f"lib.nn.functional.{call}", {"lib": lib, "x": x})
        (grad,) = lib.autograd.grad((out * out).sum(), leaf)
        results.append((out is x, out.detach().numpy(), grad.numpy(), type(out.grad_fn).__name__))
    (same, values, grad, node), (their_same, their_values, their_grad, their_node) = results
    assert same and their_same and node == their_node
    assert_close(values, their_values)
    assert_close(grad, their_grad)


def test_rrelu_in_training_draws_slopes_in_range():
    ndgrad.manual_seed(0)
    x = ndgrad.from_numpy(np.random.default_rng(0).standard_normal(20000)).requires_grad_()
    out = ndgrad.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    assert type(out.grad_fn).__name__ == "RreluWithNoiseBackward0"
    values, data = out.detach().numpy(), x.detach().numpy()
    negative = data <= 0
    np.testing.assert_array_equal(values[~negative], data[~negative])
    slopes = values[negative] / data[negative]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.003 and abs(slopes.std() - 0.2 / np.sqrt(12)) < 0.003  # uniform on [0.1, 0.3]
    (grad,) = ndgrad.autograd.grad(out.sum(), x)
    np.testing.assert_allclose(grad.numpy(), np.where(negative, values / np.where(negative, data, 1), 1.0))
