"""Sample builders for dist and renorm: pairs that broadcast and several p for dist (1, 2, 3, inf, and 0.5 below one);
renorm with sub-tensors on both sides of maxnorm, several dims and p, and its method and in-place forms."""

import math

from ndgrad.ops import norm_based as n

from ..samples import C, Call, Case, S, T, draw, function


def dist(op, rng):
    pairs = [(((3, 4), C), ((3, 4), C)), (((), C), ((2, 3), C)), (((2, 1, 4), C), ((3, 1), C)),
             (((3, 4), T), ((4,), S))]
    cases = [Case(op, (draw(rng, s, op.domain, lx), draw(rng, t, op.domain, ly)), function("dist", *p))
             for ((s, lx), (t, ly)), p in zip(pairs * 2, [(), (1,), (3,), (math.inf,), (0.5,), (2.5,), (1.5,), ()])]
    method = Call("$.dist(y, 3)", lambda lib, x, y: x.dist(y, 3))
    return cases + [Case(op, (draw(rng, (2, 3)), draw(rng, (3,))), method)]


def renorm(op, rng):
    """The inputs' sub-tensors have norms of about 1 to 4: maxnorm 2 scales some and leaves others."""
    calls = [
        ((3, 4), C, function("renorm", 2, 0, 2.0)),
        ((3, 4), T, function("renorm", 1, 1, 2.0)),
        ((2, 3, 2), S, function("renorm", 3, -1, 1.5)),
        ((2, 3, 4), C, function("renorm", 2, 1, 2)),
        ((3, 4), C, Call("$.renorm(1.5, 0, 2.0)", lambda lib, x: x.renorm(1.5, 0, 2.0))),
        ((3, 4), C, Call("($ * 1).renorm_(2, 1, 1.0)", lambda lib, x: (x * 1).renorm_(2, 1, 1.0))),
    ]
    return [Case(op, (draw(rng, shape, op.domain, layout),), call) for shape, layout, call in calls]


BUILDERS = {n.Dist: dist, n.Renorm: renorm}
