"""Bad arguments to the comparison, logical, bitwise and selection ops raise torch's exception type and message
(with "torch." written "ndgrad.")."""

import numpy as np
import pytest

from .errors import assert_raises_like_torch


def f(lib):
    return lib.from_numpy(np.array([1.5, -2.0]))  # float64


def f32(lib):
    return lib.from_numpy(np.array([1.5, -2.0], dtype=np.float32))


def i(lib):
    return lib.from_numpy(np.array([3, -2]))


def b(lib):
    return lib.from_numpy(np.array([True, False]))


ERRORS = {
    "eq shapes": lambda lib: lib.eq(f(lib), lib.ones(3)),
    "isclose dtypes": lambda lib: lib.isclose(f32(lib), f(lib)),
    "isclose int and float": lambda lib: lib.isclose(i(lib), f(lib)),
    "isclose negative rtol": lambda lib: lib.isclose(f(lib), f(lib), rtol=-1),
    "isclose negative atol": lambda lib: lib.isclose(f(lib), f(lib), atol=-0.5),
    "isclose number": lambda lib: lib.isclose(f(lib), 1.5),
    "isclose shapes": lambda lib: lib.isclose(f(lib), lib.ones(3, dtype=lib.float64)),
    "allclose dtypes": lambda lib: lib.allclose(f32(lib), f(lib)),
    "equal number": lambda lib: lib.equal(f(lib), 1.5),
    "logical_and number": lambda lib: lib.logical_and(f(lib), 1),
    "logical_or_ number": lambda lib: f(lib).logical_or_(True),
    "bitwise_and float": lambda lib: lib.bitwise_and(f(lib), f(lib)),
    "int & float": lambda lib: i(lib) & 1.5,
    "float | int": lambda lib: f(lib) | i(lib),
    "bitwise_xor float": lambda lib: lib.bitwise_xor(i(lib), f32(lib)),
    "bitwise_not float": lambda lib: lib.bitwise_not(f(lib)),
    "~float": lambda lib: ~f(lib),
    "float << 1": lambda lib: f(lib) << 1,
    "int << float": lambda lib: i(lib) << 1.5,
    "2.0 << int": lambda lib: 2.0 << i(lib),
    "bool << bool": lambda lib: b(lib) << b(lib),
    "bool >> True": lambda lib: b(lib) >> True,
    "int &= float": lambda lib: i(lib).__iand__(1.5),
    "bitwise_and_ int by float": lambda lib: i(lib).bitwise_and_(f(lib)),
    "bool |= int": lambda lib: b(lib).__ior__(i(lib)),
    "float &= float": lambda lib: f(lib).__iand__(f(lib)),
    "int & None": lambda lib: i(lib) & None,
    "int | list": lambda lib: i(lib) | [1, 2],
    "where float condition": lambda lib: lib.where(f(lib), f(lib), f(lib)),
    "where int condition": lambda lib: lib.where(i(lib), f(lib), 0.0),
    "where shapes": lambda lib: lib.where(b(lib), f(lib), lib.ones(3, dtype=lib.float64)),
    "maximum number": lambda lib: lib.maximum(f(lib), 2.0),
    "maximum number first": lambda lib: lib.maximum(2.0, f(lib)),
    "minimum number": lambda lib: lib.minimum(f(lib), 2),
    "fmax number": lambda lib: lib.fmax(f(lib), 2.0),
    "fmin bool": lambda lib: lib.fmin(f(lib), True),
    "maximum shapes": lambda lib: lib.maximum(f(lib), lib.ones(3, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(name):
    assert_raises_like_torch(ERRORS[name])
