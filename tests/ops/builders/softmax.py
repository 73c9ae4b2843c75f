"""Sample builders for the ops of ndgrad.ops.softmaxes: every dim of 0-d to 3-d inputs and views, the dtype
argument, the F. and method forms, softmin, and large values (where a naive exp overflows); _safe_softmax with
rows partly and wholly -inf (attention's masked rows)."""

import numpy as np

from ndgrad.ops import softmaxes
from ndgrad.ops.softmaxes import LogSoftmax, SafeSoftmax, Softmax

from ..samples import C, Call, Case, Input, S, T, draw, function, method


def nn_function(name, *args, **kwargs):
    arguments = "".join(f", {a!r}" for a in args) + "".join(f", {k}={v!r}" for k, v in kwargs.items())
    return Call(f"F.{name}($" + arguments + ")",
                lambda lib, x: getattr(lib.nn.functional, name)(x, *args, **kwargs))


def with_dtype(name, dim, dtype):
    return Call(f"F.{name}($, {dim}, dtype={dtype})",
                lambda lib, x: getattr(lib.nn.functional, name)(x, dim, dtype=getattr(lib, dtype)))


SHAPES = [((), C, 0), ((5,), C, 0), ((3, 4), C, 1), ((3, 4), C, 0), ((2, 3, 4), C, -1), ((2, 3, 4), C, 1),
          ((3, 4), T, 1), ((2, 3, 2), S, -1)]


def cases(op, rng):
    name = op.name
    call = function if name != "softmax" else nn_function  # ndgrad.softmax: see the NOTE in ndgrad/ops/softmax.py
    big = Input(np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -999.5]]))
    return [Case(op, (draw(rng, shape, op.domain, layout),), call(name, dim)) for shape, layout, dim in SHAPES] + [
        Case(op, (draw(rng, (3, 4)),), nn_function(name, dim=1)),
        Case(op, (draw(rng, (2, 3)),), method(name, 0)),
        Case(op, (draw(rng, (3, 4)),), with_dtype(name, 1, "float64")),
        Case(op, (big,), call(name, 1)),
    ]


def safe_softmax(dim):
    """torch._safe_softmax has no ndgrad top-level twin: ndgrad's is ops.softmaxes.safe_softmax."""
    return Call(f"_safe_softmax($, {dim})",
                lambda lib, x: (softmaxes.safe_softmax if lib.__name__ == "ndgrad" else lib._safe_softmax)(x, dim))


def safe_softmax_cases(op, rng):
    masked = Input(np.array([[0.5, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf], [2.0, 0.0, -np.inf]]))
    return [Case(op, (draw(rng, shape, op.domain, layout),), safe_softmax(dim)) for shape, layout, dim in SHAPES] + [
        Case(op, (masked,), safe_softmax(1), smooth=False),
        Case(op, (masked,), safe_softmax(0), smooth=False),
    ]


BUILDERS = {
    SafeSoftmax: safe_softmax_cases,
    Softmax: lambda op, rng: cases(op, rng) + [
        Case(op, (draw(rng, (3, 4)),), nn_function("softmin", 1)),
        Case(op, (draw(rng, (2, 3, 2)),), nn_function("softmin", dim=0)),
    ],
    LogSoftmax: cases,
}
