"""Sample builders for the ops of ndgrad.ops.arithmetic that need their own arguments or kink cases."""

from functools import partial

from ndgrad.ops import arithmetic

from ..samples import C, Call, Case, S, T, binary_cases, draw, expression, function, kinks, unary_cases

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
    arithmetic.PowTensor: partial(binary_cases, scalar_other=False),
    arithmetic.Pow: lambda op, rng: [
        Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout, call in [
            ((3, 4), C, expression("$ ** 2", lambda x: x**2)),
            ((), C, expression("$ ** 2.5", lambda x: x**2.5)),
            ((5,), C, function("pow", -1.5)),
            ((2, 3, 2), S, function("pow", 0.5)),
            ((3, 4), T, expression("$ ** 3", lambda x: x**3)),
            ((3, 4), C, function("pow", 0)),
            ((5,), C, function("pow", 1.0)),
        ]
    ],
    arithmetic.PowScalarBase: lambda op, rng: [
        Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout, call in [
            ((3, 4), C, expression("2.0 ** $", lambda x: 2.0**x)),
            ((), C, expression("3 ** $", lambda x: 3**x)),
            ((2, 3, 2), S, Call("pow(0.5, $)", lambda lib, x: lib.pow(0.5, x))),
            ((3, 4), T, expression("1.5 ** $", lambda x: 1.5**x)),
        ]
    ],
    arithmetic.Abs: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0],)]),
    arithmetic.Sign: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0],)]),
}
