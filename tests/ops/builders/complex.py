"""Sample builders for the ops of ndgrad.ops.complex_numbers. conj and view_as_real need complex inputs (the conj
of a real tensor is the tensor itself, so no op runs); complex, polar and view_as_complex take real ones."""

from functools import partial

from ndgrad.ops import complex_numbers as c
from ndgrad.ops._op import NONZERO, POSITIVE

from ..samples import UNARY_SHAPES, C, Case, S, T, binary_cases, complexified, draw, function, method

PAIR_SHAPES = [(2,), (3, 2), (2, 3, 2)]  # a last dim of 2: (real, imaginary)


def complex_unary(op, rng, calls):
    """op on complex inputs of the unary shapes and layouts, the calls taking turns."""
    return [
        Case(op, (complexified(draw(rng, shape, op.domain, layout), rng),), calls[i % len(calls)])
        for i, (shape, layout) in enumerate(UNARY_SHAPES)
    ]


def view_as_complex_cases(op, rng):
    return [Case(op, (draw(rng, shape),), function("view_as_complex")) for shape in PAIR_SHAPES]


def angle_cases(op, rng):
    """Real inputs: 0 or pi, a zero gradient; the complex versions come from the complex samples."""
    return [Case(op, (draw(rng, shape, NONZERO, layout),), call)
            for (shape, layout), call in zip(UNARY_SHAPES, [function("angle"), method("angle")] * 3)]


BUILDERS = {
    c.Conj: partial(complex_unary, calls=[function("conj"), method("conj")]),
    c.ConjPhysical: partial(complex_unary, calls=[function("conj_physical"), method("conj_physical")]),
    c.ViewAsReal: partial(complex_unary, calls=[function("view_as_real")]),
    c.ViewAsComplex: view_as_complex_cases,
    c.Complex: partial(binary_cases, scalar_other=False),
    c.Polar: lambda op, rng: [
        Case(op, (draw(rng, s, POSITIVE, lx), draw(rng, t, op.domain, ly)), function("polar"))
        for (s, lx), (t, ly) in [(((3, 4), C), ((3, 4), C)), (((), C), ((2, 3), C)), (((3, 4), T), ((3, 4), S))]
    ],
    c.Angle: angle_cases,
}
