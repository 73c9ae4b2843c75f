"""Normalisation ops: layer_norm, rms_norm, batch_norm, group_norm, instance_norm, normalize, local_response_norm."""

import math

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._device import namespace_of
from ndgrad._dtype import float16, float32
from ndgrad._fpstate import mean_array
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.ops._checks import constant_like, require_kind
from ndgrad.ops._op import REDUCTION, Op

__all__ = ["layer_norm", "rms_norm", "batch_norm", "group_norm", "instance_norm"]
FUNCTIONAL = [
    "layer_norm", "rms_norm", "batch_norm", "group_norm", "instance_norm", "normalize", "local_response_norm",
]


# Note [normalisation rules]: every op here is y = xhat * w + b with xhat = (x - mean) * rstd over some axes. The
# rules recompute xhat from the saved x with ndgrad ops, so each rule is differentiable again (double backward).
def _stats(xp, x, axes, eps):
    mean = mean_array(xp, x, axis=axes, keepdims=True)
    centred = x - mean
    rstd = 1.0 / xp.sqrt(mean_array(xp, centred * centred, axis=axes, keepdims=True) + eps)
    return centred * rstd


def _xhat(x, axes, eps):
    centred = x - x.mean(axes, keepdim=True)
    return centred, (centred * centred).mean(axes, keepdim=True).add(eps) ** -0.5


def _xhat_backward(g, xhat, rstd, axes):
    """d xhat^T g: rstd * (g - mean(g) - xhat * mean(g * xhat)) over ``axes``."""
    return rstd * (g - g.mean(axes, keepdim=True) - xhat * (g * xhat).mean(axes, keepdim=True))


def _affine(xp, xhat, weight, bias, shape):
    if weight is not None:
        xhat = xhat * weight.reshape(shape)
    if bias is not None:
        xhat = xhat + bias.reshape(shape)
    return xhat


class NativeLayerNorm(Op):
    """F.layer_norm: normalised over the trailing ``normalized_shape`` dims, then scaled and shifted."""

    name, family = "layer_norm", REDUCTION
    saves = ("x", "weight")

    @staticmethod
    def forward(xp, x, weight, bias, axes, eps):
        return _affine(xp, _stats(xp, x, axes, eps), weight, bias, tuple(x.shape[a] for a in axes))

    formula = "grad_input = rstd * (g - mean(g) - xhat * mean(g xhat)), g = grad * weight; grad_weight = grad * xhat"
    @staticmethod
    def vjp(ctx, grad):
        x, weight = ctx.saved_tensors
        centred, rstd = _xhat(x, ctx.axes, ctx.eps)
        xhat = centred * rstd
        need_x, need_w, need_b = ctx.needs_input_grad
        g = grad if weight is None else grad * weight
        return (_xhat_backward(g, xhat, rstd, ctx.axes) if need_x else None,
                grad * xhat if need_w else None, grad if need_b else None)  # the engine sums over leading dims

    @staticmethod
    def jvp(ctx, x_t, weight_t, bias_t):
        x, weight = ctx.saved_tensors
        centred, rstd = _xhat(x, ctx.axes, ctx.eps)
        xhat = centred * rstd
        xhat_t = _xhat_backward(x_t, xhat, rstd, ctx.axes)  # the map is self-adjoint
        out = xhat_t if weight is None else xhat_t * weight + xhat * weight_t
        return out if bias_t is None else out + bias_t


def _channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _other_dims(x):
    return tuple(d for d in range(x.ndim) if d != 1)


class NativeBatchNorm(Op):
    """F.batch_norm: per channel (dim 1), batch statistics in training, the running ones (given as arrays) else."""

    name, family = "batch_norm", REDUCTION
    saves = ("x", "weight")

    @staticmethod
    def forward(xp, x, weight, bias, running_mean, running_var, training, eps):
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        if training:
            xhat = _stats(xp, x, tuple(d for d in range(x.ndim) if d != 1), eps)
        else:
            rstd = 1.0 / xp.sqrt(running_var.reshape(shape) + eps)
            xhat = (x - running_mean.reshape(shape)) * rstd.astype(x.dtype)
        return _affine(xp, xhat.astype(x.dtype), weight, bias, shape)

    formula = "grad_input = rstd * (grad - mean(grad) - xhat * mean(grad xhat)) * weight; grad_bias = sum(grad)"
    @staticmethod
    def vjp(ctx, grad):
        x, weight = ctx.saved_tensors
        xhat, rstd, axes = _batch_xhat(ctx, x)
        need_x, need_w, need_b = ctx.needs_input_grad
        grad_x = None
        if need_x:  # NOTE: the channel's weight last, as PyTorch's: an infinite weight then meets no inf - inf
            grad_x = _xhat_backward(grad, xhat, rstd, axes) if ctx.training else grad * rstd
            grad_x = grad_x if weight is None else grad_x * weight.reshape(_channel_shape(x))
        return (grad_x, (grad * xhat).sum(axes) if need_w else None, grad.sum(axes) if need_b else None)

    @staticmethod
    def jvp(ctx, x_t, weight_t, bias_t):
        x, weight = ctx.saved_tensors
        xhat, rstd, axes = _batch_xhat(ctx, x)
        shape = _channel_shape(x)
        xhat_t = _xhat_backward(x_t, xhat, rstd, axes) if ctx.training else x_t * rstd
        out = xhat_t if weight is None else xhat_t * weight.reshape(shape) + xhat * weight_t.reshape(shape)
        return out if bias_t is None else out + bias_t.reshape(shape)


def _batch_xhat(ctx, x):
    axes = _other_dims(x)
    if ctx.training:
        centred, rstd = _xhat(x, axes, ctx.eps)
        return centred * rstd, rstd, axes
    shape = _channel_shape(x)
    mean = constant_like(ctx.running_mean.reshape(shape), x)
    rstd = constant_like(1.0 / namespace_of(ctx.running_var).sqrt(ctx.running_var.reshape(shape) + ctx.eps), x)
    return (x - mean) * rstd, rstd, axes


def _group_size(shape, num_groups):
    """The elements of one sample's group, spelled out: with no samples there is nothing to infer a -1 from."""
    return math.prod(shape[1:]) // num_groups


class NativeGroupNorm(Op):
    """F.group_norm: channels split into ``num_groups`` groups, each normalised over its channels and the rest."""

    name, family = "group_norm", REDUCTION
    saves = ("x", "weight")

    @staticmethod
    def forward(xp, x, weight, bias, num_groups, eps):
        groups = x.reshape(x.shape[0], num_groups, _group_size(x.shape, num_groups))
        xhat = _stats(xp, groups, (2,), eps).reshape(x.shape)
        return _affine(xp, xhat, weight, bias, (1, x.shape[1]) + (1,) * (x.ndim - 2))

    formula = "grad_input = rstd * (g - mean(g) - xhat * mean(g xhat)) per group, g = grad * weight"
    @staticmethod
    def vjp(ctx, grad):
        x, weight = ctx.saved_tensors
        groups, xhat, rstd = _group_xhat(ctx, x)
        need_x, need_w, need_b = ctx.needs_input_grad
        axes = _other_dims(x)
        g = grad if weight is None else grad * weight.reshape(_channel_shape(x))
        grad_x = None
        if need_x:
            grad_x = _xhat_backward(g.reshape(groups.shape), xhat, rstd, (2,)).reshape(x.shape)
        xhat = xhat.reshape(x.shape)
        return (grad_x, (grad * xhat).sum(axes) if need_w else None, grad.sum(axes) if need_b else None)

    @staticmethod
    def jvp(ctx, x_t, weight_t, bias_t):
        x, weight = ctx.saved_tensors
        groups, xhat, rstd = _group_xhat(ctx, x)
        shape = _channel_shape(x)
        xhat_t = _xhat_backward(x_t.reshape(groups.shape), xhat, rstd, (2,)).reshape(x.shape)
        xhat = xhat.reshape(x.shape)
        out = xhat_t if weight is None else xhat_t * weight.reshape(shape) + xhat * weight_t.reshape(shape)
        return out if bias_t is None else out + bias_t.reshape(shape)


def _group_xhat(ctx, x):
    groups = x.reshape(x.shape[0], ctx.num_groups, _group_size(x.shape, ctx.num_groups))
    centred, rstd = _xhat(groups, (2,), ctx.eps)
    return groups, centred * rstd, rstd


# ---- the functions users call: torch's ops ----------------------------------------------------------------------
def _mixed_dtype(x, weight, bias, stats=()):
    """PyTorch's CPU check, when the first of weight, bias and stats given has another dtype than x ("mixed dtype",
    allowed only for float32 parameters of a float16 x): True where that mixture is allowed."""
    first = next((t for t in (weight, bias, *stats) if t is not None), None)
    if first is None or first.dtype == x.dtype:
        return False
    if any(t is not None and t.dtype is not float32 for t in (weight, bias, *stats)):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if x.dtype is not float16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return True


def _affine_parameters(x, weight, bias, mixed, stats=()):
    """weight and bias as the op takes them: each of x's dtype (PyTorch's error otherwise), where float32 ones of a
    float16 x are cast to it (PyTorch computes those in float32: the parameters round, the gradients go back)."""
    if mixed:
        return tuple(None if t is None else t.to(x.dtype) for t in (weight, bias))
    for t in (weight, *stats, bias):
        if t is not None and t.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {x.dtype.title} but found {t.dtype.title}")
    return weight, bias


def _normalized_axes(function, input, normalized_shape, weight, bias=None):
    """The trailing axes ``normalized_shape`` names, checked as torch checks layer_norm's and rms_norm's."""
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    if function == "rms_norm" and input.ndim < k:
        raise ValueError(f"Input tensor must have at least {k} dimensions, but got {input.ndim}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(normalized_shape)}")
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != normalized_shape:
        star = "*, " if function == "layer_norm" else "*"
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[{star}{', '.join(map(str, normalized_shape))}], but got input of size"
                           f"{list(input.shape)}")
    return tuple(range(input.ndim - k, input.ndim))


@parses("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
        "float eps=1e-05, bool cudnn_enable=True)")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """Normalise over the trailing dims ``normalized_shape`` (see torch.layer_norm)."""
    mixed = _mixed_dtype(input, weight, bias)
    axes = _normalized_axes("layer_norm", input, normalized_shape, weight, bias)
    require_kind(input.dtype, "LayerNormKernelImpl", "f")
    weight, bias = _affine_parameters(input, weight, bias, mixed)
    return NativeLayerNorm.apply(input, weight, bias, axes=axes, eps=eps)


@parses("rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None)")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input / sqrt(mean(input^2) + eps) over the trailing dims ``normalized_shape``, times weight, in input's dtype;
    eps defaults to the dtype's machine epsilon (see torch.rms_norm). A composite, as in PyTorch."""
    axes = _normalized_axes("rms_norm", input, normalized_shape, weight)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{input.dtype.title}'")
    eps = float(np.finfo(input.dtype.numpy).eps) if eps is None else eps
    result = input * input.pow(2).mean(axes, keepdim=True).add(eps).rsqrt()
    return result if weight is None else (result * weight).to(input.dtype)


@parses("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
        "bool training, float momentum, float eps, bool cudnn_enabled)")
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """Normalise each channel (dim 1) over the batch and the other dims (see torch.batch_norm).

    In training the batch statistics are used, and the running ones (if given) move towards them in place by
    ``momentum``: a float, as torch's; nn.BatchNorm passes 1 / batches seen for a cumulative average."""
    if input.numel() == 0:  # PyTorch's early answer: a copy of input, still in the graph of weight and bias
        out = input.clone()
        out = out if weight is None else out * weight[0]
        return out if bias is None else out + bias[0]
    channels = input.shape[1] if input.ndim >= 2 else 0  # NOTE: PyTorch reads a size 0 past a 1-d input's end
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is None and not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    require_kind(input.dtype, "batch_norm", "f")
    stats = (running_mean, running_var)
    weight, bias = _affine_parameters(input, weight, bias, _mixed_dtype(input, weight, bias, stats), stats)
    if input.ndim < 2:  # the statistics are over the dims other than 1
        rank = max(input.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got 1)")
    if training and (running_mean is not None or running_var is not None):
        _update_running(input, running_mean, running_var, momentum)
    stats = {} if training else {"running_mean": running_mean._data.copy(), "running_var": running_var._data.copy()}
    return NativeBatchNorm.apply(input, weight, bias, running_mean=stats.get("running_mean"),
                                 running_var=stats.get("running_var"), training=training, eps=eps)


def _update_running(input, running_mean, running_var, momentum):
    """running = (1 - momentum) * running + momentum * batch statistic (the variance unbiased), in place."""
    with no_grad():
        data = input._data.astype(running_mean._data.dtype if running_mean is not None else input._data.dtype)
        axes = tuple(d for d in range(data.ndim) if d != 1)
        n = data.size // data.shape[1]
        unbiased = data.var(axis=axes) * n / (n - 1)
        for running, statistic in ((running_mean, data.mean(axis=axes)), (running_var, unbiased)):
            if running is not None:
                running._write(((1 - momentum) * running._data + momentum * statistic).astype(running._data.dtype))


def _has_channels(input):
    """PyTorch's error for reading the channel count (dim 1) of a tensor of fewer dims."""
    if input.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)" if input.ndim else
                         "Dimension specified as 0 but tensor has no dimensions")


@parses("group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
        "bool cudnn_enabled=True)")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """Normalise each of ``num_groups`` groups of channels (see torch.group_norm)."""
    _has_channels(input)
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    channels = input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    mixed = _mixed_dtype(input, weight, bias)
    require_kind(input.dtype, "GroupNormKernelImpl", "f")
    weight, bias = _affine_parameters(input, weight, bias, mixed)
    return NativeGroupNorm.apply(input, weight, bias, num_groups=num_groups, eps=eps)


@parses("instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
        "bool use_input_stats, float momentum, float eps, bool cudnn_enabled)")
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """batch_norm of each sample's channels on their own (see torch.instance_norm)."""
    _has_channels(input)
    n, c = input.shape[0], input.shape[1]
    folded = input.reshape(1, n * c, *input.shape[2:])
    repeat = (lambda t: None if t is None else t.repeat(n))
    mean, var = repeat(running_mean), repeat(running_var)
    if mean is not None:
        mean = mean.detach()
    if var is not None:
        var = var.detach()
    out = batch_norm(folded, repeat(weight), repeat(bias), mean, var, use_input_stats, momentum, eps, True)
    with no_grad():
        if running_mean is not None and use_input_stats:
            running_mean._write(mean._data.reshape(n, c).mean(axis=0).astype(running_mean._data.dtype))
        if running_var is not None and use_input_stats:
            running_var._write(var._data.reshape(n, c).mean(axis=0).astype(running_var._data.dtype))
    return out.view(input.shape)


# ---- torch.nn.functional's Python functions around them ---------------------------------------------------------
def functional_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.layer_norm: torch.layer_norm."""
    return layer_norm(input, normalized_shape, weight, bias, eps, True)


def functional_rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm: torch.rms_norm."""
    return rms_norm(input, normalized_shape, weight, eps)


def _verify_values(size, what):
    """torch.nn.functional's check before normalising with batch statistics (of the batch or of each sample)."""
    values = size[0] if what == "value per channel" else 1
    for extent in size[2:]:
        values *= extent
    if values == 1:
        raise ValueError(f"Expected more than 1 {what} when training, got input size {size}")


def functional_batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                          eps=1e-5):
    """torch.nn.functional.batch_norm: torch.batch_norm, refusing to train on one value per channel."""
    if training:
        _verify_values(input.size(), "value per channel")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def functional_instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                             use_input_stats=True, momentum=0.1, eps=1e-5):
    """torch.nn.functional.instance_norm: torch.instance_norm, refusing one value per channel of a sample."""
    if use_input_stats:
        _verify_values(input.size(), "spatial element")
    return instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, True)


def functional_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.group_norm: torch.group_norm, refusing groups of one value."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_values([input.size(0) * input.size(1) // num_groups, num_groups, *input.size()[2:]], "value per channel")
    return group_norm(input, num_groups, weight, bias, eps, True)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Each channel divided by (k + alpha * mean of squares over ``size`` neighbouring channels)^beta (see
    torch.nn.functional.local_response_norm); average pooling over the channels, as torch composes it."""
    from ndgrad.ops.pooling import avg_pool2d, avg_pool3d
    from ndgrad.ops.resampling import pad

    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    squares = input.mul(input)
    if dim == 3:
        squares = pad(squares.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        average = avg_pool2d(squares, (size, 1), stride=1).squeeze(1)
    else:
        shape = input.size()
        squares = pad(squares.view(shape[0], 1, shape[1], shape[2], -1), (0, 0, 0, 0, size // 2, (size - 1) // 2))
        average = avg_pool3d(squares, (size, 1, 1), stride=1).squeeze(1).view(shape)
    return input / average.mul(alpha).add(k).pow(beta)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input divided by its p-norm along ``dim``, at least eps (see torch.nn.functional.normalize)."""
    from ndgrad.ops.arithmetic import div

    if out is None:
        return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return div(input, input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input), out=out)


class NormalizationMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
