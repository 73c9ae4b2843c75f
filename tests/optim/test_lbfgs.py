"""LBFGS against torch on the Rosenbrock function: iterates, returned losses, evaluation counts and the state it
keeps, with and without the strong-Wolfe line search, short histories, early stops and a checkpoint reload."""

import copy

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .oracle import TRAJECTORY, assert_same_structure

START = [-1.5, 2.0, 0.5, -0.3, 1.2]


def rosenbrock(x):
    return ((1 - x[:-1]) ** 2).sum() + (100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def descend(lib, options, steps=6, dtype="float64", reload_at=None, with_idle_param=False):
    x = lib.tensor(START, dtype=getattr(lib, dtype), requires_grad=True)
    params = [x, lib.zeros(2, dtype=getattr(lib, dtype), requires_grad=True)] if with_idle_param else [x]
    optimizer = lib.optim.LBFGS(params, **options)

    def closure():
        optimizer.zero_grad()
        loss = rosenbrock(x)
        loss.backward()
        return loss

    iterates, losses = [], []
    for step in range(steps):
        losses.append(optimizer.step(closure).item())
        iterates.append(x.detach().numpy().copy())
        if step == reload_at:
            saved = copy.deepcopy(optimizer.state_dict())
            optimizer = lib.optim.LBFGS(params, **options)
            optimizer.load_state_dict(saved)
    return np.array(iterates), np.array(losses), optimizer


OPTIONS = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"history_size": 3, "max_iter": 7, "lr": 0.5},
    {"line_search_fn": "strong_wolfe", "history_size": 2, "max_iter": 30},
    {"max_iter": 4, "max_eval": 3},
    {"line_search_fn": "strong_wolfe", "max_eval": 8},
    {"tolerance_grad": 50.0},
    {"tolerance_change": 1e-2},
    {"lr": ndgrad.tensor(0.8)},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: ",".join(f"{k}={v}" for k, v in options.items()))
def test_rosenbrock_matches_torch(options):
    theirs = {key: torch.tensor(value.item()) if isinstance(value, ndgrad.Tensor) else value
              for key, value in options.items()}
    expected_iterates, expected_losses, torch_optimizer = descend(torch, theirs)
    iterates, losses, optimizer = descend(ndgrad, options)
    assert_close(iterates, expected_iterates, **TRAJECTORY)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-9)
    # NOTE: near the minimum the curvature pairs are differences of nearly equal gradients (y = g' - g, s ~ 1e-7)
    # and ro = 1 / <y, s> ~ 1e8: the last-bit differences between CPUs' kernels grow to ~3e-6 relative in ro and al
    # (measured), while the iterates still agree to 1e-10. A wrong update is off by O(1), so 1e-4 still catches it.
    assert_same_structure(optimizer.state_dict(), torch_optimizer.state_dict(), tolerance=1e-4)


def test_float32_and_a_parameter_without_gradient():
    # NOTE: Rosenbrock is ill-conditioned: float32 dot products that round differently part ways after a few
    # iterations, so this compares short runs. Across CPU kernels the second step still agrees to 0.3% of the
    # tolerance, the third to 50-100% of it (measured): two steps.
    options = {"line_search_fn": "strong_wolfe", "max_iter": 5}
    expected_iterates, _, torch_optimizer = descend(torch, options, steps=2, dtype="float32", with_idle_param=True)
    iterates, _, optimizer = descend(ndgrad, options, steps=2, dtype="float32", with_idle_param=True)
    assert iterates.dtype == np.float32
    assert_close(iterates, expected_iterates)
    assert_same_structure(optimizer.state_dict()["param_groups"], torch_optimizer.state_dict()["param_groups"])


@pytest.mark.parametrize("options", [{"history_size": 4}, {"line_search_fn": "strong_wolfe", "history_size": 3}])
def test_checkpoint_reload_continues_the_same_descent(options):
    expected_iterates, _, _ = descend(torch, options, steps=5, reload_at=1)
    iterates, _, optimizer = descend(ndgrad, options, steps=5, reload_at=1)
    assert_close(iterates, expected_iterates, **TRAJECTORY)


def test_unknown_line_search(same):
    same("""
x = torch.tensor([1., 2.], requires_grad=True)
opt = torch.optim.LBFGS([x], line_search_fn='armijo')
def closure():
    opt.zero_grad()
    loss = (x ** 2).sum()
    loss.backward()
    return loss
opt.step(closure)
""")


def test_state_after_a_step(same):
    same("""
x = torch.tensor([1., -2.], requires_grad=True)
opt = torch.optim.LBFGS([x], max_iter=3)
def closure():
    opt.zero_grad()
    loss = (x ** 4).sum() + x.prod()
    loss.backward()
    return loss
print(opt.step(closure))
state = opt.state[x]
print(sorted(state), state['func_evals'], state['n_iter'], type(state['t']).__name__, type(state['H_diag']).__name__)
print(state['d'], state['ro'], state['old_dirs'], state['al'][:2], state['prev_loss'])
""")
