"""Resampling: padding, interpolation (nearest, linear to trilinear, bicubic, area) and the shuffles (pixel, channel).

Padding and interpolation are linear and separable: one matrix per spatial dim (see _separable.Separable), a
NumPy table of the sizes alone, built on the host whatever the device of the data.
"""

import math
from functools import partial

import numpy as np

from ndgrad._argument_parser import alias, parses
from ndgrad._warnings import warn
from ndgrad.ops._checks import check_storage_size, int_list, kernel_scalars
from ndgrad.ops._op import SHAPE, Op
from ndgrad.ops._separable import Separable, SparseMatrix, check, selection_matrix

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]
FUNCTIONAL = [
    "pad", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "interpolate", "upsample",
    "upsample_nearest", "upsample_bilinear",
]


# ---- padding --------------------------------------------------------------------------------------------------
class ConstantPadNd(Op):
    """torch.nn.functional.pad with mode="constant"; negative pads crop."""

    name, family = "pad", SHAPE

    @staticmethod
    def forward(xp, x, pad, value):
        pairs = list(zip(pad[::2], pad[1::2]))[::-1]  # (before, after) for the last len(pad) // 2 dims, in order
        lead = x.ndim - len(pairs)
        x = x[(slice(None),) * lead + tuple(slice(-min(b, 0), x.shape[lead + i] + min(a, 0))  # crops may leave 0
                                            for i, (b, a) in enumerate(pairs))]
        widths = [(0, 0)] * lead + [(max(b, 0), max(a, 0)) for b, a in pairs]
        return xp.pad(x, widths, constant_values=value)

    formula = "grad_self = grad with the padding cut off"
    @staticmethod
    def vjp(ctx, grad):
        return (ConstantPadNd.apply(grad, pad=tuple(-p for p in ctx.pad), value=0),)

    @staticmethod
    def jvp(ctx, x_t):
        return ConstantPadNd.apply(x_t, pad=ctx.pad, value=0)


class ReflectionPad1D(Separable):
    """torch.nn.functional.pad with mode="reflect" over the last dim."""

    name = "pad"


class ReflectionPad2D(ReflectionPad1D):
    name = "pad"


class ReflectionPad3D(ReflectionPad1D):
    name = "pad"


class ReplicationPad1D(Separable):
    """torch.nn.functional.pad with mode="replicate" over the last dim."""

    name = "pad"


class ReplicationPad2D(ReplicationPad1D):
    name = "pad"


class ReplicationPad3D(ReplicationPad1D):
    name = "pad"


class CircularPad(Separable):
    """torch.nn.functional.pad with mode="circular": torch writes it into slices, so its node is CopySlices."""

    name = "pad"
    node_name = "CopySlices"
    node_qualname = "ndgrad::autograd::CopySlices"


PADS = {"reflect": (ReflectionPad1D, ReflectionPad2D, ReflectionPad3D),
        "replicate": (ReplicationPad1D, ReplicationPad2D, ReplicationPad3D),
        "circular": (CircularPad,) * 3}


def _pad_sources(mode, size, before, after):
    """The input position each padded position reads."""
    positions = np.arange(-before, size + after)
    if mode == "reflect":
        return np.where(positions < 0, -positions, np.where(positions >= size, 2 * (size - 1) - positions, positions))
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    kept = size + min(before, 0) + min(after, 0)  # NOTE: torch crops negative pads first, then wraps what is left
    if kept <= 0:  # nothing left to wrap (PyTorch allows only an empty result then)
        return np.zeros(max(size + before + after, 0), dtype=np.int64)
    return (np.arange(-max(before, 0), kept + max(after, 0)) % kept) - min(before, 0)


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dims (see torch.nn.functional.pad, which passes its arguments by position to the
    op torch parses, as this does)."""
    return _pad(input, pad, mode, value)


@parses('pad(Tensor input, SymInt[] pad, str mode="constant", float? value=None)')
def _pad(input, pad, mode="constant", value=None):
    pad = tuple(pad)
    check(len(pad) % 2 == 0, "Padding length must be divisible by 2")
    check(len(pad) // 2 <= input.ndim, "Padding length should be less than or equal to two times the input "
          f"dimension but got padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        pairs = list(zip(pad[::2], pad[1::2]))[::-1]
        for size, (before, after) in zip(input.shape[input.ndim - len(pairs):], pairs):
            check(size + min(before, 0) + min(after, 0) >= 0, "narrow(): length must be non-negative.")
        (value,) = kernel_scalars(input, 0 if value is None else value, compute=input.dtype)
        return ConstantPadNd.apply(input, pad=pad, value=value)
    check(mode in PADS, f"Unrecognised padding mode {mode}", NotImplementedError)
    check(value is None or value == 0, f'Padding mode "{mode}" doesn\'t take in value argument')
    dims = len(pad) // 2
    check(dims in (1, 2, 3) and input.ndim in (dims + 1, dims + 2),
          f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
          "Supported combinations for non-constant padding:\n"
          "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
          "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
          "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)", NotImplementedError)
    if mode != "circular":  # their kernels take an empty batch, and no other empty dim
        batched = input.ndim == dims + 2
        check(all(input.shape[batched:]), f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 "
              f"batch size and other non-zero dimensions for input, but got: {list(input.shape)}")
    pairs = list(zip(pad[::2], pad[1::2]))
    matrices = []
    for i, (before, after) in enumerate(pairs):
        dim = input.ndim - 1 - i
        size = input.shape[dim]
        if mode == "reflect":
            check(before < size and after < size, f"Argument #{4 + 2 * i}: Padding size should be less than the "
                  f"corresponding input dimension, but got: padding ({before}, {after}) at dimension {dim} of input "
                  f"{list(input.shape)}")
        if mode == "circular":
            check(before <= size and after <= size, "Padding value causes wrapping around more than once.")
        matrices.insert(0, selection_matrix(_pad_sources(mode, size, before, after), size))
    _check_padded_sizes(mode, input, pairs)
    return PADS[mode][dims - 1].apply(input, matrices=tuple(matrices))


def _check_padded_sizes(mode, input, pairs):
    """PyTorch's kernels refuse padding that leaves nothing: circular any negative size; reflect and replicate an
    output with no positive size at all (with its two ways of printing it)."""
    sizes = input.shape[input.ndim - len(pairs):]
    outs = [size + before + after for size, (before, after) in zip(sizes, reversed(pairs))]
    if mode == "circular":
        check(min(outs) >= 0, "Negative padding value is resulting in an empty dimension")
        return
    if max(outs) >= 1:
        return
    names = "DHW"[3 - len(sizes):]
    given = [f"{n}: {s}" for n, s in zip(names, sizes)]
    given = " ".join(given[:-1]) + (", " if len(given) > 1 else "") + given[-1]
    if mode == "replicate" and len(sizes) == 2:
        given += " "
    wanted = " ".join(f"{n}: {s}" for n, s in zip(names, outs))
    raise RuntimeError(f"input ({given}) is too small. Calculated output {wanted}")


# ---- shuffles -------------------------------------------------------------------------------------------------
class PixelShuffle(Op):
    """torch.nn.functional.pixel_shuffle: (C r^2, H, W) -> (C, H r, W r)."""

    name, family = "pixel_shuffle", SHAPE

    @staticmethod
    def forward(xp, x, upscale_factor):
        r, (channels, height, width), lead = upscale_factor, x.shape[-3:], x.shape[:-3]
        n = len(lead)
        x = x.reshape(lead + (channels // (r * r), r, r, height, width))
        order = tuple(range(n)) + tuple(n + i for i in (0, 3, 1, 4, 2))
        return x.transpose(order).reshape(lead + (channels // (r * r), height * r, width * r))

    formula = "grad_self = pixel_unshuffle(grad, upscale_factor)"
    @staticmethod
    def vjp(ctx, grad):
        return (PixelUnshuffle.apply(grad, downscale_factor=ctx.upscale_factor),)

    @staticmethod
    def jvp(ctx, x_t):
        return PixelShuffle.apply(x_t, upscale_factor=ctx.upscale_factor)


class PixelUnshuffle(Op):
    """torch.nn.functional.pixel_unshuffle: (C, H r, W r) -> (C r^2, H, W)."""

    name, family = "pixel_unshuffle", SHAPE

    @staticmethod
    def forward(xp, x, downscale_factor):
        r, (channels, height, width), lead = downscale_factor, x.shape[-3:], x.shape[:-3]
        n = len(lead)
        x = x.reshape(lead + (channels, height // r, r, width // r, r))
        order = tuple(range(n)) + tuple(n + i for i in (0, 2, 4, 1, 3))
        return x.transpose(order).reshape(lead + (channels * r * r, height // r, width // r))

    formula = "grad_self = pixel_shuffle(grad, downscale_factor)"
    @staticmethod
    def vjp(ctx, grad):
        return (PixelShuffle.apply(grad, upscale_factor=ctx.downscale_factor),)

    @staticmethod
    def jvp(ctx, x_t):
        return PixelUnshuffle.apply(x_t, downscale_factor=ctx.downscale_factor)


class ChannelShuffle(Op):
    """torch.nn.functional.channel_shuffle: channels (g, C / g) read as (C / g, g); its transpose swaps the two."""

    name, family = "channel_shuffle", SHAPE

    @staticmethod
    def forward(xp, x, groups):
        n, channels = x.shape[:2]
        return xp.swapaxes(x.reshape((n, groups, channels // groups) + x.shape[2:]), 1, 2).reshape(x.shape)

    formula = "grad_self = channel_shuffle(grad, channels / groups)"
    @staticmethod
    def vjp(ctx, grad):
        return (ChannelShuffle.apply(grad, groups=grad.shape[1] // ctx.groups),)

    @staticmethod
    def jvp(ctx, x_t):
        return ChannelShuffle.apply(x_t, groups=ctx.groups)


@parses("pixel_shuffle(Tensor input, int upscale_factor)")
def pixel_shuffle(input, upscale_factor):
    """See torch.nn.functional.pixel_shuffle."""
    r = upscale_factor
    check(input.ndim >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
          f"{input.ndim} dimension(s)")
    check(r > 0, f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    check(input.shape[-3] % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by "
          f"the square of upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    return PixelShuffle.apply(input, upscale_factor=r)


@parses("pixel_unshuffle(Tensor input, int downscale_factor)")
def pixel_unshuffle(input, downscale_factor):
    """See torch.nn.functional.pixel_unshuffle."""
    r = downscale_factor
    check(input.ndim >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
          f"{input.ndim} dimension(s)")
    check(r > 0, f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for name, dim in (("height", -2), ("width", -1)):
        check(input.shape[dim] % r == 0, f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
              f"input.size({dim})={input.shape[dim]} is not divisible by {r}")
    return PixelUnshuffle.apply(input, downscale_factor=r)


@parses("channel_shuffle(Tensor input, SymInt groups)")
def channel_shuffle(input, groups):
    """Interleave the channels of ``groups`` groups (see torch.nn.functional.channel_shuffle)."""
    check(input.ndim > 2, f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    check(groups > 0, f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    check(input.shape[1] % groups == 0, f"Number of channels must be divisible by groups. Got {input.shape[1]} "
          f"channels and {groups} groups.")
    return ChannelShuffle.apply(input, groups=groups)


native_channel_shuffle = alias(channel_shuffle, "native_channel_shuffle(Tensor input, SymInt groups)")
native_channel_shuffle.__name__ = native_channel_shuffle.__qualname__ = "native_channel_shuffle"  # found by pickle


# ---- interpolation --------------------------------------------------------------------------------------------
class UpsampleNearest1D(Separable):
    """torch.nn.functional.interpolate with mode="nearest" on 3-D input; one class per mode and rank, as the node
    names of torch's kernels (UpsampleNearest2DBackward0, ...)."""

    name = "interpolate"


class UpsampleNearest2D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleNearest3D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleNearestExact1D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleNearestExact2D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleNearestExact3D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleLinear1D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleBilinear2D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleTrilinear3D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleBicubic2D(UpsampleNearest1D):
    name = "interpolate"


def _nearest_matrix(size, out, scale, align_corners, exact):
    """The (out, size) selection matrix of nearest (or nearest-exact: pixel centres) sampling."""
    # NOTE: float32 arithmetic, as torch's kernel, so that rounding picks the same source at every scale
    scale = np.float32(1.0 / scale) if scale else np.float32(size) / np.float32(out)
    offset = np.float32(0.5 if exact else 0.0)
    sources = np.floor((np.arange(out, dtype=np.float32) + offset) * scale).astype(np.int64)
    return selection_matrix(np.minimum(sources, size - 1), size)


def _source_positions(size, out, scale, align_corners):
    """Where each output position samples the input (torch's area_pixel_compute_source_index)."""
    if align_corners:
        return np.arange(out) * ((size - 1) / (out - 1) if out > 1 else 0.0)
    step = 1.0 / scale if scale else size / out
    return (np.arange(out) + 0.5) * step - 0.5


def _weights_matrix(size, out, sources, weights):
    """The (out, size) SparseMatrix adding weights[o, j] times input position sources[o, j], clamped into the input
    (each tap kept, as in PyTorch's kernels, even where two read one position or a weight is 0)."""
    return SparseMatrix(np.clip(sources, 0, size - 1), weights, size)


def _linear_matrix(size, out, scale, align_corners):
    sources = np.maximum(_source_positions(size, out, scale, align_corners), 0.0)
    low = sources.astype(np.int64)
    weight = sources - low
    high = low + (low < size - 1)
    return _weights_matrix(size, out, np.stack([low, high], 1), np.stack([1.0 - weight, weight], 1))


def _cubic_matrix(size, out, scale, align_corners, a=-0.75):
    """Keys' cubic convolution with torch's A = -0.75 over the 4 nearest inputs, borders repeated."""
    sources = _source_positions(size, out, scale, align_corners)  # not clamped at 0, unlike linear
    low = np.floor(sources).astype(np.int64)
    t = (sources - low)[:, None]
    distance = np.abs(t - np.arange(-1, 3))  # to inputs low - 1 .. low + 2
    near = ((a + 2) * distance - (a + 3)) * distance * distance + 1
    far = ((a * distance - 5 * a) * distance + 8 * a) * distance - 4 * a
    return _weights_matrix(size, out, low[:, None] + np.arange(-1, 3), np.where(distance <= 1, near, far))


# mode -> (matrix builder, the op per spatial rank 1, 2, 3 (None: torch has no such kernel), integer kernel name)
INTERPOLATIONS = {
    "nearest": (partial(_nearest_matrix, exact=False), (UpsampleNearest1D, UpsampleNearest2D, UpsampleNearest3D),
                "nearest"),
    "nearest-exact": (partial(_nearest_matrix, exact=True),
                      (UpsampleNearestExact1D, UpsampleNearestExact2D, UpsampleNearestExact3D), "nearest"),
    "linear": (_linear_matrix, (UpsampleLinear1D, None, None), "linear"),
    "bilinear": (_linear_matrix, (None, UpsampleBilinear2D, None), "bilinear"),
    "trilinear": (_linear_matrix, (None, None, UpsampleTrilinear3D), "linear"),
    "bicubic": (_cubic_matrix, (None, UpsampleBicubic2D, None), "cubic"),
}
_WRONG_RANK = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _unsupported_mode(input, mode):
    if mode in _WRONG_RANK and 3 <= input.dim() <= 5:
        return NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_WRONG_RANK[mode]}D input")
    return NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: nearest | "
        f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")


def _check_sizes(input, sizes):
    if min(sizes) > 0 and min(input.shape[2:]) > 0:
        return
    names = "DHW"[3 - len(sizes):]
    given = ", ".join(f"{n}: {s}" for n, s in zip(names, input.shape[2:]))
    wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, sizes))
    joint = " and output " if len(sizes) == 1 else " output "
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given}){joint}({wanted})")


def _int64(value):
    """PyTorch's checked conversion of a computed size to int64 (towards zero)."""
    if not math.isfinite(value) or abs(value) >= 2 ** 63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(value)


def _upsample(mode, nd, input, output_size, align_corners, scale_factors):
    """torch's upsample kernels: the output size from output_size or scale_factors (exactly one), then sampling by
    one matrix per spatial dim; the kernels use the given scale factors (else input / output sizes)."""
    if scale_factors is not None and not isinstance(scale_factors, (list, tuple)):
        scale_factors = [scale_factors]  # the second overload's scales: one per dim, by position
    check((output_size is None) != (scale_factors is None), "Must specify exactly one of output_size and "
          "scale_factors")
    if output_size is not None:
        sizes, scales = list(int_list(output_size, nd)), [None] * nd
    else:
        scales = list(scale_factors)
        sizes = [_int64(n * s) for n, s in zip(input.shape[2:], scales)]
    check(len(sizes) == nd, f"It is expected output_size equals to {nd}, but got size {len(sizes)}")
    check(input.ndim == nd + 2, f"It is expected input_size equals to {nd + 2}, but got size {input.ndim}")
    matrix, ops, kernel = INTERPOLATIONS[mode]
    if not input.dtype.is_floating_point and (input.dtype.title != "Byte" or not mode.startswith("nearest")):
        kernel = f"upsample_{kernel}2d_channels_last" if nd == 2 and kernel != "cubic" else \
            f"compute_indices_weights_{kernel}"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")
    _check_sizes(input, sizes)
    check_storage_size((*input.shape[:2], *sizes), input.dtype.itemsize)  # before the matrices, as large as it
    matrices = tuple(matrix(n, o, s, bool(align_corners)) for n, o, s in zip(input.shape[2:], sizes, scales))
    return ops[nd - 1].apply(input, matrices=matrices)


def _declared_upsample(name, mode, nd):
    """torch's upsample op ``name`` with both its overloads: scale factors as one list, or one float per dim."""
    scales = ", ".join(f"float? scales{suffix}=None" for suffix in ("_d", "_h", "_w")[3 - nd:]) if nd > 1 else \
        "float? scales=None"
    if mode.startswith("nearest"):
        @parses(f"{name}(Tensor input, SymInt[]? output_size, float[]? scale_factors)",
                f"{name}(Tensor input, SymInt[{nd}] output_size, {scales}, *, Tensor out=None)")
        def upsample(input, output_size, scale_factors=None, *more_scales):
            return _upsample(mode, nd, input, output_size, None, _scales(scale_factors, more_scales))
    else:
        @parses(f"{name}(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors)",
                f"{name}(Tensor input, SymInt[{nd}] output_size, bool align_corners, {scales}, *, Tensor out=None)")
        def upsample(input, output_size, align_corners, scale_factors=None, *more_scales):
            return _upsample(mode, nd, input, output_size, align_corners, _scales(scale_factors, more_scales))
    upsample.__name__ = upsample.__qualname__ = name
    upsample.__doc__ = f"See torch._C._nn.{name}."
    return upsample


def _scales(scale_factors, more_scales):
    return scale_factors if not more_scales else [scale_factors, *more_scales]


upsample_nearest1d = _declared_upsample("upsample_nearest1d", "nearest", 1)
upsample_nearest2d = _declared_upsample("upsample_nearest2d", "nearest", 2)
upsample_nearest3d = _declared_upsample("upsample_nearest3d", "nearest", 3)
_upsample_nearest_exact1d = _declared_upsample("_upsample_nearest_exact1d", "nearest-exact", 1)
_upsample_nearest_exact2d = _declared_upsample("_upsample_nearest_exact2d", "nearest-exact", 2)
_upsample_nearest_exact3d = _declared_upsample("_upsample_nearest_exact3d", "nearest-exact", 3)
upsample_linear1d = _declared_upsample("upsample_linear1d", "linear", 1)
upsample_bilinear2d = _declared_upsample("upsample_bilinear2d", "bilinear", 2)
upsample_trilinear3d = _declared_upsample("upsample_trilinear3d", "trilinear", 3)
upsample_bicubic2d = _declared_upsample("upsample_bicubic2d", "bicubic", 2)
_UPSAMPLES = {  # (mode, input rank) -> torch's op
    ("nearest", 3): upsample_nearest1d, ("nearest", 4): upsample_nearest2d, ("nearest", 5): upsample_nearest3d,
    ("nearest-exact", 3): _upsample_nearest_exact1d, ("nearest-exact", 4): _upsample_nearest_exact2d,
    ("nearest-exact", 5): _upsample_nearest_exact3d, ("linear", 3): upsample_linear1d,
    ("bilinear", 4): upsample_bilinear2d, ("trilinear", 5): upsample_trilinear3d, ("bicubic", 4): upsample_bicubic2d,
}


def _is_integer(x):
    from ndgrad._tensor import Tensor

    return isinstance(x, (int, np.integer)) or (isinstance(x, Tensor) and not x.is_floating_point())


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims (see torch.nn.functional.interpolate); antialias=True is not supported."""
    from ndgrad.ops.functional_pooling import adaptive_avg_pool2d, adaptive_avg_pool3d
    from ndgrad.ops.pooling import adaptive_avg_pool1d

    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if antialias or mode == "lanczos":
        raise NotImplementedError("interpolate: antialias=True (and so mode='lanczos') is not supported by ndgrad")
    if mode == "area" and input.dim() in (3, 4, 5):
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, output_size)
    upsample = _UPSAMPLES.get((mode, input.dim()))
    if upsample is None:
        raise _unsupported_mode(input, mode)
    if mode.startswith("nearest"):
        return upsample(input, output_size, scale_factors)
    return upsample(input, output_size, align_corners, scale_factors)


def _deprecated(name):
    warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate (see torch.nn.functional.upsample)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate with mode="nearest" (see torch.nn.functional.upsample_nearest)."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate with mode="bilinear", align_corners=True (see F.upsample_bilinear)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
