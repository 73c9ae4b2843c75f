"""Sample builders for the ops of ndgrad.ops.activation that need their own arguments or kink cases."""

from ndgrad.ops import activation

from ..samples import kinks, unary_cases

BUILDERS = {
    activation.Relu: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0],)]),
}
