"""Max pooling over 1 to 3 spatial dims: sliding, adaptive and fractional windows, each maximum with its index in
its plane, and max unpooling, which writes values back at such indices. The 1-d forms are 2-d ones over a height of
1, as torch builds them."""

import math

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._device import namespace_of
from ndgrad.ops._checks import int_list, require_kind
from ndgrad.ops._op import REDUCTION, SHAPE, Op
from ndgrad.ops._pool_windows import (
    adaptive_windows,
    check_1d,
    plane_sizes,
    pool_arguments,
    pool_size,
)
from ndgrad.ops._separable import Gather, Scatter, along, check

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices"]  # torch has these at top level
FUNCTIONAL = []  # torch.nn.functional's forms are in functional_pooling


def _low(xp, dtype):
    """The value padding never wins a maximum with."""
    return -xp.inf if dtype.kind in "fV" else xp.iinfo(dtype).min


def _scan_pick(xp, windows):
    """The cell of each window (the last axis) that torch's scan keeps (see _scan_dim): the first maximum, or the
    last NaN."""
    local = xp.argmax(windows, axis=-1)
    if windows.dtype.kind in "fV":
        nan = xp.isnan(windows)
        last_nan = windows.shape[-1] - 1 - xp.argmax(nan[..., ::-1], axis=-1)
        local = xp.where(nan.any(axis=-1), last_nan, local)
    return local


# ---- max pooling ----------------------------------------------------------------------------------------------
def _scan_dim(xp, values, local, axis, kernel, stride, padding, dilation, out, cells):
    """One dim of torch's window scan: along ``axis``, each window's maximum and which of its cells that is, in
    ``local``: numbered in scan order, with the ``cells`` cells of the dims after ``axis`` (``local`` so far, None at
    first) inside each cell of this dim.

    Torch starts each window at its first cell inside the input with a maximum of -inf, and a cell replaces the
    maximum where it is greater or NaN: at ties the first cell wins, among NaNs the last, and padding (-inf here)
    never. A window scanned in order is its rows scanned in order, each row being its cells scanned, so one dim at a
    time, the last first, gives torch's pick."""
    size = values.shape[axis]
    right = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - padding - size)  # ceil_mode's last window
    if padding or right:
        widths = [(0, 0)] * values.ndim
        widths[axis] = (padding, right)
        values = xp.pad(values, widths, constant_values=_low(xp, values.dtype))
        local = None if local is None else xp.pad(local, widths)
    dtype = xp.int8 if kernel * cells <= 127 else xp.int32  # small ints: few pages of temporaries
    starts = xp.arange(out) * stride  # in padded positions
    first = -(-xp.maximum(padding - starts, 0) // dilation)  # the first cell inside the input
    inside = starts + first * dilation
    best = xp.take(values, inside, axis=axis)
    own = (first * cells).astype(dtype).reshape((out,) + (1,) * (-axis - 1))
    best_local = xp.broadcast_to(own, best.shape).copy() if local is None else xp.take(local, inside, axis=axis) + own
    for offset in range(1, kernel):  # the padding before `first` never wins
        window_cells = along(axis, offset * dilation, stride, out)
        cell = values[window_cells]
        better = cell > best
        if cell.dtype.kind in "fV":
            better |= xp.isnan(cell)
        # where(better, cell, best)'s values: at ties NumPy's maximum returns its second argument (-0.0 stays first)
        xp.maximum(cell, best, out=best)
        candidate = offset * cells if local is None else local[window_cells] + dtype(offset * cells)
        # NOTE: a select by arithmetic: xp.where with a mask that changes at random is several times slower
        best_local += better * (candidate - best_local)
    return best, best_local


def _plane_index(xp, local, shape, kernel_size, stride, padding, dilation, out_size):
    """The index in its plane of each window's cell ``local`` (numbered in scan order): the window's start plus a
    table of its cells' offsets."""
    starts, offsets, plane = 0, 0, 1
    for dim in range(-1, -len(kernel_size) - 1, -1):
        along_dim = (-1,) + (1,) * (-dim - 1)
        starts = starts + (xp.arange(out_size[dim]) * stride[dim] - padding[dim]).reshape(along_dim) * plane
        offsets = offsets + (xp.arange(kernel_size[dim]) * dilation[dim]).reshape(along_dim) * plane
        plane *= shape[dim]
    index = xp.take(offsets.ravel(), local)
    index += starts
    return index


class MaxPool2DWithIndices(Op):
    """torch.nn.functional.max_pool2d: each window's maximum (the first, at ties) and its index in its plane."""

    name, family = "max_pool2d", REDUCTION
    outputs = ("result", "indices")
    saves = ("indices",)

    @staticmethod
    def forward(xp, x, kernel_size, stride, padding, dilation, out_size):
        values, local, cells = x, None, 1
        for axis, window in zip(range(-1, -len(kernel_size) - 1, -1),
                                zip(*map(reversed, (kernel_size, stride, padding, dilation, out_size)))):
            values, local = _scan_dim(xp, values, local, axis, *window, cells)
            cells *= window[0]
        return values, _plane_index(xp, local, x.shape, kernel_size, stride, padding, dilation, out_size)

    formula = "grad_self = zeros(self.shape) with grad scattered to the argmax indices"
    @classmethod
    def vjp(cls, ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        shape, nd = ctx.input_shapes[0], len(ctx.out_size)
        planes, cells = plane_sizes(indices.shape, nd)
        index = indices._data.reshape(planes, cells)
        return (Scatter.apply(grad.reshape(planes, cells), index=index, size=plane_sizes(shape, nd)[1],
                              unique=cls.disjoint(ctx)).reshape(shape),)

    @staticmethod
    def disjoint(ctx):
        """Whether no two windows share a cell, so that no cell gets two gradients: a stride past the window."""
        return all(s >= (k - 1) * d + 1 for k, s, d in zip(ctx.kernel_size, ctx.stride, ctx.dilation))

    @staticmethod
    def jvp(ctx, x_t):
        (indices,) = ctx.saved_tensors
        nd = len(ctx.out_size)
        planes, cells = plane_sizes(indices.shape, nd)
        flat = x_t.reshape(planes, plane_sizes(x_t.shape, nd)[1])
        values = Gather.apply(flat, index=indices._data.reshape(planes, cells))
        return values.reshape(indices.shape), None


class MaxPool3DWithIndices(MaxPool2DWithIndices):
    """torch.nn.functional.max_pool3d."""

    name = "max_pool3d"


class AdaptiveMaxPool2D(MaxPool2DWithIndices):
    """torch.nn.functional.adaptive_max_pool2d: the maximum of each of out_size nearly equal windows."""

    name = "adaptive_max_pool2d"

    @staticmethod
    def disjoint(ctx):
        """Adaptive windows tile the input where each size is a multiple of the output's, and overlap elsewhere."""
        return all(n % o == 0 for n, o in zip(ctx.input_shapes[0][-len(ctx.out_size):], ctx.out_size))

    @staticmethod
    def forward(xp, x, out_size):
        nd = len(out_size)
        sizes = x.shape[-nd:]
        index, valid = 0, True  # (o_1 .. o_nd, k_1 .. k_nd) positions in the plane, and which lie in the window
        for dim, (size, out) in enumerate(zip(sizes, out_size)):
            positions, inside = adaptive_windows(size, out)
            shape = [1] * (2 * nd)
            shape[dim], shape[nd + dim] = positions.shape
            index, valid = index * size + positions.reshape(shape), valid & inside.reshape(shape)
        # the windows are host tables of the sizes alone, moved to x's device once
        index = xp.asarray(index.reshape(tuple(out_size) + (-1,)))
        windows = x.reshape(x.shape[:-nd] + (math.prod(sizes),))[..., index]
        windows = xp.where(xp.asarray(valid.reshape(index.shape)), windows, _low(xp, x.dtype))
        local = _scan_pick(xp, windows)[..., None]
        result = xp.take_along_axis(windows, local, axis=-1)[..., 0]
        return result, xp.take_along_axis(xp.broadcast_to(index, windows.shape), local, axis=-1)[..., 0]


class AdaptiveMaxPool3D(AdaptiveMaxPool2D):
    """torch.nn.functional.adaptive_max_pool3d."""

    name = "adaptive_max_pool3d"


def _max_pool(op, nd, input, kernel_size, stride, padding, dilation, ceil_mode, name=None):
    """(values, indices) of an nd max pooling."""
    kernel, stride, padding, dilation, out = pool_arguments(
        name or op.name, input, nd, kernel_size, stride, padding, dilation, ceil_mode)
    if input.dtype.is_complex or input.dtype.name == "bool":
        raise NotImplementedError(f"\"max_pool{nd}d\" not implemented for '{input.dtype.title}'")
    return op.apply(input, kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
                    out_size=tuple(out))


def _max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode):
    """(values, indices) of a 1-D max pooling, as 2-D pooling over a height of 1 (as torch's)."""
    kernel, stride, padding, dilation = check_1d("max_pool1d", input, ("kernel_size", kernel_size),
                                                 ("stride", stride), ("padding", padding), ("dilation", dilation))
    values, indices = _max_pool(MaxPool2DWithIndices, 2, input.unsqueeze(-2), (1, kernel), (1, stride),
                                (0, padding), (1, dilation), ceil_mode)
    return values.squeeze(-2), indices.squeeze(-2)


def _sizes_1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """torch.max_pool1d's own checks (it pools without indices): the window arguments as ints."""
    shape = list(input.shape)
    check((input.ndim == 2 and all(shape)) or (input.ndim == 3 and all(shape[1:])), "max_pool1d: Expected 2D or 3D "
          f"(batch mode) tensor with optional 0 dim batch size for input, but got:{shape}")
    kernel, stride, padding, dilation = (
        (v,) if isinstance(v, int) else tuple(v) for v in (kernel_size, () if stride is None else stride, padding,
                                                          dilation))
    for argument, value, words in (("kernel_size", kernel, "an int, list of ints"), ("stride", stride, "None, an int, "
                                   "list of ints,"), ("padding", padding, "an int, list of ints,"),
                                   ("dilation", dilation, "an int, list of ints")):
        check(len(value) == 1 or (argument == "stride" and not value), f"max_pool1d() {argument} must be {words} or "
              f"tuple of ints of size 1 but got size {len(value)}")
    kernel, padding, dilation = kernel[0], padding[0], dilation[0]
    stride = stride[0] if stride else kernel
    check(kernel > 0, f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    check(stride > 0, f"max_pool1d() stride must be greater than zero, but got {stride}")
    check(padding >= 0, f"max_pool1d() padding must be non-negative, but got {padding}")
    check(padding <= kernel // 2, f"max_pool1d() padding should be at most half of kernel size, but got "
          f"padding={padding} and kernel_size={kernel}")
    check(dilation > 0, f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    out = pool_size(input.shape[-1], kernel, stride, padding, dilation, ceil_mode)
    check(out > 0, f"max_pool1d() Invalid computed output size: {out}")
    return kernel, stride, padding, dilation


@parses("max_pool1d(Tensor input, int[1] kernel_size, int[1] stride=None, int[1] padding=0, int[1] dilation=1, "
        "bool ceil_mode=False)")
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling (see torch.max_pool1d)."""
    kernel, stride, padding, dilation = _sizes_1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    require_kind(input.dtype, "max_pool1d_impl", "f")
    return _max_pool1d_with_indices(input, kernel, stride, padding, dilation, ceil_mode)[0]


@parses("max_pool2d(Tensor input, int[2] kernel_size, int[2] stride=None, int[2] padding=0, int[2] dilation=1, "
        "bool ceil_mode=False)")
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling (see torch.max_pool2d)."""
    return _max_pool(MaxPool2DWithIndices, 2, input, kernel_size, stride, padding, dilation, ceil_mode)[0]


@parses("max_pool3d(Tensor input, int[3] kernel_size, int[3] stride=None, int[3] padding=0, int[3] dilation=1, "
        "bool ceil_mode=False)")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """3-D max pooling (see torch.max_pool3d)."""
    return _max_pool(MaxPool3DWithIndices, 3, input, kernel_size, stride, padding, dilation, ceil_mode)[0]


@parses("max_pool1d_with_indices(Tensor input, int[1] kernel_size, int[1] stride=None, int[1] padding=0, "
        "int[1] dilation=1, bool ceil_mode=False)")
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """(values, indices) of a 1-D max pooling (see torch.max_pool1d_with_indices)."""
    return _max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


@parses("max_pool2d_with_indices(Tensor input, int[2] kernel_size, int[2] stride=None, int[2] padding=0, "
        "int[2] dilation=1, bool ceil_mode=False, *, Tensor[2] out=None)")
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """(values, indices) of a 2-D max pooling (see torch._C._nn.max_pool2d_with_indices)."""
    return _max_pool(MaxPool2DWithIndices, 2, input, kernel_size, stride, padding, dilation, ceil_mode)


@parses("max_pool3d_with_indices(Tensor input, int[3] kernel_size, int[3] stride=None, int[3] padding=0, "
        "int[3] dilation=1, bool ceil_mode=False, *, Tensor[2] out=None)")
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """(values, indices) of a 3-D max pooling (see torch._C._nn.max_pool3d_with_indices)."""
    return _max_pool(MaxPool3DWithIndices, 3, input, kernel_size, stride, padding, dilation, ceil_mode)


# ---- fractional max pooling -----------------------------------------------------------------------------------
class FractionalMaxPool2D(MaxPool2DWithIndices):
    """torch.nn.functional.fractional_max_pool2d: max pooling over windows of a fixed size whose starts step by a
    fractional stride, placed by one random sample per plane and dim (``samples``: (N, C, dims))."""

    name = "fractional_max_pool2d"

    @staticmethod
    def disjoint(ctx):
        """Fractional windows may overlap (random starts)."""
        return False

    @staticmethod
    def forward(xp, x, kernel_size, out_size, samples, sample_order):
        nd = len(kernel_size)
        sizes, lead = x.shape[-nd:], x.shape[:-nd]
        planes = math.prod(lead)
        samples = samples.astype(x.dtype if x.dtype.kind in "fV" else np.float64)
        index = 0  # (planes, o_1 .. o_nd, k_1 .. k_nd) positions in each plane
        for dim, (size, out, kernel) in enumerate(zip(sizes, out_size, kernel_size)):
            starts = _fractional_starts(xp, samples[:, sample_order[dim]], size, out, kernel)
            shape = [planes] + [1] * (2 * nd)
            shape[1 + dim], shape[1 + nd + dim] = out, kernel
            index = index * size + (starts[:, :, None] + xp.arange(kernel)).reshape(shape)
        # NOTE: sizes spelled out, not -1: with no planes (an empty batch) there is nothing to infer them from
        index = index.reshape((planes,) + tuple(out_size) + (math.prod(kernel_size),))
        flat = x.reshape(planes, math.prod(sizes))
        windows = xp.take_along_axis(flat, index.reshape(planes, math.prod(index.shape[1:])), axis=1)
        windows = windows.reshape(index.shape)
        local = _scan_pick(xp, windows)[..., None]
        result = xp.take_along_axis(windows, local, axis=-1)[..., 0]
        indices = xp.take_along_axis(index, local, axis=-1)[..., 0]
        return result.reshape(lead + tuple(out_size)), indices.reshape(lead + tuple(out_size)).astype(xp.int64)


class FractionalMaxPool3D(FractionalMaxPool2D):
    """torch.nn.functional.fractional_max_pool3d."""

    name = "fractional_max_pool3d"


def _fractional_starts(xp, sample, size, out, kernel):
    """Window starts floor((i + u) alpha) - floor(u alpha), alpha = (size - kernel) / (out - 1), the last window at
    the end; computed in the samples' dtype, as torch's kernel, so that rounding picks the same starts."""
    starts = xp.zeros((len(sample), out), dtype=np.int64)
    if out > 1:
        alpha = sample.dtype.type(size - kernel) / sample.dtype.type(out - 1)
        steps = xp.arange(out - 1, dtype=sample.dtype)
        offset = (sample * alpha).astype(np.int64)[:, None]
        starts[:, :-1] = ((steps + sample[:, None]) * alpha).astype(np.int64) - offset
    if out > 0:
        starts[:, -1] = size - kernel
    return starts


def _fractional_max_pool(op, nd, input, kernel_size, output_size, samples):
    """(values, indices) of torch's fractional_max_pool2d/3d, with its checks in its order."""
    name = op.name
    kernel_size, output_size = int_list(kernel_size, nd), int_list(output_size, nd)
    ints = "tuple of Ints" if nd == 2 else "tuple of three Ints"
    check(len(kernel_size) == nd, f"{name}: kernel_size must either be a single Int or {ints}")
    check(len(output_size) == nd, f"{name}: output_size must either be a single Int or {ints}")
    kernel, out = kernel_size, output_size
    check(samples.dtype == input.dtype, "Expect _random_samples to have the same dtype as input")
    check(input.ndim in (nd + 1, nd + 2), f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
          f"{list(input.shape)}" if nd == 2 else f"fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: "
          f"{list(input.shape)}")
    check(samples.ndim == 3 and samples.shape[0] >= (input.shape[0] if input.ndim == nd + 2 else 1),
          "Expect _random_samples.size(0) no less then input batch size.")
    check(samples.shape[1] == input.shape[-nd - 1], "Expect _random_samples.size(1) equals to input channel size.")
    check(samples.shape[2] == nd, f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}.")
    names = ("time", "height", "width")[3 - nd:]
    where = f"{name}_out()" if nd == 3 else f"{name}()"
    for size, o, k, dim in zip(input.shape[-nd:], out, kernel, names):
        fits = o + k - 1 < size if nd == 3 else o + k - 1 <= size  # NOTE: torch's 3-d check is strict, its 2-d not
        check(fits, f"{where}: pool {dim} {k} too large relative to input {dim} {size}")
    require_kind(input.dtype, f"fractional_max_pool{nd}d_out_frame", "f")
    _check_sizes(input.shape[:-nd], out)
    order = (1, 0) if nd == 2 else (0, 1, 2)  # torch's sample for the width comes first in 2-d
    planes = math.prod(input.shape[:-nd])  # extra samples (a larger batch) go unused
    samples = samples._data.reshape(-1, nd)[:planes]
    if min(kernel) <= 0 or min(out) == 0:  # no window, or empty ones: each maximum stays -inf at its start
        return _empty_windows(input, kernel, out, samples, order)
    return op.apply(input, kernel_size=kernel, out_size=out, samples=samples, sample_order=order)


def _check_sizes(lead, out):
    """PyTorch's error for allocating a result of a negative size."""
    negative = [size for size in out if size < 0]
    if negative:
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {[*lead, *out]}")


def _empty_windows(input, kernel, out, samples, order):
    from ndgrad._tensor import Tensor

    xp = namespace_of(input._data)
    nd, lead, sizes = len(kernel), input.shape[:-len(kernel)], input.shape[-len(kernel):]
    samples = samples.astype(input._data.dtype)
    index = 0
    for dim, (size, o, k) in enumerate(zip(sizes, out, kernel)):
        starts = _fractional_starts(xp, samples[:, order[dim]], size, o, k)
        shape = [starts.shape[0]] + [1] * nd
        shape[1 + dim] = o
        index = index * size + starts.reshape(shape)
    index = xp.broadcast_to(index, (math.prod(lead), *out)).reshape(*lead, *out)
    values = xp.full(index.shape, -xp.inf, dtype=input._data.dtype)
    return Tensor._wrap(values), Tensor._wrap(xp.asarray(index, dtype=np.int64))


@parses("fractional_max_pool2d(Tensor input, int[2] kernel_size, int[2] output_size, Tensor random_samples, *, "
        "Tensor[2] out=None)")
def fractional_max_pool2d(input, kernel_size, output_size, random_samples):
    """(values, indices) of 2-D fractional max pooling (see torch._C._nn.fractional_max_pool2d)."""
    return _fractional_max_pool(FractionalMaxPool2D, 2, input, kernel_size, output_size, random_samples)


@parses("fractional_max_pool3d(Tensor input, int[3] kernel_size, int[3] output_size, Tensor random_samples, *, "
        "Tensor[2] out=None)")
def fractional_max_pool3d(input, kernel_size, output_size, random_samples):
    """(values, indices) of 3-D fractional max pooling (see torch._C._nn.fractional_max_pool3d)."""
    return _fractional_max_pool(FractionalMaxPool3D, 3, input, kernel_size, output_size, random_samples)


def _non_empty(name, input, ending=""):
    """The adaptive poolings refuse empty non-batch dims."""
    for dim in range(1, input.ndim):
        check(input.shape[dim] > 0, f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
              f"input has sizes {list(input.shape)} with dimension {dim} being empty{ending}")


def _adaptive_max_pool(op, nd, input, output_size, kernel):
    name, output_size = op.name, int_list(output_size, nd)
    check(input.ndim in (nd + 1, nd + 2), f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
          f"{list(input.shape)}")
    _non_empty(name, input)
    check(len(output_size) == nd, f"{name}(): internal error: output_size.size() must be {nd}")
    _check_sizes(input.shape[:-nd], tuple(output_size))
    require_kind(input.dtype, kernel, "f")
    return op.apply(input, out_size=tuple(output_size))


@parses("adaptive_max_pool2d(Tensor input, int[2] output_size, *, Tensor[2] out=None)")
def adaptive_max_pool2d(input, output_size):
    """(values, indices) of 2-D max pooling over nearly equal windows (see torch._C._nn.adaptive_max_pool2d)."""
    return _adaptive_max_pool(AdaptiveMaxPool2D, 2, input, output_size, "adaptive_max_pool2d")


@parses("adaptive_max_pool3d(Tensor input, int[3] output_size, *, Tensor[2] out=None)")
def adaptive_max_pool3d(input, output_size):
    """(values, indices) of 3-D max pooling over nearly equal windows (see torch._C._nn.adaptive_max_pool3d)."""
    return _adaptive_max_pool(AdaptiveMaxPool3D, 3, input, output_size, "adaptive_max_pool3d_cpu")


@parses("adaptive_max_pool1d(Tensor input, int[1] output_size)")
def adaptive_max_pool1d(input, output_size):
    """(values, indices) of 1-D adaptive max pooling, as 2-D pooling over a height of 1 (see
    torch.adaptive_max_pool1d)."""
    check(input.ndim in (2, 3), f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
          "#1 'self' (while checking arguments for adaptive_max_pool1d)")
    _non_empty("adaptive_max_pool1d", input)
    output_size = int_list(output_size, 1)
    check(len(output_size) == 1, f"adaptive_max_pool1d() argument 'output_size' should contain one int (got "
          f"{len(output_size)})")
    result, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, output_size[0]))
    return result.squeeze(-2), indices.squeeze(-2)


# ---- max unpooling --------------------------------------------------------------------------------------------
class MaxUnpool2D(Op):
    """torch.nn.functional.max_unpool2d: each value written at its index in a zero plane of output_size."""

    name, family = "max_unpool2d", SHAPE

    @staticmethod
    def forward(xp, x, indices, output_size):
        nd = len(output_size)
        planes, cells = plane_sizes(x.shape, nd)
        out = xp.zeros((planes, math.prod(output_size)), dtype=x.dtype)
        xp.put_along_axis(out, indices.reshape(planes, cells), x.reshape(planes, cells), axis=1)
        return out.reshape(x.shape[:-nd] + tuple(output_size))

    formula = "grad_self = grad.gather(indices)"
    @staticmethod
    def vjp(ctx, grad):
        shape, nd = ctx.input_shapes[0], len(ctx.output_size)
        planes, cells = plane_sizes(shape, nd)
        flat = grad.reshape(planes, math.prod(ctx.output_size))
        return (Gather.apply(flat, index=ctx.indices.reshape(planes, cells)).reshape(shape),)

    @classmethod
    def jvp(cls, ctx, x_t):
        return cls.apply(x_t, indices=ctx.indices, output_size=ctx.output_size)


class MaxUnpool3D(MaxUnpool2D):
    """torch.nn.functional.max_unpool3d."""

    name = "max_unpool3d"


def _max_unpool(op, nd, input, indices, output_size, stride=None, padding=None):
    """torch's max_unpool2d and max_unpool3d, with their checks in their order."""
    output_size = int_list(output_size, nd)
    stride, padding = (None, None) if nd == 2 else (int_list(stride, nd), int_list(padding, nd))
    check(indices.dtype.title == "Long", f"elements in indices should be type int64 but got: {indices.dtype.title}")
    names = "(height, width)" if nd == 2 else "(depth, height, width)"
    count = "two" if nd == 2 else "three"
    if nd == 2:
        check(len(output_size) == 2, f"There should be exactly two elements {names} in output_size, but got "
              f"{len(output_size)} elements.")
    check(input.ndim in (nd + 1, nd + 2), f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d Tensor, "
          f"but got a tensor with {input.ndim} dimensions.")
    if nd == 3:
        check(len(output_size) == 3, f"There should be exactly three elements {names} in output_size, but got "
              f"{len(output_size)} elements.")
        for argument, values in (("stride", stride), ("padding", padding)):
            check(len(values) == 3, f"There should be exactly {count} elements {names} in {argument}, but got: "
                  f"{len(values)} elements.")
    check(indices.shape == input.shape, f"Expected shape of indices to be same as that of the input tensor "
          f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    where = f"max_unpooling{nd}d_forward_out_cpu()"
    for dim in range(1, input.ndim):
        check(input.shape[dim] > 0, f"{where}: Expected input to have non-zero size for non-batch dimensions, but got "
              f"{list(input.shape)} with dimension {dim} being empty.")
    if nd == 3:
        check(min(stride) > 0, f"strides should be greater than zero, but got stride: {list(stride)}")
    require_kind(input.dtype, f"max_unpool{nd}d", "f")
    values = indices._data
    wrong = (values < 0) | (values >= math.prod(output_size))
    check(not wrong.any(), f"Found an invalid max index: {int(values[wrong].reshape(-1)[-1]) if wrong.any() else 0} "
          f"(output volumes are of size {'x'.join(map(str, output_size))})")
    return op.apply(input, indices=indices._data, output_size=tuple(output_size))


@parses("max_unpool2d(Tensor input, Tensor indices, SymInt[2] output_size, *, Tensor out=None)")
def max_unpool2d(input, indices, output_size):
    """The partial inverse of max_pool2d (see torch._C._nn.max_unpool2d)."""
    return _max_unpool(MaxUnpool2D, 2, input, indices, output_size)


@parses("max_unpool3d(Tensor input, Tensor indices, SymInt[3] output_size, int[3] stride, int[3] padding, *, "
        "Tensor out=None)")
def max_unpool3d(input, indices, output_size, stride, padding):
    """The partial inverse of max_pool3d (see torch._C._nn.max_unpool3d)."""
    return _max_unpool(MaxUnpool3D, 3, input, indices, output_size, stride, padding)
