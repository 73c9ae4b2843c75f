"""Regression losses of torch.nn.functional: mse, l1, smooth_l1, huber, poisson_nll, gaussian_nll.

The ones PyTorch records as one node are primitives; the rest are composites of ndgrad ops, as in PyTorch.
"""

import math

from ndgrad._argument_parser import parses
from ndgrad._dtype import result_type
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops._checks import check_castable, require_kind
from ndgrad.ops._loss_base import (
    Pointwise,
    get_enum,
    legacy_get_string,
    reduce_array,
    reduced,
    reduction_name,
    warn_sizes,
)
from ndgrad.ops._op import UNARY
from ndgrad.ops.comparison import where
from ndgrad.ops.grids import broadcast_tensors
from ndgrad.ops.rounding import nan_keeping_sign

__all__ = ["poisson_nll_loss"]  # the names torch has at top level (torch.X)
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


# ---- the functions users call: torch's ops (torch._C._nn.X, torch.X) -------------------------------------------
@parses("mse_loss(Tensor input, Tensor target, int reduction=at::Reduction::Mean, *, Tensor out=None)")
def mse_loss(input, target, reduction=1):
    """Mean squared error (see torch._C._nn.mse_loss)."""
    if AUTOCAST.active:
        input, target = autocast_inputs("mse_loss", input, target)
    input, target = broadcast_tensors(input, target)
    require_kind(result_type((input, target)), "mse_cpu", "f")
    return MseLoss.apply(input, target, reduction=reduction_name(reduction))


@parses("l1_loss(Tensor input, Tensor target, int reduction=at::Reduction::Mean)")
def l1_loss(input, target, reduction=1):
    """Mean absolute error (see torch._C._nn.l1_loss); a composite, as in PyTorch."""
    if AUTOCAST.active:
        input, target = autocast_inputs("l1_loss", input, target)
    return reduced((input - target).abs(), reduction_name(reduction))


@parses("smooth_l1_loss(Tensor input, Tensor target, int reduction=at::Reduction::Mean, float beta=1.0, *, "
        "Tensor out=None)")
def smooth_l1_loss(input, target, reduction=1, beta=1.0):
    """Squared error below ``beta``, absolute error above (see torch._C._nn.smooth_l1_loss)."""
    if AUTOCAST.active:
        input, target = autocast_inputs("smooth_l1_loss", input, target)
    if not beta >= 0:  # nan too
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction)
    input, target = broadcast_tensors(input, target)
    require_kind(result_type((input, target)), "smooth_l1_cpu", "f")
    return SmoothL1Loss.apply(input, target, reduction=reduction_name(reduction), beta=beta)


@parses("huber_loss(Tensor input, Tensor target, int reduction=at::Reduction::Mean, float delta=1.0, *, "
        "Tensor out=None)")
def huber_loss(input, target, reduction=1, delta=1.0):
    """Squared error below ``delta``, delta-scaled absolute error above (see torch._C._nn.huber_loss)."""
    if AUTOCAST.active:
        input, target = autocast_inputs("huber_loss", input, target)
    if not delta > 0:  # nan too
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = broadcast_tensors(input, target)
    check_castable(input, target)  # computed into a tensor of input's dtype
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"huber_cpu\" not implemented for '{input.dtype.title}'")
    return HuberLoss.apply(input, target.to(input.dtype), reduction=reduction_name(reduction), delta=delta)


@parses("poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction)")
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """Poisson negative log likelihood (see torch.poisson_nll_loss); a composite, as in PyTorch."""
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return reduced(loss, reduction_name(reduction))


# ---- torch.nn.functional's Python functions around them ---------------------------------------------------------
def _weighted(loss, weight, reduction, input, mean_by_weight=True):
    """torch.nn.functional's weighted form of a loss (given unreduced), reduced by name."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _expanded(input, target, size_average, reduce, reduction):
    """What these losses do first: warn of broadcasting, read the legacy flags, broadcast."""
    warn_sizes(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    return (*broadcast_tensors(input, target), reduction)


def functional_mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (see torch.nn.functional.mse_loss)."""
    input, target, reduction = _expanded(input, target, size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).pow(2), weight, reduction, input)
    return mse_loss(input, target, get_enum(reduction))


def functional_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error (see torch.nn.functional.l1_loss)."""
    input, target, reduction = _expanded(input, target, size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), weight, reduction, input)
    return l1_loss(input, target, get_enum(reduction))


def functional_smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta``, absolute error above (see torch.nn.functional.smooth_l1_loss)."""
    input, target, reduction = _expanded(input, target, size_average, reduce, reduction)
    if beta == 0.0:
        return l1_loss(input, target, get_enum(reduction))
    return smooth_l1_loss(input, target, get_enum(reduction), beta)


def functional_huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, delta-scaled absolute error above (see torch.nn.functional.huber_loss)."""
    input, target, _ = _expanded(input, target, None, None, reduction)
    if weight is None:
        return huber_loss(input, target, get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    return _weighted(huber_loss(input, target, get_enum("none"), delta), weight, reduction, input, False)


def functional_poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                                reduction="mean"):
    """Poisson negative log likelihood (see torch.nn.functional.poisson_nll_loss)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not a valid value for reduction")
    return poisson_nll_loss(input, target, log_input, full, eps, get_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood with variance ``var`` (see torch.nn.functional.gaussian_nll_loss)."""
    from ndgrad._creation import ones_like  # creation imports the Tensor, which imports the ops
    from ndgrad.autograd.grad_mode import no_grad
    from ndgrad.ops.reduction import any

    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(b for a, b in zip(input.size(), var.size()) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)  # for stability; the gradient passes as if unclamped, as PyTorch's
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduced(loss, reduction)
