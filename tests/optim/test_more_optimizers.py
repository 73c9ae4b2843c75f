"""ASGD, Rprop and Adafactor follow torch's 50-step trajectories from the same weights on the same gradients, in
parameter groups, through a state_dict round trip and on complex parameters; their state dicts and argument
errors are torch's."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad

from .oracle import TRAJECTORY, assert_same_structure, both, case_id

OPTIONS = {
    "ASGD": [
        {}, {"lr": 0.1}, {"lr": 0.1, "t0": 10}, {"lr": 0.1, "t0": 0, "lambd": 0.1, "alpha": 0.5},
        {"lr": 0.1, "weight_decay": 0.1}, {"lr": 0.1, "maximize": True, "t0": 5}, {"tensor_lr": 0.05, "t0": 3},
    ],
    "Rprop": [
        {}, {"lr": 0.1}, {"lr": 0.1, "etas": (0.3, 1.5)}, {"lr": 0.1, "step_sizes": (0.01, 0.2)},
        {"lr": 0.1, "maximize": True}, {"tensor_lr": 0.05},
    ],
    "Adafactor": [
        {}, {"lr": 0.1}, {"lr": 0.1, "beta2_decay": -0.5}, {"lr": 0.1, "eps": (1e-3, 1e-2)}, {"lr": 0.5, "d": 2.0},
        {"lr": 0.1, "weight_decay": 0.1}, {"lr": 0.1, "maximize": True}, {"tensor_lr": 0.05},
    ],
}
CASES = [(name, options) for name, option_list in OPTIONS.items() for options in option_list]
GROUPS = {
    "ASGD": ({"t0": 2}, {"lr": 0.3, "weight_decay": 0.1, "maximize": True}),
    "Rprop": ({"etas": (0.2, 1.1)}, {"lr": 0.3, "step_sizes": (0.1, 1.0)}),
    "Adafactor": ({"beta2_decay": -0.6}, {"lr": 0.3, "weight_decay": 0.1, "d": 1.5}),
}


@pytest.mark.parametrize("case", CASES, ids=map(case_id, CASES))
def test_trajectory_matches_torch(case):
    name, options = case
    expected, actual, torch_optimizer, ndgrad_optimizer = both(name, options)
    assert_close(actual, expected, **TRAJECTORY)
    assert_same_structure(ndgrad_optimizer.state_dict(), torch_optimizer.state_dict())


@pytest.mark.parametrize("name", list(GROUPS))
def test_parameter_groups_and_a_state_dict_round_trip(name):
    groups = [((0,), GROUPS[name][0]), ((1, 2), GROUPS[name][1])]
    expected, actual, torch_optimizer, ndgrad_optimizer = both(name, {"lr": 0.05}, groups=groups, reload_at=20)
    assert_close(actual, expected, **TRAJECTORY)
    assert_same_structure(ndgrad_optimizer.state_dict(), torch_optimizer.state_dict())


@pytest.mark.parametrize("name", list(OPTIONS))
def test_float32_parameters(name):
    expected, actual, _, _ = both(name, {"lr": 0.05}, dtype="float32")
    assert actual.dtype == expected.dtype == np.float32
    assert_close(actual, expected)


@pytest.mark.parametrize("name", ["ASGD", "Rprop"])
def test_complex_parameters(name):
    rng = np.random.default_rng(1)
    init = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    grads = [rng.standard_normal(4) + 1j * rng.standard_normal(4) for _ in range(20)]
    results = []
    for lib in (torch, ndgrad):
        param = lib.tensor(init, requires_grad=True)
        optimizer = getattr(lib.optim, name)([param], lr=0.05)
        for grad in grads:
            param.grad = lib.tensor(grad)
            optimizer.step()
        results.append(param.detach().numpy())
    assert_close(results[1], results[0], **TRAJECTORY)


_DRAWN = {
    "ASGD": st.fixed_dictionaries({"lr": st.floats(0, 1), "lambd": st.floats(0, 1), "alpha": st.floats(0, 1),
                                   "t0": st.integers(0, 12), "weight_decay": st.floats(0, 0.9)}),
    "Rprop": st.fixed_dictionaries({"lr": st.floats(0, 1), "etas": st.tuples(st.floats(0.05, 0.95),
                                                                             st.floats(1.05, 3))}),
    "Adafactor": st.fixed_dictionaries({"lr": st.floats(0, 1), "beta2_decay": st.floats(-1, 0),
                                        "d": st.floats(1, 3), "weight_decay": st.floats(0, 0.9)}),
}


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(_DRAWN)).flatmap(lambda name: st.tuples(st.just(name), _DRAWN[name])))
def test_drawn_options(case):
    name, options = case
    expected, actual, _, _ = both(name, options, steps=10)
    assert_close(actual, expected)


BAD_ARGUMENTS = [
    ("ASGD", {"lr": -1.0}), ("ASGD", {"weight_decay": -0.5}), ("Rprop", {"lr": -0.1}),
    ("Rprop", {"etas": (1.5, 2.0)}), ("Rprop", {"etas": (0.5, 0.9)}), ("Adafactor", {"lr": -1.0}),
    ("Adafactor", {"beta2_decay": 0.5}), ("Adafactor", {"eps": (-1.0, 1e-3)}), ("Adafactor", {"eps": (None, -1.0)}),
    ("Adafactor", {"d": 0.5}), ("Adafactor", {"weight_decay": -1.0}),
]


@pytest.mark.parametrize("name, options", BAD_ARGUMENTS)
def test_bad_arguments_raise_torchs_errors(name, options):
    with pytest.raises(ValueError) as expected:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **options)
    with pytest.raises(ValueError) as actual:
        getattr(ndgrad.optim, name)([ndgrad.zeros(2, requires_grad=True)], **options)
    assert str(actual.value) == str(expected.value)


def test_adafactor_refuses_complex_parameters():
    messages = []
    for lib in (torch, ndgrad):
        param = lib.zeros(2, dtype=lib.complex128, requires_grad=True)
        param.grad = lib.ones(2, dtype=lib.complex128)
        with pytest.raises(RuntimeError) as error:
            lib.optim.Adafactor([param]).step()
        messages.append(str(error.value))
    assert messages[1] == messages[0]


@pytest.mark.parametrize("name", list(OPTIONS))
def test_repr(name):
    reprs = [repr(getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)])) for lib in (torch, ndgrad)]
    assert reprs[1] == reprs[0]


