"""Sample builders for the ops of ndgrad.ops.classification_losses: every reduction, the keyword arguments
(weight, pos_weight, ignore_index), 1-d to 5-d class inputs, and cross_entropy, which ends in nll_loss."""

import numpy as np

from ndgrad.ops import classification_losses as L

from ..loss_calls import REDUCTIONS, nn_call, unit
from ..samples import Case, S, T, draw, fixed


def bce_logits_cases(op, rng):
    name = "binary_cross_entropy_with_logits"
    cases = [Case(op, (draw(rng, (3, 4)), unit(rng, (3, 4))), nn_call(name, reduction=r)) for r in REDUCTIONS]
    return cases + [
        Case(op, (draw(rng, (5,)), unit(rng, (5,))), nn_call(name, weight=("tensor", [0.5, 1.0, 2.0, 1.5, 0.3]))),
        Case(op, (draw(rng, (3, 4)), unit(rng, (3, 4))),
             nn_call(name, pos_weight=("tensor", [0.5, 1.0, 2.0, 3.0]), reduction="sum")),
        Case(op, (draw(rng, (3, 4)), unit(rng, (3, 4))),
             nn_call(name, weight=("tensor", [[1.0], [2.0], [0.5]]), pos_weight=("tensor", [2.0, 1.0, 0.5, 3.0]))),
        Case(op, (draw(rng, (3, 4), layout=T), unit(rng, (3, 4), S)), nn_call(name, reduction="none")),
        Case(op, (draw(rng, ()), unit(rng, ())), nn_call(name)),
    ]


def bce_cases(op, rng):
    name = "binary_cross_entropy"
    cases = [Case(op, (unit(rng, (3, 4)), unit(rng, (3, 4))), nn_call(name, reduction=r)) for r in REDUCTIONS]
    return cases + [
        Case(op, (unit(rng, (5,)), unit(rng, (5,))), nn_call(name, weight=("tensor", [0.5, 1.0, 2.0, 1.5, 0.3]))),
        Case(op, (unit(rng, (3, 4)), unit(rng, (3, 4))), nn_call(name, weight=("tensor", [0.5, 1.0, 2.0, 3.0]),
                                                                 reduction="none")),
        Case(op, (unit(rng, (3, 4), T), unit(rng, (3, 4), S)), nn_call(name)),
        Case(op, (unit(rng, ()), unit(rng, ())), nn_call(name)),
    ]


def nll_cases(op, rng):
    target = fixed([0, 3, 1])
    cases = [Case(op, (draw(rng, (3, 4)), target), nn_call("nll_loss", reduction=r)) for r in REDUCTIONS]
    cases += [Case(op, (draw(rng, (3, 4)), target), nn_call("cross_entropy", reduction=r)) for r in REDUCTIONS]
    weight = ("tensor", [0.5, 1.0, 2.0, 1.5])
    return cases + [
        Case(op, (draw(rng, (3, 4)), target), nn_call("nll_loss", weight=weight)),
        Case(op, (draw(rng, (3, 4)), fixed([0, 3, 2])), nn_call("nll_loss", ignore_index=3)),
        Case(op, (draw(rng, (3, 4)), fixed([0, -100, 2])), nn_call("cross_entropy", weight=weight)),
        Case(op, (draw(rng, (3, 4)), fixed([1, 2, 1])), nn_call("cross_entropy", weight=weight, reduction="none",
                                                                 ignore_index=2)),
        Case(op, (draw(rng, (3, 4), layout=T), target), nn_call("cross_entropy")),
        Case(op, (draw(rng, (4,)), fixed(2)), nn_call("nll_loss")),
        Case(op, (draw(rng, (4,)), fixed(1)), nn_call("cross_entropy", reduction="none")),
        Case(op, (draw(rng, (2, 3)), fixed([2, 2])), nn_call("nll_loss", size_average=False)),
    ]


def nll2d_cases(op, rng):
    target = fixed([[[0, 2], [1, 1]], [[2, 0], [0, 1]]])
    weight = ("tensor", [0.5, 1.0, 2.0])
    cases = [Case(op, (draw(rng, (2, 3, 2, 2)), target), nn_call("nll_loss", reduction=r)) for r in REDUCTIONS]
    return cases + [
        Case(op, (draw(rng, (2, 3, 2, 2)), target), nn_call("cross_entropy", weight=weight)),
        Case(op, (draw(rng, (2, 3, 2, 2)), fixed([[[0, -100], [1, 1]], [[2, 0], [-100, 1]]])),
             nn_call("cross_entropy", reduction="none")),
        Case(op, (draw(rng, (2, 3, 4)), fixed([[0, 1, 2, 1], [2, 2, 0, 1]])), nn_call("nll_loss", weight=weight)),
        Case(op, (draw(rng, (2, 3, 4)), fixed([[0, 1, 2, 1], [2, 2, 0, 1]])), nn_call("cross_entropy",
                                                                                       reduction="sum")),
        Case(op, (draw(rng, (2, 3, 2, 2, 1)), fixed(np.zeros((2, 2, 2, 1), dtype=np.int64))), nn_call("nll_loss")),
    ]


BUILDERS = {
    L.BinaryCrossEntropyWithLogits: bce_logits_cases,
    L.BinaryCrossEntropy: bce_cases,
    L.NllLoss: nll_cases,
    L.NllLoss2d: nll2d_cases,
}
