"""LBFGS against torch on the Rosenbrock function: iterates, returned losses, evaluation counts and the state it
keeps, with and without the strong-Wolfe line search, short histories, early stops and a checkpoint reload."""

import copy

import numpy as np
import pytest
import torch

import ndgrad

from .oracle import assert_same_structure

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
    np.testing.assert_allclose(iterates, expected_iterates, rtol=0, atol=1e-6)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-9)
    assert_same_structure(optimizer.state_dict(), torch_optimizer.state_dict())


def test_float32_and_a_parameter_without_gradient():
    # NOTE: Rosenbrock is ill-conditioned: float32 dot products that round differently part ways after a few
    # iterations, so this compares short runs.
    options = {"line_search_fn": "strong_wolfe", "max_iter": 5}
    expected_iterates, _, torch_optimizer = descend(torch, options, steps=3, dtype="float32", with_idle_param=True)
    iterates, _, optimizer = descend(ndgrad, options, steps=3, dtype="float32", with_idle_param=True)
    assert iterates.dtype == np.float32
    np.testing.assert_allclose(iterates, expected_iterates, rtol=1e-4, atol=1e-4)
    assert_same_structure(optimizer.state_dict()["param_groups"], torch_optimizer.state_dict()["param_groups"])


@pytest.mark.parametrize("options", [{"history_size": 4}, {"line_search_fn": "strong_wolfe", "history_size": 3}])
def test_checkpoint_reload_continues_the_same_descent(options):
    expected_iterates, _, _ = descend(torch, options, steps=5, reload_at=1)
    iterates, _, optimizer = descend(ndgrad, options, steps=5, reload_at=1)
    np.testing.assert_allclose(iterates, expected_iterates, rtol=0, atol=1e-6)


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
