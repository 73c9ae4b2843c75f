"""Sample builders for the ops of ndgrad.ops.losses: every reduction, the keyword arguments (weight, pos_weight,
ignore_index, beta, delta), 1-d to 4-d class inputs, and the composites that end in a loss primitive."""

import numpy as np

from ndgrad.ops import losses as L

from ..samples import C, Call, Case, Input, S, T, draw, fixed

REDUCTIONS = ("mean", "sum", "none")


def nn_call(name, *tensor_names, **kwargs):
    """F.name(x, y, **kwargs); a keyword given as ("tensor", values) becomes lib.tensor(values) of x's dtype."""

    def arguments(lib, x):
        return {k: lib.tensor(v[1], dtype=x.dtype) if isinstance(v, tuple) else v for k, v in kwargs.items()}

    text = f"F.{name}({', '.join(['$'] + [f'{k}={v!r}' for k, v in kwargs.items()])})"
    return Call(text, lambda lib, x, *rest: getattr(lib.nn.functional, name)(x, *rest, **arguments(lib, x)))


def unit(rng, shape, layout=C):
    """Values in (0.1, 0.9): probabilities away from 0 and 1."""
    return Input(rng.uniform(0.1, 0.9, shape if layout == C else shape[::-1] if layout == T else
                             shape[:-1] + (2 * shape[-1],)), layout)


def pairs(op, rng, name, **kwargs):
    """Two real inputs of the same shape (and two that broadcast), every reduction."""
    cases = [Case(op, (draw(rng, (3, 4)), draw(rng, (3, 4))), nn_call(name, reduction=r, **kwargs))
             for r in REDUCTIONS]
    return cases + [
        Case(op, (draw(rng, (5,)), draw(rng, (5,))), nn_call(name, **kwargs)),
        Case(op, (draw(rng, ()), draw(rng, ())), nn_call(name, reduction="sum", **kwargs)),
        Case(op, (draw(rng, (3, 4), layout=T), draw(rng, (3, 4), layout=S)), nn_call(name, **kwargs)),
        Case(op, (draw(rng, (2, 3, 2)), draw(rng, (2, 3, 2))), nn_call(name, reduction="none", **kwargs)),
    ]


def mse_cases(op, rng):
    return pairs(op, rng, "mse_loss") + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (3, 4))), nn_call("mse_loss", size_average=False)),
    ]


def smooth_l1_cases(op, rng):
    return pairs(op, rng, "smooth_l1_loss") + pairs(op, rng, "smooth_l1_loss", beta=0.5)[:3] + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (3, 4))), nn_call("smooth_l1_loss", beta=2.5, reduction="none")),
    ]


def huber_cases(op, rng):
    return pairs(op, rng, "huber_loss") + pairs(op, rng, "huber_loss", delta=0.5)[:3] + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (3, 4))), nn_call("huber_loss", delta=2.5)),
    ]


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


def soft_margin_cases(op, rng):
    signs = fixed([[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, 1.0]], "float64")
    cases = [Case(op, (draw(rng, (3, 4)), signs), nn_call("soft_margin_loss", reduction=r)) for r in REDUCTIONS]
    return cases + [
        Case(op, (draw(rng, (3, 4), layout=T), fixed([1.0, -1.0, 0.5, -2.0], "float64")), nn_call("soft_margin_loss")),
        Case(op, (draw(rng, ()),), Call("F.soft_margin_loss($, -1.0, reduction='sum')", lambda lib, x:
                                        lib.nn.functional.soft_margin_loss(x, lib.tensor(-1.0, dtype=x.dtype),
                                                                           reduction="sum"))),
    ]


BUILDERS = {
    L.MseLoss: mse_cases,
    L.SmoothL1Loss: smooth_l1_cases,
    L.HuberLoss: huber_cases,
    L.BinaryCrossEntropyWithLogits: bce_logits_cases,
    L.BinaryCrossEntropy: bce_cases,
    L.NllLoss: nll_cases,
    L.NllLoss2d: nll2d_cases,
    L.SoftMarginLoss: soft_margin_cases,
}
