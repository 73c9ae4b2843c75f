"""Classification losses of torch.nn.functional: nll, cross_entropy, binary cross entropy (of probabilities and
of logits), kl_div and multilabel_soft_margin.

The ones PyTorch records as one node are primitives; the rest are composites of ndgrad ops, as in PyTorch.
"""

import math

import numpy as np

from ndgrad._dtype import can_cast, promote_types
from ndgrad._warnings import warn
from ndgrad.ops._checks import check_castable, no_complex, no_complex_kernel
from ndgrad.ops._loss_base import (
    Pointwise,
    array_of,
    constant,
    reduce_array,
    reduced,
    reduction_argument,
    softplus_array,
)
from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.activation import logsigmoid
from ndgrad.ops.comparison import where
from ndgrad.ops.softmaxes import log_softmax
from ndgrad.ops.special import xlogy
from ndgrad.ops.transcendental import sigmoid

__all__ = []  # the names torch has at top level (torch.X)
FUNCTIONAL = [
    "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits", "binary_cross_entropy", "kl_div",
    "multilabel_soft_margin_loss",
]


class BinaryCrossEntropyWithLogits(Pointwise):
    """F.binary_cross_entropy_with_logits: (1 - t) x - (1 + (pos_weight - 1) t) log sigmoid(x), times weight.

    weight and pos_weight are constants (arrays), as in PyTorch, which defines no gradient for them. A complex
    target (of real logits) gives a complex loss, which PyTorch computes but refuses to differentiate."""

    name, family = "binary_cross_entropy_with_logits", UNARY
    complex_autograd = False

    @staticmethod
    def forward(xp, x, y, reduction, weight=None, pos_weight=None):
        log_sigmoid = -softplus_array(xp, -x)
        if pos_weight is not None:
            log_sigmoid = log_sigmoid * ((pos_weight - 1) * y + 1)
        loss = (1 - y) * x - log_sigmoid
        return reduce_array(xp, loss if weight is None else loss * weight, reduction)

    @staticmethod
    def partials(ctx, x, y):
        if ctx.pos_weight is None:
            dx, dy = sigmoid(x) - y, -x
        else:
            pos_weight = constant(ctx.pos_weight)
            dx = ((pos_weight - 1) * y + 1) * sigmoid(x) - pos_weight * y
            dy = -(pos_weight - 1) * logsigmoid(x) - x
        if ctx.weight is not None:
            weight = constant(ctx.weight)
            dx, dy = dx * weight, dy * weight
        return dx, dy


class BinaryCrossEntropy(Pointwise):
    """F.binary_cross_entropy: -(t log x + (1 - t) log(1 - x)), each log at least -100 as PyTorch's."""

    name, family = "binary_cross_entropy", UNARY

    @staticmethod
    def forward(xp, x, y, reduction, weight=None):
        loss = -(y * xp.maximum(xp.log(x), -100) + (1 - y) * xp.maximum(xp.log1p(-x), -100))
        return reduce_array(xp, loss if weight is None else loss * weight, reduction)

    @staticmethod
    def partials(ctx, x, y):
        dx = (x - y) / ((1 - x) * x).clamp_min(1e-12)
        dy = (-x).log1p() - x.log()
        if ctx.weight is not None:
            weight = constant(ctx.weight)
            dx, dy = dx * weight, dy * weight
        return dx, dy


class NllLoss(Op):
    """F.nll_loss on (C,) or (N, C) input: minus the input at each target class, times weight[class].

    ``target`` and ``weight`` are constant arrays; the loss is linear in the input, so the rules are too."""

    name, family = "nll_loss", UNARY

    @staticmethod
    def forward(xp, x, target, weight, reduction, ignore_index):
        rows, target = (x, target) if x.ndim > 1 else (x[None], target[None])  # (C,) as one row of (1, C)
        kept = target != ignore_index
        safe = xp.where(kept, target, 0)
        picked = xp.squeeze(xp.take_along_axis(rows, xp.expand_dims(safe, 1), axis=1), axis=1)
        weights = xp.where(kept, 1 if weight is None else weight[safe], 0).astype(x.dtype)
        loss = xp.where(kept, -picked * weights, 0).astype(x.dtype)
        if reduction == "mean":
            return (xp.sum(loss) / xp.sum(weights)).astype(x.dtype)
        if reduction == "sum":
            return xp.sum(loss).astype(x.dtype)
        return loss if x.ndim > 1 else loss[0]

    formula = "grad_self = -grad * weight[target] at the target class (/ total weight for 'mean'), 0 elsewhere"
    @classmethod
    def vjp(cls, ctx, grad):
        coefficients, total = _nll_coefficients_of(ctx, grad)
        if ctx.reduction == "none":
            return (-constant(coefficients) * (grad.unsqueeze(1) if grad.ndim else grad),)
        if ctx.reduction == "mean":
            grad = grad / constant(total)
        return (-constant(coefficients) * grad,)

    @classmethod
    def jvp(cls, ctx, x_t):
        return cls.apply(x_t, target=ctx.target, weight=ctx.weight, reduction=ctx.reduction,
                         ignore_index=ctx.ignore_index)


class NllLoss2d(NllLoss):
    """F.nll_loss on (N, C, H, W) input (and others reshaped to it), recorded as NllLoss2DBackward0."""

    name = "nll_loss"
    node_name = "NllLoss2DBackward0"


def _nll_coefficients(xp, x, target, weight, ignore_index):
    """d loss / d input for the summed loss, negated: weight[t] at each target class (0 where ignored); and the
    total weight that 'mean' divides by."""
    kept = target != ignore_index
    safe = xp.where(kept, target, 0)
    weights = xp.ones(safe.shape, dtype=x.dtype) if weight is None else weight[safe].astype(x.dtype)
    weights = xp.where(kept, weights, 0)
    coefficients = xp.zeros(x.shape if x.ndim > 1 else (1,) + x.shape, dtype=x.dtype)
    index = xp.expand_dims(safe if x.ndim > 1 else safe[None], 1)
    xp.put_along_axis(coefficients, index, xp.expand_dims(weights if x.ndim > 1 else weights[None], 1), axis=1)
    return (coefficients if x.ndim > 1 else coefficients[0]), xp.sum(weights)


def _nll_coefficients_of(ctx, grad):
    from ndgrad._device import array_namespace, device_of_array

    xp = array_namespace(device_of_array(ctx.target))
    shape = ctx.input_shapes[0]
    like = xp.zeros(shape, dtype=grad._data.dtype)
    return _nll_coefficients(xp, like, ctx.target, ctx.weight, ctx.ignore_index)


class _DivScalar(Op):
    """Tensor / number as PyTorch's C++ records it (DivBackward1): what cross_entropy's 'mean' with class
    probabilities ends with. Not a public op, so not in the op table."""

    node_name = "DivBackward1"

    @staticmethod
    def forward(xp, x, other):
        return x / other

    formula = "grad_self = grad / other"
    @staticmethod
    def vjp(ctx, grad):
        return (grad / ctx.other,)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t / ctx.other


# ---- the functions users call -------------------------------------------------------------------------------
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of sigmoid(input), computed stably (see F.binary_cross_entropy_with_logits)."""
    reduction = reduction_argument(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    no_complex_kernel("log_sigmoid_cpu", input)
    # torch weighs the log-sigmoid (input's dtype) by pos_weight and the target, then the loss (target's dtype) by
    # weight, both in place: no complex result into a real tensor
    if pos_weight is not None:
        _check_cast(promote_types(promote_types(input.dtype, pos_weight.dtype), target.dtype), input.dtype)
    if weight is not None:
        _check_cast(promote_types(target.dtype, weight.dtype), target.dtype)
    return BinaryCrossEntropyWithLogits.apply(input, target, reduction=reduction, weight=array_of(weight, input),
                                              pos_weight=array_of(pos_weight, input))


def _check_cast(result, output):
    if not can_cast(result, output):
        raise RuntimeError(f"result type {result.title} can't be cast to the desired output type {output.title}")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities (see torch.nn.functional.binary_cross_entropy)."""
    reduction = reduction_argument(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) is "
            "deprecated. Please ensure they have the same size."
        )
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype.title} but expected {input.dtype.title}")
    if weight is not None:
        check_castable(input, weight)
    no_complex_kernel("binary_cross_entropy", input)
    for name, data in (("input", input._data), ("target", target._data)):  # NaN is outside too, as in torch
        if data.size and not bool(((data >= 0) & (data <= 1)).all()):
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    if weight is not None:
        weight = weight.expand(np.broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
    return BinaryCrossEntropy.apply(input, target, reduction=reduction, weight=array_of(weight, input))


def _check_nll(input, target, weight):
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    if target.dtype.title not in ("Long", "Byte"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.title}")
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    if weight is not None:
        if weight.numel() != classes:
            raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but "
                               f"got weight tensor of shape: {list(weight.shape)}")
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype.title} but found {weight.dtype.title}")
    if input.ndim > 2 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {[input.shape[0], *input.shape[2:]]}, got {list(target.shape)}")
    return classes


def _nll(input, target, weight, reduction, ignore_index):
    classes = _check_nll(input, target, weight)
    no_complex_kernel("nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame", input)
    values = target._data.astype(np.int64)
    wrong = (values != ignore_index) & ((values < 0) | (values >= classes))
    if wrong.any():
        raise IndexError(f"Target {int(values[wrong].reshape(-1)[0])} is out of bounds.")
    weight = None if weight is None else weight._data
    if input.ndim <= 2:
        return NllLoss.apply(input, target=values, weight=weight, reduction=reduction, ignore_index=ignore_index)
    if input.ndim == 4:
        return NllLoss2d.apply(input, target=values, weight=weight, reduction=reduction, ignore_index=ignore_index)
    n, c = input.shape[:2]  # as PyTorch: other ranks are viewed as (N, C, 1, -1) and back
    flat = input.reshape(n, c, 1, -1)
    loss = NllLoss2d.apply(flat, target=values.reshape(n, 1, -1), weight=weight, reduction=reduction,
                           ignore_index=ignore_index)
    return loss if reduction != "none" else loss.reshape(target.shape)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of the target classes (see torch.nn.functional.nll_loss)."""
    return _nll(input, target, weight, reduction_argument(size_average, reduce, reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over the classes, then nll_loss; or, for class probabilities, -sum(target * log_softmax)
    (see torch.nn.functional.cross_entropy). Composites, as in PyTorch."""
    reduction = reduction_argument(size_average, reduce, reduction)
    class_dim = 0 if input.ndim == 1 else 1
    if input.shape == target.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {target.dtype.title}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim)
    return _nll(log_softmax(input, class_dim), target, weight, reduction, ignore_index)


def _class_view(weight, input, class_dim):
    shape = [1] * input.ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(tuple(shape))


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim):
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    classes = input.shape[class_dim]
    log_probabilities = log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = log_probabilities * target
    if weight is not None:
        terms = terms * _class_view(weight, input, class_dim)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    if input.numel() == 0:
        return -terms.sum() * math.nan
    return _DivScalar.apply(-terms.sum(), other=input.numel() // classes)


def _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim):
    classes = input.shape[class_dim]
    log_probabilities = log_softmax(input, class_dim)
    nll = _nll(log_probabilities, target, weight, reduction, ignore_index)
    ignored = target == ignore_index
    if weight is not None:
        smooth = -(log_probabilities * _class_view(weight, input, class_dim)).sum(class_dim)
    else:
        smooth = -log_probabilities.sum(class_dim)
    smooth = where(ignored, 0.0, smooth)
    if reduction == "mean":
        if weight is not None:
            kept = target._data[~ignored._data]
            smooth = smooth.sum() / weight[constant(kept.reshape(-1))].sum()
        else:
            smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence, input given as log-probabilities (see torch.nn.functional.kl_div)."""
    if size_average is not None or reduce is not None:
        reduction = reduction_argument(size_average, reduce, reduction)
    elif reduction == "mean":
        warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
            "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to "
            "behave the same as 'batchmean' in the next major release.",
        )
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    for tensor in (input, target):
        no_complex(tensor, "kl_div: Complex inputs not supported.", RuntimeError)
    loss = target.exp() * (target - input) if log_target else xlogy(target, target) - target * input
    if reduction == "batchmean":
        loss = loss.sum()
        return loss / input.shape[0] if input.ndim else loss
    return reduced(loss, reduction)




def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of logits per class, averaged over the classes (see F.multilabel_soft_margin_loss)."""
    if size_average is not None or reduce is not None:
        reduction = reduction_argument(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return reduced(loss, reduction)
