"""Sample builders for the ops of ndgrad.ops.products: the addmm family with beta and alpha, trace, cross."""

from ndgrad.ops import products

from ..samples import C, Call, Case, S, T, draw


def call(text, fn):
    return Call(text, fn)


def cases(op, rng, specs):
    """specs: (shapes with layouts, call); every input drawn in the op's domain."""
    return [Case(op, tuple(draw(rng, s, op.domain, layout) for s, layout in shapes), c) for shapes, c in specs]


def scaled(name, beta=None, alpha=None):
    """lib.name(input, a, b, beta=..., alpha=...), the keywords only where given."""
    kwargs = {k: v for k, v in (("beta", beta), ("alpha", alpha)) if v is not None}
    text = f"{name}($, $, ${''.join(f', {k}={v}' for k, v in kwargs.items())})"
    return call(text, lambda lib, x, a, b: getattr(lib, name)(x, a, b, **kwargs))


def addmm_cases(op, rng):
    return cases(op, rng, [
        ((((3, 2), C), ((3, 4), C), ((4, 2), C)), scaled("addmm")),
        ((((2,), C), ((3, 4), T), ((4, 2), S)), scaled("addmm", beta=0.5, alpha=2.0)),
        ((((), C), ((2, 3), C), ((3, 2), C)), scaled("addmm", beta=0, alpha=-1.5)),
        ((((3, 2), C), ((3, 4), C), ((4, 2), C)),
         call("$.addmm($, $, alpha=0.5)", lambda lib, x, a, b: x.addmm(a, b, alpha=0.5))),
    ])


def addmv_cases(op, rng):
    return cases(op, rng, [
        ((((3,), C), ((3, 4), C), ((4,), C)), scaled("addmv")),
        ((((1,), C), ((3, 4), T), ((4,), S)), scaled("addmv", beta=2.0, alpha=0.5)),
        ((((), C), ((2, 3), C), ((3,), C)), scaled("addmv", beta=0)),
        ((((2,), C), ((2, 3), C), ((3,), C)),
         call("$.addmv($, $, beta=2)", lambda lib, x, a, b: x.addmv(a, b, beta=2))),
    ])


def baddbmm_cases(op, rng):
    return cases(op, rng, [
        ((((2, 3, 2), C), ((2, 3, 4), C), ((2, 4, 2), C)), scaled("baddbmm")),
        ((((3, 1), C), ((2, 3, 2), S), ((2, 2, 2), C)), scaled("baddbmm", beta=0.5, alpha=-2.0)),
        ((((1, 1, 2), C), ((2, 2, 3), C), ((2, 3, 2), C)), scaled("baddbmm", beta=0)),
        ((((2, 2, 2), C), ((2, 2, 3), C), ((2, 3, 2), C)),
         call("$.baddbmm($, $, alpha=2)", lambda lib, x, a, b: x.baddbmm(a, b, alpha=2))),
    ])


def addbmm_cases(op, rng):
    return cases(op, rng, [
        ((((3, 2), C), ((2, 3, 4), C), ((2, 4, 2), C)), scaled("addbmm")),
        ((((2,), C), ((2, 3, 2), S), ((2, 2, 2), C)), scaled("addbmm", beta=1.5, alpha=0.5)),
        ((((), C), ((2, 2, 3), C), ((2, 3, 2), C)), scaled("addbmm", beta=0)),
        ((((2, 2), C), ((2, 2, 3), C), ((2, 3, 2), C)), call("$.addbmm($, $)", lambda lib, x, a, b: x.addbmm(a, b))),
    ])


def trace_cases(op, rng):
    return cases(op, rng, [
        ((((3, 3), C),), call("trace($)", lambda lib, x: lib.trace(x))),
        ((((2, 4), T),), call("trace($)", lambda lib, x: lib.trace(x))),
        ((((3, 2), S),), call("$.trace()", lambda lib, x: x.trace())),
    ])


def cross_cases(op, rng):
    return cases(op, rng, [
        ((((3,), C), ((3,), C)), call("cross($, $)", lambda lib, x, y: lib.cross(x, y))),
        ((((2, 3), C), ((2, 3), C)), call("cross($, $, dim=1)", lambda lib, x, y: lib.cross(x, y, dim=1))),
        ((((3, 2), C), ((3, 1), C)), call("cross($, $, dim=0)", lambda lib, x, y: lib.cross(x, y, dim=0))),
        ((((2, 3), C), ((1, 3), C)),
         call("linalg.cross($, $)", lambda lib, x, y: getattr(lib.linalg, "cross", products.linalg_cross)(x, y))),
        ((((3, 2), T), ((3, 2), C)), call("$.cross($, dim=-2)", lambda lib, x, y: x.cross(y, dim=-2))),
    ])


def vdot_cases(op, rng):
    return cases(op, rng, [
        ((((3,), C), ((3,), C)), call("vdot($, $)", lambda lib, x, y: lib.vdot(x, y))),
        ((((1,), C), ((1,), C)), call("vdot($, $)", lambda lib, x, y: lib.vdot(x, y))),
        ((((4,), S), ((4,), C)), call("$.vdot($)", lambda lib, x, y: x.vdot(y))),
    ])


BUILDERS = {
    products.Vdot: vdot_cases,
    products.Addmm: addmm_cases,
    products.Addmv: addmv_cases,
    products.Baddbmm: baddbmm_cases,
    products.Addbmm: addbmm_cases,
    products.Trace: trace_cases,
    products.LinalgCross: cross_cases,
}
