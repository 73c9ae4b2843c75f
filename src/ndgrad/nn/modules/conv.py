"""Convolution modules (see torch.nn.modules.conv): Conv1d/2d/3d and ConvTranspose1d/2d/3d. One base holds the
arguments, checks and initialisation; each class names its spatial rank and its nn.functional op."""

from ndgrad._creation import empty
from ndgrad._tensor import Size
from ndgrad.nn import functional as F
from ndgrad.nn.modules.linear import reset_weight_and_bias
from ndgrad.nn.modules.module import Module
from ndgrad.nn.modules.utils import _ntuple, _reverse_repeat_tuple
from ndgrad.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """Shared by all convolutions. Subclasses set ``spatial_dims`` (1, 2, 3) and ``transposed``."""

    spatial_dims = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        to_tuple = _ntuple(self.spatial_dims)
        kernel_size, stride, dilation = to_tuple(kernel_size), to_tuple(stride), to_tuple(dilation)
        padding = padding if isinstance(padding, str) else to_tuple(padding)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.output_padding = to_tuple(output_padding)
        self.groups, self.padding_mode = groups, padding_mode
        self._reversed_padding_repeated_twice = _padding_for_f_pad(padding, kernel_size, dilation)
        if self.transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        reset_weight_and_bias(self.weight, self.bias)

    def extra_repr(self):
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


def _padding_for_f_pad(padding, kernel_size, dilation):
    """The padding as F.pad takes it (last dim first, both sides), for padding modes other than zeros."""
    if not isinstance(padding, str):
        return _reverse_repeat_tuple(padding, 2)
    result = [0, 0] * len(kernel_size)
    if padding == "same":
        for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
            total = d * (k - 1)
            result[2 * i], result[2 * i + 1] = total // 2, total - total // 2
    return result


class _Conv(_ConvNd):
    """Convolution (cross-correlation); padding modes other than zeros pad with F.pad first."""

    _torch_subclasses_define = ("__init__", "forward")  # see Note [method names] in module.py

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self.conv(padded, weight, bias, self.stride, (0,) * self.spatial_dims, self.dilation, self.groups)
        return self.conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over (N, C, L) inputs (see torch.nn.Conv1d)."""

    spatial_dims = 1
    conv = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution over (N, C, H, W) inputs (see torch.nn.Conv2d)."""

    spatial_dims = 2
    conv = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-D convolution over (N, C, D, H, W) inputs (see torch.nn.Conv3d)."""

    spatial_dims = 3
    conv = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolution; ``output_size`` in forward picks the output padding that reaches it."""

    _torch_subclasses_define = ("__init__", "forward")  # see Note [method names] in module.py

    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype, output_padding)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return self.output_padding
        num_non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        if len(output_size) == num_non_spatial + num_spatial_dims:
            output_size = output_size[num_non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                f"{num_spatial_dims} or {num_non_spatial + num_spatial_dims} elements (got {len(output_size)})"
            )
        dilation = dilation if dilation is not None else (1,) * num_spatial_dims
        min_sizes = [
            (input.size(d + num_non_spatial) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1
            for d in range(num_spatial_dims)
        ]
        max_sizes = [size + stride[d] - 1 for d, size in enumerate(min_sizes)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if not low <= size <= high:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from {min_sizes} to "
                    f"{max_sizes} (for an input of {Size(input.shape[2:])})"
                )
        return [size - low for size, low in zip(output_size, min_sizes)]

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              self.spatial_dims, self.dilation)
        return self.conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                         self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution (see torch.nn.ConvTranspose1d)."""

    spatial_dims = 1
    conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution (see torch.nn.ConvTranspose2d)."""

    spatial_dims = 2
    conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution (see torch.nn.ConvTranspose3d)."""

    spatial_dims = 3
    conv = staticmethod(F.conv_transpose3d)

