"""The rest of torch.nn.functional's activations: threshold and the shrinkages (hardshrink, softshrink), the leaky
relus whose negative slope is learned (prelu) or random (rrelu), and the gated linear unit (glu). One node each."""

import math

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._device import namespace_of
from ndgrad._dtype import float64
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops._checks import constant_like, kernel_scalars
from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.comparison import logical_and, where
from ndgrad.ops.joining import cat
from ndgrad.ops.shape import wrap_dim
from ndgrad.ops.transcendental import SigmoidBackward, sigmoid

__all__ = ["threshold", "threshold_", "hardshrink", "prelu", "rrelu", "rrelu_"]  # torch has these at top level
FUNCTIONAL = ["threshold", "threshold_", "hardshrink", "softshrink", "prelu", "rrelu", "rrelu_", "glu"]


class Threshold(Op):
    """torch.threshold: value where x <= threshold, else x (NaN stays NaN, as PyTorch's)."""

    name, family = "threshold", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, threshold, value):
        return xp.where(x <= threshold, value, x).astype(x.dtype)

    formula = "grad_self = where(self <= threshold, 0, grad)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (where(x <= ctx.threshold, 0.0, grad),)

    @staticmethod
    def jvp(ctx, x_t):
        return Threshold.vjp(ctx, x_t)[0]  # elementwise: the tangent goes through the gradient's formula


class ThresholdInPlace(Threshold):
    """torch.threshold_: the input is overwritten, so the rule reads the result (ThresholdBackward1)."""

    name = "threshold_"
    node_name = "ThresholdBackward1"
    saves = ("result",)


class Hardshrink(Op):
    """torch.hardshrink: 0 where -lambd <= x <= lambd, else x."""

    name, family = "hardshrink", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, lambd):
        return xp.where((x >= -lambd) & (x <= lambd), 0, x).astype(x.dtype)

    formula = "grad_self = where(-lambd <= self <= lambd, 0, grad)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (where(logical_and(x >= -ctx.lambd, x <= ctx.lambd), 0.0, grad),)

    @classmethod
    def jvp(cls, ctx, x_t):
        return cls.vjp(ctx, x_t)[0]


class Softshrink(Hardshrink):
    """F.softshrink: x - lambd above lambd, x + lambd below -lambd, 0 between; its gradient is hardshrink's."""

    name = "softshrink"

    @staticmethod
    def forward(xp, x, lambd):
        return xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, x * 0)).astype(x.dtype)


class PreluKernel(Op):
    """torch.prelu: x where x > 0, else weight * x, the weight broadcast along the channels (dim 1)."""

    name, family = "prelu", UNARY
    saves = ("x", "weight")

    @staticmethod
    def forward(xp, x, weight):
        return xp.where(x > 0, x, weight * x)

    formula = "grad_self = where(self > 0, grad, weight * grad); grad_weight = where(self > 0, 0, self * grad)"
    @staticmethod
    def vjp(ctx, grad):
        x, weight = ctx.saved_tensors
        need_x, need_weight = ctx.needs_input_grad
        grad_x, grad_weight = PreluKernelBackward.apply(grad, x, weight)  # the engine sums to weight's shape
        return (grad_x if need_x else None), (grad_weight if need_weight else None)

    @staticmethod
    def jvp(ctx, x_t, weight_t):
        x, weight = ctx.saved_tensors
        return where(x >= 0, x_t, weight * x_t + weight_t * x)  # NOTE: at 0 the positive side, as torch's jvp


class PreluKernelBackward(Op):
    """prelu's two gradients in one step, as PyTorch's _prelu_kernel_backward, with PyTorch's derivatives: those
    take x = 0 as the positive side (the gradients themselves take it as the negative one)."""

    outputs = ("grad_self", "grad_weight")
    saves = ("grad", "x", "weight")

    @staticmethod
    def forward(xp, grad, x, weight):
        positive = x > 0
        return xp.where(positive, grad, weight * grad), xp.where(positive, 0, x * grad).astype(grad.dtype)

    formula = ("grad_grad_output = where(self >= 0, gg_self, gg_self * weight + gg_weight * self); "
               "grad_self = where(self >= 0, 0, grad_output * gg_weight); "
               "grad_weight = where(self >= 0, 0, grad_output * gg_self)")
    @staticmethod
    def vjp(ctx, grad_grad_x, grad_grad_weight):
        grad, x, weight = ctx.saved_tensors
        not_negative = x >= 0
        return (where(not_negative, grad_grad_x, grad_grad_x * weight + grad_grad_weight * x),
                where(not_negative, 0.0, grad * grad_grad_weight), where(not_negative, 0.0, grad * grad_grad_x))

    @staticmethod
    def jvp(ctx, grad_t, x_t, weight_t):
        grad, x, weight = ctx.saved_tensors
        positive = x > 0
        return (where(positive, grad_t, weight * grad_t + weight_t * grad),
                where(positive, 0.0, x_t * grad + x * grad_t))


class RreluWithNoise(Op):
    """torch.rrelu: x times ``noise``, the slope of each element: 1 where x > 0, else random in [lower, upper] in
    training, (lower + upper) / 2 otherwise. The slopes are constants, as PyTorch's saved noise."""

    name, family = "rrelu", UNARY

    @staticmethod
    def forward(xp, x, noise):
        return x * noise.astype(x.dtype)

    formula = "grad_self = grad * noise"
    @classmethod
    def vjp(cls, ctx, grad):
        return (grad * constant_like(ctx.noise, grad),)

    @classmethod
    def jvp(cls, ctx, x_t):
        return cls.vjp(ctx, x_t)[0]


class RreluWithNoiseInPlace(RreluWithNoise):
    """torch.rrelu_ (RreluWithNoiseBackward1)."""

    name = "rrelu_"
    node_name = "RreluWithNoiseBackward1"


class Glu(Op):
    """F.glu: a * sigmoid(b), a and b the two halves of the input along ``dim``."""

    name, family = "glu", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, dim):
        a, b = xp.split(x, 2, axis=dim)
        return a / (1 + xp.exp(-b))

    formula = "grad_self = cat(grad * sigmoid(b), grad * a * sigmoid'(b)), (a, b) = self.chunk(2, dim)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        gate = sigmoid(b)
        # NOTE: sigmoid's slope in one step (SigmoidBackward): differentiated again, one term, not inf - inf
        return (cat([grad * gate, SigmoidBackward.apply(grad * a, gate)], ctx.dim),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        (a, b), (a_t, b_t) = x.chunk(2, ctx.dim), x_t.chunk(2, ctx.dim)
        gate = sigmoid(b)
        return a_t * gate + a * gate * (1 - gate) * b_t


# ---- the functions users call: torch's ops ----------------------------------------------------------------------
def _floating(input, kernel, half=True):
    """PyTorch's kernel here computes floating-point tensors only (not float16 where ``half`` is False)."""
    if input._data.dtype.kind not in "fV" or (not half and input._data.dtype.itemsize < 4):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")


def _threshold(input, limit, value, inplace):
    if input.dtype.title == "Bool" or input.dtype.is_complex:
        raise NotImplementedError(f"\"threshold_cpu\" not implemented for '{input.dtype.title}'")
    limit, value = kernel_scalars(input, limit, value)
    op = ThresholdInPlace if inplace else Threshold
    return (op.apply_ if inplace else op.apply)(input, threshold=limit, value=value)


@parses("threshold(Tensor input, Scalar threshold, Scalar value, *, Tensor out=None)")
def threshold(input, threshold, value):
    """``value`` where input <= threshold, else input (see torch.threshold)."""
    return _threshold(input, threshold, value, inplace=False)


_out_of_place_threshold = threshold  # the name the functional form's parameter ``threshold`` hides


@parses("threshold_(Tensor input, Scalar threshold, Scalar value)")
def threshold_(input, threshold, value):
    """In-place threshold (see torch.nn.functional.threshold_)."""
    return _threshold(input, threshold, value, inplace=True)


@parses("hardshrink(Tensor input, Scalar lambd=0.5, *, Tensor out=None)")
def hardshrink(input, lambd=0.5):
    """0 where |input| <= lambd, else input (see torch.nn.functional.hardshrink)."""
    _floating(input, "hardshrink_cpu")
    (lambd,) = kernel_scalars(input, lambd, compute=input.dtype)
    return Hardshrink.apply(input, lambd=lambd)


@parses("softshrink(Tensor input, Scalar lambd=0.5, *, Tensor out=None)")
def softshrink(input, lambd=0.5):
    """input moved towards 0 by lambd, 0 within lambd of it (see torch.nn.functional.softshrink)."""
    (lambd,) = kernel_scalars(input, lambd, compute=float64)
    _floating(input, "softshrink_check")
    largest = np.finfo(input.dtype.numpy).max
    if not 0 <= lambd <= largest:
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype {input.dtype.title}, but found "
                           f"{lambd:g}")
    return Softshrink.apply(input, lambd=lambd)


@parses("prelu(Tensor input, Tensor weight)")
def prelu(input, weight):
    """leaky relu with a learned slope per channel (see torch.nn.functional.prelu)."""
    if AUTOCAST.active:
        input, weight = autocast_inputs("prelu", input, weight)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype.title} and {weight.dtype.title}")
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    _floating(input, "prelu_cpu")
    if input.ndim >= 2:
        weight = weight.reshape((1, weight.numel()) + (1,) * (input.ndim - 2))
    elif input.ndim == 0:
        weight = weight.reshape(())
    return PreluKernel.apply(input, weight)


def _rrelu_noise(input, lower, upper, training, inplace):
    """The slope of each element: 1 where it is positive, else random in [lower, upper] in training, and their mean
    otherwise (which PyTorch computes as leaky_relu, with leaky_relu's checks)."""
    from ndgrad._random import _RandomState

    lower, upper = kernel_scalars(input, lower, upper, compute=float64)
    for bound, value in (("lower", lower), ("upper", upper)):
        if not inplace and not math.isfinite(value):  # NOTE: PyTorch's in-place form does not check
            raise RuntimeError(f"rrelu: {bound} bound must be finite, got {value}")
    if not lower <= upper:  # nan fails too
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    data = input._data
    xp = namespace_of(data)
    if training:  # NOTE: drawn by ndgrad's generator on the host (manual_seed applies), then moved to the device
        _floating(input, "rrelu_with_noise_out_cpu", half=False)
        slopes = constant_like(_RandomState.generator.uniform(lower, upper, data.shape), input)._data
        return xp.where(data > 0, 1.0, slopes)
    _floating(input, "leaky_relu_cpu")
    (slope,) = kernel_scalars(input, (lower + upper) / 2)
    return xp.where(data > 0, 1.0, slope)


@parses("rrelu(Tensor input, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, "
        "Generator? generator=None)")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """leaky relu with a random slope in [lower, upper] per element in training, their mean otherwise (see
    torch.rrelu)."""
    return RreluWithNoise.apply(input, noise=_rrelu_noise(input, lower, upper, training, False))


@parses("rrelu_(Tensor input, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, "
        "Generator? generator=None)")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place rrelu (see torch.rrelu_)."""
    return RreluWithNoiseInPlace.apply_(input, noise=_rrelu_noise(input, lower, upper, training, True))


@parses("glu(Tensor input, int dim=-1, *, Tensor out=None)")
def glu(input, dim=-1):
    """The gated linear unit: first half times the sigmoid of the second, along ``dim`` (see torch._C._nn.glu)."""
    dim = wrap_dim(dim, input.ndim)
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {input.shape[dim]}")
    _floating(input, "glu_cpu")
    return Glu.apply(input, dim=dim)


# ---- torch.nn.functional's Python functions around them ---------------------------------------------------------
def functional_threshold(input, threshold, value, inplace=False):
    """torch.nn.functional.threshold: torch.threshold, or threshold_ where ``inplace``."""
    return (threshold_ if inplace else _out_of_place_threshold)(input, threshold, value)


functional_threshold.__name__ = functional_threshold.__qualname__ = "_threshold"  # torch's name for it


def functional_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """torch.nn.functional.rrelu: torch.rrelu, or rrelu_ where ``inplace``."""
    return (rrelu_ if inplace else rrelu)(input, lower, upper, training)


def functional_glu(input, dim=-1):
    """torch.nn.functional.glu: torch._C._nn.glu, which PyTorch refuses for a 0-d tensor first."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return glu(input, dim)
