"""The dropout family (ops.dropouts): errors and warnings as torch's, and, since no two libraries draw the same random
numbers, the rest by statistics and structure: the share zeroed, whole channels zeroed together, the scale of what
is kept, alpha dropout's mean and variance, the gradient equal to the mask, grad_fn names, in place and eval forms."""

import warnings

import numpy as np
import pytest
import torch

import ndgrad

from .errors import assert_raises_like_torch

F = "lib.nn.functional"
ERRORS = [
    f"{F}.{name}(lib.ones(2, 3, 4), {p})"
    for name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
    for p in (1.5, -0.1)
] + [
    f"{F}.dropout1d(lib.ones(2, 3, 4, 5), 0.5)",
    f"{F}.dropout1d(lib.ones(3), 0.5)",
    f"{F}.dropout2d(lib.ones(3), 0.5)",
    f"{F}.feature_alpha_dropout(lib.ones(3), 0.5, True)",
] + [  # no complex Bernoulli mask; no float scale into an integer input
    f"{F}.{name}(lib.ones(2, 3, 4, dtype=lib.{dtype}), 0.5, True)"
    for name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
    for dtype in ("complex128", "complex64", "int64", "bool")
]


@pytest.mark.filterwarnings("ignore:dropout2d")
@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


@pytest.mark.parametrize("call", [
    "dropout2d(lib.ones(2, 3, 4), 0.5)", "dropout2d(lib.ones(2, 3, 4, 5, 6), 0.5)", "dropout2d(lib.ones(2, 3), 0.5)",
    "dropout3d(lib.ones(2, 3, 4), 0.5)", "dropout3d(lib.ones(2, 3, 4, 5), 0.5)", "dropout2d(lib.ones(2, 3, 4, 5), 0.5)",
])
def test_warnings_match_torch(call):
    caught = []
    for lib in (ndgrad, torch):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            eval(f"lib.nn.functional.{call}", {"lib": lib})
        caught.append([(w.category, str(w.message), w.filename) for w in record])
    assert caught[0] == caught[1]  # the filename too: attributed to the caller, as torch's


@pytest.mark.parametrize(("name", "shape"), [("dropout", (2, 3)), ("dropout1d", (2, 3, 4)), ("dropout2d", (2, 3, 4, 5)),
                                             ("dropout3d", (2, 3, 4, 5, 6)), ("alpha_dropout", (2, 3)),
                                             ("feature_alpha_dropout", (2, 3, 4))])
def test_identity_cases_return_the_input(name, shape):
    x = ndgrad.ones(*shape, requires_grad=True)
    function = getattr(ndgrad.nn.functional, name)
    assert function(x, 0.5, training=False) is x
    assert function(x, 0.0, training=True) is x


def draw(name, p, shape, **kwargs):
    ndgrad.manual_seed(0)
    x = ndgrad.from_numpy(np.random.default_rng(0).standard_normal(shape)).requires_grad_()
    out = getattr(ndgrad.nn.functional, name)(x, p, training=True, **kwargs)
    (grad,) = ndgrad.autograd.grad(out.sum(), x)
    return x.detach().numpy(), out.detach().numpy(), grad.numpy(), type(out.grad_fn).__name__


@pytest.mark.parametrize(("name", "shape", "planes"), [
    ("dropout", (200, 50), None), ("dropout1d", (400, 25, 3), 2), ("dropout1d", (10000, 3), 1),
    ("dropout2d", (100, 100, 2, 3), 2), ("dropout3d", (100, 100, 2, 1, 3), 2), ("dropout3d", (10000, 2, 2, 1), 1),
])
def test_dropout_zeroes_elements_or_channels_with_probability_p(name, shape, planes):
    x, out, grad, node = draw(name, 0.3, shape)
    assert node == ("SqueezeBackward1" if planes == 1 else "MulBackward0")
    zero = out == 0
    np.testing.assert_allclose(out[~zero], x[~zero] / 0.7)
    np.testing.assert_array_equal(grad, np.where(zero, 0.0, 1 / 0.7))  # the gradient is the mask
    if planes is not None:  # a channel is dropped whole: every element of a plane shares its fate
        per_plane = zero.reshape(zero.shape[:planes] + (-1,))
        assert (per_plane.all(-1) == per_plane.any(-1)).all()
        zero = per_plane[..., 0]
    assert abs(zero.mean() - 0.3) < 0.02  # at least 10,000 draws: the standard error is at most 0.005


@pytest.mark.parametrize(("name", "shape"), [("alpha_dropout", (200, 100)), ("feature_alpha_dropout", (500, 40, 5))])
def test_alpha_dropout_keeps_mean_and_variance(name, shape):
    x, out, grad, node = draw(name, 0.2, shape)
    assert node == "AddBackward0"
    alpha = 1.7580993408473766
    scale = 1 / np.sqrt((alpha * alpha * 0.2 + 1) * 0.8)
    dropped = np.isclose(out, -alpha * scale * 0.8)  # a dropped unit takes SELU's saturation value, affinely mapped
    np.testing.assert_allclose(out[~dropped], x[~dropped] * scale + alpha * scale * 0.2)
    np.testing.assert_array_equal(grad, np.where(dropped, 0.0, scale))
    assert abs(dropped.mean() - 0.2) < 0.02
    assert abs(out.mean()) < 0.03 and abs(out.var() - 1) < 0.05  # standard normal in, standard normal out


@pytest.mark.parametrize("name", ["dropout", "dropout2d", "alpha_dropout", "feature_alpha_dropout"])
def test_probability_one(name):
    for lib in (ndgrad, torch):
        x = lib.ones(2, 3, 4, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = getattr(lib.nn.functional, name)(x, 1.0, training=True)
        assert type(out.grad_fn).__name__ == "MulBackward0" and not out.detach().numpy().any()


@pytest.mark.parametrize(("name", "shape"), [("dropout", (4, 5)), ("dropout1d", (4, 5)), ("dropout2d", (2, 4, 3, 3)),
                                             ("dropout3d", (4, 2, 3, 3)), ("alpha_dropout", (4, 5))])
def test_in_place(name, shape):
    ndgrad.manual_seed(1)
    x = ndgrad.ones(*shape)
    out = getattr(ndgrad.nn.functional, name)(x, 0.5, training=True, inplace=True)
    assert out is x and tuple(x.shape) == shape and len(np.unique(x.numpy())) == 2
