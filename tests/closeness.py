"""How the suite compares computed floats with torch's (or NumPy's): tolerances per dtype that hold on any x86-64
CPU, BLAS kernel and thread count, exact comparison for exact values, and printed text compared number by number.

Why tolerances at all: torch computes with MKL and its own vector kernels, ndgrad with NumPy's SIMD loops and
OpenBLAS, and each picks its kernel from the CPU's instruction set and the thread count (a sum split over two threads
adds in another order). A result a few ops deep differs in its last bits from one machine to the next, and so does
torch's own. ``make test-other-cpu`` runs the suite on other kernels to keep this true.

- ``assert_close(actual, expected)``: tensors (ndgrad or torch), arrays or numbers; same shape and dtype; integers
  and bools exactly, floats to ``TOLERANCE`` of their dtype, NaN where the other has NaN. Pass ``rtol``/``atol`` only
  with a comment that says why: looser where a long computation amplifies rounding (an optimizer's trajectory, an
  ill-conditioned solve), tighter for an accuracy test of an elementwise function (both sides within a few ulps).
- ``printed_alike(actual, expected)``: printed text (stdout, an error message) equal, or equal but for numbers that
  round differently: each such number printed in the same form, within one unit of its last printed digit plus
  float32's tolerance.
"""

import re

import numpy as np
import torch

# rtol/atol per dtype: wide enough for a few dozen roundings on O(1) values (reductions, matmuls, transcendental
# functions from different libraries), tight enough that a wrong formula or gradient (off by O(1)) fails by far.
TOLERANCE = {
    "float64": {"rtol": 1e-7, "atol": 1e-9},
    "float32": {"rtol": 1e-4, "atol": 1e-5},
    "float16": {"rtol": 1e-3, "atol": 1e-3},
    "bfloat16": {"rtol": 1.6e-2, "atol": 1e-2},
}
TOLERANCE["complex128"] = TOLERANCE["float64"]
TOLERANCE["complex64"] = TOLERANCE["float32"]

# A number as torch and Python print it: 1., -0.0000, 1.2346e+03, 1e-05, the imaginary part +2.0000j (not words
# such as float32, nor integers, which are compared exactly with the text around them).
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+(?=e))(?:e[-+]?\d+)?j?(?![\w.])")
_SPACE = re.compile(r"\s+")


def _as_torch(value):
    """A torch tensor of the same values and dtype (ndgrad tensors through NumPy, on the host)."""
    if isinstance(value, torch.Tensor):
        return value.detach().resolve_conj()
    if hasattr(value, "detach"):  # an ndgrad Tensor
        value = value.detach().cpu().resolve_conj().numpy()
    return torch.from_numpy(np.array(value))


def tolerance(*dtypes):
    """rtol and atol for comparing values of these dtypes (names or dtypes): those of the least precise float."""
    names = [str(dtype).rsplit(".", 1)[-1] for dtype in dtypes]
    known = [TOLERANCE[name] for name in names if name in TOLERANCE]
    return max(known, key=lambda t: t["rtol"]) if known else {"rtol": 0.0, "atol": 0.0}


def assert_close(actual, expected, *, rtol=None, atol=None, msg=None):
    """``actual`` equals ``expected`` to the tolerance of their dtype (see the module docstring); ``msg`` says what
    is compared, before torch.testing's account of the mismatch."""
    assert actual is not None and expected is not None, f"{msg}: {actual!r} against {expected!r}"
    actual, expected = _as_torch(actual), _as_torch(expected)
    if rtol is None and atol is None:
        rtol, atol = (tolerance(actual.dtype, expected.dtype)[key] for key in ("rtol", "atol"))
    torch.testing.assert_close(actual, expected, rtol=rtol or 0.0, atol=atol or 0.0, equal_nan=True,
                               msg=None if msg is None else lambda text: f"{msg}: {text}")


def _form(number):
    """(decimals, exponent or None, imaginary?): 0.8413 -> (4, None, False), 1.2346e+05 -> (4, 5, False)."""
    mantissa, _, exponent = number.rstrip("j").lower().partition("e")
    return len(mantissa.partition(".")[2]), int(exponent) if exponent else None, number.endswith("j")


def _numbers_alike(ours, theirs):
    """Printed in the same form (the same decimals, both with an exponent or neither; Python's shortest repr of a
    float, 8 decimals or more, varies in length) and, but for rounding, the same value: within one unit in the last
    printed digit plus float32's tolerance."""
    (decimals, exponent, imaginary), (their_decimals, their_exponent, their_imaginary) = _form(ours), _form(theirs)
    if (exponent is None, imaginary) != (their_exponent is None, their_imaginary):
        return False
    if decimals != their_decimals and min(decimals, their_decimals) < 8:
        return False
    unit = 10.0 ** (min(exponent or 0, their_exponent or 0) - min(decimals, their_decimals))
    a, b = float(ours.rstrip("j")), float(theirs.rstrip("j"))
    return abs(a - b) <= 1.01 * unit + TOLERANCE["float32"]["atol"] + TOLERANCE["float32"]["rtol"] * abs(b)


def printed_alike(actual, expected):
    """The same text, but for printed numbers that differ in rounding. Where such a number differs, the padding
    around it may too (torch pads a tensor's elements to the widest): the text is then compared without spaces."""
    if actual == expected:
        return True
    ours, theirs = _NUMBER.findall(actual), _NUMBER.findall(expected)
    if len(ours) != len(theirs) or ours == theirs:
        return False
    if _SPACE.sub("", _NUMBER.sub("#", actual)) != _SPACE.sub("", _NUMBER.sub("#", expected)):
        return False
    return all(_numbers_alike(a, b) for a, b in zip(ours, theirs))
