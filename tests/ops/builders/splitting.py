"""Sample builders for the ops of ndgrad.ops.splitting. Ops with several outputs are called both ways: returning
all pieces (every grad_fn is checked) and picking one piece (its gradient lands in the right place)."""

from ndgrad.ops import splitting

from ..samples import C, Call, S, T, function, method, shape_cases


def piece(call, index):
    """One output of a several-output call: the gradient then flows into one piece only."""
    return Call(f"{call.text}[{index}]", lambda lib, *tensors: call(lib, *tensors)[index])


BUILDERS = {
    splitting.Unbind: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("unbind")),
        ((3, 4), C, piece(function("unbind", 1), 2)),
        ((2, 3, 4), C, function("unbind", -1)),
        ((4,), C, piece(function("unbind"), 1)),
        ((3, 4), T, method("unbind", 1)),
        ((2, 3, 2), S, piece(method("unbind", 2), 0)),
    ]),
    splitting.Split: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("split", 2)),
        ((3, 4), C, piece(function("split", 3, 1), 1)),
        ((2, 3, 4), C, function("split", 1, dim=-2)),
        ((5,), C, function("chunk", 3)),
        ((3, 4), C, piece(function("chunk", 2, 1), 1)),
        ((3, 4), C, function("split", 5)),
        ((3, 4), T, piece(method("split", 2, 1), 1)),
        ((2, 3, 2), S, method("chunk", 2, -1)),
    ]),
    splitting.SplitWithSizes: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("split", [1, 2])),
        ((3, 4), C, piece(function("split", (1, 0, 3), 1), 2)),
        ((2, 3, 4), C, function("split_with_sizes", [3, 1], -1)),
        ((3, 4), T, piece(method("split_with_sizes", [2, 1]), 1)),
        ((2, 3, 2), S, method("split", [1, 1], 2)),
    ]),
    splitting.Unfold: lambda op, rng: shape_cases(op, rng, [
        ((3, 5), C, method("unfold", 1, 2, 1)),
        ((3, 5), C, method("unfold", 0, 2, 1)),
        ((2, 5, 3), C, method("unfold", -2, 3, 2)),
        ((6,), C, method("unfold", 0, 2, 2)),
        ((), C, method("unfold", 0, 1, 1)),
        ((3, 4), T, method("unfold", 1, 4, 1)),
        ((2, 3, 3), S, method("unfold", 2, 1, 2)),
    ]),
}
