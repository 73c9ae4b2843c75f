"""What the loss modules share: the reductions (in forward on arrays, in rules on Tensors), PyTorch's legacy
size_average/reduce arguments, and the base of the losses that are elementwise in two tensors."""

import math

import numpy as np

from ndgrad._fpstate import mean_array
from ndgrad._warnings import warn
from ndgrad.ops._op import Op


def reduce_array(xp, loss, reduction):
    if reduction == "mean":
        return mean_array(xp, loss)
    if reduction == "sum":
        return xp.sum(loss)
    return loss


def reduced(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def spread(grad, reduction, shape):
    """The gradient of the reduced loss at each element: grad / N for 'mean' (grad is 0-d then). With no elements
    there is nothing to divide (PyTorch divides each element's gradient), so the second derivative in grad is 0."""
    count = math.prod(shape)
    return grad / count if reduction == "mean" and count else grad


def softplus_array(xp, z):
    """log(1 + exp(z)) on an array: NumPy's stable logaddexp is for real numbers only; PyTorch computes complex
    losses (where it has no gradient for them) with the plain formula."""
    return xp.log1p(xp.exp(z)) if z.dtype.kind == "c" else xp.logaddexp(0, z)


def constant(array):
    """A raw array as a Tensor that rules can compute with (it never requires grad)."""
    from ndgrad._tensor import Tensor  # the tensor module imports the ops

    return Tensor._wrap(array)


def array_of(tensor, like):
    """A weight-like tensor as a raw array of ``like``'s dtype, for ops that take it as a constant parameter."""
    return None if tensor is None else tensor._data.astype(like._data.dtype, copy=False)


class Pointwise(Op):
    """A loss of two tensors elementwise, then reduced: the rules need only the partial derivatives
    d loss / d input and d loss / d target at each element, written with ndgrad ops (``partials``)."""

    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y, reduction):
        raise NotImplementedError

    formula = "grad_self = grad spread over the elements (/ numel for 'mean') * d loss/d self; grad_target likewise"
    @classmethod
    def vjp(cls, ctx, grad):
        x, y = ctx.saved_tensors
        grad = spread(grad, ctx.reduction, np.broadcast_shapes(x.shape, y.shape))
        dx, dy = cls.partials(ctx, x, y)
        need_x, need_y = ctx.needs_input_grad
        return (grad * dx if need_x else None), (grad * dy if need_y and dy is not None else None)

    @classmethod
    def jvp(cls, ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        dx, dy = cls.partials(ctx, x, y)
        return reduced(dx * x_t if dy is None else dx * x_t + dy * y_t, ctx.reduction)


# ---- PyTorch's _Reduction: torch.nn.functional passes a reduction to torch's ops as an enum --------------------
REDUCTIONS = ("none", "mean", "sum")  # the enum's values, in order


def get_enum(reduction):
    """The enum of a reduction's name (torch.nn._reduction.get_enum)."""
    if reduction == "elementwise_mean":
        warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.")
        reduction = "mean"
    if reduction not in REDUCTIONS:  # NOTE: a comparison, as PyTorch's: None and 1 fail it too
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS.index(reduction)


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction the deprecated size_average/reduce flags mean, with PyTorch's warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.")
    return reduction


def legacy_get_enum(size_average, reduce, emit_warning=True):
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))


def reduction_enum(size_average, reduce, reduction):
    """What most torch.nn.functional losses pass: the legacy flags' enum if either is given, else reduction's."""
    if size_average is not None or reduce is not None:
        return legacy_get_enum(size_average, reduce)
    return get_enum(reduction)


def reduction_name(reduction):
    """The name torch's ops compute by, for the enum they are given."""
    if reduction not in (0, 1, 2):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


def scalar_minus(value, tensor):
    """``value - tensor`` as PyTorch's C++ losses compute it: a tensor like ``tensor`` filled with value (in its
    dtype, so an integer tensor truncates value and a bool tensor refuses), minus ``tensor``."""
    from ndgrad._creation import full_like  # creation imports the Tensor, which imports the ops

    return full_like(tensor, value) - tensor


def warn_sizes(input, target):
    """torch.nn.functional's warning where the target broadcasts to the input (a likely mistake)."""
    if target.size() != input.size():
        warn(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). This will "
            "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
        )
