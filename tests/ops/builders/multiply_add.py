"""Sample builders for ndgrad.ops.multiply_add: addcmul and addcdiv on broadcasting triples, with and without a
value, and addr with its input broadcast to the outer product's shape."""

from ndgrad.ops import multiply_add
from ndgrad.ops._op import NONZERO

from ..samples import C, Call, Case, S, T, draw
from .arithmetic import TRIPLE_SHAPES, triples


def fused(name, **kwargs):
    text = f"{name}($, $, ${''.join(f', {k}={v!r}' for k, v in kwargs.items())})"
    return Call(text, lambda lib, x, a, b: getattr(lib, name)(x, a, b, **kwargs))


def method(name, **kwargs):
    return Call(f"$.{name}(...)", lambda lib, x, a, b: getattr(x, name)(a, b, **kwargs))


def elementwise(op, rng):
    """The quotient's divisor is drawn away from zero."""
    def case(shapes, call):
        domains = (op.domain, op.domain, NONZERO if op is multiply_add.Addcdiv else op.domain)
        return Case(op, tuple(draw(rng, s, d, layout) for (s, layout), d in zip(shapes, domains)), call)

    calls = [fused(op.name), fused(op.name, value=-0.5), fused(op.name, value=2), method(op.name, value=1.5)]
    return [case(shapes, calls[k % len(calls)]) for k, shapes in enumerate(TRIPLE_SHAPES)]


ADDR_SHAPES = [
    (((3, 4), C), ((3,), C), ((4,), C)), (((), C), ((2,), C), ((3,), C)), (((4,), C), ((3,), C), ((4,), C)),
    (((3, 1), C), ((3,), S), ((2,), C)), (((2, 3), T), ((2,), C), ((3,), C)),
]

BUILDERS = {
    multiply_add.Addcmul: elementwise,
    multiply_add.Addcdiv: elementwise,
    multiply_add.Addr: lambda op, rng: triples(op, rng, fused("addr"), ADDR_SHAPES[:3])
    + triples(op, rng, fused("addr", beta=0.5, alpha=-2.0), ADDR_SHAPES[3:4])
    + triples(op, rng, method("addr", beta=2), ADDR_SHAPES[4:]),
}
