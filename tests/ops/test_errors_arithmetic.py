"""Bad arguments to the arithmetic and rounding ops raise torch's exception type and message (with "torch."
written "ndgrad."), before NumPy could fail or silently compute."""

import numpy as np
import pytest

from .errors import assert_raises_like_torch


def f(lib):
    return lib.from_numpy(np.array([1.5, -2.0]))  # float64


def f32(lib):
    return lib.from_numpy(np.array([1.5, -2.0], dtype=np.float32))


def i(lib):
    return lib.from_numpy(np.array([3, -2]))


def zeros(lib):
    return lib.from_numpy(np.array([0, 0]))


def b(lib):
    return lib.from_numpy(np.array([True, False]))


ERRORS = {
    "div bad rounding_mode": lambda lib: lib.div(f(lib), f(lib), rounding_mode="bad"),
    "div_ bad rounding_mode": lambda lib: f(lib).div_(2.0, rounding_mode="round"),
    "div trunc by int 0": lambda lib: lib.div(i(lib), zeros(lib), rounding_mode="trunc"),
    "div floor by int 0": lambda lib: lib.div(i(lib), 0, rounding_mode="floor"),
    "div trunc bool": lambda lib: lib.div(b(lib), b(lib), rounding_mode="trunc"),
    "div floor bool": lambda lib: b(lib).div(b(lib), rounding_mode="floor"),
    "floor_divide by int 0": lambda lib: lib.floor_divide(i(lib), zeros(lib)),
    "int // 0": lambda lib: i(lib) // 0,
    "remainder by int 0": lambda lib: lib.remainder(i(lib), 0),
    "int % tensor 0": lambda lib: i(lib) % zeros(lib),
    "fmod by int 0": lambda lib: lib.fmod(i(lib), zeros(lib)),
    "fmod_ by int 0": lambda lib: i(lib).fmod_(0),
    "fmod bool": lambda lib: lib.fmod(b(lib), b(lib)),
    "remainder bool": lambda lib: lib.remainder(b(lib), True),
    "true_divide rounding_mode": lambda lib: lib.true_divide(f(lib), f(lib), rounding_mode="floor"),
    "div_ int by number": lambda lib: i(lib).div_(2),
    "fmod_ int by float": lambda lib: i(lib).fmod_(0.5),
    "remainder_ int by float": lambda lib: i(lib).remainder_(1.5),
    "pow_ int by float": lambda lib: i(lib).pow_(0.5),
    "neg bool": lambda lib: lib.neg(b(lib)),
    "negative bool": lambda lib: lib.negative(b(lib)),
    "neg_ bool": lambda lib: b(lib).neg_(),
    "-bool": lambda lib: -b(lib),
    "positive bool": lambda lib: lib.positive(b(lib)),
    "abs bool": lambda lib: lib.abs(b(lib)),
    "abs_ bool": lambda lib: b(lib).abs_(),
    "floor bool": lambda lib: lib.floor(b(lib)),
    "ceil bool": lambda lib: lib.ceil(b(lib)),
    "round bool": lambda lib: lib.round(b(lib)),
    "round int decimals": lambda lib: lib.round(i(lib), decimals=1),
    "round_ int decimals": lambda lib: i(lib).round_(decimals=1),
    "trunc bool": lambda lib: lib.trunc(b(lib)),
    "fix bool": lambda lib: lib.fix(b(lib)),
    "frac int": lambda lib: lib.frac(i(lib)),
    "frac_ bool": lambda lib: b(lib).frac_(),
    "clamp no bounds": lambda lib: lib.clamp(f(lib)),
    "clamp None bounds": lambda lib: lib.clamp(f(lib), None, None),
    "clip no bounds": lambda lib: lib.clip(f(lib)),
    "clamp_ no bounds": lambda lib: f(lib).clamp_(),
    "clamp number and tensor": lambda lib: lib.clamp(f(lib), 0.0, f(lib)),
    "clamp tensor and number": lambda lib: lib.clamp(f(lib), f(lib), 1),
    "clamp bool tensors": lambda lib: lib.clamp(b(lib), b(lib), b(lib)),
    "clamp bool numbers": lambda lib: lib.clamp(b(lib), False, True),
    "clamp_min None": lambda lib: lib.clamp_min(f(lib), None),
    "clamp_max string": lambda lib: lib.clamp_max(f(lib), "1"),
    "clamp_min bool number": lambda lib: lib.clamp_min(b(lib), False),
    "clamp_max bool number": lambda lib: lib.clamp_max(b(lib), True),
    "clamp_ int by float": lambda lib: i(lib).clamp_(0.5),
    "clamp_min_ int by float": lambda lib: i(lib).clamp_min_(0.5),
    "clamp_ int by float tensor": lambda lib: i(lib).clamp_(f32(lib)),
    "lerp end number": lambda lib: lib.lerp(f(lib), 1.0, 0.5),
    "lerp weight string": lambda lib: lib.lerp(f(lib), f(lib), "0.5"),
    "lerp end dtype": lambda lib: lib.lerp(f32(lib), f(lib), 0.5),
    "lerp weight dtype": lambda lib: lib.lerp(f32(lib), f32(lib), f(lib)),
    "lerp end int": lambda lib: lib.lerp(f(lib), i(lib), 0.5),
    "lerp int": lambda lib: lib.lerp(i(lib), i(lib), 0.5),
    "lerp int tensor weight": lambda lib: lib.lerp(i(lib), i(lib), i(lib)),
    "lerp shapes": lambda lib: lib.lerp(f(lib), lib.ones(3, dtype=lib.float64), 0.5),
    "lerp_ int": lambda lib: i(lib).lerp_(i(lib), 0.5),
    "hypot number": lambda lib: lib.hypot(f(lib), 2.0),
    "hypot int": lambda lib: lib.hypot(i(lib), i(lib)),
    "hypot bool": lambda lib: lib.hypot(b(lib), b(lib)),
    "hypot_ number": lambda lib: f(lib).hypot_(2.0),
    "sub_ bool": lambda lib: b(lib).sub_(b(lib)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(name):
    assert_raises_like_torch(ERRORS[name])
