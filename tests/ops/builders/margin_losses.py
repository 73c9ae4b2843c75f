"""Sample builders for the ops of ndgrad.ops.margin_losses: every reduction, p, margin and weight of multi_margin,
listed and unlisted classes (a -1 ends a row's list) of multilabel_margin, targets of soft_margin."""

from ndgrad.ops import margin_losses as L

from ..loss_calls import REDUCTIONS, nn_call
from ..samples import Call, Case, T, draw, fixed


def soft_margin_cases(op, rng):
    signs = fixed([[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, 1.0]], "float64")
    cases = [Case(op, (draw(rng, (3, 4)), signs), nn_call("soft_margin_loss", reduction=r)) for r in REDUCTIONS]
    return cases + [
        Case(op, (draw(rng, (3, 4), layout=T), fixed([1.0, -1.0, 0.5, -2.0], "float64")), nn_call("soft_margin_loss")),
        Case(op, (draw(rng, ()),), Call("F.soft_margin_loss($, -1.0, reduction='sum')", lambda lib, x:
                                        lib.nn.functional.soft_margin_loss(x, lib.tensor(-1.0, dtype=x.dtype),
                                                                           reduction="sum"))),
    ]


def multi_margin_cases(op, rng):
    target = fixed([0, 3, 1])
    cases = [Case(op, (draw(rng, (3, 4)), target), nn_call("multi_margin_loss", reduction=r)) for r in REDUCTIONS]
    weight = ("tensor", [0.5, 1.0, 2.0, 1.5])
    return cases + [
        Case(op, (draw(rng, (3, 4)), target), nn_call("multi_margin_loss", p=2, reduction="none")),
        Case(op, (draw(rng, (3, 4), layout=T), target), nn_call("multi_margin_loss", margin=0.5, weight=weight)),
        Case(op, (draw(rng, (3, 4)), target), nn_call("multi_margin_loss", p=2, margin=2.0, weight=weight,
                                                      reduction="sum")),
        Case(op, (draw(rng, (5,)), fixed([2])), nn_call("multi_margin_loss", reduction="none")),
        Case(op, (draw(rng, (5,)), fixed(4)), nn_call("multi_margin_loss", p=2)),
        Case(op, (draw(rng, (2, 1)), fixed([0, 0])), nn_call("multi_margin_loss", reduction="none")),
    ]


def multilabel_margin_cases(op, rng):
    target = fixed([[0, 3, -1, 0], [1, -1, 2, 2], [3, 2, 1, 0]])
    cases = [Case(op, (draw(rng, (3, 4)), target), nn_call("multilabel_margin_loss", reduction=r))
             for r in REDUCTIONS]
    return cases + [
        Case(op, (draw(rng, (3, 4), layout=T), fixed([[1, 1, -1, 0], [-1, 0, 0, 0], [2, 0, 3, 1]])),
             nn_call("multilabel_margin_loss", reduction="none")),
        Case(op, (draw(rng, (5,)), fixed([2, 0, -1, 1, 1])), nn_call("multilabel_margin_loss")),
        Case(op, (draw(rng, (5,)), fixed([4, 1, 3, -1, 0])), nn_call("multilabel_margin_loss", reduction="none")),
    ]


BUILDERS = {
    L.SoftMarginLoss: soft_margin_cases,
    L.MultiMarginLoss: multi_margin_cases,
    L.MultilabelMarginLoss: multilabel_margin_cases,
}
