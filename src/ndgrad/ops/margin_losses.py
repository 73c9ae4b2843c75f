"""Margin and embedding losses of torch.nn.functional: hinges on scores (multi_margin, multilabel_margin,
soft_margin, margin_ranking) and on distances or similarities of embeddings (hinge_embedding, cosine_embedding,
triplet_margin, triplet_margin_with_distance). PyTorch's one-node losses are primitives, the rest composites."""

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._device import array_namespace, namespace_of
from ndgrad._dtype import bool_, int64
from ndgrad.ops._checks import check_castable, check_written_shape, kernel_scalars
from ndgrad.ops._loss_base import (
    array_of,
    constant,
    reduce_array,
    reduced,
    reduction_enum,
    reduction_name,
    scalar_minus,
    spread,
)
from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.comparison import minimum, where
from ndgrad.ops.layers import pairwise_distance

# the names torch has at top level (torch.X)
__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss"]
FUNCTIONAL = [
    "multi_margin_loss", "multilabel_margin_loss", "soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss",
    "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
]


class SoftMarginLoss(Op):
    """F.soft_margin_loss: log(1 + exp(-target * input)). ``target`` is a constant array: PyTorch defines no
    gradient for it. PyTorch computes complex losses but refuses to differentiate them."""

    name, family = "soft_margin_loss", UNARY
    saves = ("x",)
    complex_autograd = False

    # NOTE: log1p(exp(-target x)) as PyTorch writes it, not a stable softplus: like PyTorch's, the loss overflows
    # to inf beyond -target x ~ 709 (float64), and the gradient, e / (1 + e), is NaN there and at infinities.
    @staticmethod
    def forward(xp, x, target, reduction):
        return reduce_array(xp, xp.log1p(xp.exp(-target * x)), reduction)

    @staticmethod
    def partial(ctx, x):
        target = constant(ctx.target)
        e = (-target * x).exp()
        return -target * e / (e + 1)

    formula = "grad_self = grad * -target * e / (1 + e), e = exp(-target * self) (/ numel for 'mean')"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        grad = spread(grad, ctx.reduction, np.broadcast_shapes(x.shape, ctx.target.shape))
        return (grad * SoftMarginLoss.partial(ctx, x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return reduced(SoftMarginLoss.partial(ctx, x) * x_t, ctx.reduction)


# ---- hinges on class scores: (N, C) rows, one loss per row ----------------------------------------------------
def _rows(x):
    """A 0-d, (C,) or (N, C) input as (N, C) rows."""
    return x.reshape(1, 1) if x.ndim == 0 else x.reshape(-1, x.shape[-1])


def _reduce_rows(xp, loss, reduction, unbatched):
    if reduction == "none":
        return loss[0] if unbatched else loss
    return reduce_array(xp, loss, reduction)


def _row_grad(grad, reduction, rows):
    """The incoming gradient as an (N, 1) column: one value per row's loss."""
    if reduction == "none":
        return grad.reshape(rows, 1)
    return grad / rows if reduction == "mean" else grad


class MultiMarginLoss(Op):
    """F.multi_margin_loss: sum over classes i != y of max(0, margin - x[y] + x[i])^p, times weight[y], over C."""

    name, family = "multi_margin_loss", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, target, p, margin, weight, reduction):
        rows = _rows(x)
        hinge = _hinge(xp, rows, target, margin)
        loss = hinge if p == 1 else hinge * hinge
        if weight is not None:
            loss = loss * weight[target][:, None]
        return _reduce_rows(xp, xp.sum(loss, axis=1) / rows.shape[1], reduction, x.ndim == 0)

    @staticmethod
    def slopes(ctx, x):
        """d loss_n / d x[n, i] for i != y (each row's own loss); d loss_n / d x[n, y] is minus their sum."""
        rows = _rows(x)
        hinge = _hinge(array_namespace(x.device), rows._data, ctx.target, ctx.margin)
        scale = (1.0 if ctx.weight is None else ctx.weight[ctx.target][:, None]) / rows.shape[1]
        active = hinge > 0
        weights = constant((active * scale).astype(rows._data.dtype))
        if ctx.p == 1:
            return weights
        picked = rows.gather(1, constant(ctx.target[:, None]))
        return where(constant(active), 2 * (ctx.margin - picked + rows), 0.0) * weights  # no NaN * 0 where inactive

    formula = "grad_self = grad * p margin^(p-1) at each violating class, minus their sum at the target"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        terms = _row_grad(grad, ctx.reduction, len(ctx.target)) * MultiMarginLoss.slopes(ctx, x)
        return ((terms - _one_hot(ctx.target, terms) * terms.sum(1, keepdim=True)).reshape(x.shape),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        rows_t = _rows(x_t)
        difference = rows_t - rows_t.gather(1, constant(ctx.target[:, None]))
        loss_t = (MultiMarginLoss.slopes(ctx, x) * difference).sum(1)
        return reduced(loss_t[0] if x.ndim == 0 else loss_t, ctx.reduction)


def _hinge(xp, rows, target, margin):
    """max(0, margin - x[y] + x[i]) on (N, C) rows, 0 at each row's own class y."""
    picked = xp.take_along_axis(rows, target[:, None], axis=1)
    violation = margin - picked + rows
    hinge = xp.where(violation > 0, violation, 0)  # NOTE: as PyTorch's kernel, a NaN term adds nothing
    hinge[xp.arange(len(target)), target] = 0
    return hinge


def _one_hot(target, like):
    xp = array_namespace(like.device)
    return constant((xp.arange(like.shape[1]) == target[:, None]).astype(like._data.dtype))


class MultilabelMarginLoss(Op):
    """F.multilabel_margin_loss: for each target class j (listed until the first -1) and each class i not listed,
    max(0, 1 - x[j] + x[i]), summed over C. Piecewise linear: its rules are constant coefficients."""

    name, family = "multilabel_margin_loss", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, target, reduction):
        loss, _ = _multilabel_terms(xp, _rows(x), target)
        return _reduce_rows(xp, loss, reduction, x.ndim < 2)

    @staticmethod
    def coefficients(ctx, x):
        _, coefficients = _multilabel_terms(array_namespace(x.device), _rows(x)._data, ctx.target)
        return constant(coefficients)

    formula = "grad_self = grad * (+1 at each violating non-target, -1 per violation at the targets) / classes"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        coefficients = MultilabelMarginLoss.coefficients(ctx, x)
        return ((_row_grad(grad, ctx.reduction, coefficients.shape[0]) * coefficients).reshape(x.shape),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        loss_t = (MultilabelMarginLoss.coefficients(ctx, x) * _rows(x_t)).sum(1)
        return reduced(loss_t[0] if x.ndim < 2 else loss_t, ctx.reduction)


def _multilabel_terms(xp, rows, target):
    """Each row's loss, and its gradient with respect to the row."""
    classes = rows.shape[1]
    listed = xp.cumprod(target != -1, axis=1).astype(bool)  # the targets before the first -1
    safe = xp.where(listed, target, 0)
    one_hot = (safe[:, :, None] == xp.arange(classes)) & listed[:, :, None]  # (N, targets, C)
    is_target = one_hot.any(axis=1)
    margins = 1 - xp.take_along_axis(rows, safe, axis=1)[:, :, None] + rows[:, None, :]
    active = listed[:, :, None] & ~is_target[:, None, :] & (margins > 0)
    loss = xp.sum(xp.where(active, margins, 0), axis=(1, 2)) / classes
    gradient = active.sum(axis=1) - xp.einsum("nj,nji->ni", active.sum(axis=2), one_hot)
    return loss.astype(rows.dtype), (gradient / classes).astype(rows.dtype)


# ---- the functions users call -------------------------------------------------------------------------------
def _check_rows(input, target, name, exact):
    if not (input.ndim == 0 or (input.ndim in (1, 2) and input.shape[-1] != 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if exact(input, target):
        return
    if name == "multi_margin_loss":
        rows = input.shape[0] if input.ndim == 2 else 1
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{rows}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")


def _long_target(target):
    if target.dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.title}")


def _floating_kernel(input, kernel):
    """These kernels compute float32 and float64 tensors only."""
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")


# NOTE: torch's parser reads the int default "at::Reduction::Mean" as 0 (see classification_losses).
@parses("multi_margin_loss(Tensor input, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None, "
        "int reduction=at::Reduction::Mean, *, Tensor out=None)")
def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction=0):
    """Multi-class hinge loss (see torch._C._nn.multi_margin_loss)."""
    _check_rows(input, target, "multi_margin_loss", lambda x, t: t.ndim <= 1 and t.numel() == (
        x.shape[0] if x.ndim == 2 else 1))
    classes = input.shape[-1] if input.ndim else 1
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    if p != 1 and p != 2:
        raise RuntimeError("only p == 1 and p == 2 supported")
    _floating_kernel(input, "multi_margin_loss_cpu_kernel")
    (margin,) = kernel_scalars(input, margin)
    _long_target(target)
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.title} but found {weight.dtype.title}")
    values = target._data.reshape(-1).astype(int64.numpy)
    if values.size and (values.min() < 0 or values.max() >= classes):
        raise RuntimeError("target out of range")
    return MultiMarginLoss.apply(input, target=values, p=int(p), margin=float(margin),
                                 weight=array_of(weight, input), reduction=reduction_name(reduction))


@parses("multilabel_margin_loss(Tensor input, Tensor target, int reduction=at::Reduction::Mean, *, Tensor out=None)")
def multilabel_margin_loss(input, target, reduction=0):
    """Multi-label hinge loss over the listed target classes (see torch._C._nn.multilabel_margin_loss)."""
    _check_rows(input, target, "multilabel_margin_loss", lambda x, t: t.shape == x.shape)
    values = _rows(target._data).astype(int64.numpy)
    listed = namespace_of(values).cumprod(values != -1, axis=1).astype(bool)
    if ((values < 0) | (values >= values.shape[1]))[listed].any():
        raise RuntimeError("argument #2 'target' is out of range")
    _floating_kernel(input, "multilabel_margin_loss_forward_out_frame")
    _long_target(target)
    return MultilabelMarginLoss.apply(input, target=values, reduction=reduction_name(reduction))


@parses("soft_margin_loss(Tensor input, Tensor target, int reduction=at::Reduction::Mean, *, Tensor out=None)")
def soft_margin_loss(input, target, reduction=0):
    """log(1 + exp(-target * input)) (see torch._C._nn.soft_margin_loss)."""
    if target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    # PyTorch computes -input, times target, then exp and log1p, all in place in a tensor of input's shape and dtype
    if input.dtype is bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
                           "a mask, use the `~` or `logical_not()` operator instead.")
    check_written_shape(input, target)
    check_castable(input, target)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype.title}")
    return SoftMarginLoss.apply(input, target=array_of(target.expand_as(input), input),
                                reduction=reduction_name(reduction))


@parses("margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, "
        "int reduction=at::Reduction::Mean)")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """max(0, -target (input1 - input2) + margin) (see torch.margin_ranking_loss); a composite."""
    return reduced((-target * (input1 - input2) + float(margin)).clamp_min(0), reduction_name(reduction))


@parses("hinge_embedding_loss(Tensor input, Tensor target, float margin=1.0, int reduction=at::Reduction::Mean)")
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """input where target is 1, max(0, margin - input) where it is -1 (see torch.hinge_embedding_loss)."""
    from ndgrad._creation import zeros_like  # creation imports the Tensor, which imports the ops

    zeros = zeros_like(input)
    margin_clamp = scalar_minus(float(margin), input).clamp_min(0)
    output = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return reduced(output, reduction_name(reduction))


@parses("cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, "
        "int reduction=at::Reduction::Mean)")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1 (see
    torch.cosine_embedding_loss)."""
    from ndgrad._creation import zeros_like

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
    zeros = zeros_like(cos)
    output = where(target == 1, 1 - cos, zeros) + where(target == -1, (cos - float(margin)).clamp_min(0), zeros)
    return reduced(output, reduction_name(reduction))


def _same_dims(anchor, positive, negative):
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )


def _triplet(anchor, positive, negative, distance, margin, swap, reduction):
    distance_positive = distance(anchor, positive)
    distance_negative = distance(anchor, negative)
    if swap:
        distance_negative = minimum(distance_negative, distance(positive, negative))
    return reduced((margin + distance_positive - distance_negative).clamp_min(0), reduction)


@parses("triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2, "
        "float eps=1e-06, bool swap=False, int reduction=at::Reduction::Mean)")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=0):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) (see torch.triplet_margin_loss)."""
    _same_dims(anchor, positive, negative)
    return _triplet(anchor, positive, negative, lambda x1, x2: pairwise_distance(x1, x2, p, eps), float(margin),
                    swap, reduction_name(reduction))


# ---- torch.nn.functional's Python functions around them ---------------------------------------------------------
def functional_multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                                 reduction="mean"):
    """Multi-class hinge loss (see torch.nn.functional.multi_margin_loss)."""
    reduction = reduction_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return multi_margin_loss(input, target, p, margin, weight, reduction)


def functional_multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss (see torch.nn.functional.multilabel_margin_loss)."""
    return multilabel_margin_loss(input, target, reduction_enum(size_average, reduce, reduction))


def functional_soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)) (see torch.nn.functional.soft_margin_loss)."""
    return soft_margin_loss(input, target, reduction_enum(size_average, reduce, reduction))


def functional_margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                                   reduction="mean"):
    """max(0, -target (input1 - input2) + margin) (see torch.nn.functional.margin_ranking_loss)."""
    reduction = reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return margin_ranking_loss(input1, input2, target, margin, reduction)


def functional_hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """See torch.nn.functional.hinge_embedding_loss."""
    return hinge_embedding_loss(input, target, margin, reduction_enum(size_average, reduce, reduction))


def functional_cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                                     reduction="mean"):
    """See torch.nn.functional.cosine_embedding_loss."""
    return cosine_embedding_loss(input1, input2, target, margin, reduction_enum(size_average, reduce, reduction))


def functional_triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                                   size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) (see F.triplet_margin_loss)."""
    reduction = reduction_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """triplet_margin_loss with any distance (pairwise_distance by default) (see
    torch.nn.functional.triplet_margin_with_distance_loss)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _same_dims(anchor, positive, negative)
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance, margin, swap, reduction)
