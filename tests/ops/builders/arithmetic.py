"""Sample builders for the ops of ndgrad.ops.arithmetic (and its rounding part) that need their own arguments or
kink cases."""

from functools import partial

from ndgrad.ops import arithmetic, rounding
from ndgrad.ops._op import NONZERO

from ..samples import C, Call, Case, S, T, binary_cases, draw, expression, function, kinks, method, unary_cases


def tensor_method(name, *args):
    """x.name(y, ..., *args): a method whose other operands are tensors too."""
    return Call(f"$.{name}(..., {', '.join(map(repr, args))})", lambda lib, x, *rest: getattr(x, name)(*rest, *args))


NAN, INF = float("nan"), float("inf")
STEPS = [([-1.0, 0.0, 2.0, 2.5, -0.5],)]  # integers and halves: where the rounding ops jump


def calls(op, rng, entries):
    """One unary case per (shape, layout, call)."""
    return [Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout, call in entries]


def triples(op, rng, call, shapes, domain=None):
    """Three-tensor cases (lerp's weight, clamp's bounds): ((shape, layout), ...) per case."""
    return [Case(op, tuple(draw(rng, s, domain or op.domain, layout) for s, layout in shape), call) for shape in shapes]


TRIPLE_SHAPES = [
    (((3, 4), C), ((3, 4), C), ((3, 4), C)),
    (((), C), ((), C), ((), C)),
    (((2, 1, 4), C), ((3, 1), C), ((4,), C)),
    (((3, 4), T), ((3, 4), S), ((), C)),
    (((3,), C), ((2, 3), C), ((2, 1), T)),
]

# NOTE: torch's clamp backward fails ("output with shape ... doesn't match the broadcast shape") when input is
# smaller than a bound, so input has the full shape here.
CLAMP_SHAPES = [
    (((3, 4), C), ((3, 4), C), ((3, 4), C)),
    (((), C), ((), C), ((), C)),
    (((2, 3, 4), C), ((3, 1), C), ((4,), C)),
    (((3, 4), T), ((3, 4), S), ((), C)),
    (((2, 3), T), ((3,), C), ((2, 1), C)),
]


def min_only(lib, x, bound):
    return lib.clamp(x, min=bound)


def max_only(lib, x, bound):
    return lib.clamp(x, max=bound)


def one_sided(op, rng, name, ties):
    """clamp_min/clamp_max by a number: unary cases, and ties with the bound."""
    return calls(op, rng, [
        ((3, 4), C, function(name, 0.3)), ((), C, function(name, -0.5)), ((2, 3, 2), S, method(name, 0)),
        ((3, 4), T, function(name, 1)), ((5,), C, function(name, 0.25)),
    ]) + kinks(op, rng, ties, function(name, 0.5))


BUILDERS = {
    arithmetic.Add: lambda op, rng: binary_cases(op, rng) + binary_cases(op, rng, alpha=2.5)[:1],
    arithmetic.Sub: lambda op, rng: binary_cases(op, rng) + binary_cases(op, rng, alpha=2.5)[:1],
    arithmetic.Rsub: lambda op, rng: binary_cases(op, rng, scalar_other=False) + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (4,))), function("rsub", alpha=2.5))],
    arithmetic.RsubScalar: lambda op, rng: unary_cases(op, rng, expression("2.5 - $", lambda x: 2.5 - x))[:3]
    + unary_cases(op, rng, function("rsub", 2.0, alpha=3))[3:],
    arithmetic.Remainder: partial(binary_cases, scalar_other=False),
    arithmetic.RemainderScalar: lambda op, rng: unary_cases(op, rng, expression("$ % 1.5", lambda x: x % 1.5))[:3]
    + unary_cases(op, rng, function("remainder", -0.75))[3:],
    arithmetic.Fmod: partial(binary_cases, scalar_other=False),
    arithmetic.FmodScalar: lambda op, rng: unary_cases(op, rng, function("fmod", 1.5))[:3]
    + unary_cases(op, rng, method("fmod", -0.75))[3:],
    arithmetic.DivRounding: lambda op, rng: binary_cases(op, rng, scalar_other=False, rounding_mode="trunc")[:4]
    + binary_cases(op, rng, scalar_other=False, rounding_mode="floor")[4:] + [
        Case(op, (draw(rng, (3, 4), NONZERO),), function("div", 1.5, rounding_mode="floor")),
        Case(op, (draw(rng, (5,), NONZERO),), method("div", -0.75, rounding_mode="trunc")),
    ] + kinks(op, rng, [([3.0, -3.0, 1.0], [1.5, 1.5, -0.5])], function("div", rounding_mode="floor")),
    arithmetic.PowTensor: partial(binary_cases, scalar_other=False),
    arithmetic.Pow: lambda op, rng: calls(op, rng, [
        ((3, 4), C, expression("$ ** 2", lambda x: x**2)),
        ((), C, expression("$ ** 2.5", lambda x: x**2.5)),
        ((5,), C, function("pow", -1.5)),
        ((2, 3, 2), S, function("pow", 0.5)),
        ((3, 4), T, expression("$ ** 3", lambda x: x**3)),
        ((3, 4), C, function("pow", 0)),
        ((5,), C, function("pow", 1.0)),
    ]),
    arithmetic.PowScalarBase: lambda op, rng: calls(op, rng, [
        ((3, 4), C, expression("2.0 ** $", lambda x: 2.0**x)),
        ((), C, expression("3 ** $", lambda x: 3**x)),
        ((2, 3, 2), S, Call("pow(0.5, $)", lambda lib, x: lib.pow(0.5, x))),
        ((3, 4), T, expression("1.5 ** $", lambda x: 1.5**x)),
    ]),
    arithmetic.Neg: lambda op, rng: unary_cases(op, rng)[:3] + unary_cases(op, rng, function("negative"))[3:],
    arithmetic.Abs: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0],)])
    + calls(op, rng, [((3, 4), C, function("absolute"))]),
    arithmetic.Lerp: lambda op, rng: [
        Case(op, (draw(rng, s), draw(rng, t)), call) for (s, t), call in [
            (((3, 4), (3, 4)), function("lerp", 0.3)),
            (((), ()), function("lerp", 0.7)),
            (((2, 1, 4), (3, 1)), function("lerp", -1.5)),
            (((4,), (3, 4)), tensor_method("lerp", 1)),
        ]
    ] + [Case(op, (draw(rng, (3, 4), layout=T), draw(rng, (3, 4), layout=S)), function("lerp", 0.5))],
    arithmetic.FillOutOfPlace: lambda op, rng: calls(op, rng, [
        ((3, 4), C, function("fill", 2.5)), ((), C, function("fill", -1)), ((3, 4), T, function("fill", 0.5)),
    ]),
    arithmetic.FillTensorOutOfPlace: lambda op, rng: [
        Case(op, (draw(rng, shape, layout=layout), draw(rng, ())), function("fill"))
        for shape, layout in (((3, 4), C), ((), C), ((2, 3, 2), S))
    ],
    arithmetic.LerpTensor: lambda op, rng: triples(op, rng, function("lerp"), TRIPLE_SHAPES)
    + triples(op, rng, tensor_method("lerp"), TRIPLE_SHAPES[:1]),
    arithmetic.Hypot: lambda op, rng: binary_cases(op, rng, scalar_other=False)
    + [Case(op, (draw(rng, (3, 4), op.domain),) * 2, tensor_method("hypot"))],
    rounding.Floor: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, STEPS),
    rounding.Ceil: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, STEPS),
    rounding.Round: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, STEPS),
    rounding.RoundDecimals: lambda op, rng: calls(op, rng, [
        ((3, 4), C, function("round", decimals=1)), ((), C, function("round", decimals=0)),
        ((5,), C, function("round", decimals=-1)), ((3, 4), T, method("round", decimals=2)),
        ((2, 3, 2), S, function("round", decimals=3)),
    ]) + kinks(op, rng, [([0.25, -0.35, 1.0],)], function("round", decimals=1)),
    rounding.Trunc: lambda op, rng: unary_cases(op, rng)[:4] + unary_cases(op, rng, function("fix"))[4:]
    + kinks(op, rng, STEPS),
    rounding.Frac: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, STEPS),
    rounding.Sign: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0, NAN],)]),
    rounding.Sgn: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0],)]),
    rounding.NanToNum: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([1.0, NAN, INF, -INF],)])
    + kinks(op, rng, [([1.0, NAN, INF, -INF],)], function("nan_to_num", 0.5, posinf=2.0, neginf=-3.0)),
    rounding.Clamp: lambda op, rng: triples(op, rng, function("clamp"), CLAMP_SHAPES) + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (4,))), Call("clamp($, min=$)", min_only)),
        Case(op, (draw(rng, (2, 3), layout=T), draw(rng, ())), Call("clamp($, max=$)", max_only)),
        Case(op, (draw(rng, (3, 4)), draw(rng, (3, 4)), draw(rng, (3, 4))), tensor_method("clip")),
    ] + kinks(op, rng, [
        ([-1.0, 0.0, 0.5, 1.0, 2.0, 0.5, 0.5, 3.0, 0.5], [0.0] * 9, [1.0] * 5 + [-1.0, 0.5, 0.0, 0.0]),
    ]) + kinks(op, rng, [([-1.0, 0.0, 0.5], [0.0] * 3)], Call("clamp($, min=$)", min_only))
    + kinks(op, rng, [([-1.0, 0.0, 0.5], [0.0] * 3)], Call("clamp($, max=$)", max_only)),
    rounding.ClampScalar: lambda op, rng: calls(op, rng, [
        ((3, 4), C, function("clamp", -0.5, 0.5)), ((), C, function("clamp", min=-0.5)),
        ((5,), C, function("clamp", max=0.25)), ((3, 4), T, method("clip", -1, 1)),
        ((2, 3, 2), S, function("clip", 0.5, -0.5)),
    ]) + kinks(op, rng, [([-1.0, -0.5, 0.0, 0.5, 1.0],)], function("clamp", -0.5, 0.5))
    + kinks(op, rng, [([-1.0, 0.5, 1.0],)], function("clamp", 1.0, 0.0)),
    rounding.ClampMin: lambda op, rng: one_sided(op, rng, "clamp_min", [([0.0, 0.5, 1.0],)]),
    rounding.ClampMax: lambda op, rng: one_sided(op, rng, "clamp_max", [([0.0, 0.5, 1.0],)]),
    rounding.ClampMinTensor: lambda op, rng: binary_cases(op, rng, scalar_other=False)
    + kinks(op, rng, [([-1.0, 0.0, 0.5], [0.0, 0.0, 0.0])]),
    rounding.ClampMaxTensor: lambda op, rng: binary_cases(op, rng, scalar_other=False)
    + kinks(op, rng, [([-1.0, 0.0, 0.5], [0.0, 0.0, 0.0])]),
}
