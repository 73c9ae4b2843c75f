"""PyTorch's other names for ops (NumPy's arccos for acos) and the top-level in-place forms (torch.abs_), against
torch: the same values, dtypes, grad_fn names and argument errors."""

import pytest
import torch

import ndgrad

from .errors import assert_raises_like_torch, assert_result_like_torch

UNIT_NAMES = ["arcsin", "arccos", "arctan", "arcsinh", "arctanh"]
IN_PLACE = [
    "abs_", "neg_", "negative_", "reciprocal_", "ceil_", "floor_", "round_", "trunc_", "fix_", "frac_", "zero_",
    "deg2rad_", "rad2deg_",
]


def _leaf(lib, values=(0.25, -0.5, 0.75)):
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


@pytest.mark.parametrize("name", [*UNIT_NAMES, "arccosh"])
def test_numpy_names_record_the_op_they_alias(name):
    values = (1.5, 2.0, 3.0) if name == "arccosh" else (0.25, -0.5, 0.75)
    ours, theirs = (getattr(lib, name)(_leaf(lib, values)) for lib in (ndgrad, torch))
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    assert_result_like_torch(lambda lib: getattr(lib, name)(_leaf(lib, values)).detach())
    assert_result_like_torch(lambda lib: getattr(_leaf(lib, values).detach(), name)())


@pytest.mark.parametrize("name", UNIT_NAMES)
def test_numpy_names_in_place(name):
    assert_result_like_torch(lambda lib: getattr(lib, name + "_")(lib.tensor([0.25, -0.5])))
    assert_result_like_torch(lambda lib: getattr(lib.tensor([0.25, -0.5]), name + "_")())


def test_arctan2():
    assert_result_like_torch("lib.arctan2(lib.tensor([1.0, -1.0]), lib.tensor([-2.0, 3.0]))")
    assert_result_like_torch("lib.tensor([1.0, -1.0]).arctan2(lib.tensor([-2.0, 3.0]))")
    assert_result_like_torch("lib.tensor([1.0, -1.0]).arctan2_(lib.tensor([-2.0, 3.0]))")
    x = {lib: _leaf(lib) for lib in (ndgrad, torch)}
    assert type(ndgrad.arctan2(x[ndgrad], x[ndgrad]).grad_fn).__name__ == "Atan2Backward0"


@pytest.mark.parametrize("name", IN_PLACE)
def test_top_level_in_place_form_writes_its_input(name):
    def call(lib):
        x = lib.tensor([[1.25, -2.5], [0.5, 3.0]])
        result = getattr(lib, name)(x)
        assert result is x
        return x

    assert_result_like_torch(call)


@pytest.mark.parametrize("name", IN_PLACE)
def test_top_level_in_place_form_records_in_the_graph(name):
    def call(lib):
        x = _leaf(lib).clone()
        getattr(lib, name)(x)
        return type(x.grad_fn).__name__

    assert call(ndgrad) == call(torch)


RESULTS = [
    "lib.round_(lib.tensor([1.55, -2.45]), decimals=1)",
    "lib.clamp_(lib.tensor([1.5, -2.5, 0.5]), -1, 1)",
    "lib.clamp_(lib.tensor([1.5, -2.5, 0.5]), lib.tensor(0.0), lib.tensor([1.0, 1.0, 0.25]))",
    "lib.clip_(lib.tensor([1.5, -2.5]), max=1)",
    "lib.tensor([1.5, -2.5]).clip_(min=0)",
    "lib.clamp_min_(lib.tensor([1, -2]), 0)",
    "lib.clamp_max_(lib.tensor([1.5, -2.5]), lib.tensor([0.0, 1.0]))",
    "lib.nan_to_num_(lib.tensor([float('nan'), float('inf'), -float('inf')]), 2.0)",
    "lib.tensor([float('nan'), float('inf')]).nan_to_num_(posinf=2.0)",
    "lib.fill_(lib.tensor([1.0, 2.0]), 3)",
    "lib.fill(lib.tensor([1, 2]), 2.5)",
    "lib.fill(lib.tensor([[1.0, 2.0]]), lib.tensor(3))",
    "lib.abs_(lib.tensor([-1, 2], dtype=lib.int16))",
    "lib.tensor([1.0, -2.0]).absolute_()",
    "lib.tensor([1.0, -2.0]).negative_()",
]


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    assert_result_like_torch(expression)


ERRORS = [
    "lib.abs_(lib.tensor([1j]))",
    "lib.neg_(lib.tensor([True]))",
    "lib.ceil_(lib.tensor([1j]))",
    "lib.frac_(lib.tensor([1, 2]))",
    "lib.clamp_(1, 2)",
    "lib.clamp_(lib.tensor([1.0]))",
    "lib.clamp_min_(lib.tensor([1.0]), 'a')",
    "lib.floor_(lib.tensor([1.0]), 1)",
    "lib.tensor([1.0]).round_(1)",
    "lib.arccos(1)",
    "lib.tensor([1.0]).arctan2(1)",
    "lib.fill(lib.tensor([1.0, 2.0]), lib.tensor([3.0]))",
    "lib.fill_(lib.tensor([1.0, 2.0]), 'a')",
    "lib.fill(lib.tensor([1, 2], dtype=lib.uint8), 300)",
    "lib.zero_(lib.tensor([1.0], requires_grad=True))",
    "lib.fix_(lib.tensor([1.0], requires_grad=True))",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)
