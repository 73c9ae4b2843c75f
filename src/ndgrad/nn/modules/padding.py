"""Padding modules (see torch.nn.modules.padding): F.pad with a fixed mode and a padding for the last 1, 2 or 3
dims, given as one number or as (left, right[, top, bottom[, front, back]])."""

from ndgrad.nn import functional as F
from ndgrad.nn.modules.module import Module
from ndgrad.nn.modules.utils import _ntuple

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]


class _PadNd(Module):
    """``sides``: how many padding numbers (2 per padded dim); ``mode``: F.pad's mode."""

    _torch_subclasses_define = ("forward",)  # see Note [method names] in module.py

    sides = 2
    mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(self.sides)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py
    mode = "circular"

    def forward(self, input):
        unbatched = self.sides // 2 + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise ValueError(f"expected {unbatched}D or {unbatched + 1}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Wrap-around padding of the last dim (see torch.nn.CircularPad1d)."""


class CircularPad2d(_CircularPadNd):
    """Wrap-around padding of the last 2 dims (see torch.nn.CircularPad2d)."""

    sides = 4


class CircularPad3d(_CircularPadNd):
    """Wrap-around padding of the last 3 dims (see torch.nn.CircularPad3d)."""

    sides = 6


class _ReflectionPadNd(_PadNd):
    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py
    mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Mirror padding of the last dim (see torch.nn.ReflectionPad1d)."""


class ReflectionPad2d(_ReflectionPadNd):
    """Mirror padding of the last 2 dims (see torch.nn.ReflectionPad2d)."""

    sides = 4


class ReflectionPad3d(_ReflectionPadNd):
    """Mirror padding of the last 3 dims (see torch.nn.ReflectionPad3d)."""

    sides = 6


class _ReplicationPadNd(_PadNd):
    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py
    mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Edge-value padding of the last dim (see torch.nn.ReplicationPad1d)."""


class ReplicationPad2d(_ReplicationPadNd):
    """Edge-value padding of the last 2 dims (see torch.nn.ReplicationPad2d)."""

    sides = 4


class ReplicationPad3d(_ReplicationPadNd):
    """Edge-value padding of the last 3 dims (see torch.nn.ReplicationPad3d)."""

    sides = 6


class _ConstantPadNd(_PadNd):
    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value`` (see torch.nn.ConstantPad1d)."""


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value`` (see torch.nn.ConstantPad2d)."""

    sides = 4


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value`` (see torch.nn.ConstantPad3d)."""

    sides = 6


class _ZeroPad:
    """Mixin: constant padding with zeros, printed as the padding alone."""

    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """Zero padding of the last dim (see torch.nn.ZeroPad1d)."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """Zero padding of the last 2 dims (see torch.nn.ZeroPad2d)."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    """Zero padding of the last 3 dims (see torch.nn.ZeroPad3d)."""
