"""F.layer_norm, F.batch_norm, F.group_norm, F.instance_norm, F.normalize, F.rms_norm and F.local_response_norm:
torch's errors, the running statistics batch_norm and instance_norm update in place, and the composite forms
(normalize, instance_norm, rms_norm, local_response_norm) against torch."""

import itertools

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad.autograd import gradcheck, gradgradcheck

from .composites import assert_like_torch
from .errors import assert_raises_like_torch, raised

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
    f"{F}.batch_norm(lib.ones(2, 3), lib.zeros(3), lib.ones(3), training=True, momentum=None)",
    f"{F}.batch_norm(lib.ones(2, 3), lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64))",
    f"{F}.batch_norm(lib.ones(2, 3), lib.zeros(3), lib.ones(3, dtype=lib.float64), training=True)",
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
    assert_close(ours, theirs)
    for a, b in zip(ours_g, theirs_g):
        assert_close(a, b)
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
        assert_close(a, b)


# 1 / 3: the cumulative average nn.BatchNorm asks for with momentum=None, on its third batch; 1: the batch's own
@pytest.mark.parametrize("shape, momentum", [((4, 3), 0.1), ((2, 3, 5), 0.5), ((4, 3), 1 / 3), ((2, 3, 2), 1.0),
                                             ((4, 3), 0)])
def test_batch_norm_updates_running_statistics(shape, momentum):
    x = np.random.default_rng(0).standard_normal(shape)
    results = []
    for lib in (ndgrad, torch):
        mean, var = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        out = lib.nn.functional.batch_norm(lib.from_numpy(x.copy()), mean, var, training=True, momentum=momentum)
        results.append((out.numpy().copy(), mean.numpy().copy(), var.numpy().copy()))
    for a, b in zip(*results):
        assert_close(a, b)


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
        assert_close(a, b)


def test_batch_norm_argument_checks_match_torch_in_every_combination():
    """Which check fires first (eval-mode statistics, sizes, both-or-neither, the dtypes) for every mix of float32,
    float64 and missing running statistics and affine parameters, in training and evaluation."""
    for shape, combination, training in itertools.product([(2, 3), (2, 4), (1, 3)],
                                                           itertools.product("fd-", repeat=4), (True, False)):
        def call(lib, shape=shape, combination=combination, training=training):
            made = [None if c == "-" else lib.ones(3, dtype=lib.float32 if c == "f" else lib.float64)
                    for c in combination]
            return lib.nn.functional.batch_norm(lib.ones(*shape), *made, training=training)

        assert raised(call, ndgrad) == raised(call, torch), (shape, combination, training)


@pytest.mark.parametrize("input_dtype", ["float32", "float64", "complex128"])
def test_mixed_dtype_checks_match_torch(input_dtype):
    """The "mixed dtype" wording of layer_norm, group_norm and batch_norm for every mix of parameter dtypes."""
    functions = [lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (3,), w, b),
                 lambda lib, x, w, b: lib.nn.functional.group_norm(x, 1, w, b),
                 lambda lib, x, w, b: lib.nn.functional.batch_norm(x, lib.ones(3), lib.ones(3), w, b, training=True),
                 lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, training=True)]
    dtypes = ("float32", "float64", "complex128", None)
    for function, weight, bias in itertools.product(functions, dtypes, dtypes):
        def call(lib, function=function, weight=weight, bias=bias):
            made = [None if d is None else lib.ones(3, dtype=getattr(lib, d)) for d in (weight, bias)]
            return function(lib, lib.ones(2, 3, dtype=getattr(lib, input_dtype)), *made)

        assert raised(call, ndgrad) == raised(call, torch), (weight, bias)


@pytest.mark.parametrize("call", [
    f"{F}.rms_norm(lib.ones(2, 3, 4), (3,))",
    f"{F}.rms_norm(lib.ones(2, 3, 4), (4,), lib.ones(3))",
    f"{F}.rms_norm(lib.ones(2, 3, 4), ())",
    f"{F}.rms_norm(lib.ones(2, 3, 4), 4)",
    f"{F}.rms_norm(lib.ones(2, 3, 4).long(), (4,))",
    f"{F}.local_response_norm(lib.ones(2, 3), 2)",
])
def test_composite_errors_like_torch(call):
    assert_raises_like_torch(call)


RNG = np.random.default_rng(7)
COMPOSITES = [
    ("rms_norm", (RNG.standard_normal((2, 3, 4)),), lambda lib, x: lib.nn.functional.rms_norm(x, (4,))),
    ("rms_norm_weight", (RNG.standard_normal((3, 2, 2)), RNG.standard_normal((2, 2))),
     lambda lib, x, w: lib.nn.functional.rms_norm(x, [2, 2], w, eps=1e-3)),
    ("rms_norm_tiny", (RNG.standard_normal((2, 3)), RNG.standard_normal(3)),
     lambda lib, x, w: lib.nn.functional.rms_norm(x, (3,), w)),
    ("local_response_norm_3d", (RNG.standard_normal((2, 5, 3)),),
     lambda lib, x: lib.nn.functional.local_response_norm(x, 3, alpha=0.5, beta=0.6, k=2.0)),
    ("local_response_norm_4d", (RNG.standard_normal((2, 4, 2, 2)),),
     lambda lib, x: lib.nn.functional.local_response_norm(x, 2)),
    ("local_response_norm_5d", (RNG.standard_normal((1, 3, 2, 2, 2)),),
     lambda lib, x: lib.nn.functional.local_response_norm(x, 4, alpha=0.3)),
    ("local_response_norm_tiny", (RNG.standard_normal((1, 4, 3)),),
     lambda lib, x: lib.nn.functional.local_response_norm(x, 2, alpha=0.9)),
]


@pytest.mark.parametrize(("inputs", "call"), [c[1:] for c in COMPOSITES], ids=[c[0] for c in COMPOSITES])
def test_composites_match_torch(inputs, call):
    """rms_norm and local_response_norm are composites: values, grad_fn and derivatives as torch's."""
    assert_like_torch(call, *inputs)
