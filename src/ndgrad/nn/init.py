"""Parameter initialisation (see torch.nn.init): each function fills a tensor in place, without recording a graph,
and returns it. The distributions and bounds are PyTorch's; the random numbers come from ndgrad's generator."""

import math

from ndgrad import _creation
from ndgrad._random import rand
from ndgrad._warnings import warn
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.linalg import qr
from ndgrad.ops import argsort, erfinv

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
    "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
    "kaiming_normal", "orthogonal", "sparse",
]

_LINEAR_FUNCTIONS = (
    "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid",
)


# ---- filling in place without a graph, through the Tensor methods torch.nn.init calls (and so their checks) -----
def _no_grad_uniform_(tensor, a, b, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


# ---- gains and fans ------------------------------------------------------------------------------------------
def calculate_gain(nonlinearity, param=None):
    """The recommended scale of weights before ``nonlinearity`` (see torch.nn.init.calculate_gain)."""
    if nonlinearity in _LINEAR_FUNCTIONS:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(inputs, outputs) one unit of a weight connects: dims 1 and 0 times the receptive field (dims 2+)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ---- the initialisers ----------------------------------------------------------------------------------------
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b)."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std^2) truncated to [a, b], by inverting the normal CDF on the kept interval. The tensor
    is first filled as torch's sampler first fills it (normal_ for a wide interval, uniform_ on it otherwise), so
    that the same arguments fail with the same errors."""
    if tensor.is_meta:
        return tensor

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be "
            "incorrect.",
        )
    with no_grad():
        low, high = cdf((a - mean) / std), cdf((b - mean) / std)
        if high - low > 0.3:
            lowest, highest = (tensor.new_tensor(bound, device="cpu").item() for bound in (a, b))
            sample = tensor.normal_(mean, std, generator=generator)
            (sample < lowest) | (sample > highest)  # noqa: B015 - torch's rejection test (ordered dtypes only)
        else:
            tensor.uniform_(a, b, generator=generator)
        uniform = rand(tensor.shape, device=tensor.device).double() * (2 * high - 2 * low) + (2 * low - 1)
        return tensor.copy_((erfinv(uniform) * (std * math.sqrt(2.0)) + mean).clamp(a, b))


def constant_(tensor, val):
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal, zeros elsewhere)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_creation.eye(*tensor.shape))
    return tensor


def dirac_(tensor, groups=1):
    """Fill a 3/4/5-D convolution weight so that the convolution is the identity, per group."""
    dimensions = tensor.ndimension()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    centre = tuple(size // 2 for size in sizes[2:])
    with no_grad():
        tensor.zero_()
        for group in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                tensor[(group * out_per_group + d, d, *centre)] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Fill with U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * (gain * math.sqrt(2.0 / float(fan_in + fan_out)))
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Fill with N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return _no_grad_normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """The std He et al. prescribe, or None (with PyTorch's warning) for a tensor without elements."""
    if 0 in tensor.shape:
        warn("Initializing zero-element tensors is a no-op")
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Fill with U(-bound, bound), bound = gain * sqrt(3 / fan) (He et al.)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else _no_grad_uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std,
                                                        generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Fill with N(0, std^2), std = gain / sqrt(fan) (He et al.)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else _no_grad_normal_(tensor, 0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix, the trailing dims flattened (Saxe et al.)."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    with no_grad():
        q, r = qr(flattened.t() if rows < cols else flattened)
        q = q * r.diagonal().sign()  # NOTE: fixes QR's sign ambiguity so the result is uniformly distributed
        tensor.copy_((q.t() if rows < cols else q).reshape(tensor.shape))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D tensor with N(0, std^2), then zero ceil(sparsity * rows) random entries of each column."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros_per_column = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        ranks = argsort(argsort(rand(rows, cols, device=tensor.device), dim=0), dim=0)  # a row permutation per column
        tensor.masked_fill_(ranks < zeros_per_column, 0)
    return tensor


def _deprecated(method):
    """The old name without the trailing underscore: warns, then calls ``method``."""
    old_name = method.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{method.__name__}`.",
            FutureWarning,
        )
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use nn.init.{method.__name__}."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
