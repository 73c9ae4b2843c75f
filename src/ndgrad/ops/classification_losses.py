"""Classification losses of torch.nn.functional: nll, cross_entropy, binary cross entropy (of probabilities and
of logits), kl_div and multilabel_soft_margin.

The ones PyTorch records as one node are primitives; the rest are composites of ndgrad ops, as in PyTorch.
"""

import math

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._warnings import warn
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops._checks import check_castable
from ndgrad.ops._loss_base import (
    Pointwise,
    array_of,
    constant,
    get_enum,
    legacy_get_enum,
    legacy_get_string,
    reduce_array,
    reduced,
    reduction_enum,
    reduction_name,
    scalar_minus,
    softplus_array,
)
from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.activation import logsigmoid
from ndgrad.ops.arithmetic import DivScalar
from ndgrad.ops.comparison import where
from ndgrad.ops.softmaxes import log_softmax
from ndgrad.ops.special import xlogy
from ndgrad.ops.transcendental import sigmoid

__all__ = ["binary_cross_entropy_with_logits", "kl_div"]  # the names torch has at top level (torch.X)
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


# ---- the functions users call: torch's ops (torch._C._nn.X, torch.X) -------------------------------------------
# NOTE: torch's parser reads an int default it cannot evaluate ("at::Reduction::Mean") as 0, so torch's ops called
# without a reduction do not reduce; torch.nn.functional always passes one.
@parses("binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, "
        "int reduction=at::Reduction::Mean)")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """Binary cross entropy of sigmoid(input), computed stably (see torch.binary_cross_entropy_with_logits)."""
    if AUTOCAST.active:
        input, target, weight, pos_weight = autocast_inputs("binary_cross_entropy_with_logits", input, target, weight,
                                                            pos_weight)
    name = reduction_name(reduction)
    shape, dtype = tuple(input.shape), input.dtype
    if dtype.is_floating_point and target.dtype == dtype and tuple(target.shape) == shape and all(
        t is None or (t.dtype == dtype and _broadcasts_to(tuple(t.shape), shape)) for t in (weight, pos_weight)
    ):
        return BinaryCrossEntropyWithLogits.apply(input, target, reduction=name, weight=array_of(weight, input),
                                                  pos_weight=array_of(pos_weight, input))
    # anything else takes PyTorch's composite, whose ndgrad ops refuse what torch's refuse (or compute it alike)
    log_sigmoid_input = logsigmoid(input)
    if pos_weight is not None:
        log_sigmoid_input.mul_((pos_weight - 1).mul(target).add_(1))
    loss = scalar_minus(1, target).mul_(input).sub_(log_sigmoid_input)
    return reduced(loss if weight is None else loss.mul_(weight), name)


def _broadcasts_to(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


@parses("binary_cross_entropy(Tensor input, Tensor target, Tensor? weight=None, "
        "int reduction=at::Reduction::Mean, *, Tensor out=None)")
def binary_cross_entropy(input, target, weight=None, reduction=0):
    """Binary cross entropy of probabilities (see torch._C._nn.binary_cross_entropy)."""
    if AUTOCAST.active:
        input, target, weight = autocast_inputs("binary_cross_entropy", input, target, weight)
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype.title} but expected {input.dtype.title}")
    if weight is not None:
        weight = weight.expand_as(input) if tuple(weight.shape) != tuple(input.shape) else weight
        check_castable(input, weight)
    target = target.expand_as(input) if tuple(target.shape) != tuple(input.shape) else target
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{input.dtype.title}'")
    for what, tensor in (("input", input), ("target", target)):
        data = tensor._data
        if data.size and not bool(((data >= 0) & (data <= 1)).all()):  # nan fails too
            raise RuntimeError(f"all elements of {what} should be between 0 and 1")
    return BinaryCrossEntropy.apply(input, target, reduction=reduction_name(reduction),
                                    weight=array_of(weight, input))


def _nll_kernel(input, target, weight, kernel):
    """The dtype checks of nll_loss's kernels, and its targets' bounds."""
    if target.dtype.title not in ("Long", "Byte"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.title}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.title} but found {weight.dtype.title}")


def _in_bounds(values, classes, ignore_index):
    wrong = (values != ignore_index) & ((values < 0) | (values >= classes))
    if wrong.any():
        raise IndexError(f"Target {int(values[wrong].reshape(-1)[0])} is out of bounds.")


@parses("nll_loss(Tensor input, Tensor target, Tensor? weight=None, int reduction=at::Reduction::Mean, "
        "SymInt ignore_index=-100, *, Tensor out=None)")
def nll_loss(input, target, weight=None, reduction=0, ignore_index=-100):
    """Negative log likelihood of the target classes, for (C,) or (N, C) input (see torch._C._nn.nll_loss)."""
    if AUTOCAST.active:
        input, target, weight = autocast_inputs("nll_loss", input, target, weight)
    if not 0 < input.ndim <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    if input.ndim == 2 and input.shape[0] != (target.shape[0] if target.ndim else 0):
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)}, target: {list(target.shape)})")
    classes = input.shape[-1]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.shape)}")
    _nll_kernel(input, target, weight, "nll_loss_out_frame")
    values = target._data.astype(np.int64)
    _in_bounds(values, classes, ignore_index)
    weight = None if weight is None else weight._data
    if input.ndim == 1 and target.ndim == 1:
        values = values.reshape(())
    return NllLoss.apply(input, target=values, weight=weight, reduction=reduction_name(reduction),
                         ignore_index=ignore_index)


@parses("nll_loss2d(Tensor input, Tensor target, Tensor? weight=None, int reduction=at::Reduction::Mean, "
        "SymInt ignore_index=-100, *, Tensor out=None)")
def nll_loss2d(input, target, weight=None, reduction=0, ignore_index=-100):
    """nll_loss of (N, C, H, W) input, recorded as NllLoss2DBackward0 (see torch._C._nn.nll_loss2d)."""
    if AUTOCAST.active:
        input, target, weight = autocast_inputs("nll_loss", input, target, weight)
    if target.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.ndim}")
    if input.ndim != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{input.ndim}")
    if weight is not None and weight.numel() != input.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if input.shape[0] != target.shape[0] or tuple(input.shape[2:]) != tuple(target.shape[1:]):
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    _nll_kernel(input, target, weight, "nll_loss2d_forward_out_frame")
    values = target._data.astype(np.int64)
    _in_bounds(values, input.shape[1], ignore_index)
    return NllLoss2d.apply(input, target=values, weight=None if weight is None else weight._data,
                           reduction=reduction_name(reduction), ignore_index=ignore_index)


@parses("nll_loss_nd(Tensor input, Tensor target, Tensor? weight=None, int reduction=at::Reduction::Mean, "
        "SymInt ignore_index=-100)")
def nll_loss_nd(input, target, weight=None, reduction=0, ignore_index=-100):
    """nll_loss of input of any rank, its classes along dim 1 (see torch._C._nn.nll_loss_nd)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    batch = target.shape[0] if target.ndim else 0  # NOTE: PyTorch reads a 0-d target's size 0 as 0
    if input.ndim != 1 and input.shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({batch}).")
    if input.ndim <= 2:
        return nll_loss(input, target, weight, reduction, ignore_index)
    if input.ndim == 4:
        return nll_loss2d(input, target, weight, reduction, ignore_index)
    n, c = input.shape[:2]  # as PyTorch: other ranks are viewed as (N, C, 1, -1) and back
    if tuple(target.shape) != (n, *input.shape[2:]):
        raise RuntimeError(f"Expected target size {[n, *input.shape[2:]]}, got {list(target.shape)}")
    loss = nll_loss2d(input.reshape(n, c, 1, -1), target.reshape(n, 1, -1), weight, reduction, ignore_index)
    return loss if reduction_name(reduction) != "none" else loss.reshape(target.shape)


@parses("cross_entropy_loss(Tensor input, Tensor target, Tensor? weight=None, int reduction=at::Reduction::Mean, "
        "SymInt ignore_index=-100, float label_smoothing=0.0)")
def cross_entropy_loss(input, target, weight=None, reduction=0, ignore_index=-100, label_smoothing=0.0):
    """log_softmax over the classes, then nll_loss; or, for class probabilities, -sum(target * log_softmax)
    (see torch._C._nn.cross_entropy_loss). Composites, as in PyTorch."""
    if AUTOCAST.active:
        input, target, weight = autocast_inputs("cross_entropy_loss", input, target, weight)
    class_dim = 0 if input.ndim == 1 else 1
    name = reduction_name(reduction)
    if input.shape == target.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {target.dtype.title}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if not 0.0 <= label_smoothing <= 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        return _cross_entropy_probabilities(input, target, weight, name, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim)
    return nll_loss_nd(log_softmax(input, class_dim, input.dtype), target, weight, reduction, ignore_index)


def _class_view(weight, input, class_dim):
    shape = [1] * input.ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(tuple(shape))


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim):
    classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {classes} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    log_probabilities = log_softmax(input, class_dim, input.dtype)
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
    return DivScalar.apply(-terms.sum(), other=input.numel() // classes)


def _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim):
    log_probabilities = log_softmax(input, class_dim, input.dtype)
    classes = input.shape[class_dim]
    nll = nll_loss_nd(log_probabilities, target, weight, reduction, ignore_index)
    ignored = target == ignore_index
    if weight is not None:
        smooth = -(log_probabilities * _class_view(weight, input, class_dim)).sum(class_dim)
    else:
        smooth = -log_probabilities.sum(class_dim)
    smooth = where(ignored, 0.0, smooth)
    name = reduction_name(reduction)
    if name == "mean":
        if weight is not None:
            kept = target._data[~ignored._data]
            smooth = smooth.sum() / weight[constant(kept.reshape(-1))].sum()
        else:
            smooth = smooth.sum() / (~ignored).sum()
    elif name == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


@parses("kl_div(Tensor input, Tensor target, int reduction=at::Reduction::Mean, *, bool log_target=False)")
def kl_div(input, target, reduction=0, *, log_target=False):
    """Kullback-Leibler divergence, input given as log-probabilities (see torch.kl_div); a composite."""
    if AUTOCAST.active:
        input, target = autocast_inputs("kl_div", input, target)
    if input.dtype.is_complex or target.dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    loss = target.exp() * (target - input) if log_target else xlogy(target, target) - target * input
    return reduced(loss, reduction_name(reduction))


# ---- torch.nn.functional's Python functions around them ---------------------------------------------------------
def functional_binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                                reduction="mean", pos_weight=None):
    """Binary cross entropy of sigmoid(input) (see torch.nn.functional.binary_cross_entropy_with_logits)."""
    reduction = reduction_enum(size_average, reduce, reduction)
    if not target.size() == input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def _broadcast_shapes(*shapes):
    """torch.broadcast_shapes, with its error: the shape the given ones broadcast to."""
    common = [1] * max(len(shape) for shape in shapes)
    for position, shape in enumerate(shapes):
        for index in range(-1, -1 - len(shape), -1):
            if common[index] == 1:
                common[index] = shape[index]
            elif shape[index] != 1 and shape[index] != common[index]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[index]} at {index}! "
                                   f"Mismatching argument at index {position} had {shape}; but expected shape should "
                                   f"be broadcastable to {common}")
    return tuple(common)


def functional_binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities (see torch.nn.functional.binary_cross_entropy)."""
    reduction = reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) is "
            "deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        new_size = _broadcast_shapes(target.size(), weight.size())
        weight = weight.expand(new_size)
    return binary_cross_entropy(input, target, weight, reduction)


def functional_nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                        reduction="mean"):
    """Negative log likelihood of the target classes (see torch.nn.functional.nll_loss)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    return nll_loss_nd(input, target, weight, get_enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross entropy of the class logits (see torch.nn.functional.cross_entropy)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    return cross_entropy_loss(input, target, weight, get_enum(reduction), ignore_index, label_smoothing)


def functional_kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence, input given as log-probabilities (see torch.nn.functional.kl_div)."""
    if size_average is not None or reduce is not None:
        enum = legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
                "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed "
                "to behave the same as 'batchmean' in the next major release.",
            )
        enum = get_enum("sum") if reduction == "batchmean" else get_enum(reduction)
    loss = kl_div(input, target, enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        loss = loss / input.size()[0]
    return loss


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of logits per class, averaged over the classes (see F.multilabel_soft_margin_loss)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")
