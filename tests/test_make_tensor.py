"""ndgrad.testing.make_tensor as torch.testing.make_tensor: dtype, shape, value range, contiguity, requires_grad
and errors (the values are random, so ranges are tested, not values)."""

import warnings

import pytest
import torch

import ndgrad

DTYPES = ["float32", "float64", "complex64", "int64", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_default_ranges_are_torchs(dtype):
    made = ndgrad.testing.make_tensor(2000, dtype=getattr(ndgrad, dtype), device="cpu")
    assert made.dtype is getattr(ndgrad, dtype) and tuple(made.shape) == (2000,)
    parts = [made.real, made.imag] if made.dtype.is_complex else [made]
    low, high = {"bool": (0, 1), "uint8": (0, 9)}.get(dtype, (-9, 9))
    for part in parts:
        values = part.numpy().astype(float)
        assert values.min() >= low and values.max() <= high
        assert values.max() - values.min() > (high - low) / 2  # spread over the range
        if part.dtype.is_floating_point:
            assert values.max() < 9


def test_bounds_shape_forms_and_flags():
    made = ndgrad.testing.make_tensor((3, 4), dtype=ndgrad.float64, device="cpu", low=2, high=3,
                                      requires_grad=True, noncontiguous=True, exclude_zero=True)
    assert tuple(made.shape) == (3, 4) and made.requires_grad and not made.is_contiguous()
    assert ((made >= 2) & (made < 3)).all()
    ints = ndgrad.testing.make_tensor(3, 4, dtype=ndgrad.int32, device="cpu", low=-1, high=1, exclude_zero=True)
    assert ints.is_contiguous() and not ints.requires_grad and set(ints.flatten().tolist()) <= {-1, 1}
    single = ndgrad.testing.make_tensor(1, dtype=ndgrad.float32, device="cpu", noncontiguous=True)
    assert single.is_contiguous()  # one element has no stride to break, as in torch


def _message(library, **arguments):
    dtype = getattr(library, arguments.pop("dtype", "float32"))
    if "memory_format" in arguments:
        arguments["memory_format"] = getattr(library, arguments["memory_format"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            library.testing.make_tensor(3, dtype=dtype, device="cpu", **arguments)
        except Exception as error:  # noqa: BLE001 (the type is compared too)
            return type(error).__name__, str(error).replace("torch.", "").replace("ndgrad.", "")
    return None


@pytest.mark.parametrize("arguments", [
    {"low": 3, "high": 2}, {"low": 2, "high": 2}, {"low": float("nan")}, {"dtype": "int64", "low": 5, "high": 5},
    {"dtype": "uint8", "low": -5, "high": -1}, {"dtype": "int64", "requires_grad": True},
    {"noncontiguous": True, "memory_format": "contiguous_format"},
], ids=["low > high", "low == high", "nan", "int low == high", "out of uint8", "int grad", "exclusive"])
def test_errors_are_torchs(arguments):
    theirs = _message(torch, **dict(arguments))
    assert theirs is not None
    assert _message(ndgrad, **dict(arguments)) == theirs
