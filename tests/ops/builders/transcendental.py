"""Sample builders for the ops of ndgrad.ops.transcendental and the modules it re-exports (trigonometric, special):
the family's cases, plus each op's in-place form on a non-leaf copy (``($ * 1).exp_()`` records the same node as
``exp($)``), numbers on either side of xlogy, and polygamma's order n."""

from ndgrad.ops import special as s
from ndgrad.ops import transcendental as t
from ndgrad.ops import trigonometric as trig

from ..samples import C, Call, Case, S, T, binary_cases, draw, function, kinks, unary_cases


def in_place(name, *args):
    """The in-place method on a copy, as a leaf that requires grad cannot be written: ($ * 1).name_(*args)."""
    text = f"($ * 1).{name}_({', '.join(map(repr, args))})"
    return Call(text, lambda lib, x: getattr(x * 1, f"{name}_")(*args))


def with_in_place(op, rng):
    return unary_cases(op, rng) + [Case(op, (draw(rng, (3, 4), op.domain),), in_place(op.name))]


def call(text, fn):
    return Call(text, lambda lib, *tensors: fn(lib, *tensors))


def cases(op, rng, calls):
    """One case per (shape, layout, call)."""
    return [Case(op, (draw(rng, s, op.domain, layout),), c) for s, layout, c in calls]


UNARY_WITH_IN_PLACE = [
    t.Exp, t.Exp2, t.Expm1, t.Log, t.Log2, t.Log10, t.Log1p, t.Sqrt, t.Rsqrt, t.Sigmoid,
    trig.Sin, trig.Cos, trig.Tan, trig.Asin, trig.Acos, trig.Atan, trig.Sinh, trig.Cosh, trig.Tanh,
    s.Erf, s.Erfc, s.Erfinv, s.Lgamma, s.Digamma,
]

BUILDERS = {op: with_in_place for op in UNARY_WITH_IN_PLACE}
BUILDERS.update({
    # sinc is smooth at 0, but PyTorch's rule there is a special case: checked as a kink (first derivative only).
    s.Sinc: lambda op, rng: with_in_place(op, rng) + kinks(op, rng, [([0.0, 0.5, -1.0],)]),
    trig.Atan2: lambda op, rng: binary_cases(op, rng, scalar_other=False) + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (4,))), call("($ * 1).atan2_(y)", lambda lib, x, y: (x * 1).atan2_(y))),
    ],
    t.Logaddexp: lambda op, rng: binary_cases(op, rng, scalar_other=False) + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (4,))), call("$.logaddexp(y)", lambda lib, x, y: x.logaddexp(y))),
    ],
    s.Xlogy: lambda op, rng: binary_cases(op, rng, scalar_other=False) + [
        Case(op, (draw(rng, (3, 4), op.domain), draw(rng, (4,), op.domain)),
             call("($ * 1).xlogy_(y)", lambda lib, x, y: (x * 1).xlogy_(y))),
    ] + kinks(op, rng, [([0.0, 1.5, 0.0], [2.0, 0.5, 1.0])]),
    s.XlogyScalarOther: lambda op, rng: cases(op, rng, [
        ((3, 4), C, function("xlogy", 1.5)),
        ((), C, function("xlogy", 0.25)),
        ((2, 3, 2), S, call("$.xlogy(3)", lambda lib, x: x.xlogy(3))),
        ((3, 4), T, in_place("xlogy", 2.0)),
    ]) + kinks(op, rng, [([0.0, 1.5],)], function("xlogy", 0.5)),
    s.XlogyScalarSelf: lambda op, rng: cases(op, rng, [
        ((3, 4), C, call("xlogy(2.5, $)", lambda lib, y: lib.xlogy(2.5, y))),
        ((), C, call("xlogy(-1, $)", lambda lib, y: lib.xlogy(-1, y))),
        ((2, 3, 2), S, call("xlogy(0.0, $)", lambda lib, y: lib.xlogy(0.0, y))),
    ]),
    s.Polygamma: lambda op, rng: cases(op, rng, [
        ((3, 4), C, call("polygamma(0, $)", lambda lib, x: lib.polygamma(0, x))),
        ((5,), C, call("polygamma(1, $)", lambda lib, x: lib.polygamma(1, x))),
        ((), C, call("polygamma(2, $)", lambda lib, x: lib.polygamma(2, x))),
        ((2, 3, 2), S, call("$.polygamma(3)", lambda lib, x: x.polygamma(3))),
        ((3, 4), T, call("polygamma(1, $)", lambda lib, x: lib.polygamma(1, x))),
    ]),
    s.PolygammaInPlace: lambda op, rng: cases(op, rng, [
        ((3, 4), C, in_place("polygamma", 1)),
        ((5,), C, in_place("polygamma", 2)),
    ]),
})
