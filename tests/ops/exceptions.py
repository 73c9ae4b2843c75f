"""The only per-op test knowledge besides the samplers: tolerance overrides and expected failures with a reason.

Keep it short. An xfail is strict: when the bug is fixed the test XPASSes and fails, so the entry is removed.
"""

import pytest

# Tolerances for values and gradients compared with torch; TOLERANCES[(op class, dtype name)] overrides.
DEFAULT_TOLERANCE = {"float64": {"rtol": 1e-7, "atol": 1e-7}, "float32": {"rtol": 1e-5, "atol": 1e-5}}
TOLERANCES = {}

# XFAILS[(op class, test function name)] = reason: known bugs not fixed yet.
XFAILS = {}


def tolerance(op, dtype="float64"):
    return TOLERANCES.get((op, dtype), DEFAULT_TOLERANCE[dtype])


def marks(op, test):
    reason = XFAILS.get((op, test))
    return [pytest.mark.xfail(reason=reason, strict=True)] if reason else []


def xfailed(op, test):
    """Hypothesis tests draw ops from a list and cannot mark one example: they leave these ops out."""
    return (op, test) in XFAILS
