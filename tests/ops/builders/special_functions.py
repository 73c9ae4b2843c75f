"""Samples for ndgrad.ops.special_functions: calls through torch.special's names (lib.special.entr($)), the Tensor
methods torch has for them, inputs drawn where each function is smooth, and kinks where torch picks a convention."""

import numpy as np

from ndgrad.ops import special_functions as sf

from ..samples import UNARY_SHAPES, C, Call, Case, Input, S, T, draw, fixed, kinks


def special(name, *args):
    """lib.special.name($, *args)."""
    text = f"special.{name}({', '.join(['$', *map(repr, args)])})"
    return Call(text, lambda lib, *tensors: getattr(lib.special, name)(*tensors, *args))


def call(text, fn):
    return Call(text, lambda lib, *tensors: fn(lib, *tensors))


def uniform(rng, shape, low, high, layout=C):
    """An Input with values in [low, high]: draw's layouts, for domains the samplers' constants do not name."""
    base = draw(rng, shape, layout=layout)  # values in [-2, 2], in the layout's base shape
    return Input(np.asarray(low + (base.base + 2) / 4 * (high - low)), layout)


def unary(op, rng, calls, low=None, high=None):
    """The unary shapes with the first call, then one (3, 4) case per further call."""
    make = (lambda s, layout: draw(rng, s, op.domain, layout)) if low is None else (
        lambda s, layout: uniform(rng, s, low, high, layout))
    cases = [Case(op, (make(s, layout),), calls[0]) for s, layout in UNARY_SHAPES]
    return cases + [Case(op, (make((3, 4), C),), c) for c in calls[1:]]


def in_place(name, *args):
    text = f"($ * 1).{name}_({', '.join(map(repr, args))})"
    return Call(text, lambda lib, x: getattr(x * 1, f"{name}_")(*args))


def second_argument(op, rng, name, low, high):
    """f(a, x) differentiable in x only: a fixed (float64, never requiring grad), x drawn in op's domain."""
    pairs = [((3, 4), (3, 4)), ((), ()), ((2, 1, 4), (3, 1)), ((4,), (3, 4))]
    return [Case(op, (fixed(uniform(rng, s, low, high).base, "float64"), draw(rng, t, op.domain)),
                 special(name)) for s, t in pairs]


BUILDERS = {
    sf.Entr: lambda op, rng: unary(op, rng, [special("entr")]),
    sf.Erfcx: lambda op, rng: unary(op, rng, [special("erfcx")]),
    sf.Ndtri: lambda op, rng: unary(op, rng, [special("ndtri")], 0.02, 0.98),
    sf.LogNdtr: lambda op, rng: unary(op, rng, [special("log_ndtr")], -6.0, 3.0),
    sf.I0: lambda op, rng: unary(op, rng, [call("i0($)", lambda lib, x: lib.i0(x)), special("i0"),
                                           call("$.i0()", lambda lib, x: x.i0()), in_place("i0")]),
    sf.I0e: lambda op, rng: unary(op, rng, [special("i0e")], 0.1, 3.0) + unary(op, rng, [special("i0e")], -3.0, -0.1),
    sf.I1: lambda op, rng: unary(op, rng, [special("i1")], -4.0, 4.0) + kinks(op, rng, [([0.0, 1.0],)],
                                                                              special("i1")),
    sf.I1e: lambda op, rng: unary(op, rng, [special("i1e")], 0.1, 3.0) + kinks(op, rng, [([0.0, -1.0],)],
                                                                               special("i1e")),
    sf.Logit: lambda op, rng: unary(op, rng, [
        special("logit"), call("logit($)", lambda lib, x: lib.logit(x)), special("logit", 0.2),
        call("$.logit(eps=0.3)", lambda lib, x: x.logit(eps=0.3)), in_place("logit"), in_place("logit", 0.25),
    ], 0.05, 0.95) + kinks(op, rng, [([0.1, 0.5, 0.95],)], special("logit", 0.2)),
    sf.Mvlgamma: lambda op, rng: unary(op, rng, [
        special("multigammaln", 2), call("mvlgamma($, p=1)", lambda lib, x: lib.mvlgamma(x, p=1)),
        call("$.mvlgamma(3)", lambda lib, x: x.mvlgamma(3)), in_place("mvlgamma", 2),
    ], 1.2, 4.0),
    sf.Xlog1py: lambda op, rng: [
        Case(op, (draw(rng, s, op.domain, lx), draw(rng, t, op.domain, ly)), special("xlog1py"))
        for (s, lx), (t, ly) in [(((3, 4), C), ((3, 4), C)), (((), C), ((), C)), (((2, 1, 4), C), ((3, 1), C)),
                                 (((3, 4), T), ((3, 4), S))]
    ] + kinks(op, rng, [([0.0, 1.5, 0.0], [-1.0, 0.5, 2.0])], special("xlog1py")),
    sf.Xlog1pyScalarOther: lambda op, rng: unary(op, rng, [special("xlog1py", 0.5), special("xlog1py", 3)])
    + kinks(op, rng, [([0.0, 1.5],)], special("xlog1py", -1.0)),
    sf.Xlog1pyScalarSelf: lambda op, rng: unary(op, rng, [
        call("special.xlog1py(2.5, $)", lambda lib, y: lib.special.xlog1py(2.5, y)),
        call("special.xlog1py(0, $)", lambda lib, y: lib.special.xlog1py(0, y)),
    ]),
    sf.Zeta: lambda op, rng: second_argument(op, rng, "zeta", 1.5, 4.0),
    sf.ZetaScalarSelf: lambda op, rng: unary(op, rng, [
        call("special.zeta(2.5, $)", lambda lib, q: lib.special.zeta(2.5, q)),
        call("special.zeta(3, $)", lambda lib, q: lib.special.zeta(3, q)),
    ]),
    sf.Igamma: lambda op, rng: second_argument(op, rng, "gammainc", 0.5, 3.0) + [
        Case(op, (fixed(np.array([0.5, 1.5, 2.5]), "float64"), draw(rng, (3,), op.domain)),
             call("igamma(a, $)", lambda lib, a, x: lib.igamma(a, x))),
        Case(op, (fixed(np.array([[1.0], [3.5]]), "float64"), draw(rng, (2, 3), op.domain)),
             call("a.igamma($)", lambda lib, a, x: a.igamma(x))),
    ],
    sf.Igammac: lambda op, rng: second_argument(op, rng, "gammaincc", 0.5, 3.0) + [
        Case(op, (fixed(np.array([0.5, 1.5, 2.5]), "float64"), draw(rng, (3,), op.domain)),
             call("igammac(a, $)", lambda lib, a, x: lib.igammac(a, x))),
    ],
}
