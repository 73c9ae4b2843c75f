"""Sample builders for the differentiable ops of ndgrad.ops.comparison: where and the elementwise max/min."""


from ndgrad.ops import comparison

from ..samples import C, Call, Case, S, T, binary_cases, draw, fixed, function, kinks


def tensor_method(name, *args):
    """x.name(y, ..., *args): a method whose other operands are tensors too."""
    return Call(f"$.{name}(..., {', '.join(map(repr, args))})", lambda lib, x, *rest: getattr(x, name)(*rest, *args))


NAN = float("nan")
# Ties, and NaN on one side (fmax/fmin pick the number; NaN results are compared in test_nondifferentiable.py).
TIES = [([-1.0, 0.0, 0.5, 2.0], [0.0, 0.0, 0.0, 2.0])]
NAN_SIDES = [([NAN, 1.0, -1.0], [1.0, NAN, -1.0])]


def extremum(op, rng):
    nan_sides = kinks(op, rng, NAN_SIDES) if op.name in ("fmax", "fmin") else []
    return binary_cases(op, rng, scalar_other=False) + kinks(op, rng, TIES) + nan_sides + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (4,))), tensor_method(op.name))]


def where_cases(op, rng):
    """A bool mask (never differentiated) and two tensors, or one tensor and a number."""
    def mask(shape):
        return fixed(rng.random(shape) < 0.5, "bool")

    return [
        Case(op, (mask((3, 4)), draw(rng, (3, 4)), draw(rng, (3, 4))), function("where")),
        Case(op, (mask(()), draw(rng, ()), draw(rng, ()),), function("where")),
        Case(op, (mask((2, 3, 4)), draw(rng, (4,)), draw(rng, (3, 1))), function("where")),
        Case(op, (mask((3, 4)), draw(rng, (3, 4), layout=T), draw(rng, (3, 4), layout=S)), function("where")),
        Case(op, (mask((4,)), draw(rng, (3, 4))), Call("where($, $, 0.5)", lambda lib, m, x: lib.where(m, x, 0.5))),
        Case(op, (mask((3, 1)), draw(rng, (2, 3, 4))), Call("where($, 2, $)", lambda lib, m, x: lib.where(m, 2, x))),
        Case(op, (draw(rng, (3, 4)), mask((3, 4)), draw(rng, (4,))),
             Call("$.where($, $)", lambda lib, x, m, y: x.where(m, y))),
        Case(op, (mask((5,)), draw(rng, (5,)), draw(rng, (5,), layout=C)), function("where")),
    ]


BUILDERS = {
    comparison.Maximum: extremum,
    comparison.Minimum: extremum,
    comparison.Fmax: extremum,
    comparison.Fmin: extremum,
    comparison.Where: where_cases,
}
