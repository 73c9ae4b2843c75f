"""Forward mode for every op in OP_TABLE: the tangent of the output against torch's forward AD, against central
finite differences, and against the op's own VJP through the identity <u, J v> = <J^T u, v> (for complex
tensors <a, b> is Re(sum(conj(a) b)), which pairs the conjugate Wirtinger gradient with a tangent)."""

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as torch_forward
from tests.closeness import assert_close

import ndgrad
import ndgrad.autograd.forward_ad as forward
from ndgrad.ops import OP_TABLE

from . import exceptions
from .samples import first, random_like, samples_for


def cases(test, tiny=False):
    return [
        pytest.param(op, case, id=f"{op.__name__}-{i}: {case}", marks=exceptions.marks(op, test, case))
        for op in OP_TABLE
        for i, case in enumerate(samples_for(op))
        if case.smooth or test == "test_jvp_matches_torch"
        if not tiny or case.is_tiny()
    ]


def directions(case, seed=3):
    """One random tangent per differentiable input (complex for a complex input)."""
    rng = np.random.default_rng(seed)
    return [random_like(rng, i.shape, i.base.dtype) for i in case.inputs if not i.fixed]


def as_numpy(tensor):
    return np.array(tensor.detach().resolve_conj().numpy())


def inner(a, b):
    """The real inner product Re(sum(conj(a) b)) that pairs a cotangent with a tangent, real or complex."""
    return float(np.real(np.sum(np.conj(a) * b)))


def tangent_of(lib, fw, case, tangents):
    """The output's tangent when the differentiable inputs carry ``tangents`` (float64)."""
    inputs = case.tensors(lib, np.float64, requires_grad=False)
    with fw.dual_level():
        duals, given = [], iter(tangents)
        for tensor, item in zip(inputs, case.inputs):
            duals.append(tensor if item.fixed else fw.make_dual(tensor, lib.from_numpy(next(given).copy())))
        out = first(case.run(lib, tuple(duals)))
        result = fw.unpack_dual(out)
        tangent = None if result.tangent is None else as_numpy(result.tangent)
        return as_numpy(result.primal), tangent


@pytest.mark.parametrize("op, case", cases("test_jvp_matches_torch"))
def test_jvp_matches_torch(op, case):
    tangents = directions(case)
    try:
        _, expected = tangent_of(torch, torch_forward, case, tangents)
    except (NotImplementedError, RuntimeError) as error:
        pytest.skip(f"torch has no forward AD here ({str(error)[:60]}); the other two checks stand")
    if expected is None:
        pytest.skip("torch gives no tangent here; the other two checks stand")
    _, ours = tangent_of(ndgrad, forward, case, tangents)
    assert_close(ours, expected, **exceptions.tolerance(op))


@pytest.mark.parametrize("op, case", cases("test_jvp_finite_differences", tiny=True))
def test_jvp_finite_differences(op, case):
    """J v against (f(x + eps v) - f(x - eps v)) / 2 eps, in float64."""
    tangents, eps = directions(case), 1e-6

    def value(step):
        shifted, given = [], iter(tangents)
        for item in case.inputs:
            array = item.array(np.float64)
            shifted.append(ndgrad.from_numpy(array if item.fixed else np.asarray(array + step * next(given))))
        with ndgrad.no_grad():
            out = as_numpy(first(case.run(ndgrad, tuple(shifted))))
            return out.astype(np.promote_types(out.dtype, np.float64))

    numerical = (value(eps) - value(-eps)) / (2 * eps)
    _, ours = tangent_of(ndgrad, forward, case, tangents)
    np.testing.assert_allclose(ours if ours is not None else np.zeros_like(numerical), numerical, rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("op, case", cases("test_jvp_agrees_with_vjp"))
def test_jvp_agrees_with_vjp(op, case):
    """<u, J v> from forward mode equals <J^T u, v> from backward mode (checked against torch elsewhere)."""
    tangents = directions(case)
    primal, jv = tangent_of(ndgrad, forward, case, tangents)
    u = random_like(np.random.default_rng(4), primal.shape, primal.dtype)
    inputs = case.tensors(ndgrad, np.float64)
    out = first(case.run(ndgrad, inputs))
    grads = ndgrad.autograd.grad(out, case.differentiable(inputs), ndgrad.from_numpy(u.copy()), allow_unused=True)
    backward = sum(inner(as_numpy(g), v) for g, v in zip(grads, tangents) if g is not None)
    forward_value = inner(u, jv) if jv is not None else 0.0
    assert forward_value == pytest.approx(backward, rel=1e-7, abs=1e-9)
