"""Sample builders for the ops of ndgrad.ops.softmaxes: every dim of 0-d to 3-d inputs and views, the dtype
argument, the F. and method forms, softmin, and large values (where a naive exp overflows)."""

import numpy as np

from ndgrad.ops.softmaxes import LogSoftmax, Softmax

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


BUILDERS = {
    Softmax: lambda op, rng: cases(op, rng) + [
        Case(op, (draw(rng, (3, 4)),), nn_function("softmin", 1)),
        Case(op, (draw(rng, (2, 3, 2)),), nn_function("softmin", dim=0)),
    ],
    LogSoftmax: cases,
}
