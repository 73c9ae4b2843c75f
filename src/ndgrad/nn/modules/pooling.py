"""Pooling modules (see torch.nn.modules.pooling): each holds its window settings and calls the nn.functional op
of its rank. Arguments are stored as PyTorch stores them (AvgPool1d as 1-tuples, the others as given)."""

from ndgrad.nn import functional as F
from ndgrad.nn.modules.module import Module
from ndgrad.nn.modules.utils import _ntuple, _single

__all__ = [
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "AvgPool1d", "AvgPool2d",
    "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
]


class _MaxPoolNd(Module):
    _torch_subclasses_define = ("forward",)  # see Note [method names] in module.py
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return self.pool(input, self.kernel_size, self.stride, self.padding, self.dilation, ceil_mode=self.ceil_mode,
                         return_indices=self.return_indices)

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """Maximum over sliding windows of (N, C, L) inputs (see torch.nn.MaxPool1d)."""

    pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Maximum over sliding windows of (N, C, H, W) inputs (see torch.nn.MaxPool2d)."""

    pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Maximum over sliding windows of (N, C, D, H, W) inputs (see torch.nn.MaxPool3d)."""

    pool = staticmethod(F.max_pool3d)


class _MaxUnpoolNd(Module):
    """The inverse of max pooling: each value back at the position its index names, zeros elsewhere."""

    _torch_subclasses_define = ("__init__", "forward")  # see Note [method names] in module.py

    spatial_dims = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        to_tuple = _ntuple(self.spatial_dims)
        self.kernel_size = to_tuple(kernel_size)
        self.stride = to_tuple(stride if stride is not None else kernel_size)
        self.padding = to_tuple(padding)

    def forward(self, input, indices, output_size=None):
        return self.unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of MaxPool1d (see torch.nn.MaxUnpool1d)."""

    unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of MaxPool2d (see torch.nn.MaxUnpool2d)."""

    spatial_dims = 2
    unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of MaxPool3d (see torch.nn.MaxUnpool3d)."""

    spatial_dims = 3
    unpool = staticmethod(F.max_unpool3d)


class _AvgPoolNd(Module):
    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mean over sliding windows of (N, C, L) inputs (see torch.nn.AvgPool1d)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class _AvgPoolWithDivisor(_AvgPoolNd):
    """AvgPool2d and AvgPool3d: arguments kept as given, and an optional divisor in place of the window size."""

    _torch_subclasses_define = ("__init__", "forward")  # see Note [method names] in module.py

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode, self.count_include_pad = padding, ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return self.pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                         self.divisor_override)


class AvgPool2d(_AvgPoolWithDivisor):
    """Mean over sliding windows of (N, C, H, W) inputs (see torch.nn.AvgPool2d)."""

    pool = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolWithDivisor):
    """Mean over sliding windows of (N, C, D, H, W) inputs (see torch.nn.AvgPool3d)."""

    pool = staticmethod(F.avg_pool3d)


class _FractionalMaxPoolNd(Module):
    """Max pooling over pseudo-randomly placed windows that shrink the input to ``output_size`` or by
    ``output_ratio`` (one of them)."""

    _torch_subclasses_define = ("__init__", "forward")  # see Note [method names] in module.py

    spatial_dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        to_tuple = _ntuple(self.spatial_dims)
        self.kernel_size, self.return_indices = to_tuple(kernel_size), return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = to_tuple(output_size) if output_size is not None else None
        self.output_ratio = to_tuple(output_ratio) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < ratio < 1 for ratio in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return self.pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                         _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of (N, C, H, W) inputs (see torch.nn.FractionalMaxPool2d)."""

    pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of (N, C, D, H, W) inputs (see torch.nn.FractionalMaxPool3d)."""

    spatial_dims = 3
    pool = staticmethod(F.fractional_max_pool3d)

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        sizes = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,)
        if not all(k > 0 for k in sizes):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices, _random_samples)


class _LPPoolNd(Module):
    _torch_subclasses_define = ("forward",)  # see Note [method names] in module.py
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return self.pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average (p-norm) over sliding windows of (N, C, L) inputs (see torch.nn.LPPool1d)."""

    pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average (p-norm) over sliding windows of (N, C, H, W) inputs (see torch.nn.LPPool2d)."""

    pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average (p-norm) over sliding windows of (N, C, D, H, W) inputs (see torch.nn.LPPool3d)."""

    pool = staticmethod(F.lp_pool3d)


class _AdaptiveMaxPoolNd(Module):
    _torch_subclasses_define = ("forward",)  # see Note [method names] in module.py
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return self.pool(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Maximum over windows chosen to give ``output_size`` (see torch.nn.AdaptiveMaxPool1d)."""

    pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Maximum over windows chosen to give ``output_size`` (see torch.nn.AdaptiveMaxPool2d)."""

    pool = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Maximum over windows chosen to give ``output_size`` (see torch.nn.AdaptiveMaxPool3d)."""

    pool = staticmethod(F.adaptive_max_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _torch_subclasses_define = ("forward",)  # see Note [method names] in module.py
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return self.pool(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mean over windows chosen to give ``output_size`` (see torch.nn.AdaptiveAvgPool1d)."""

    pool = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Mean over windows chosen to give ``output_size`` (see torch.nn.AdaptiveAvgPool2d)."""

    pool = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Mean over windows chosen to give ``output_size`` (see torch.nn.AdaptiveAvgPool3d)."""

    pool = staticmethod(F.adaptive_avg_pool3d)
