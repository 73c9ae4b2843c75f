"""Sample builders for the ops of ndgrad.ops.scan: the SCAN sampler (a dim, negative dims, 0-d, non-contiguous),
dtype and in-place forms, zeros of cumprod and ties of cummax/cummin."""

import numpy as np

from ndgrad.ops import scan

from ..samples import C, Call, Case, Input, S, T, draw, expression, function, kinks, method

# (shape, layout, dim)
SCAN_DIMS = [
    ((5,), C, 0), ((3, 4), C, 1), ((3, 4), C, -2), ((), C, 0), ((), C, -1), ((2, 3, 4), C, -1), ((2, 3, 4), C, 1),
    ((3, 4), T, 0), ((2, 3, 2), S, 1), ((1, 4), C, 0),
]


def scan_cases(op, rng):
    """lib.<name>(x, dim=d) over SCAN_DIMS, and the Tensor method once."""
    cases = [Case(op, (draw(rng, s, op.domain, layout),), function(op.name, dim=dim)) for s, layout, dim in SCAN_DIMS]
    return cases + [Case(op, (draw(rng, (3, 4), op.domain),), method(op.name, -1))]


def with_dtype(name, dim, dtype):
    text = f"{name}($, {dim}, dtype={dtype})"
    return Call(text, lambda lib, x: getattr(lib, name)(x, dim, dtype=getattr(lib, dtype)))


def exact(op, arrays, call):
    """Zeros of cumprod: its gradient is a polynomial there, so these are checked to second order."""
    return [Case(op, (Input(np.asarray(a, dtype=np.float64)),), call) for a in arrays]


CUMPROD_ZEROS = [[2.0, 0.0, 3.0, 0.0, 5.0], [1.5, -2.0, 0.5, 0.0], [0.0, 1.5, 2.0]]

BUILDERS = {
    scan.Cumsum: lambda op, rng: scan_cases(op, rng) + [
        Case(op, (draw(rng, (3, 4)),), with_dtype("cumsum", 1, "float64")),
        Case(op, (draw(rng, (3, 4)),), expression("$.clone().cumsum_(1)", lambda x: x.clone().cumsum_(1))),
    ],
    scan.Cumprod: lambda op, rng: scan_cases(op, rng) + [
        Case(op, (draw(rng, (3, 4)),), with_dtype("cumprod", 0, "float64")),
        Case(op, (draw(rng, (2, 3)),), expression("$.clone().cumprod_(-1)", lambda x: x.clone().cumprod_(-1))),
    ] + exact(op, CUMPROD_ZEROS, function("cumprod", 0)) + exact(
        op, [[[0.0, 2.0, 3.0], [1.5, 0.0, 0.0]]], function("cumprod", 1)) + exact(
        op, [[[0.0, 2.0], [1.5, 0.0], [-1.0, 2.0]]], function("cumprod", 0)),
    scan.Cummax: lambda op, rng: scan_cases(op, rng) + kinks(
        op, rng, [([1.0, 3.0, 3.0, 2.0, 3.0, 5.0],)], function("cummax", 0)) + kinks(
        op, rng, [([[2.0, 2.0, 1.0], [-1.0, 3.0, 3.0]],)], function("cummax", 1)),
    scan.Cummin: lambda op, rng: scan_cases(op, rng) + kinks(
        op, rng, [([3.0, 1.0, 1.0, 2.0, 1.0, 0.0],)], function("cummin", 0)) + kinks(
        op, rng, [([[2.0, 2.0, 1.0], [-1.0, -1.0, 3.0]],)], function("cummin", -1)),
    scan.Logcumsumexp: lambda op, rng: scan_cases(op, rng) + [
        # extreme magnitudes: compared with torch only (its forward formula, followed here, underflows to 0)
        Case(op, (Input(np.array([[1000.0, 999.0, -1000.0], [-1000.0, -1001.0, 5.0]])),), function("logcumsumexp", 1),
             smooth=False),
    ],
}
