"""Sample builders for the ops of ndgrad.ops.reduction that need their own arguments or kink cases."""

import numpy as np

from ndgrad.ops import reduction

from ..samples import TIES, function, kinks, reduction_cases, unary_cases

BUILDERS = {
    reduction.Max: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, TIES),
    reduction.Min: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 3.0, -1.0],)]),
    reduction.LinalgVectorNorm: lambda op, rng: reduction_cases(op, rng) + unary_cases(op, rng) + kinks(
        op, rng, [(np.zeros((2, 3)),)], function("norm", dim=1)),
}
