"""LayerNorm, GroupNorm, RMSNorm and LocalResponseNorm (see torch.nn.modules.normalization): statistics over
each sample's features, with optional elementwise / per-channel affine parameters initialised to ones and zeros."""

import numbers

from ndgrad._creation import empty
from ndgrad.nn import functional as F
from ndgrad.nn import init
from ndgrad.nn.modules.module import Module
from ndgrad.nn.parameter import Parameter

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"]


class _AffineNorm(Module):
    """Registers ``weight`` and ``bias`` of ``shape`` (or None) and initialises them to ones and zeros."""

    def _register_affine(self, affine, bias, shape, device, dtype):
        if affine:
            self.weight = Parameter(empty(shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self._parameters.get("bias") is not None:  # RMSNorm has no bias at all
            init.zeros_(self.bias)


class LayerNorm(_AffineNorm):
    """Normalise over the last dims given by ``normalized_shape`` (see torch.nn.LayerNorm)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self._register_affine(elementwise_affine, bias, self.normalized_shape, device, dtype)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )


class GroupNorm(_AffineNorm):
    """Normalise each of ``num_groups`` groups of channels per sample (see torch.nn.GroupNorm)."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self._register_affine(affine, bias, num_channels, device, dtype)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


def _as_shape(normalized_shape):
    return (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)


class RMSNorm(_AffineNorm):
    """Divide by the root mean square over the last dims given by ``normalized_shape`` (see torch.nn.RMSNorm)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Normalise each channel by the activity of its ``size`` neighbours (see torch.nn.LocalResponseNorm)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
