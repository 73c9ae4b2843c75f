"""F.layer_norm, F.batch_norm, F.group_norm, F.instance_norm and F.normalize: torch's errors, the running statistics
batch_norm and instance_norm update in place, and the composite forms (normalize, instance_norm) against torch."""

import numpy as np
import pytest
import torch

import ndgrad
from ndgrad.autograd import gradcheck, gradgradcheck

from .errors import assert_raises_like_torch

F = "lib.nn.functional"


@pytest.mark.parametrize("call", [
    f"{F}.layer_norm(lib.ones(2, 3), (4,))",
    f"{F}.layer_norm(lib.ones(2, 3), (3,), lib.ones(4))",
    f"{F}.layer_norm(lib.ones(2, 3), (3,), None, lib.ones(2))",
    f"{F}.layer_norm(lib.ones(2, 3), 3)",
    f"{F}.layer_norm(lib.ones(2, 3), ())",
    f"{F}.layer_norm(lib.ones(2, 3), (3,), lib.ones(3, dtype=lib.float64))",
    f"{F}.batch_norm(lib.ones(1, 3), None, None, training=True)",
    f"{F}.batch_norm(lib.ones(2, 3), lib.ones(4), lib.ones(3))",
    f"{F}.batch_norm(lib.ones(2, 3), None, None)",
    f"{F}.batch_norm(lib.ones(3), None, None, training=True)",
    f"{F}.batch_norm(lib.ones(2, 3), None, None, lib.ones(3, dtype=lib.float64), training=True)",
    f"{F}.group_norm(lib.ones(2, 3, 4), 2)",
    f"{F}.group_norm(lib.ones(2, 4, 4), 2, lib.ones(3))",
    f"{F}.group_norm(lib.ones(2, 4, 3), 2, lib.ones(4, dtype=lib.float64))",
])
def test_errors_like_torch(call):
    assert_raises_like_torch(call)


def check(fn, *shapes, seed=0):
    """Values, grad_fn name and the VJP against torch; gradcheck and gradgradcheck on ndgrad alone."""
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-2.0, 2.0, s) for s in shapes]
    results = []
    for lib in (ndgrad, torch):
        tensors = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
        out = fn(lib, *tensors)
        cotangent = lib.from_numpy(np.random.default_rng(1).standard_normal(tuple(out.shape)))
        grads = lib.autograd.grad(out, tensors, cotangent)
        results.append((type(out.grad_fn).__name__, out.detach().numpy().copy(), [g.numpy().copy() for g in grads]))
    (ours_name, ours, ours_g), (theirs_name, theirs, theirs_g) = results
    assert ours_name == theirs_name
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)
    for a, b in zip(ours_g, theirs_g):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    inputs = [ndgrad.from_numpy(a.copy()).requires_grad_() for a in arrays]
    assert gradcheck(lambda *t: fn(ndgrad, *t), inputs)
    assert gradgradcheck(lambda *t: fn(ndgrad, *t), inputs)


@pytest.mark.parametrize("kwargs", [{}, {"p": 1.0, "dim": 0}, {"p": 3.0, "dim": -1}])
def test_normalize(kwargs):
    check(lambda lib, x: lib.nn.functional.normalize(x, **kwargs), (3, 4))


def test_layer_norm_with_bias_only():
    """torch cannot take a second derivative here (an undefined weight), so the table leaves this form out."""
    rng = np.random.default_rng(0)
    x, b, cotangent = rng.standard_normal((2, 3)), rng.standard_normal(3), rng.standard_normal((2, 3))
    results = []
    for lib in (ndgrad, torch):
        xt, bt = lib.from_numpy(x.copy()).requires_grad_(), lib.from_numpy(b.copy()).requires_grad_()
        out = lib.nn.functional.layer_norm(xt, [3], None, bt)
        grads = lib.autograd.grad(out, (xt, bt), lib.from_numpy(cotangent.copy()))
        results.append([out.detach().numpy().copy()] + [g.numpy().copy() for g in grads])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("shape, momentum", [((4, 3), 0.1), ((2, 3, 5), 0.5)])
def test_batch_norm_updates_running_statistics(shape, momentum):
    x = np.random.default_rng(0).standard_normal(shape)
    results = []
    for lib in (ndgrad, torch):
        mean, var = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        out = lib.nn.functional.batch_norm(lib.from_numpy(x.copy()), mean, var, training=True, momentum=momentum)
        results.append((out.numpy().copy(), mean.numpy().copy(), var.numpy().copy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("affine", [False, True])
def test_instance_norm(affine):
    if affine:
        check(lambda lib, x, w, b: lib.nn.functional.instance_norm(x, weight=w, bias=b), (2, 3, 4), (3,), (3,))
    else:
        check(lambda lib, x: lib.nn.functional.instance_norm(x), (2, 3, 4))


def test_instance_norm_running_statistics():
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    results = []
    for lib in (ndgrad, torch):
        mean, var = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        out = lib.nn.functional.instance_norm(lib.from_numpy(x.copy()), mean, var, momentum=0.3)
        evaluated = lib.nn.functional.instance_norm(lib.from_numpy(x.copy()), mean, var, use_input_stats=False)
        results.append((out.numpy().copy(), mean.numpy().copy(), var.numpy().copy(), evaluated.numpy().copy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
