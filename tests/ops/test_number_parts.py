"""ndgrad.ops.number_parts and logaddexp2 against torch, beyond the op table: the functions without a derivative
(heaviside, gcd, lcm, signbit), the composite float_power, the in-place forms, dtypes, return types and errors."""

import numpy as np
import pytest

import ndgrad

from .composites import assert_like_torch
from .errors import assert_raises_like_torch, assert_result_like_torch

RESULTS = [
    "lib.heaviside(lib.tensor([-1.5, 0, 2, float('nan')]), lib.tensor([0.5]))",
    "lib.heaviside(lib.tensor([-1, 0, 3]), lib.tensor([7, 8, 9]))",
    "lib.heaviside(lib.tensor([True, False]), lib.tensor([True, True]))",
    "lib.tensor([-2., 0, 3]).heaviside(lib.tensor(4.))",
    "lib.tensor([-2., 0, 3]).heaviside_(lib.tensor([4., 5, 6]))",
    "lib.copysign(lib.tensor([1, -2, 3]), lib.tensor([-1, 1, 0]))",
    "lib.copysign(lib.tensor([1, -2, 3], dtype=lib.int8), -0.0)",
    "lib.copysign(lib.tensor([1., -2, 3]), lib.tensor([-1., 1, -0.0], dtype=lib.float64))",
    "lib.copysign(lib.tensor([True, False]), lib.tensor([True, True]))",
    "lib.float_power(lib.tensor([1., 2, 3]), 2)",
    "lib.float_power(lib.tensor([1, 2, 3]), lib.tensor([0.5, 2, -1]))",
    "lib.float_power(2, lib.tensor([1, 2, 3]))",
    "lib.float_power(lib.tensor([1., 2, 3]), 1 + 2j)",
    "lib.float_power(lib.tensor([1+1j, 2]), 2)",
    "lib.tensor([1., 2, 3], dtype=lib.float64).float_power_(lib.tensor([2, 0, 1]))",
    "lib.tensor([1., 2, 3], dtype=lib.float64).float_power(0.5)",
    "lib.gcd(lib.tensor([4, 6, 9, 0, -12]), lib.tensor([6, 4, 3, 0, 18]))",
    "lib.gcd(lib.tensor([4, 6, 9]), lib.tensor([2, 3, 3], dtype=lib.int8))",
    "lib.lcm(lib.tensor([4, 6, 9, 0, -12]), lib.tensor([6, 4, 3, 0, 18]))",
    "lib.lcm(lib.tensor([4, 6], dtype=lib.uint8), lib.tensor([[3], [5]], dtype=lib.uint8))",
    "lib.tensor([4, 6, 9]).gcd(lib.tensor(6))",
    "lib.tensor([4, 6, 9]).gcd_(lib.tensor(6))",
    "lib.tensor([4, 6, 9]).lcm_(lib.tensor([2, 4, 6]))",
    "lib.gcd_(lib.tensor([4, 6, 9]), lib.tensor([2, 4, 6]))",
    "lib.lcm_(lib.tensor([4, 6, 9]), lib.tensor([2, 4, 6]))",
    "lib.tensor([4, 6], dtype=lib.int8).lcm_(lib.tensor([2, 3]))",
    "lib.ldexp(lib.tensor([1, 2, 3]), lib.tensor([1, -1, 3]))",
    "lib.ldexp(lib.tensor([True, False]), lib.tensor([True, True]))",
    "lib.ldexp(lib.tensor([1., 2, 3]), lib.tensor([1, -1, 3]))",
    "lib.ldexp(lib.tensor([1., 2, 3]), lib.tensor([1., -1, 0.5], dtype=lib.float64))",
    "lib.tensor([1., 2, 3]).ldexp_(lib.tensor([1, -1, 3]))",
    "lib.ldexp_(lib.tensor([1., 2, 3]), lib.tensor([2, 2, 2]))",
    "lib.frexp(lib.tensor([0., -0.75, 8, 1e-40, float('inf')]))",
    "lib.frexp(lib.tensor([3., -5], dtype=lib.float16))",
    "lib.tensor([[3., -5], [0.1, 1024]], dtype=lib.float64).frexp()",
    "lib.logaddexp2(lib.tensor([1., 2, -100]), lib.tensor([1., -3, -100], dtype=lib.float64))",
    "lib.signbit(lib.tensor([-0.0, 0.0, -1, 2, float('-inf'), float('nan')]))",
    "lib.signbit(lib.tensor([-3, 0, 4]))",
    "lib.signbit(lib.tensor([True, False]))",
    "lib.tensor([-3, 0, 4], dtype=lib.uint8).signbit()",
    "lib.nextafter(lib.tensor([1., 0, -2]), lib.tensor([2., -1, -2]))",
    "lib.nextafter(lib.tensor([1., 0], dtype=lib.float64), lib.tensor([2., -1]))",
    "lib.tensor([1., 0, -2]).nextafter_(lib.tensor([2., 1, -3]))",
]


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    assert_result_like_torch(expression)


ERRORS = [
    "lib.heaviside(lib.tensor([1.]), lib.tensor([1.], dtype=lib.float64))",
    "lib.heaviside(lib.tensor([1]), lib.tensor([1.]))",
    "lib.heaviside(lib.tensor([1j]), lib.tensor([1j]))",
    "lib.tensor([1]).heaviside_(lib.tensor([1.]))",
    "lib.copysign(lib.tensor([1j]), lib.tensor([1.]))",
    "lib.tensor([1, 2]).copysign_(lib.tensor([1, -1]))",
    "lib.tensor([1, 2]).copysign_(-1)",
    "lib.tensor([1, 2]).float_power_(2)",
    "lib.tensor([1., 2]).float_power_(2)",
    "lib.tensor([1., 2], dtype=lib.float64).float_power_(1j)",
    "lib.gcd(lib.tensor([1., 2]), lib.tensor([1., 2]))",
    "lib.gcd(lib.tensor([1, 2]), lib.tensor([1., 2]))",
    "lib.gcd(lib.tensor([True]), lib.tensor([True]))",
    "lib.gcd(lib.tensor([4, 6]), 2)",
    "lib.lcm(lib.tensor([1., 2]), lib.tensor([1., 2]))",
    "lib.tensor([4, 6]).gcd_(lib.tensor([2.]))",
    "lib.tensor([4, 6]).ldexp_(lib.tensor([2, 3]))",
    "lib.frexp(lib.tensor([1, 2]))",
    "lib.frexp(lib.tensor([1j]))",
    "lib.frexp(lib.tensor([True]))",
    "lib.logaddexp2(lib.tensor([1, 2]), lib.tensor([1, 2]))",
    "lib.logaddexp2(lib.tensor([1j]), lib.tensor([1.]))",
    "lib.signbit(lib.tensor([1j]))",
    "lib.nextafter(lib.tensor([1, 2]), lib.tensor([1, 2]))",
    "lib.nextafter(lib.tensor([1.]), 2.0)",
    "lib.tensor([1, 2]).nextafter_(lib.tensor([1, 2]))",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


def test_heaviside_records_no_derivative():
    x = ndgrad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    result = ndgrad.heaviside(x, ndgrad.tensor([0.5, 0.5, 0.5]))
    assert type(result.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::heaviside is not implemented$"):
        result.sum().backward()


@pytest.mark.parametrize("call", [
    lambda lib, x, y: lib.gcd(x, y), lambda lib, x, y: lib.lcm(x, y), lambda lib, x, y: lib.signbit(x),
], ids=["gcd", "lcm", "signbit"])
def test_integer_results_have_no_grad_fn(call):
    x = ndgrad.tensor([4, -6])
    assert call(ndgrad, x, x).grad_fn is None and not call(ndgrad, x, x).requires_grad
    floats = ndgrad.tensor([1.0, -2.0], requires_grad=True)
    assert ndgrad.signbit(floats).grad_fn is None


def test_frexp_returns_torchs_structure():
    result = ndgrad.frexp(ndgrad.tensor([3.0, -5.0], requires_grad=True))
    assert type(result).__name__ == "frexp" and type(result).__module__ == "ndgrad.return_types"
    assert result.mantissa is result[0] and result.exponent is result[1]
    assert type(result.mantissa.grad_fn).__name__ == "FrexpBackward0" and result.exponent.grad_fn is None


RNG = np.random.default_rng(3)


@pytest.mark.parametrize("call", [
    lambda lib, x, y: lib.float_power(x, y),
    lambda lib, x, y: lib.float_power(x, 2.5) * y,
    lambda lib, x, y: lib.float_power(1.5, x) + y,
    lambda lib, x, y: x.float_power(y),
], ids=["tensors", "scalar exponent", "scalar base", "method"])
def test_float_power_gradients_match_torch(call):
    """float_power is pow in double precision: its grad_fn and gradients are pow's, after a cast."""
    assert_like_torch(call, RNG.uniform(0.5, 2.0, (2, 3)), RNG.uniform(-1.0, 1.0, 3))


def test_float_power_records_a_cast_then_pow():
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    result = ndgrad.float_power(x, 2)
    assert result.dtype is ndgrad.float64 and type(result.grad_fn).__name__ == "PowBackward0"
    assert type(result.grad_fn.next_functions[0][0]).__name__ == "ToCopyBackward0"
