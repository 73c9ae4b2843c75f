"""Sample builders for the ops of ndgrad.ops.joining: several tensors in one call, flips, rolls, repeats, diagonals
and triangles; the stack forms (hstack, vstack, ...) are cases of the Cat they end in."""

from ndgrad.ops import joining

from ..samples import C, Call, Case, S, T, draw, expression, fixed, function, method, shape_cases


def joined(name, **kwargs):
    """lib.name([tensors], **kwargs): the list form that cat, stack and their relatives take."""
    arguments = "".join(f", {k}={v!r}" for k, v in kwargs.items())
    return Call(f"{name}([$]{arguments})", lambda lib, *tensors: getattr(lib, name)(list(tensors), **kwargs))


def joining_cases(op, rng, entries):
    """Each entry: ([(shape, layout), ...], call)."""
    return [Case(op, tuple(draw(rng, s, op.domain, layout) for s, layout in inputs), call) for inputs, call in entries]


BUILDERS = {
    joining.Cat: lambda op, rng: joining_cases(op, rng, [
        ([((3, 4), C), ((2, 4), C)], joined("cat")),
        ([((3, 4), T), ((3, 2), S), ((3, 1), C)], joined("cat", dim=-1)),
        ([((2, 3, 4), C), ((2, 1, 4), S)], joined("cat", dim=1)),
        ([((2,), C), ((3,), C)], joined("cat")),
        ([((3, 4), C)], joined("cat", dim=1)),
        # NOTE: large enough to skip finite differences, which cannot take an empty input yet.
        ([((5, 9), C), ((0,), C)], joined("cat", dim=1)),
        ([((0,), C), ((7, 6), C), ((0,), C)], joined("cat")),
        ([((3, 4), C), ((1, 4), C)], joined("concat")),
        ([((3, 4), C), ((3, 1), C)], joined("cat", axis=1)),
        ([((3, 4), C), ((3, 1), C)], joined("concatenate", dim=-1)),
        ([((2, 4), C), ((2, 4), T)], joined("concatenate", axis=1)),
        ([((3,), C), ((2,), C)], joined("hstack")),
        ([((2, 3), C), ((2, 1), S)], joined("hstack")),
        ([((2, 3), C), ((1, 3), C)], joined("vstack")),
        ([((2, 3, 1), C), ((2, 3, 2), C)], joined("dstack")),
        ([((2, 3), C), ((2, 1), T)], joined("column_stack")),
    ]) + [Case(op, (draw(rng, (3, 4)), fixed([[1, 2, 3, 4]])), joined("cat"))],
    joining.Stack: lambda op, rng: joining_cases(op, rng, [
        ([((3, 4), C), ((3, 4), C)], joined("stack")),
        ([((3, 4), C), ((3, 4), C)], joined("stack", axis=2)),
        ([((3, 4), T), ((3, 4), S), ((3, 4), C)], joined("stack", dim=-1)),
        ([((2, 3), C), ((2, 3), C)], joined("stack", dim=1)),
        ([((), C), ((), C)], joined("stack")),
        ([((4,), C)], joined("stack", dim=1)),
    ]),
    joining.Flip: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("flip", (0,))),
        ((2, 3, 4), C, function("flip", (0, -1))),
        ((), C, function("flip", ())),
        ((3, 4), T, method("flip", 1)),
        ((2, 3, 2), S, method("flip", 0, 2)),
        ((3, 4), C, function("fliplr")),
        ((3,), C, function("flipud")),
    ]),
    joining.Roll: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("roll", 1)),
        ((2, 3, 4), C, function("roll", (1, -2), (0, 2))),
        ((3, 4), C, function("roll", 5, 0)),
        ((), C, function("roll", 1)),
        ((3, 4), T, method("roll", -1, dims=-1)),
        ((2, 3, 2), S, function("roll", shifts=(1,))),
    ]),
    joining.Rot90: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("rot90")),
        ((3, 4), C, function("rot90", 2)),
        ((3, 4), C, function("rot90", -1)),
        ((2, 3, 4), C, function("rot90", 5, (2, -3))),
        ((3, 4), T, method("rot90", 3, [1, 0])),
        ((2, 3, 2), S, function("rot90", 0, (0, 2))),
    ]),
    joining.Repeat: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, method("repeat", 2, 1)),
        ((4,), C, method("repeat", 2, 3)),
        ((), C, method("repeat", 3)),
        ((2, 3, 2), S, method("repeat", (1, 2, 1))),
        ((5, 9), T, method("repeat", 0, 2)),  # an empty result: large enough to skip finite differences
        ((3, 4), C, function("tile", (2,))),
        ((2, 3), C, method("tile", 2, 1, 1)),
    ]),
    joining.Diag: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("diag")),
        ((3, 4), C, function("diag", 1)),
        ((3, 4), T, function("diag", -2)),
        ((4, 4), S, method("diag")),
        ((7, 6), C, function("diag", 7)),  # an empty result: large enough to skip finite differences
    ]),
    joining.DiagEmbed: lambda op, rng: shape_cases(op, rng, [
        ((3,), C, function("diag_embed")),
        ((2, 3), C, function("diag_embed", 1)),
        ((2, 3), T, function("diag_embed", -1, 0, 2)),
        ((2, 3, 2), S, method("diag_embed", 0, 2, -3)),
        ((4,), C, function("diag")),
        ((3,), C, method("diag", -1)),
    ]),
    joining.Tril: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("tril")),
        ((3, 4), C, function("tril", 1)),
        ((2, 3, 4), C, function("tril", -1)),
        ((3, 4), T, method("tril", -5)),
        ((2, 3, 2), S, method("tril")),
        ((3, 3), C, expression("$.clone().tril_(1)", lambda x: x.clone().tril_(1))),
    ]),
    joining.Triu: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("triu")),
        ((3, 4), C, function("triu", 2)),
        ((2, 3, 4), C, function("triu", -1)),
        ((3, 4), T, method("triu", 1)),
        ((2, 3, 2), S, method("triu")),
        ((3, 3), C, expression("$.clone().triu_()", lambda x: x.clone().triu_())),
    ]),
}
