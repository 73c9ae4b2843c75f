"""Every optimizer, and every option that changes its math, follows torch's trajectory over 50 steps from the same
weights on the same gradients (float64 to 1e-6 here, in practice to rounding), alone and in parameter groups."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad

from .oracle import STEPS, TRAJECTORY, both, case_id

OPTIONS = {
    "SGD": [
        {"lr": 0.1}, {"lr": 0.1, "momentum": 0.9}, {"lr": 0.1, "momentum": 0.9, "dampening": 0.5},
        {"lr": 0.1, "momentum": 0.9, "nesterov": True}, {"lr": 0.1, "weight_decay": 0.1},
        {"lr": 0.1, "maximize": True}, {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.2,
                                        "maximize": True},
        {"tensor_lr": 0.1, "momentum": 0.5}, {"lr": 0.1, "momentum": 0.9, "fused": True},
        {"lr": 0.1, "momentum": 0.9, "foreach": True},
    ],
    "Adam": [
        {}, {"lr": 0.1}, {"lr": 0.1, "amsgrad": True}, {"lr": 0.1, "weight_decay": 0.1},
        {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}, {"lr": 0.1, "maximize": True},
        {"lr": 0.1, "betas": (0.5, 0.9), "eps": 1e-3}, {"tensor_lr": 0.05},
        {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1, "maximize": True, "fused": True},
        {"lr": 0.1, "amsgrad": True, "foreach": True},
    ],
    "AdamW": [
        {"lr": 0.1}, {"lr": 0.1, "amsgrad": True}, {"lr": 0.1, "weight_decay": 0.5, "maximize": True},
        {"lr": 0.1, "weight_decay": 0}, {"lr": 0.1, "fused": True},
    ],
    "RMSprop": [
        {}, {"lr": 0.05, "alpha": 0.9}, {"lr": 0.05, "centered": True}, {"lr": 0.01, "momentum": 0.9},
        {"lr": 0.05, "weight_decay": 0.1, "eps": 1e-3}, {"lr": 0.05, "maximize": True},
        {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1, "maximize": True},
    ],
    "Adagrad": [
        {}, {"lr": 0.1, "lr_decay": 0.05}, {"lr": 0.1, "initial_accumulator_value": 0.5},
        {"lr": 0.1, "weight_decay": 0.1}, {"lr": 0.1, "maximize": True, "eps": 1e-3}, {"lr": 0.1, "fused": True},
    ],
    "Adadelta": [
        {}, {"lr": 0.5, "rho": 0.5}, {"weight_decay": 0.1, "eps": 1e-3}, {"maximize": True},
    ],
    "Adamax": [
        {}, {"lr": 0.1, "betas": (0.5, 0.8)}, {"lr": 0.1, "weight_decay": 0.1}, {"lr": 0.1, "maximize": True},
        {"lr": 0.1, "eps": 0.5},
    ],
    "NAdam": [
        {}, {"lr": 0.1, "momentum_decay": 0.05}, {"lr": 0.1, "weight_decay": 0.1},
        {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}, {"lr": 0.1, "maximize": True},
        {"lr": 0.1, "betas": (0.5, 0.9)},
    ],
    "RAdam": [
        {}, {"lr": 0.1, "betas": (0.5, 0.9)}, {"lr": 0.1, "weight_decay": 0.1},
        {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}, {"lr": 0.1, "maximize": True},
        {"lr": 0.1, "betas": (0.9, 0.5)},  # rho_t never exceeds 5: the unrectified branch throughout
    ],
}
CASES = [(name, options) for name, option_list in OPTIONS.items() for options in option_list]

# Two groups per optimizer, each with its own options, sharing the optimizer's defaults otherwise.
GROUPS = {
    "SGD": ({"momentum": 0.9, "nesterov": True}, {"lr": 0.3, "weight_decay": 0.1, "maximize": True}),
    "Adam": ({"amsgrad": True}, {"lr": 0.3, "betas": (0.8, 0.99), "weight_decay": 0.1}),
    "AdamW": ({"weight_decay": 0.3}, {"lr": 0.01, "amsgrad": True}),
    "RMSprop": ({"centered": True}, {"momentum": 0.7, "lr": 0.001}),
    "Adagrad": ({"lr_decay": 0.1}, {"lr": 0.5, "initial_accumulator_value": 2.0}),
    "Adadelta": ({"rho": 0.5}, {"lr": 0.1, "weight_decay": 0.2}),
    "Adamax": ({"betas": (0.5, 0.6)}, {"lr": 0.01, "maximize": True}),
    "NAdam": ({"momentum_decay": 0.1}, {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    "RAdam": ({"weight_decay": 0.1}, {"lr": 0.2, "betas": (0.8, 0.9)}),
}


@pytest.mark.parametrize("case", CASES, ids=map(case_id, CASES))
def test_trajectory_matches_torch(case):
    name, options = case
    expected, actual, torch_optimizer, ndgrad_optimizer = both(name, options)
    assert expected.shape == (STEPS, 18)
    assert_close(actual, expected, **TRAJECTORY)
    assert len(ndgrad_optimizer.state) == len(torch_optimizer.state)  # e.g. plain SGD keeps no state at all


@pytest.mark.parametrize("name", GROUPS)
def test_parameter_groups_with_their_own_options(name):
    first, second = GROUPS[name]
    groups = [((0,), first), ((1, 2), second)]
    expected, actual, torch_optimizer, ndgrad_optimizer = both(name, {"lr": 0.05}, groups=groups)
    assert_close(actual, expected, **TRAJECTORY)
    assert [sorted(group) for group in ndgrad_optimizer.param_groups] == [
        sorted(group) for group in torch_optimizer.param_groups
    ]


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "NAdam"])
def test_float32_parameters(name):
    options = {"lr": 0.05, "momentum": 0.9} if name in ("SGD", "RMSprop") else {"lr": 0.05}
    expected, actual, _, _ = both(name, options, dtype="float32")
    assert actual.dtype == expected.dtype == np.float32
    assert_close(actual, expected)


def _descend_smooth_loss(lib, name, options):
    """Minimise a smooth non-convex loss through backward() and zero_grad(), as a training loop does."""
    weights = lib.tensor([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]], dtype=lib.float64, requires_grad=True)
    bias = lib.tensor([0.3, -0.2], dtype=lib.float64, requires_grad=True)
    optimizer = getattr(lib.optim, name)([weights, bias], **options)
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = (weights**4).sum() * 0.25 - (weights * weights).sum() + (weights.sin() * bias.unsqueeze(1)).sum()
        loss = loss + (bias * bias).sum()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.array(losses), weights.detach().numpy(), bias.detach().numpy()


@pytest.mark.parametrize("name", list(OPTIONS))
def test_training_loop_on_a_smooth_loss(name):
    options = {"lr": 0.02} if name != "Adadelta" else {}
    for ours, theirs in zip(_descend_smooth_loss(ndgrad, name, options), _descend_smooth_loss(torch, name, options)):
        assert_close(ours, theirs, **TRAJECTORY)


@pytest.mark.parametrize("name", list(OPTIONS))
def test_complex_parameters(name):
    """Complex parameters are updated as torch does: the nonlinear rules act on real and imaginary parts apart."""
    rng = np.random.default_rng(1)
    init = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    grads = [rng.standard_normal(4) + 1j * rng.standard_normal(4) for _ in range(20)]
    options = {"lr": 0.05, "weight_decay": 0.1} if name != "Adadelta" else {}
    results = []
    for lib in (torch, ndgrad):
        param = lib.tensor(init, requires_grad=True)
        optimizer = getattr(lib.optim, name)([param], **options)
        for grad in grads:
            param.grad = lib.tensor(grad)
            optimizer.step()
        results.append(param.detach().numpy())
    assert_close(results[1], results[0], **TRAJECTORY)


_UNIT = st.floats(0.0, 0.99)
_DRAWN_OPTIONS = {
    "SGD": st.fixed_dictionaries({"lr": st.floats(0, 1), "momentum": _UNIT, "dampening": _UNIT,
                                  "weight_decay": _UNIT, "maximize": st.booleans()}),
    "Adam": st.fixed_dictionaries({"lr": st.floats(0, 1), "betas": st.tuples(_UNIT, _UNIT),
                                   "eps": st.floats(1e-8, 1), "weight_decay": _UNIT, "amsgrad": st.booleans(),
                                   "maximize": st.booleans(), "decoupled_weight_decay": st.booleans()}),
    # alpha near 0 makes centered RMSprop take the root of a cancelling difference: rounding, amplified
    "RMSprop": st.fixed_dictionaries({"lr": st.floats(0, 0.1), "alpha": st.floats(0.5, 0.99), "eps": st.floats(1e-8, 1),
                                      "momentum": _UNIT, "centered": st.booleans(), "weight_decay": _UNIT}),
    "NAdam": st.fixed_dictionaries({"lr": st.floats(0, 1), "betas": st.tuples(_UNIT, _UNIT),
                                    "momentum_decay": st.floats(0, 0.1), "weight_decay": _UNIT,
                                    "decoupled_weight_decay": st.booleans()}),
    "RAdam": st.fixed_dictionaries({"lr": st.floats(0, 1), "betas": st.tuples(_UNIT, _UNIT),
                                    "weight_decay": _UNIT, "decoupled_weight_decay": st.booleans()}),
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(_DRAWN_OPTIONS)).flatmap(lambda name: st.tuples(st.just(name), _DRAWN_OPTIONS[name])))
def test_drawn_options(case):
    name, options = case
    expected, actual, _, _ = both(name, options, steps=10)
    assert_close(actual, expected)
