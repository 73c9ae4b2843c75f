"""The connectionist temporal classification loss (F.ctc_loss): the forward (alpha) and backward (beta) recursions
in log space over the blank-extended targets, vectorised over the batch and the label positions; time is a loop."""

import math

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad.ops._loss_base import constant, get_enum, reduction_name
from ndgrad.ops._op import UNARY, Op

__all__ = ["ctc_loss"]  # torch's, of the reduction as an enum; torch.nn.functional's takes its name
FUNCTIONAL = ["ctc_loss"]


# ---- the recursions on raw arrays: (T, N, C) log-probabilities, (N, L) extended labels, L = 2 S + 1 ---------------
def _extended(xp, targets, blank):
    """blank, l1, blank, l2, ..., blank for each (padded) target row."""
    extended = xp.full((targets.shape[0], 2 * targets.shape[1] + 1), blank, dtype=np.int64)
    extended[:, 1::2] = targets
    return extended


def _log_add(xp, *terms):
    """log(sum(exp(term))) elementwise; -inf where every term is -inf."""
    largest = terms[0]
    for term in terms[1:]:
        largest = xp.maximum(largest, term)
    finite = xp.where(xp.isneginf(largest), 0, largest)
    return xp.log(sum(xp.exp(term - finite) for term in terms)) + finite


def _shift(xp, states, by):
    """States moved ``by`` label positions to the right (to the left if negative), -inf where nothing moves in."""
    moved = xp.full_like(states, -xp.inf)
    if by > 0:
        moved[:, by:] = states[:, :-by]
    else:
        moved[:, :by] = states[:, -by:]
    return moved


class _Lattice:
    """The alignment lattice of one batch: which label positions exist and which may be skipped into."""

    def __init__(self, xp, log_probs, targets, input_lengths, target_lengths, blank):
        self.xp, self.input_lengths = xp, xp.asarray(input_lengths)
        self.labels = _extended(xp, xp.asarray(targets), blank)
        positions = xp.arange(self.labels.shape[1])
        self.valid = positions < 2 * xp.asarray(target_lengths)[:, None] + 1
        before = xp.concatenate([self.labels[:, :2], self.labels[:, :-2]], axis=1)
        # s - 2 -> s skips the blank between two different labels (odd positions hold labels, even ones blanks)
        self.skip = (positions % 2 == 1) & (self.labels != before)
        self.ends = self.valid & (positions >= 2 * xp.asarray(target_lengths)[:, None] - 1)
        index = xp.broadcast_to(self.labels[None], (log_probs.shape[0],) + self.labels.shape)
        self.emissions = xp.where(self.valid, xp.take_along_axis(log_probs, index, axis=2), -xp.inf)

    def alphas(self):
        """log P(prefix ending at label position s at time t), -inf past each input's length."""
        xp, emissions = self.xp, self.emissions
        alpha = xp.full_like(emissions, -xp.inf)
        first = xp.where(xp.arange(emissions.shape[2]) < 2, emissions[0], -xp.inf)
        alpha[0] = xp.where((self.input_lengths > 0)[:, None], first, -xp.inf)
        for t in range(1, len(emissions)):
            previous = alpha[t - 1]
            skipped = xp.where(self.skip, _shift(xp, previous, 2), -xp.inf)
            step = _log_add(xp, previous, _shift(xp, previous, 1), skipped) + emissions[t]
            alpha[t] = xp.where((t < self.input_lengths)[:, None], step, -xp.inf)
        return alpha

    def betas(self):
        """log P(suffix from label position s at time t), emission at t included; the alphas' mirror image."""
        xp, emissions = self.xp, self.emissions
        beta = xp.full_like(emissions, -xp.inf)
        skip_back = xp.concatenate([self.skip[:, 2:], xp.zeros((len(self.skip), 2), dtype=bool)], axis=1)
        following = beta[0]
        for t in range(len(emissions) - 1, -1, -1):
            skipped = xp.where(skip_back, _shift(xp, following, -2), -xp.inf)
            step = _log_add(xp, following, _shift(xp, following, -1), skipped) + emissions[t]
            last = (t == self.input_lengths - 1)[:, None]
            beta[t] = following = xp.where(last, xp.where(self.ends, emissions[t], -xp.inf), step)
        return beta

    def negative_log_likelihood(self, alpha):
        """-log P(target): the log-sum of the (one or two) end states at each input's last step."""
        xp = self.xp
        last = alpha[xp.maximum(self.input_lengths - 1, 0), xp.arange(alpha.shape[1])]
        ends = xp.where(self.ends, last, -xp.inf)
        largest = ends.max(axis=1)
        finite = xp.where(xp.isneginf(largest), 0, largest)
        total = xp.log(xp.sum(xp.exp(ends - finite[:, None]), axis=1)) + finite
        empty = xp.where(self.valid.sum(axis=1) == 1, 0.0, xp.inf)  # no input steps: only an empty target fits
        return xp.where(self.input_lengths > 0, -total, empty).astype(alpha.dtype)


def _gradient(xp, log_probs, nll, alpha, params):
    """d nll / d log_probs as PyTorch's ctc backward computes it: exp(log_probs) minus each class's posterior
    occupancy. NOTE: that is the derivative through a log_softmax (where the exp term cancels), not with respect to
    unnormalised log-probabilities; PyTorch chose it, so gradients match its."""
    lattice = _Lattice(xp, log_probs, params["targets"], params["input_lengths"], params["target_lengths"],
                       params["blank"])
    paths = alpha + lattice.betas()
    occupancy = xp.where(xp.isneginf(paths), 0, xp.exp(paths + nll[None, :, None] - lattice.emissions))
    one_hot = lattice.labels[:, :, None] == xp.arange(log_probs.shape[2])
    gradient = xp.exp(log_probs) - xp.einsum("tns,nsc->tnc", occupancy, one_hot.astype(log_probs.dtype))
    impossible = xp.isposinf(nll)
    gradient = xp.where(impossible[None, :, None], xp.nan, gradient)  # as PyTorch: no alignment, no gradient
    running = xp.arange(len(log_probs))[:, None] < lattice.input_lengths
    if params["zero_infinity"]:
        running = running & ~impossible
    return xp.where(running[:, :, None], gradient, 0).astype(log_probs.dtype)


class CtcLoss(Op):
    """torch._ctc_loss: each sample's negative log likelihood, and the alphas its backward reuses."""

    name, family = "ctc_loss", UNARY
    outputs = ("result", "log_alpha")
    saves = ("x", "result", "log_alpha")

    @staticmethod
    def forward(xp, x, targets, input_lengths, target_lengths, blank, zero_infinity):
        lattice = _Lattice(xp, x, targets, input_lengths, target_lengths, blank)
        alpha = lattice.alphas()
        return lattice.negative_log_likelihood(alpha), alpha

    formula = "grad_log_probs = exp(log_probs) - exp(log_alpha + log_beta - log_probs + nll) per label, times grad"
    @staticmethod
    def vjp(ctx, grad, grad_alpha):
        x, nll, alpha = ctx.saved_tensors
        return (_CtcLossBackward.apply(grad, x, nll, alpha, params=_params(ctx)),)

    @staticmethod
    def jvp(ctx, x_t):
        from ndgrad._device import array_namespace

        x, nll, alpha = ctx.saved_tensors
        gradient = _gradient(array_namespace(x.device), x._data, nll._data, alpha._data, _params(ctx))
        return (x_t * constant(gradient)).sum((0, 2)), None  # the transpose of the vjp, as the tests check


def _params(ctx):
    names = ("targets", "input_lengths", "target_lengths", "blank", "zero_infinity")
    return {name: getattr(ctx, name) for name in names}


class _CtcLossBackward(Op):
    """The ctc gradient, grad * d nll / d log_probs. PyTorch defines no derivative of it, and neither do we."""

    node_name = "NotImplemented"

    @staticmethod
    def forward(xp, grad, x, nll, alpha, params):
        return grad[None, :, None] * _gradient(xp, x, nll, alpha, params)

    @staticmethod
    def vjp(ctx, grad):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


# ---- the function users call --------------------------------------------------------------------------------
def _where(message):
    return RuntimeError(f"{message} (while checking arguments for ctc_loss_allocate_outputs)")


# NOTE: lengths and targets are read and checked on the host, as torch reads the lengths (and CtcLoss moves them to
# the device of the log-probabilities): the shapes of the lattice depend on them.
def _lengths(lengths, name):
    if hasattr(lengths, "_data"):
        if lengths.dtype.is_floating_point:
            raise RuntimeError(f"{name} must be integral")
        return lengths.numpy(force=True).reshape(-1).astype(np.int64)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _padded_targets(targets, target_lengths, batch):
    """Targets as (N, max length) rows, from padded rows or from one concatenated sequence."""
    values = targets.numpy(force=True).astype(np.int64)
    if (target_lengths < 0).any():
        raise _where(f"Expected target_lengths to have value at least 0, but got value "
                     f"{int(target_lengths[target_lengths < 0][0])}")
    longest = int(target_lengths.max(initial=0))
    if targets.ndim == 1:
        if values.shape[0] != target_lengths.sum():
            raise _where(f"Expected tensor to have size {int(target_lengths.sum())} at dimension 0, but got size "
                         f"{values.shape[0]} for argument #2 'targets'")
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
        index = np.minimum(starts[:, None] + np.arange(longest), max(len(values) - 1, 0))
        return np.where(np.arange(longest) < target_lengths[:, None], values[index] if len(values) else 0, 0)
    if values.shape[0] != batch:
        raise _where(f"Expected tensor to have size {batch} at dimension 0, but got size {values.shape[0]} for "
                     "argument #2 'targets'")
    if longest > values.shape[1]:
        raise _where(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                     f"{values.shape[1]} for argument #2 'targets'")
    return np.where(np.arange(longest) < target_lengths[:, None], values[:, :longest], 0)


# NOTE: torch's parser reads the int default "at::Reduction::Mean" as 0 (see classification_losses).
@parses("ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, int blank=0, "
        "int reduction=at::Reduction::Mean, bool zero_infinity=False)",
        "ctc_loss(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank=0, "
        "int reduction=at::Reduction::Mean, bool zero_infinity=False)")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    """The CTC loss of (T, N, C) or (T, C) log-probabilities (see torch.ctc_loss)."""
    from ndgrad._creation import tensor
    from ndgrad.ops.comparison import where

    reduction = reduction_name(reduction)
    batched = log_probs.ndim == 3
    x = log_probs if batched else log_probs.unsqueeze(1)
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{x.dtype.title}'")
    input_lengths, target_lengths = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
    if not 0 <= blank < x.shape[-1]:
        raise RuntimeError("blank must be in label range")
    if x.ndim != 3:
        raise _where(f"Expected 3-dimensional tensor, but got {x.ndim}-dimensional tensor for argument #1 'log_probs'")
    steps, batch, classes = x.shape
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if targets.ndim not in (1, 2):
        raise _where(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor for argument #2 "
                     "'targets'")
    padded = _padded_targets(targets, target_lengths, batch)
    for bad, condition in (("most", input_lengths > steps), ("least", input_lengths < 0)):
        if condition.any():
            raise _where(f"Expected input_lengths to have value at {bad} {steps if bad == 'most' else 0}, but got "
                         f"value {int(input_lengths[condition][0])}")
    if padded.size and (padded.min() < 0 or padded.max() >= classes):
        raise RuntimeError(f"ctc_loss: target values must be in the label range [0, {classes})")
    loss, _ = CtcLoss.apply(x, targets=padded, input_lengths=input_lengths, target_lengths=target_lengths,
                            blank=blank, zero_infinity=zero_infinity)
    if zero_infinity:
        loss = where(loss == math.inf, 0.0, loss)
    if reduction == "mean":
        return (loss / tensor(target_lengths, dtype=loss.dtype, device=loss.device).clamp_min(1)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss if batched else loss.squeeze(0)


def functional_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
                        zero_infinity=False):
    """The CTC loss (see torch.nn.functional.ctc_loss)."""
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, get_enum(reduction), zero_infinity)
