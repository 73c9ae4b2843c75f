"""The ops outside the op table's gradient tests, and the dtypes the table does not sample, against torch.

Comparison, logical and bitwise ops over every dtype and mixed pairs, 0-d and broadcast operands and Python
numbers: same values and dtype, or the same error, and a result that never requires grad. The arithmetic and
rounding ops on integer and bool tensors, NaN and infinities (values only; the table covers their gradients),
and the zero gradients torch records for the piecewise-constant ops.
"""

import numpy as np
import pytest
import torch

import ndgrad

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float32", "float64"]
PAIRS = [(d, d) for d in DTYPES] + [
    ("bool", "int64"), ("uint8", "int8"), ("int32", "int64"), ("int32", "float32"), ("float32", "float64"),
    ("int64", "float64"), ("bool", "float32"),
]
SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 1)), ((), ())]
NUMBERS = [2, -1, 1.5, True, 0]

def values(dtype, shape, seed):
    """Values that exercise the op: ties, zeros, negatives; NaN and infinities for floats."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        pool = [True, False]
    elif dtype == "uint8":
        pool = [0, 1, 2, 3, 7, 200]
    elif dtype.startswith("int"):
        pool = [-3, -1, 0, 1, 2, 5]
    else:
        pool = [-2.5, -1.0, 0.0, 0.5, 1.0, 2.5, np.nan, np.inf, -np.inf]
    return np.asarray(rng.choice(np.asarray(pool, dtype=object), size=shape), dtype=dtype)


def outcome(lib, call, arrays):
    """What the call gives: (values, dtype name) or a Python scalar, or (error type, message)."""
    try:
        result = call(lib, *[lib.from_numpy(a.copy()) for a in arrays])
    except Exception as error:  # the comparison is the point: torch's error must be ours
        return type(error), str(error).replace("torch.", "ndgrad.")
    if isinstance(result, bool):
        return result
    assert not result.requires_grad
    return result.numpy(), str(result.dtype).split(".")[-1]


def assert_same(call, arrays):
    ours, theirs = outcome(ndgrad, call, arrays), outcome(torch, call, arrays)
    if isinstance(theirs, tuple) and isinstance(theirs[0], np.ndarray):
        assert isinstance(ours, tuple) and isinstance(ours[0], np.ndarray), f"ndgrad gave {ours}"
        assert ours[1] == theirs[1], f"dtype {ours[1]}, torch {theirs[1]}"
        np.testing.assert_array_equal(ours[0], theirs[0])
    else:
        assert ours == theirs


UNARY = {
    "isnan": lambda lib, x: lib.isnan(x),
    "isinf": lambda lib, x: lib.isinf(x),
    "isposinf": lambda lib, x: lib.isposinf(x),
    "isneginf": lambda lib, x: x.isneginf(),
    "isfinite": lambda lib, x: lib.isfinite(x),
    "isreal": lambda lib, x: lib.isreal(x),
    "logical_not": lambda lib, x: lib.logical_not(x),
    "bitwise_not": lambda lib, x: lib.bitwise_not(x),
    "~": lambda lib, x: ~x,
    "floor": lambda lib, x: lib.floor(x),
    "ceil": lambda lib, x: x.ceil(),
    "round": lambda lib, x: lib.round(x),
    "round decimals": lambda lib, x: lib.round(x, decimals=1),
    "trunc": lambda lib, x: lib.trunc(x),
    "fix": lambda lib, x: lib.fix(x),
    "frac": lambda lib, x: lib.frac(x),
    "sign": lambda lib, x: lib.sign(x),
    "sgn": lambda lib, x: x.sgn(),
    "abs": lambda lib, x: lib.abs(x),
    "neg": lambda lib, x: lib.neg(x),
    "positive": lambda lib, x: lib.positive(x),
    "nan_to_num": lambda lib, x: lib.nan_to_num(x),
    "nan_to_num numbers": lambda lib, x: lib.nan_to_num(x, nan=1.5, posinf=2, neginf=-3.0),
    "clamp numbers": lambda lib, x: lib.clamp(x, 0, 2),
    "clamp float number": lambda lib, x: lib.clamp(x, min=0.5),
    "clip": lambda lib, x: lib.clip(x, max=1),
    "clamp_min": lambda lib, x: lib.clamp_min(x, 1),
    "clamp_max float": lambda lib, x: x.clamp_max(0.5),
    "div trunc by number": lambda lib, x: lib.div(x, 2, rounding_mode="trunc"),
    "div floor by number": lambda lib, x: lib.div(x, -2, rounding_mode="floor"),
    "div floor by float": lambda lib, x: lib.div(x, 1.5, rounding_mode="floor"),
    "div by number": lambda lib, x: lib.div(x, 4),
    "fmod by number": lambda lib, x: lib.fmod(x, 2),
    "fmod by float": lambda lib, x: lib.fmod(x, -1.5),
    "remainder by number": lambda lib, x: lib.remainder(x, -2),
    "lerp": lambda lib, x: lib.lerp(x, x * 2, 0.25),
    "where number other": lambda lib, x: lib.where(x > 0, x, 0),
    "where float other": lambda lib, x: lib.where(x > 0, x, 0.5),
    "where numbers": lambda lib, x: lib.where(x > 0, 1, 2),
    "where number and float": lambda lib, x: lib.where(x > 0, 1, 2.5),
    "where condition": lambda lib, x: lib.where(x, 1.0, 0.0),
    "equal self": lambda lib, x: lib.equal(x, x),
    "allclose self": lambda lib, x: lib.allclose(x, x, equal_nan=True),
}


@pytest.mark.parametrize("name, dtype", [(name, dtype) for name in UNARY for dtype in DTYPES])
def test_unary_matches_torch(name, dtype):
    for seed, shape in enumerate([(2, 3), (), (5,)]):
        assert_same(UNARY[name], [values(dtype, shape, seed)])


BINARY = {
    "eq": lambda lib, x, y: lib.eq(x, y),
    "ne": lambda lib, x, y: x != y,
    "lt": lambda lib, x, y: lib.lt(x, y),
    "le": lambda lib, x, y: x <= y,
    "gt": lambda lib, x, y: lib.greater(x, y),
    "ge": lambda lib, x, y: lib.greater_equal(x, y),
    "less": lambda lib, x, y: lib.less(x, y),
    "less_equal": lambda lib, x, y: x.less_equal(y),
    "not_equal": lambda lib, x, y: lib.not_equal(x, y),
    "logical_and": lambda lib, x, y: lib.logical_and(x, y),
    "logical_or": lambda lib, x, y: x.logical_or(y),
    "logical_xor": lambda lib, x, y: lib.logical_xor(x, y),
    "bitwise_and": lambda lib, x, y: lib.bitwise_and(x, y),
    "bitwise_or": lambda lib, x, y: x | y,
    "bitwise_xor": lambda lib, x, y: x ^ y,
    "bitwise_left_shift": lambda lib, x, y: lib.bitwise_left_shift(x, y),
    "<<": lambda lib, x, y: x << y,
    "bitwise_right_shift": lambda lib, x, y: x.bitwise_right_shift(y),
    ">>": lambda lib, x, y: x >> y,
    "isclose": lambda lib, x, y: lib.isclose(x, y),
    "isclose loose": lambda lib, x, y: lib.isclose(x, y, rtol=0.5, atol=0.6, equal_nan=True),
    "allclose": lambda lib, x, y: lib.allclose(x, y),
    "equal": lambda lib, x, y: lib.equal(x, y),
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "minimum": lambda lib, x, y: x.minimum(y),
    "fmax": lambda lib, x, y: lib.fmax(x, y),
    "fmin": lambda lib, x, y: lib.fmin(x, y),
    "clamp tensor min": lambda lib, x, y: lib.clamp(x, min=y),
    "clamp_max tensor": lambda lib, x, y: lib.clamp_max(x, y),
    "where": lambda lib, x, y: lib.where(x > y, x, y),
    "div trunc": lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"),
    "div floor": lambda lib, x, y: x.div(y, rounding_mode="floor"),
    "floor_divide": lambda lib, x, y: lib.floor_divide(x, y),
    "remainder": lambda lib, x, y: x % y,
    "fmod": lambda lib, x, y: lib.fmod(x, y),
    "true_divide": lambda lib, x, y: lib.true_divide(x, y),
    "hypot": lambda lib, x, y: lib.hypot(x, y),
    "lerp tensor weight": lambda lib, x, y: lib.lerp(x, x, y),
}


@pytest.mark.parametrize("dtypes", PAIRS, ids="-".join)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_matches_torch(name, dtypes):
    for seed, shapes in enumerate(SHAPES):
        assert_same(BINARY[name], [values(d, s, 10 * seed + k) for k, (d, s) in enumerate(zip(dtypes, shapes))])


NUMBER_OPS = ["eq", "lt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor", "<<", ">>", "remainder", "fmod",
              "div trunc", "floor_divide", "true_divide"]


@pytest.mark.parametrize("name, dtype, number", [
    pytest.param(name, dtype, number, id=f"{name}-{dtype}-{number!r}")
    for name in NUMBER_OPS for dtype in DTYPES for number in NUMBERS
])
def test_tensor_and_number_match_torch(name, dtype, number):
    """A Python number on either side: it takes part in promotion only by its category."""
    tensor = values(dtype, (2, 3), 3)
    assert_same(lambda lib, x: BINARY[name](lib, x, number), [tensor])
    if name in REFLECTED:
        assert_same(lambda lib, x: REFLECTED[name](number, x), [tensor])


REFLECTED = {
    "bitwise_and": lambda n, x: n & x, "bitwise_or": lambda n, x: n | x, "bitwise_xor": lambda n, x: n ^ x,
    "<<": lambda n, x: n << x, ">>": lambda n, x: n >> x, "eq": lambda n, x: n == x, "lt": lambda n, x: n < x,
}


INPLACE = {
    "eq_": lambda x, y: x.eq_(y),
    "lt_": lambda x, y: x.lt_(y),
    "not_equal_": lambda x, y: x.not_equal_(y),
    "logical_and_": lambda x, y: x.logical_and_(y),
    "logical_xor_": lambda x, y: x.logical_xor_(y),
    "bitwise_and_": lambda x, y: x.bitwise_and_(y),
    "|=": lambda x, y: x.__ior__(y),
    "<<=": lambda x, y: x.__ilshift__(y),
    "bitwise_right_shift_": lambda x, y: x.bitwise_right_shift_(y),
    "clamp_": lambda x, y: x.clamp_(min=y),
    "clamp_min_": lambda x, y: x.clamp_min_(y),
    "fmod_": lambda x, y: x.fmod_(y),
    "remainder_": lambda x, y: x.remainder_(y),
    "floor_divide_": lambda x, y: x.floor_divide_(y),
    "div_ floor": lambda x, y: x.div_(y, rounding_mode="floor"),
    "lerp_": lambda x, y: x.lerp_(y, 0.5),
    "hypot_": lambda x, y: x.hypot_(y),
}
INPLACE_UNARY = {
    "logical_not_": lambda x: x.logical_not_(), "bitwise_not_": lambda x: x.bitwise_not_(),
    "floor_": lambda x: x.floor_(), "ceil_": lambda x: x.ceil_(), "round_": lambda x: x.round_(),
    "round_ decimals": lambda x: x.round_(decimals=1), "trunc_": lambda x: x.trunc_(), "fix_": lambda x: x.fix_(),
    "frac_": lambda x: x.frac_(), "sign_": lambda x: x.sign_(), "sgn_": lambda x: x.sgn_(), "neg_": lambda x: x.neg_(),
    "abs_": lambda x: x.abs_(), "clamp_ numbers": lambda x: x.clamp_(0, 1), "clip_ float": lambda x: x.clip_(0.5),
    "clamp_max_": lambda x: x.clamp_max_(1), "nan_to_num_": lambda x: x.nan_to_num_(),
    "fmod_ number": lambda x: x.fmod_(2), "remainder_ float": lambda x: x.remainder_(1.5),
    "div_ trunc number": lambda x: x.div_(2, rounding_mode="trunc"), "pow_ float": lambda x: x.pow_(0.5),
}


def written(function):
    """The in-place call, checked to return the tensor it wrote into."""
    def call(lib, *tensors):
        result = function(*tensors)
        assert result is tensors[0]
        return result
    return call


@pytest.mark.parametrize("dtypes", PAIRS[:7] + [("int64", "bool"), ("float32", "int64"), ("int64", "float32")],
                         ids="-".join)
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_matches_torch(name, dtypes):
    """Written in self's dtype; a result of a higher category than self is torch's error."""
    assert_same(written(INPLACE[name]), [values(dtypes[0], (2, 3), 1), values(dtypes[1], (3,), 2)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(INPLACE_UNARY))
def test_inplace_unary_matches_torch(name, dtype):
    assert_same(written(INPLACE_UNARY[name]), [values(dtype, (2, 3), 4)])


def test_results_never_require_grad():
    x = ndgrad.tensor([1.0, -2.0, float("nan")], requires_grad=True)
    for result in (x == 1, x < x, ndgrad.isnan(x), ndgrad.isclose(x, x), ndgrad.logical_and(x, x), x.isfinite()):
        assert not result.requires_grad and result.grad_fn is None


STEPS = {
    "floor": lambda lib, x: lib.floor(x), "ceil": lambda lib, x: lib.ceil(x), "round": lambda lib, x: lib.round(x),
    "round decimals": lambda lib, x: lib.round(x, decimals=1), "trunc": lambda lib, x: lib.trunc(x),
    "fix": lambda lib, x: x.fix(), "sign": lambda lib, x: lib.sign(x), "sgn": lambda lib, x: lib.sgn(x),
    "div trunc": lambda lib, x: lib.div(x, 0.75, rounding_mode="trunc"),
}


@pytest.mark.parametrize("name", list(STEPS))
def test_piecewise_constant_ops_record_zero_gradients(name):
    """torch records these ops; their gradient is zeros_like(grad), which does not depend on grad."""
    def run(lib):
        x = lib.from_numpy(np.array([-1.5, 0.0, 0.25, 2.0, 2.5])).requires_grad_()
        out = STEPS[name](lib, x)
        v = lib.from_numpy(np.arange(5.0)).requires_grad_()
        (grad,) = lib.autograd.grad(out, x, v, create_graph=True)
        return type(out.grad_fn).__name__, grad.detach().clone().tolist(), grad.requires_grad

    assert run(ndgrad) == run(torch)
