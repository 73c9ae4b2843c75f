"""Loss functions of torch.nn.functional (mse, l1, cross_entropy, nll, bce, kl_div, ...).

The ones PyTorch records as one node are primitives; the rest are composites of ndgrad ops, as in PyTorch.
"""

import math
import warnings

import numpy as np

from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.activation import logsigmoid
from ndgrad.ops.comparison import where
from ndgrad.ops.joining import broadcast_tensors
from ndgrad.ops.softmaxes import log_softmax
from ndgrad.ops.special import xlogy
from ndgrad.ops.transcendental import sigmoid

__all__ = []  # the names torch has at top level (torch.X)
FUNCTIONAL = [
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy_with_logits", "binary_cross_entropy",
    "smooth_l1_loss", "huber_loss", "kl_div", "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
    "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
]


# ---- reductions, in forward (arrays) and in rules (Tensors) -------------------------------------------------
def _reduce(xp, loss, reduction):
    if reduction == "mean":
        return xp.mean(loss)
    if reduction == "sum":
        return xp.sum(loss)
    return loss


def _reduced(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _spread(grad, reduction, shape):
    """The gradient of the reduced loss at each element: grad / N for 'mean' (grad is 0-d then)."""
    if reduction == "mean":
        return grad / max(math.prod(shape), 1) if math.prod(shape) else grad * math.nan
    return grad


def _constant(array):
    from ndgrad._tensor import Tensor  # the tensor module imports the ops

    return Tensor._wrap(array)


class _Pointwise(Op):
    """A loss of two tensors elementwise, then reduced: the rules need only the partial derivatives
    d loss / d input and d loss / d target at each element, written with ndgrad ops (``partials``)."""

    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y, reduction):
        raise NotImplementedError

    @classmethod
    def vjp(cls, ctx, grad):
        x, y = ctx.saved_tensors
        grad = _spread(grad, ctx.reduction, np.broadcast_shapes(x.shape, y.shape))
        dx, dy = cls.partials(ctx, x, y)
        need_x, need_y = ctx.needs_input_grad
        return (grad * dx if need_x else None), (grad * dy if need_y and dy is not None else None)

    @classmethod
    def jvp(cls, ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        dx, dy = cls.partials(ctx, x, y)
        return _reduced(dx * x_t if dy is None else dx * x_t + dy * y_t, ctx.reduction)


class MseLoss(_Pointwise):
    """F.mse_loss: (input - target)^2, reduced."""

    name, family = "mse_loss", UNARY

    @staticmethod
    def forward(xp, x, y, reduction):
        return _reduce(xp, (x - y) ** 2, reduction)

    @staticmethod
    def partials(ctx, x, y):
        d = 2 * (x - y)
        return d, -d


class SmoothL1Loss(_Pointwise):
    """F.smooth_l1_loss: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target)."""

    name, family = "smooth_l1_loss", UNARY

    @staticmethod
    def forward(xp, x, y, reduction, beta):
        d = x - y
        a = xp.abs(d)
        return _reduce(xp, xp.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta), reduction)

    @staticmethod
    def partials(ctx, x, y):
        d = (x - y).clamp(-ctx.beta, ctx.beta) / ctx.beta
        return d, -d


class HuberLoss(_Pointwise):
    """F.huber_loss: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""

    name, family = "huber_loss", UNARY

    @staticmethod
    def forward(xp, x, y, reduction, delta):
        d = x - y
        a = xp.abs(d)
        return _reduce(xp, xp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta)), reduction)

    @staticmethod
    def partials(ctx, x, y):
        d = (x - y).clamp(-ctx.delta, ctx.delta)
        return d, -d


class BinaryCrossEntropyWithLogits(_Pointwise):
    """F.binary_cross_entropy_with_logits: (1 - t) x - (1 + (pos_weight - 1) t) log sigmoid(x), times weight.

    weight and pos_weight are constants (arrays), as in PyTorch, which defines no gradient for them."""

    name, family = "binary_cross_entropy_with_logits", UNARY

    @staticmethod
    def forward(xp, x, y, reduction, weight=None, pos_weight=None):
        log_sigmoid = -xp.logaddexp(0, -x)
        if pos_weight is not None:
            log_sigmoid = log_sigmoid * ((pos_weight - 1) * y + 1)
        loss = (1 - y) * x - log_sigmoid
        return _reduce(xp, loss if weight is None else loss * weight, reduction)

    @staticmethod
    def partials(ctx, x, y):
        if ctx.pos_weight is None:
            dx, dy = sigmoid(x) - y, -x
        else:
            pos_weight = _constant(ctx.pos_weight)
            dx = ((pos_weight - 1) * y + 1) * sigmoid(x) - pos_weight * y
            dy = -(pos_weight - 1) * logsigmoid(x) - x
        if ctx.weight is not None:
            weight = _constant(ctx.weight)
            dx, dy = dx * weight, dy * weight
        return dx, dy


class BinaryCrossEntropy(_Pointwise):
    """F.binary_cross_entropy: -(t log x + (1 - t) log(1 - x)), each log at least -100 as PyTorch's."""

    name, family = "binary_cross_entropy", UNARY

    @staticmethod
    def forward(xp, x, y, reduction, weight=None):
        loss = -(y * xp.maximum(xp.log(x), -100) + (1 - y) * xp.maximum(xp.log1p(-x), -100))
        return _reduce(xp, loss if weight is None else loss * weight, reduction)

    @staticmethod
    def partials(ctx, x, y):
        dx = (x - y) / ((1 - x) * x).clamp_min(1e-12)
        dy = (-x).log1p() - x.log()
        if ctx.weight is not None:
            weight = _constant(ctx.weight)
            dx, dy = dx * weight, dy * weight
        return dx, dy


class SoftMarginLoss(Op):
    """F.soft_margin_loss: log(1 + exp(-target * input)). ``target`` is a constant array: PyTorch defines no
    gradient for it."""

    name, family = "soft_margin_loss", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, target, reduction):
        return _reduce(xp, xp.logaddexp(0, -target * x), reduction)

    @staticmethod
    def partial(ctx, x):
        target = _constant(ctx.target)
        return -target * sigmoid(-target * x)

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (_spread(grad, ctx.reduction, np.broadcast_shapes(x.shape, ctx.target.shape)) * SoftMarginLoss.partial(
            ctx, x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return _reduced(SoftMarginLoss.partial(ctx, x) * x_t, ctx.reduction)


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

    @classmethod
    def vjp(cls, ctx, grad):
        coefficients, total = _nll_coefficients_of(ctx, grad)
        if ctx.reduction == "none":
            return (-_constant(coefficients) * (grad.unsqueeze(1) if grad.ndim else grad),)
        if ctx.reduction == "mean":
            grad = grad / _constant(total)
        return (-_constant(coefficients) * grad,)

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

    @staticmethod
    def vjp(ctx, grad):
        return (grad / ctx.other,)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t / ctx.other


# ---- argument checks ----------------------------------------------------------------------------------------
def _reduction(size_average, reduce, reduction):
    """PyTorch's _Reduction: the legacy size_average/reduce flags win (with a warning), else ``reduction``."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                      stacklevel=3)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _warn_sizes(input, target):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). This will "
            "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _require_float(name, input):
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"\"{name}\" not implemented for '{input.dtype.title}'")


# ---- the functions users call -------------------------------------------------------------------------------
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (see torch.nn.functional.mse_loss)."""
    _warn_sizes(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = broadcast_tensors(input, target)
    if weight is not None:
        return _weighted((input - target) ** 2, weight, reduction, input)
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
    _warn_sizes(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = broadcast_tensors(input, target)
    if weight is not None:
        return _weighted((input - target).abs(), weight, reduction, input)
    return _reduced((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta``, absolute error above (see torch.nn.functional.smooth_l1_loss)."""
    _warn_sizes(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = broadcast_tensors(input, target)
    if beta == 0.0:
        return _reduced((input - target).abs(), reduction)
    return SmoothL1Loss.apply(input, target, reduction=reduction, beta=float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, delta-scaled absolute error above (see torch.nn.functional.huber_loss)."""
    _warn_sizes(input, target)
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = broadcast_tensors(input, target)
    if weight is not None:
        loss = HuberLoss.apply(input, target, reduction="none", delta=float(delta))
        return _weighted(loss, weight, reduction, input, mean_by_weight=False)
    return HuberLoss.apply(input, target, reduction=reduction, delta=float(delta))


def _array_of(tensor, like):
    return None if tensor is None else tensor._data.astype(like._data.dtype, copy=False)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of sigmoid(input), computed stably (see F.binary_cross_entropy_with_logits)."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return BinaryCrossEntropyWithLogits.apply(input, target, reduction=reduction, weight=_array_of(weight, input),
                                              pos_weight=_array_of(pos_weight, input))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities (see torch.nn.functional.binary_cross_entropy)."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) is "
            "deprecated. Please ensure they have the same size."
        )
    data = input._data
    if data.size and not bool(((data >= 0) & (data <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None:
        weight = weight.expand(np.broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
    return BinaryCrossEntropy.apply(input, target, reduction=reduction, weight=_array_of(weight, input))


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
    return _nll(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over the classes, then nll_loss; or, for class probabilities, -sum(target * log_softmax)
    (see torch.nn.functional.cross_entropy). Composites, as in PyTorch."""
    reduction = _reduction(size_average, reduce, reduction)
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
            smooth = smooth.sum() / weight[_constant(kept.reshape(-1))].sum()
        else:
            smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence, input given as log-probabilities (see torch.nn.functional.kl_div)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
            "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to "
            "behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    loss = target.exp() * (target - input) if log_target else xlogy(target, target) - target * input
    if reduction == "batchmean":
        loss = loss.sum()
        return loss / input.shape[0] if input.ndim else loss
    return _reduced(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target (input1 - input2) + margin) (see torch.nn.functional.margin_ranking_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _reduced((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (see F.hinge_embedding_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = input * 0
    margin_clamp = (margin - input).clamp_min(0)
    output = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _reduced(output, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)) (see torch.nn.functional.soft_margin_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    _, target = broadcast_tensors(input, target)  # PyTorch's error for shapes that do not broadcast
    return SoftMarginLoss.apply(input, target=_array_of(target, input), reduction=reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1 (see
    torch.nn.functional.cosine_embedding_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    dim = target.ndim
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != dim + 1 or input2.ndim != dim + 1:
        raise RuntimeError(
            f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    epsilon = 1e-12
    products = (input1 * input2).sum(dim)
    denominator = (((input1 * input1).sum(dim) + epsilon) * ((input2 * input2).sum(dim) + epsilon)).sqrt()
    cos = products / denominator
    zeros = cos * 0
    output = where(target == 1, 1 - cos, zeros) + where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduced(output, reduction)


def _distance(x1, x2, p, eps):
    """torch.pairwise_distance: the p-norm of x1 - x2 + eps over the last dim."""
    return (x1 - x2 + eps).norm(p, max(x1.ndim, x2.ndim) - 1)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) (see F.triplet_margin_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )
    distance_positive = _distance(anchor, positive, p, eps)
    distance_negative = _distance(anchor, negative, p, eps)
    if swap:
        from ndgrad.ops.comparison import minimum

        distance_negative = minimum(distance_negative, _distance(positive, negative, p, eps))
    return _reduced((margin + distance_positive - distance_negative).clamp_min(0), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log likelihood (see torch.nn.functional.poisson_nll_loss)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + where(target <= 1, 0.0, stirling)
    return _reduced(loss, reduction)


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
    return _reduced(loss, reduction)


class LossesMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
