"""Sample builders for ndgrad.ops.more_activations: the unary shapes and views, thresholds and lambdas at the kinks,
prelu's one or per-channel weight, rrelu's evaluation slopes (training draws random ones: test_errors_more_activations),
glu along each dim. In-place forms run on a clone, as an in-place write into a leaf is refused."""

import numpy as np

from ndgrad.ops import more_activations as A

from ..samples import UNARY_SHAPES, Call, Case, Input, draw, kinks


def nn(text, fn):
    return Call(f"F.{text}", lambda lib, *tensors: fn(lib.nn.functional, *tensors))


def unary(op, rng, text, fn, kink_values=None):
    cases = [Case(op, (draw(rng, shape, op.domain, layout),), nn(text, fn)) for shape, layout in UNARY_SHAPES]
    return cases + (kinks(op, rng, [(kink_values,)], nn(text, fn)) if kink_values is not None else [])


def threshold_cases(op, rng):
    return unary(op, rng, "threshold($, 0.1, 2.0)", lambda F, x: F.threshold(x, 0.1, 2.0), [0.1, -0.5, 0.3])


def threshold_in_place_cases(op, rng):
    # NOTE: a value at most the threshold: the rule reads the result, which must tell which side x was on
    return unary(op, rng, "threshold_($.clone(), 0.1, -1.0)", lambda F, x: F.threshold_(x.clone(), 0.1, -1.0))


def hardshrink_cases(op, rng):
    return unary(op, rng, "hardshrink($, 0.7)", lambda F, x: F.hardshrink(x, 0.7), [0.7, -0.7, 0.2, 1.5]) + [
        Case(op, (draw(rng, (3, 4)),), nn("hardshrink($)", lambda F, x: F.hardshrink(x)))]


def softshrink_cases(op, rng):
    return unary(op, rng, "softshrink($, 0.7)", lambda F, x: F.softshrink(x, 0.7), [0.7, -0.7, 0.2, 1.5]) + [
        Case(op, (draw(rng, (3, 4)),), nn("softshrink($, 0)", lambda F, x: F.softshrink(x, 0)))]


def prelu_cases(op, rng):
    call = nn("prelu($, $)", lambda F, x, w: F.prelu(x, w))
    return [
        Case(op, (draw(rng, (2, 3, 4)), draw(rng, (3,))), call),
        Case(op, (draw(rng, (2, 3)), draw(rng, (1,))), call),
        Case(op, (draw(rng, (5,)), draw(rng, ())), call),
        Case(op, (draw(rng, ()), draw(rng, (1,))), call),
        Case(op, (draw(rng, (2, 2, 3, 2), layout="strided"), draw(rng, (2,))), call),
        Case(op, (draw(rng, (4, 3), layout="transposed"), draw(rng, (3,))), call),
        Case(op, (Input(np.array([[0.0, -1.0], [2.0, 0.0]])), Input(np.array([0.25, -0.5]))), call, smooth=False),
    ]


def rrelu_cases(op, rng):
    if op is A.RreluWithNoiseInPlace:
        return unary(op, rng, "rrelu_($.clone(), 0.2, 0.4)", lambda F, x: F.rrelu_(x.clone(), 0.2, 0.4))
    return unary(op, rng, "rrelu($, 0.1, 0.3)", lambda F, x: F.rrelu(x, 0.1, 0.3), [0.0, -1.0, 2.0]) + [
        Case(op, (draw(rng, (3, 4)),), nn("rrelu($)", lambda F, x: F.rrelu(x)))]


def glu_cases(op, rng):
    return [Case(op, (draw(rng, shape, op.domain, layout),), nn(f"glu($, {dim})", lambda F, x, d=dim: F.glu(x, d)))
            for shape, layout, dim in [((4,), "contiguous", -1), ((2, 6), "contiguous", 1), ((4, 3), "contiguous", 0),
                                       ((2, 4, 2), "strided", 1), ((3, 4), "transposed", -1)]]


BUILDERS = {
    A.Threshold: threshold_cases,
    A.ThresholdInPlace: threshold_in_place_cases,
    A.Hardshrink: hardshrink_cases,
    A.Softshrink: softshrink_cases,
    A.PreluKernel: prelu_cases,
    A.RreluWithNoise: rrelu_cases,
    A.RreluWithNoiseInPlace: rrelu_cases,
    A.Glu: glu_cases,
}
