"""Sample builders for the ops of ndgrad.ops.regression_losses: every reduction, beta and delta, broadcasting and
non-contiguous inputs, and the kinks: differences of 0 and of exactly beta (delta), where the slope stops growing."""

from ndgrad.ops import regression_losses as L

from ..loss_calls import REDUCTIONS, nn_call
from ..samples import Case, S, T, draw, kinks


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
    ] + kinks(op, rng, KINKS, nn_call("smooth_l1_loss", beta=0.5, reduction="sum"))


def huber_cases(op, rng):
    return pairs(op, rng, "huber_loss") + pairs(op, rng, "huber_loss", delta=0.5)[:3] + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (3, 4))), nn_call("huber_loss", delta=2.5)),
    ] + kinks(op, rng, KINKS, nn_call("huber_loss", delta=0.5, reduction="sum"))


# x - y at -1, -0.5, 0, 0.5 and 2: each side of the kinks at 0 and at +-0.5 (beta, delta), and on them
KINKS = [([-1.0, 0.5, 1.0, 1.5, 3.0], [0.0, 1.0, 1.0, 1.0, 1.0])]


BUILDERS = {
    L.MseLoss: mse_cases,
    L.SmoothL1Loss: smooth_l1_cases,
    L.HuberLoss: huber_cases,
}
