"""trapezoid and trapz against torch: values and gradients with spacing dx or sample points x (1-d, broadcast
and full), integer and empty inputs, and torch's errors."""

import numpy as np
import pytest
import torch

import ndgrad

RNG = np.random.default_rng(1)
Y = RNG.standard_normal((3, 5))
CASES = {  # keyword arguments, as numpy arrays for tensors
    "default": {},
    "dx": {"dx": 0.3},
    "dx dim 0": {"dx": 2, "dim": 0},
    "1-d x": {"x": np.sort(RNG.standard_normal(5))},
    "1-d x dim 0": {"x": np.sort(RNG.standard_normal(3)), "dim": 0},
    "broadcast x": {"x": RNG.standard_normal((1, 5))},
    "full x": {"x": RNG.standard_normal((3, 5))},
}


def _arguments(library, case):
    return {k: library.tensor(v, requires_grad=True) if isinstance(v, np.ndarray) else v for k, v in case.items()}


@pytest.mark.parametrize("name", ["trapezoid", "trapz"])
@pytest.mark.parametrize("case", CASES)
def test_values_and_gradients_are_torchs(name, case):
    y, ty = ndgrad.tensor(Y, requires_grad=True), torch.tensor(Y, requires_grad=True)
    ours_args, their_args = _arguments(ndgrad, CASES[case]), _arguments(torch, CASES[case])
    ours, theirs = getattr(ndgrad, name)(y, **ours_args), getattr(torch, name)(ty, **their_args)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12)
    if "x" in ours_args:
        np.testing.assert_allclose(ours_args["x"].grad.numpy(), their_args["x"].grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("call", [
    lambda t: t.trapezoid(t.arange(6).reshape(2, 3)),
    lambda t: t.trapezoid(t.arange(6).reshape(2, 3), t.arange(3)),
    lambda t: t.trapezoid(t.zeros(2, 0), dim=1),
    lambda t: t.trapz(t.arange(4.0), dx=2),
], ids=["integer y", "integer x", "empty", "trapz dx"])
def test_dtypes_and_shapes_are_torchs(call):
    ours, theirs = call(ndgrad), call(torch)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


def _message(library, call):
    try:
        call(library)
    except Exception as error:  # noqa: BLE001 (the type is compared too)
        return type(error).__name__, str(error)
    return None


@pytest.mark.parametrize("call", [
    lambda t: t.trapezoid(t.ones(3, dtype=t.bool)),
    lambda t: t.trapezoid(t.ones(3), t.ones(3, dtype=t.bool)),
    lambda t: t.trapezoid(t.ones(3), dx=True),
    lambda t: t.trapezoid(t.ones(3), t.ones(4)),
    lambda t: t.trapezoid(t.ones(3, 4), t.ones(2, 4)),
    lambda t: t.trapezoid(t.ones(3), dim=2),
], ids=["bool y", "bool x", "bool dx", "x length", "x shape", "dim"])
def test_errors_are_torchs(call):
    theirs = _message(torch, call)
    assert theirs is not None
    assert _message(ndgrad, call) == theirs
