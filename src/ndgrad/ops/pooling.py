"""Pooling (max, avg, adaptive), padding, interpolation and pixel shuffle.

Every op here but max pooling is linear and separable: one matrix per spatial dim (see _Separable).
"""

import math

import numpy as np

from ndgrad._device import array_namespace
from ndgrad.ops._op import REDUCTION, SHAPE, Op

__all__ = ["max_pool2d", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "pixel_shuffle",
           "pixel_unshuffle"]
FUNCTIONAL = [
    "max_pool2d", "max_pool1d", "avg_pool2d", "avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool1d", "lp_pool2d", "lp_pool1d", "pad", "pixel_shuffle", "pixel_unshuffle",
    "interpolate",
]


# ---- the two building blocks: gather/scatter along flattened planes, and a matrix per spatial dim -------------
class _Gather(Op):
    """out[b, q] = x[b, index[b, q]] on (B, P) planes; its transpose is _Scatter."""

    @staticmethod
    def forward(xp, x, index):
        return xp.take_along_axis(x, xp.broadcast_to(index, (x.shape[0], index.shape[1])), axis=1)

    @staticmethod
    def vjp(ctx, grad):
        return (_Scatter.apply(grad, index=ctx.index, size=ctx.input_shapes[0][1]),)

    @staticmethod
    def jvp(ctx, x_t):
        return _Gather.apply(x_t, index=ctx.index)


class _Scatter(Op):
    """out[b, index[b, q]] += grad[b, q] into (B, size) zero planes: the vjp of max pooling."""

    @staticmethod
    def forward(xp, grad, index, size):
        batch = grad.shape[0]
        flat = (xp.arange(batch)[:, None] * size + index).ravel()
        sums = xp.bincount(flat, weights=grad.ravel(), minlength=batch * size)  # NOTE: sums in float64
        return sums.reshape(batch, size).astype(grad.dtype)

    @staticmethod
    def vjp(ctx, grad):
        return (_Gather.apply(grad, index=ctx.index),)

    @staticmethod
    def jvp(ctx, grad_t):
        return _Scatter.apply(grad_t, index=ctx.index, size=ctx.size)


def _apply_matrices(xp, x, matrices, transpose=False):
    """Multiply the last len(matrices) dims of x, each by its (out, in) matrix (or its transpose)."""
    for dim, matrix in zip(range(-len(matrices), 0), matrices):
        x = xp.swapaxes(xp.matmul(xp.swapaxes(x, dim, -1), matrix if transpose else matrix.T), dim, -1)
    return x


class _Separable(Op):
    """A linear map that is one matrix per spatial dim: avg and adaptive avg pooling, padding, interpolation."""

    family = SHAPE

    @staticmethod
    def forward(xp, x, matrices):
        dtype = x.dtype if x.dtype.kind in "fc" else np.float64
        out = _apply_matrices(xp, x.astype(dtype), [xp.asarray(m, dtype=dtype) for m in matrices])
        return out if out.dtype == x.dtype else xp.round(out).astype(x.dtype)

    @staticmethod
    def vjp(ctx, grad):
        return (_apply_matrices(_TensorLib, grad, _constants(grad, ctx.matrices), transpose=True),)

    @classmethod
    def jvp(cls, ctx, x_t):
        return cls.apply(x_t, matrices=ctx.matrices)


class _TensorLib:
    """xp's swapaxes and matmul, spelled with ndgrad ops, so rules share _apply_matrices with forward."""

    swapaxes = staticmethod(lambda x, a, b: x.transpose(a, b))
    matmul = staticmethod(lambda x, y: x @ y)


def _constants(like, matrices):
    from ndgrad._tensor import Tensor

    xp = array_namespace(like.device)
    return [Tensor._wrap(xp.asarray(m, dtype=like._data.dtype)) for m in matrices]


def _check(condition, message, error=RuntimeError):
    if not condition:
        raise error(message)


def _tuple(value, n, message):
    """An int or a sequence of ints as an n-tuple; a wrong length raises torch's message."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    _check(len(value) == n, message)
    return value


def _pool_size(size, kernel, stride, padding, dilation, ceil_mode):
    """The output length of a pooling window sliding over ``size`` (torch's pooling_output_shape)."""
    out = (size + 2 * padding - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1  # the last window must start inside the input or its left padding
    return out


def _pool_arguments(name, input, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _tuple(kernel_size, 2, f"{name}: kernel_size must either be a single int, or a tuple of two ints")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _tuple(
        stride, 2, f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
    padding = _tuple(padding, 2, f"{name}: padding must either be a single int, or a tuple of two ints")
    dilation = _tuple(dilation, 2, f"{name}: dilation must be either a single int, or a tuple of two ints")
    _check(0 not in stride, "stride should not be zero")
    _check(min(kernel) > 0, f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    _check(min(stride) > 0, f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    _check(min(dilation) > 0,
           f"dilation should be greater than zero, but got dilationH: {dilation[0]} dilationW: {dilation[1]}")
    for k, p, d in zip(kernel, padding, dilation):
        _check(p <= ((k - 1) * d + 1) // 2, "pad should be at most half of effective kernel size, but got "
               f"pad={p}, kernel_size={k} and dilation={d}")
    shape = input.shape
    _check(input.ndim in (3, 4) and all(shape[1:]), "non-empty 3D or 4D (batch mode) tensor expected for input")
    out = [_pool_size(*args, ceil_mode) for args in zip(shape[-2:], kernel, stride, padding, dilation)]
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({shape[-3]}x{shape[-2]}x{shape[-1]}). Calculated output size: "
                           f"({shape[-3]}x{out[0]}x{out[1]}). Output size is too small")
    return kernel, stride, padding, dilation, out


# ---- max pooling ----------------------------------------------------------------------------------------------
class MaxPool2DWithIndices(Op):
    """torch.nn.functional.max_pool2d: each window's maximum (the first, at ties) and its index in its plane."""

    name, family = "max_pool2d", REDUCTION
    outputs = ("result", "indices")
    saves = ("indices",)

    @staticmethod
    def forward(xp, x, kernel_size, stride, padding, dilation, out_size):
        (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow) = kernel_size, stride, padding, dilation, out_size
        height, width = x.shape[-2:]
        span_h, span_w = (oh - 1) * sh + dh * (kh - 1) + 1, (ow - 1) * sw + dw * (kw - 1) + 1
        low = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
        pad = [(0, 0)] * (x.ndim - 2) + [(ph, max(0, span_h - ph - height)), (pw, max(0, span_w - pw - width))]
        padded = xp.pad(x, pad, constant_values=low)[..., :span_h, :span_w]
        windows = xp.lib.stride_tricks.sliding_window_view(padded, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), (-2, -1))
        windows = windows[..., ::sh, ::sw, ::dh, ::dw].reshape(x.shape[:-2] + (oh, ow, kh * kw))
        local = xp.argmax(windows, axis=-1)[..., None]  # NOTE: the first maximum, as torch's strict > scan
        result = xp.take_along_axis(windows, local, axis=-1)[..., 0]
        local = local[..., 0]
        rows = xp.arange(oh)[:, None] * sh - ph + (local // kw) * dh
        cols = xp.arange(ow) * sw - pw + (local % kw) * dw
        return result, (rows * width + cols).astype(xp.int64)

    @staticmethod
    def vjp(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        shape = ctx.input_shapes[0]
        planes, cells = math.prod(shape[:-2]), math.prod(indices.shape[-2:])  # explicit: planes may be 0
        index = indices._data.reshape(planes, cells)
        return (_Scatter.apply(grad.reshape(planes, cells), index=index, size=shape[-2] * shape[-1]).reshape(shape),)

    @staticmethod
    def jvp(ctx, x_t):
        (indices,) = ctx.saved_tensors
        planes, cells = math.prod(x_t.shape[:-2]), math.prod(indices.shape[-2:])
        values = _Gather.apply(x_t.reshape(planes, x_t.shape[-2] * x_t.shape[-1]),
                               index=indices._data.reshape(planes, cells))
        return values.reshape(indices.shape), None


class AdaptiveMaxPool2D(MaxPool2DWithIndices):
    """torch.nn.functional.adaptive_max_pool2d: the maximum of each of out_size nearly equal windows."""

    name, family = "adaptive_max_pool2d", REDUCTION

    @staticmethod
    def forward(xp, x, out_size):
        height, width = x.shape[-2:]
        rows, row_valid = _adaptive_windows(height, out_size[0])  # (out, k) positions, and which are inside
        cols, col_valid = _adaptive_windows(width, out_size[1])
        low = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
        index = rows[:, None, :, None] * width + cols[None, :, None, :]  # (oh, ow, kh, kw)
        valid = row_valid[:, None, :, None] & col_valid[None, :, None, :]
        index = xp.asarray(index.reshape(out_size[0], out_size[1], -1))
        windows = x.reshape(x.shape[:-2] + (-1,))[..., index]
        windows = xp.where(xp.asarray(valid.reshape(index.shape)), windows, low)
        local = xp.argmax(windows, axis=-1)[..., None]
        result = xp.take_along_axis(windows, local, axis=-1)[..., 0]
        return result, xp.take_along_axis(xp.broadcast_to(index, windows.shape), local, axis=-1)[..., 0]


def _adaptive_windows(size, out):
    """Window o covers [floor(o * size / out), ceil((o + 1) * size / out)): its positions, padded to one length."""
    start = np.arange(out) * size // out
    end = -(-(np.arange(out) + 1) * size // out)
    positions = start[:, None] + np.arange((end - start).max())
    valid = positions < end[:, None]
    return np.where(valid, positions, start[:, None]), valid


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling (see torch.nn.functional.max_pool2d)."""
    kernel, stride, padding, dilation, out = _pool_arguments(
        "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)
    result, indices = MaxPool2DWithIndices.apply(
        input, kernel_size=kernel, stride=stride, padding=padding, dilation=dilation, out_size=tuple(out))
    return (result, indices) if return_indices else result


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling, as 2-D pooling over a height of 1 (see torch.nn.functional.max_pool1d)."""
    _check(input.ndim in (2, 3), "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
           f"for input, but got:{list(input.shape)}")
    kernel = _tuple(kernel_size, 1, "max_pool1d() kernel_size must be a single int")[0]
    _check(kernel > 0, f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _tuple(
        stride, 1, "max_pool1d() stride must be a single int")[0]
    padding, dilation = _tuple(padding, 1, "")[0], _tuple(dilation, 1, "")[0]
    out = max_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), (1, dilation), ceil_mode, True)
    return (out[0].squeeze(-2), out[1].squeeze(-2)) if return_indices else out[0].squeeze(-2)


def _adaptive_size(name, input, output_size, n):
    size = _tuple(output_size, n, f"{name}: output_size must be {n}")
    size = tuple(input.shape[-n + i] if s is None else s for i, s in enumerate(size))
    _check(min(size) >= 0, f"{name}: elements of output_size must be greater than or equal to 0 but received "
           f"{{{', '.join(map(str, size))}}}")
    return size


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D max pooling over nearly equal windows (see torch.nn.functional.adaptive_max_pool2d)."""
    _check(input.ndim in (3, 4), f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    size = _adaptive_size("adaptive_max_pool2d", input, output_size, 2)
    result, indices = AdaptiveMaxPool2D.apply(input, out_size=size)
    return (result, indices) if return_indices else result


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """See torch.nn.functional.adaptive_max_pool1d."""
    _check(input.ndim in (2, 3), f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
           "#1 'self' (while checking arguments for adaptive_max_pool1d)")
    size = _tuple(output_size, 1, "adaptive_max_pool1d: output_size must be 1")
    result, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size[0]), True)
    return (result.squeeze(-2), indices.squeeze(-2)) if return_indices else result.squeeze(-2)


# ---- average pooling ------------------------------------------------------------------------------------------
class AvgPool2D(_Separable):
    """torch.nn.functional.avg_pool2d."""

    name, family = "avg_pool2d", REDUCTION


class AdaptiveAvgPool2D(_Separable):
    """torch.nn.functional.adaptive_avg_pool2d."""

    name, family = "adaptive_avg_pool2d", REDUCTION


def _average_matrix(size, kernel, stride, padding, out, count_include_pad, divisor):
    """The (out, size) matrix of one dim of avg pooling; ``divisor``: this dim's share of divisor_override."""
    matrix = np.zeros((out, size))
    for o in range(out):
        start = o * stride - padding
        end = min(start + kernel, size + padding)
        count = end - start
        start, end = max(start, 0), min(end, size)
        matrix[o, start:end] = 1.0 / (divisor or (count if count_include_pad else end - start))
    return matrix


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling (see torch.nn.functional.avg_pool2d)."""
    _check(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    kernel, stride, padding, _, out = _pool_arguments("avg_pool2d", input, kernel_size, stride, padding, 1, ceil_mode)
    divisors = (divisor_override, 1) if divisor_override else (None, None)
    matrices = tuple(_average_matrix(n, *args, count_include_pad, d)
                     for n, args, d in zip(input.shape[-2:], zip(kernel, stride, padding, out), divisors))
    return AvgPool2D.apply(input, matrices=matrices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """See torch.nn.functional.avg_pool1d."""
    _check(input.ndim in (2, 3), f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
           "#1 'self' (while checking arguments for avg_pool1d)")
    kernel = _tuple(kernel_size, 1, "")[0]
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _tuple(
        stride, 1, "")[0]
    return avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, _tuple(padding, 1, "")[0]), ceil_mode,
                      count_include_pad).squeeze(-2)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling, the composite torch builds (see torch.nn.functional.lp_pool2d)."""
    from ndgrad.ops.activation import relu

    kernel = _tuple(kernel_size, 2, "lp_pool2d: kernel_size must either be a single int, or a tuple of two ints")
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kernel[0] * kernel[1]).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """See torch.nn.functional.lp_pool1d."""
    from ndgrad.ops.activation import relu

    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)


def _adaptive_average_matrix(size, out):
    matrix = np.zeros((out, size))
    for o in range(out):
        start, end = o * size // out, -(-(o + 1) * size // out)
        matrix[o, start:end] = 1.0 / (end - start)
    return matrix


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling over nearly equal windows (see torch.nn.functional.adaptive_avg_pool2d)."""
    _check(input.ndim in (3, 4), f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    size = _adaptive_size("adaptive_avg_pool2d", input, output_size, 2)
    if size == (1, 1):  # as torch: a plain mean
        return input.mean((-2, -1), keepdim=True)
    matrices = tuple(_adaptive_average_matrix(n, o) for n, o in zip(input.shape[-2:], size))
    return AdaptiveAvgPool2D.apply(input, matrices=matrices)


def adaptive_avg_pool1d(input, output_size):
    """See torch.nn.functional.adaptive_avg_pool1d."""
    _check(input.ndim in (2, 3), f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
           "#1 'self' (while checking arguments for adaptive_avg_pool1d)")
    size = _tuple(output_size, 1, "adaptive_avg_pool1d: output_size must be 1")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size[0])).squeeze(-2)


# ---- padding --------------------------------------------------------------------------------------------------
class ConstantPadNd(Op):
    """torch.nn.functional.pad with mode="constant"; negative pads crop."""

    name, family = "pad", SHAPE

    @staticmethod
    def forward(xp, x, pad, value):
        pairs = list(zip(pad[::2], pad[1::2]))[::-1]  # (before, after) for the last len(pad) // 2 dims, in order
        lead = x.ndim - len(pairs)
        x = x[(slice(None),) * lead + tuple(slice(-min(b, 0), x.shape[lead + i] + min(a, 0) or None)
                                            for i, (b, a) in enumerate(pairs))]
        widths = [(0, 0)] * lead + [(max(b, 0), max(a, 0)) for b, a in pairs]
        return xp.pad(x, widths, constant_values=value)

    @staticmethod
    def vjp(ctx, grad):
        return (ConstantPadNd.apply(grad, pad=tuple(-p for p in ctx.pad), value=0),)

    @staticmethod
    def jvp(ctx, x_t):
        return ConstantPadNd.apply(x_t, pad=ctx.pad, value=0)


class ReflectionPad1D(_Separable):
    """torch.nn.functional.pad with mode="reflect" over the last dim."""

    name = "pad"


class ReflectionPad2D(ReflectionPad1D):
    name = "pad"


class ReflectionPad3D(ReflectionPad1D):
    name = "pad"


class ReplicationPad1D(_Separable):
    """torch.nn.functional.pad with mode="replicate" over the last dim."""

    name = "pad"


class ReplicationPad2D(ReplicationPad1D):
    name = "pad"


class ReplicationPad3D(ReplicationPad1D):
    name = "pad"


class CircularPad(_Separable):
    """torch.nn.functional.pad with mode="circular": torch writes it into slices, so its node is CopySlices."""

    name = "pad"
    node_name = "CopySlices"
    node_qualname = "ndgrad::autograd::CopySlices"


PADS = {"reflect": (ReflectionPad1D, ReflectionPad2D, ReflectionPad3D),
        "replicate": (ReplicationPad1D, ReplicationPad2D, ReplicationPad3D),
        "circular": (CircularPad,) * 3}


def _selection_matrix(sources, size):
    matrix = np.zeros((len(sources), size))
    matrix[np.arange(len(sources)), sources] = 1.0
    return matrix


def _pad_sources(mode, size, before, after):
    """The input position each padded position reads."""
    positions = np.arange(-before, size + after)
    if mode == "reflect":
        return np.where(positions < 0, -positions, np.where(positions >= size, 2 * (size - 1) - positions, positions))
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    kept = size + min(before, 0) + min(after, 0)  # NOTE: torch crops negative pads first, then wraps what is left
    return (np.arange(-max(before, 0), kept + max(after, 0)) % kept) - min(before, 0)


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dims (see torch.nn.functional.pad)."""
    pad = tuple(pad)
    _check(len(pad) % 2 == 0, "Padding length must be divisible by 2")
    _check(len(pad) // 2 <= input.ndim, "Padding length should be less than or equal to two times the input "
           f"dimension but got padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        pairs = list(zip(pad[::2], pad[1::2]))[::-1]
        for size, (before, after) in zip(input.shape[input.ndim - len(pairs):], pairs):
            _check(size + min(before, 0) + min(after, 0) >= 0, "narrow(): length must be non-negative.")
        return ConstantPadNd.apply(input, pad=pad, value=0 if value is None else value)
    _check(mode in PADS, f"Unrecognised padding mode {mode}", NotImplementedError)
    dims = len(pad) // 2
    _check(dims in (1, 2, 3) and input.ndim in (dims + 1, dims + 2),
           f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
           "Supported combinations for non-constant padding:\n"
           "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
           "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
           "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)", NotImplementedError)
    pairs = list(zip(pad[::2], pad[1::2]))
    matrices = []
    for i, (before, after) in enumerate(pairs):
        dim = input.ndim - 1 - i
        size = input.shape[dim]
        if mode == "reflect":
            _check(before < size and after < size, f"Argument #{4 + 2 * i}: Padding size should be less than the "
                   f"corresponding input dimension, but got: padding ({before}, {after}) at dimension {dim} of input "
                   f"{list(input.shape)}")
        if mode == "circular":
            _check(before <= size and after <= size, "Padding value causes wrapping around more than once.")
        matrices.insert(0, _selection_matrix(_pad_sources(mode, size, before, after), size))
    return PADS[mode][dims - 1].apply(input, matrices=tuple(matrices))


# ---- pixel shuffle --------------------------------------------------------------------------------------------
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

    @staticmethod
    def vjp(ctx, grad):
        return (PixelShuffle.apply(grad, upscale_factor=ctx.downscale_factor),)

    @staticmethod
    def jvp(ctx, x_t):
        return PixelUnshuffle.apply(x_t, downscale_factor=ctx.downscale_factor)


def pixel_shuffle(input, upscale_factor):
    """See torch.nn.functional.pixel_shuffle."""
    r = upscale_factor
    _check(input.ndim >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
           f"{input.ndim} dimension(s)")
    _check(r > 0, f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    _check(input.shape[-3] % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by "
           f"the square of upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    return PixelShuffle.apply(input, upscale_factor=r)


def pixel_unshuffle(input, downscale_factor):
    """See torch.nn.functional.pixel_unshuffle."""
    r = downscale_factor
    _check(input.ndim >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
           f"{input.ndim} dimension(s)")
    _check(r > 0, f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for name, dim in (("height", -2), ("width", -1)):
        _check(input.shape[dim] % r == 0, f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
               f"input.size({dim})={input.shape[dim]} is not divisible by {r}")
    return PixelUnshuffle.apply(input, downscale_factor=r)


# ---- interpolation --------------------------------------------------------------------------------------------
class UpsampleNearest1D(_Separable):
    """torch.nn.functional.interpolate with mode="nearest" on 3-D input."""

    name = "interpolate"


class UpsampleNearest2D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleNearestExact1D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleNearestExact2D(UpsampleNearest1D):
    name = "interpolate"


class UpsampleLinear1D(_Separable):
    """torch.nn.functional.interpolate with mode="linear" (3-D input) or "bilinear" (4-D)."""

    name = "interpolate"


class UpsampleBilinear2D(UpsampleLinear1D):
    name = "interpolate"


INTERPOLATIONS = {"nearest": (UpsampleNearest1D, UpsampleNearest2D), "linear": (UpsampleLinear1D, None),
                  "nearest-exact": (UpsampleNearestExact1D, UpsampleNearestExact2D),
                  "bilinear": (None, UpsampleBilinear2D)}


def _nearest_matrix(size, out, scale, exact):
    if out == size:
        return np.eye(size)
    # NOTE: float32 arithmetic, as torch's kernel, so that rounding picks the same source at every scale
    scale = np.float32(1.0 / scale) if scale else np.float32(size) / np.float32(out)
    offset = np.float32(0.5 if exact else 0.0)
    sources = np.floor((np.arange(out, dtype=np.float32) + offset) * scale).astype(np.int64)
    return _selection_matrix(np.minimum(sources, size - 1), size)


def _linear_matrix(size, out, scale, align_corners):
    if align_corners:
        step = (size - 1) / (out - 1) if out > 1 else 0.0
        sources = np.arange(out) * step
    else:
        step = 1.0 / scale if scale else size / out
        sources = np.maximum((np.arange(out) + 0.5) * step - 0.5, 0.0)
    low = sources.astype(np.int64)
    high = low + (low < size - 1)
    weight = sources - low
    matrix = np.zeros((out, size))
    np.add.at(matrix, (np.arange(out), low), 1.0 - weight)
    np.add.at(matrix, (np.arange(out), high), weight)
    return matrix


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims: nearest, nearest-exact, linear, bilinear (see torch.nn.functional.interpolate)."""
    spatial = input.ndim - 2
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None:
        sizes = [size] * spatial if isinstance(size, int) else list(size)
        if len(sizes) != spatial:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor in "
                "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        scales = [None] * spatial
    else:
        scales = [scale_factor] * spatial if isinstance(scale_factor, (int, float)) else list(scale_factor)
        sizes = [math.floor(float(n * s)) for n, s in zip(input.shape[2:], scales)]
        if recompute_scale_factor:
            scales = [None] * spatial
    if mode == "linear" and spatial != 1 or mode == "bilinear" and spatial != 2:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {3 if mode == 'linear' else 4}D "
                                  "input")
    _check(mode in INTERPOLATIONS and spatial in (1, 2) and not antialias,
           f"interpolate: mode {mode!r} on {input.ndim}D input is not supported by ndgrad", NotImplementedError)
    if mode.startswith("nearest"):
        matrices = tuple(_nearest_matrix(n, o, s, mode == "nearest-exact")
                         for n, o, s in zip(input.shape[2:], sizes, scales))
    else:
        matrices = tuple(_linear_matrix(n, o, s, align_corners) for n, o, s in zip(input.shape[2:], sizes, scales))
    return INTERPOLATIONS[mode][spatial - 1].apply(input, matrices=matrices)


class PoolingMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
