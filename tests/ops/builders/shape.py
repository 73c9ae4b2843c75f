"""Sample builders for the ops of ndgrad.ops.shape that need their own arguments or kink cases."""

from ndgrad.ops import shape

from ..samples import C, S, T, function, method, shape_cases

BUILDERS = {
    shape.View: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, method("view", 12)),
        ((3, 4), C, method("view", 2, -1, 3)),
        ((3, 4), C, method("view", (4, 3))),
        ((), C, method("view", 1)),
        ((1,), C, method("view", ())),
        ((2, 3, 4), S, method("view", 6, 4)),
        ((3, 4), T, method("view", 3, 2, 1, 2)),
    ]),
    shape.Transpose: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("transpose", 0, 1)),
        ((2, 3, 4), C, function("transpose", -1, 0)),
        ((2, 3, 4), C, function("transpose", 1, 1)),
        ((5,), C, function("transpose", 0, -1)),
        ((), C, function("transpose", 0, -1)),
        ((3, 4), T, function("transpose", 1, 0)),
        ((2, 3, 2), S, function("transpose", 0, 2)),
    ]),
    shape.T: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("t")), ((5,), C, function("t")), ((), C, function("t")), ((3, 4), T, function("t")),
        ((3, 4), S, method("t")),
    ]),
    shape.Permute: lambda op, rng: shape_cases(op, rng, [
        ((2, 3, 4), C, function("permute", (2, 0, 1))),
        ((2, 3, 4), C, function("permute", (-1, 0, 1))),
        ((), C, function("permute", ())),
        ((3, 4), T, function("permute", (1, 0))),
        ((2, 3, 2), S, method("permute", 1, 2, 0)),
    ]),
    shape.Squeeze: lambda op, rng: shape_cases(op, rng, [
        ((1, 3, 1, 4), C, function("squeeze")),
        ((), C, function("squeeze")),
        ((1,), C, function("squeeze")),
        ((3, 4), C, function("squeeze")),
        ((1, 3, 2), S, method("squeeze")),
    ]),
    shape.SqueezeDim: lambda op, rng: shape_cases(op, rng, [
        ((1, 3, 1, 4), C, function("squeeze", 2)),
        ((1, 3, 1, 4), C, function("squeeze", -4)),
        ((3, 4), C, function("squeeze", 0)),
        ((), C, function("squeeze", 0)),
        ((3, 1, 2), S, method("squeeze", 1)),
    ]),
    shape.SqueezeDims: lambda op, rng: shape_cases(op, rng, [
        ((1, 3, 1, 4), C, function("squeeze", (0, 2))),
        ((1, 3, 1, 4), C, function("squeeze", (-2, 1))),
        ((3, 4), C, function("squeeze", (0,))),
        ((), C, function("squeeze", ())),
        ((1, 3, 2), S, function("squeeze", (0, -1))),
    ]),
    shape.Unsqueeze: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("unsqueeze", 0)),
        ((3, 4), C, function("unsqueeze", -1)),
        ((), C, function("unsqueeze", 0)),
        ((3, 4), T, function("unsqueeze", 1)),
        ((2, 3, 2), S, method("unsqueeze", -2)),
    ]),
    shape.Expand: lambda op, rng: shape_cases(op, rng, [
        ((3, 1), C, method("expand", 3, 4)),
        ((4,), C, method("expand", 2, 3, 4)),
        ((), C, method("expand", 3)),
        ((3, 1), C, method("expand", (-1, 4))),
        ((4, 1), T, method("expand", 2, -1, 3)),
        ((1, 3, 2), S, method("expand", 2, -1, -1, 2)),
    ]),
}
