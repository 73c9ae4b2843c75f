"""PyTorch's type promotion for binary operators: every pair of dtypes, for tensors with dimensions, 0-d tensors
and Python scalars on either side. The result dtype (or the error) must be torch's; dtypes are matched by name."""

import itertools
import operator
import warnings

import pytest
import torch

import ndgrad

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
SCALARS = {"bool": True, "int": 2, "float": 2.5}
# Operand kinds: "dim" is a tensor with a dimension, "0d" a 0-d tensor, "bool"/"int"/"float" a Python scalar.
KIND_PAIRS = [
    ("dim", "dim"),
    ("dim", "0d"),
    ("0d", "dim"),
    ("0d", "0d"),
    *[(tensor, scalar) for tensor in ("dim", "0d") for scalar in SCALARS],
    *[(scalar, tensor) for tensor in ("dim", "0d") for scalar in SCALARS],
]


def operand(lib, kind, dtype_name):
    if kind in SCALARS:
        return SCALARS[kind]
    dtype = getattr(lib, dtype_name)
    # ones: no division by zero, no overflow, and every op is defined for every dtype
    return lib.ones(2, dtype=dtype) if kind == "dim" else lib.ones((), dtype=dtype)


def outcome(lib, function, left, right):
    """(dtype name, values) of the result, or (exception type, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = function(left, right)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error).replace("torch.", "ndgrad.")
    return str(result.dtype).rsplit(".", 1)[-1], result.detach().tolist()  # (bfloat16 has no numpy())


def dtype_combinations(left_kind, right_kind):
    left_names = DTYPES if left_kind not in SCALARS else [None]
    right_names = DTYPES if right_kind not in SCALARS else [None]
    return itertools.product(left_names, right_names)


@pytest.mark.parametrize(("left_kind", "right_kind"), KIND_PAIRS, ids=lambda k: k)
@pytest.mark.parametrize("symbol", list(OPERATORS))
def test_binary_operator_result_dtype_matches_torch(symbol, left_kind, right_kind):
    function = OPERATORS[symbol]
    mismatches, checked = [], 0
    for left_dtype, right_dtype in dtype_combinations(left_kind, right_kind):
        expected = outcome(
            torch, function, operand(torch, left_kind, left_dtype), operand(torch, right_kind, right_dtype)
        )
        actual = outcome(
            ndgrad, function, operand(ndgrad, left_kind, left_dtype), operand(ndgrad, right_kind, right_dtype)
        )
        checked += 1
        if actual != expected:
            mismatches.append(
                f"{left_kind}:{left_dtype} {symbol} {right_kind}:{right_dtype}: torch {expected}, ndgrad {actual}"
            )
    assert checked and not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("symbol", ["+", "*", "/", "-", "**", "<"])
def test_python_float_promotes_to_default_dtype(default_float64, symbol):
    """With set_default_dtype(float64), Python floats (and int / int division) promote to float64."""
    function = OPERATORS[symbol]
    mismatches = []
    for dtype, kind, scalar in itertools.product(DTYPES, ("dim", "0d"), (2.5, 3, True)):
        for swap in (False, True):
            pair = [(lib, operand(lib, kind, dtype), scalar) for lib in (torch, ndgrad)]
            expected, actual = (outcome(lib, function, *((s, t) if swap else (t, s))) for lib, t, s in pair)
            if actual != expected:
                mismatches.append(f"{kind}:{dtype} {symbol} {scalar!r} swap={swap}: torch {expected}, ndgrad {actual}")
    assert not mismatches, "\n".join(mismatches)
    assert ndgrad.get_default_dtype() is ndgrad.float64


def test_default_dtype_restored_after_fixture():
    assert ndgrad.get_default_dtype() is ndgrad.float32 and torch.get_default_dtype() is torch.float32
    assert (ndgrad.ones(2, dtype=ndgrad.int64) * 2.5).dtype is ndgrad.float32


def test_default_dtype_affects_creation_and_true_division(same, default_float64):
    expected = same(
        """
print((torch.arange(3) / 2).dtype, (torch.arange(3) / torch.arange(1, 4)).dtype, torch.tensor([1, 2.5]).dtype)
print((torch.ones(2, dtype=torch.float32) * 2.5).dtype, (torch.ones(2, dtype=torch.float16) * 2.5).dtype)
print((torch.tensor(2, dtype=torch.int32) ** 0.5).dtype, torch.arange(3).sqrt().dtype, torch.tensor(1j).dtype)
"""
    )
    assert expected.stdout.splitlines()[0] == "ndgrad.float64 ndgrad.float64 ndgrad.float64"


@pytest.mark.parametrize(("a", "b"), list(itertools.product(DTYPES, DTYPES)))
def test_promote_types_and_result_type(a, b):
    expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert ndgrad.promote_types(getattr(ndgrad, a), getattr(ndgrad, b)).name == str(expected).rsplit(".", 1)[-1]
    for left_kind, right_kind in [("dim", "0d"), ("0d", "dim")]:
        t_left, t_right = operand(torch, left_kind, a), operand(torch, right_kind, b)
        n_left, n_right = operand(ndgrad, left_kind, a), operand(ndgrad, right_kind, b)
        assert ndgrad.result_type(n_left, n_right).name == str(torch.result_type(t_left, t_right)).rsplit(".", 1)[-1]


@pytest.mark.parametrize("source", DTYPES + ["complex64", "complex128"])
@pytest.mark.parametrize("target", DTYPES + ["complex64", "complex128"])
def test_can_cast_matches_torch(source, target):
    expected = torch.can_cast(getattr(torch, source), getattr(torch, target))
    assert ndgrad.can_cast(getattr(ndgrad, source), getattr(ndgrad, target)) == expected
