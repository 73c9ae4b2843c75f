"""Sample builders for the ops of ndgrad.ops.number_parts and logaddexp2: tensor pairs (no number on the right: that
is another overload, or none), numbers for copysign's scalar overload, and the in-place forms on non-leaf copies."""

from ndgrad.ops import number_parts as n
from ndgrad.ops import transcendental as t

from ..samples import C, Call, Case, S, T, binary_cases, draw, function, unary_cases


def in_place_pair(op, rng, name):
    """($ * 1).name_(y), as a leaf that requires grad cannot be written."""
    call = Call(f"($ * 1).{name}_(y)", lambda lib, x, y: getattr(x * 1, f"{name}_")(y))
    return Case(op, (draw(rng, (3, 4), op.domain), draw(rng, (4,), op.domain)), call)


def method_pair(op, rng, name):
    call = Call(f"$.{name}(y)", lambda lib, x, y: getattr(x, name)(y))
    return Case(op, (draw(rng, (2, 3), op.domain), draw(rng, (3,), op.domain)), call)


def pairs(name, in_place=True):
    def build(op, rng):
        cases = binary_cases(op, rng, scalar_other=False) + [method_pair(op, rng, name)]
        return cases + ([in_place_pair(op, rng, name)] if in_place else [])
    return build


def copysign_by_number(op, rng):
    return [Case(op, (draw(rng, shape, op.domain, layout),), call) for shape, layout, call in [
        ((3, 4), C, function("copysign", -1.5)),
        ((), C, function("copysign", 2)),
        ((2, 3, 2), S, Call("$.copysign(-0.0)", lambda lib, x: x.copysign(-0.0))),
        ((3, 4), T, Call("($ * 1).copysign_(-3)", lambda lib, x: (x * 1).copysign_(-3))),
    ]]


def frexp(op, rng):
    return unary_cases(op, rng) + [Case(op, (draw(rng, (3, 4)),), Call("$.frexp()", lambda lib, x: x.frexp()))]


BUILDERS = {
    n.Copysign: pairs("copysign"),
    n.CopysignScalar: copysign_by_number,
    n.Ldexp: pairs("ldexp"),
    n.Nextafter: pairs("nextafter"),
    n.Frexp: frexp,
    t.Logaddexp2: pairs("logaddexp2", in_place=False),
}
