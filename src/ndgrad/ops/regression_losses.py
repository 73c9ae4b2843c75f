"""Regression losses of torch.nn.functional: mse, l1, smooth_l1, huber, poisson_nll, gaussian_nll.

The ones PyTorch records as one node are primitives; the rest are composites of ndgrad ops, as in PyTorch.
"""

import math

from ndgrad.ops._checks import check_castable, no_complex_kernel
from ndgrad.ops._loss_base import Pointwise, reduce_array, reduced, reduction_argument, warn_sizes
from ndgrad.ops._op import UNARY
from ndgrad.ops.comparison import where
from ndgrad.ops.joining import broadcast_tensors
from ndgrad.ops.rounding import nan_keeping_sign

__all__ = []  # the names torch has at top level (torch.X)
FUNCTIONAL = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "poisson_nll_loss", "gaussian_nll_loss"]


class MseLoss(Pointwise):
    """F.mse_loss: (input - target)^2, reduced."""

    name, family = "mse_loss", UNARY

    @staticmethod
    def forward(xp, x, y, reduction):
        return reduce_array(xp, (x - y) ** 2, reduction)

    @staticmethod
    def partials(ctx, x, y):
        d = 2 * (x - y)
        return d, -d


class SmoothL1Loss(Pointwise):
    """F.smooth_l1_loss: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target)."""

    name, family = "smooth_l1_loss", UNARY

    @staticmethod
    def forward(xp, x, y, reduction, beta):
        d = x - y
        a = xp.abs(d)
        return reduce_array(xp, xp.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta), reduction)

    @staticmethod
    def partials(ctx, x, y):
        d = _slope(x - y, ctx.beta) / ctx.beta
        return d, -d


class HuberLoss(Pointwise):
    """F.huber_loss: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""

    name, family = "huber_loss", UNARY

    @staticmethod
    def forward(xp, x, y, reduction, delta):
        d = x - y
        a = xp.abs(d)
        return reduce_array(xp, xp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta)), reduction)

    @staticmethod
    def partials(ctx, x, y):
        d = _slope(x - y, ctx.delta)
        return d, -d


def _slope(d, limit):
    """d clamped to [-limit, limit], with PyTorch's derivative: 1 only strictly inside (so at |d| = limit the second
    derivative is 0, as torch's double backward), and NaN where d is NaN."""
    return where(d.abs() < limit, d, nan_keeping_sign(d) * limit)


# ---- the functions users call -------------------------------------------------------------------------------
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (see torch.nn.functional.mse_loss)."""
    warn_sizes(input, target)
    reduction = reduction_argument(size_average, reduce, reduction)
    input, target = broadcast_tensors(input, target)
    if weight is not None:
        return _weighted((input - target) ** 2, weight, reduction, input)
    no_complex_kernel("mse_cpu", input, target)
    return MseLoss.apply(input, target, reduction=reduction)


def _weighted(loss, weight, reduction, input, mean_by_weight=True):
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum" or not mean_by_weight:
        return loss.sum() if reduction == "sum" else loss.mean()
    return loss.sum() / weight.sum()


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error (see torch.nn.functional.l1_loss); a composite, as in PyTorch."""
    warn_sizes(input, target)
    reduction = reduction_argument(size_average, reduce, reduction)
    input, target = broadcast_tensors(input, target)
    if weight is not None:
        return _weighted((input - target).abs(), weight, reduction, input)
    return reduced((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta``, absolute error above (see torch.nn.functional.smooth_l1_loss)."""
    warn_sizes(input, target)
    reduction = reduction_argument(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = broadcast_tensors(input, target)
    if beta == 0.0:
        return reduced((input - target).abs(), reduction)
    no_complex_kernel("smooth_l1_cpu", input, target)
    return SmoothL1Loss.apply(input, target, reduction=reduction, beta=float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, delta-scaled absolute error above (see torch.nn.functional.huber_loss)."""
    warn_sizes(input, target)
    reduction = reduction_argument(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = broadcast_tensors(input, target)
    check_castable(input, target)
    no_complex_kernel("huber_cpu", input, target)
    if weight is not None:
        loss = HuberLoss.apply(input, target, reduction="none", delta=float(delta))
        return _weighted(loss, weight, reduction, input, mean_by_weight=False)
    return HuberLoss.apply(input, target, reduction=reduction, delta=float(delta))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log likelihood (see torch.nn.functional.poisson_nll_loss)."""
    if size_average is not None or reduce is not None:
        reduction = reduction_argument(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + where(target <= 1, 0.0, stirling)
    return reduced(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood with variance ``var`` (see torch.nn.functional.gaussian_nll_loss)."""
    from ndgrad.autograd.grad_mode import no_grad

    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        from ndgrad._creation import ones_like  # creation imports the Tensor, which imports the ops

        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)  # for stability; the gradient passes as if unclamped, as PyTorch's
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduced(loss, reduction)
