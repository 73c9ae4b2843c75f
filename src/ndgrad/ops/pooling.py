"""Average pooling over 1 to 3 spatial dims: sliding and adaptive windows, and power-average (lp) pooling.

Average pooling is linear and separable: one matrix per spatial dim (see _separable.Separable), a NumPy table of
the sizes alone, built on the host whatever the device of the data. The 1-d forms are 2-d ones over a height of 1,
as torch builds them.
"""

import math

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad.ops._checks import no_complex_kernel
from ndgrad.ops._op import REDUCTION
from ndgrad.ops._pool_windows import adaptive_size, adaptive_windows, pool_arguments, require_float, single
from ndgrad.ops._separable import Separable, SparseMatrix, as_tuple, check
from ndgrad.ops.max_pooling import max_pool1d, max_pool2d, max_pool3d

__all__ = ["avg_pool1d", "adaptive_avg_pool1d"]
FUNCTIONAL = [
    "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "lp_pool1d", "lp_pool2d", "lp_pool3d",
]


class AdaptiveAvgPool2D(Separable):
    """torch.nn.functional.adaptive_avg_pool2d."""

    name, family = "adaptive_avg_pool2d", REDUCTION


class AdaptiveAvgPool3D(AdaptiveAvgPool2D):
    """torch.nn.functional.adaptive_avg_pool3d."""

    name = "adaptive_avg_pool3d"


def _adaptive_average_matrix(size, out):
    positions, valid = adaptive_windows(size, out)
    return SparseMatrix(positions, 1 / valid.sum(axis=1, keepdims=True), size, valid)


def _adaptive_avg_pool(op, nd, input, output_size):
    size = adaptive_size(op.name, input, output_size, nd)
    if size == (1,) * nd:  # as torch: a plain mean
        return input.mean(tuple(range(-nd, 0)), keepdim=True)
    matrices = tuple(_adaptive_average_matrix(n, o) for n, o in zip(input.shape[-nd:], size))
    return op.apply(input, matrices=matrices)


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling over nearly equal windows (see torch.nn.functional.adaptive_avg_pool2d)."""
    check(input.ndim in (3, 4), f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    require_float(input, "adaptive_avg_pool2d")
    return _adaptive_avg_pool(AdaptiveAvgPool2D, 2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """3-D average pooling over nearly equal windows (see torch.nn.functional.adaptive_avg_pool3d)."""
    check(input.ndim in (4, 5), f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    require_float(input, "adaptive_avg_pool3d_cpu")
    return _adaptive_avg_pool(AdaptiveAvgPool3D, 3, input, output_size)


@parses("adaptive_avg_pool1d(Tensor input, int[1] output_size)")
def adaptive_avg_pool1d(input, output_size):
    """See torch.nn.functional.adaptive_avg_pool1d."""
    check(input.ndim in (2, 3), f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
          "#1 'self' (while checking arguments for adaptive_avg_pool1d)")
    size = as_tuple(output_size, 1, "adaptive_avg_pool1d: output_size must be 1")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size[0])).squeeze(-2)


class AvgPool2D(Separable):
    """torch.nn.functional.avg_pool2d."""

    name, family = "avg_pool2d", REDUCTION


class AvgPool3D(AvgPool2D):
    """torch.nn.functional.avg_pool3d."""

    name = "avg_pool3d"


def _average_matrix(size, kernel, stride, padding, out, count_include_pad, divisor):
    """The (out, size) SparseMatrix of one dim of avg pooling; ``divisor``: this dim's share of divisor_override."""
    start = np.arange(out) * stride - padding
    end = np.minimum(start + kernel, size + padding)
    count = end - start  # the window with its padding
    start, end = np.maximum(start, 0), np.minimum(end, size)
    positions = start[:, None] + np.arange(kernel)
    valid = positions < end[:, None]
    weights = 1.0 / np.broadcast_to(divisor or (count if count_include_pad else end - start), (out,))
    return SparseMatrix(np.where(valid, positions, 0), weights[:, None], size, valid)


def _avg_pool(op, nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    check(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    verb = "must be" if nd == 3 else "must either be"
    kernel, stride, padding, _, out = pool_arguments(op.name, input, nd, kernel_size, stride, padding, 1,
                                                      ceil_mode, verb)
    no_complex_kernel("avg_pool3d_out_frame" if nd == 3 else "avg_pool2d", input)
    divisors = (divisor_override,) + (1,) * (nd - 1) if divisor_override else (None,) * nd
    matrices = tuple(_average_matrix(n, *args, count_include_pad, d)
                     for n, args, d in zip(input.shape[-nd:], zip(kernel, stride, padding, out), divisors))
    return op.apply(input, matrices=matrices)


@parses("avg_pool2d(Tensor input, int[2] kernel_size, int[2] stride=None, int[2] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True, int? divisor_override=None, *, Tensor out=None)")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling (see torch.nn.functional.avg_pool2d)."""
    return _avg_pool(AvgPool2D, 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@parses("avg_pool3d(Tensor input, int[3] kernel_size, int[3] stride=None, int[3] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True, int? divisor_override=None, *, Tensor out=None)")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-D average pooling (see torch.nn.functional.avg_pool3d)."""
    return _avg_pool(AvgPool3D, 3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@parses("avg_pool1d(Tensor input, int[1] kernel_size, int[1] stride=None, int[1] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True)")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """See torch.nn.functional.avg_pool1d."""
    check(input.ndim in (2, 3), f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
          "#1 'self' (while checking arguments for avg_pool1d)")
    kernel = as_tuple(kernel_size, 1, "")[0]
    stride = single(stride, "avg_pool1d", "stride", stride=True) or kernel
    return avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, as_tuple(padding, 1, "")[0]), ceil_mode,
                      count_include_pad).squeeze(-2)


def _lp_pool(nd, max_pool, avg_pool, input, norm_type, kernel_size, stride, ceil_mode):
    """Power-average pooling, the composite torch builds; an infinite norm is max pooling of |input|."""
    from ndgrad.ops.activation import relu

    kernel = (kernel_size,) * nd if isinstance(kernel_size, int) else tuple(kernel_size)
    if nd > 1 and len(kernel) != nd:  # torch unpacks the kernel size into nd names
        raise ValueError(f"not enough values to unpack (expected {nd}, got {len(kernel)})" if len(kernel) < nd else
                         f"too many values to unpack (expected {nd})")
    if norm_type == math.inf:
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """See torch.nn.functional.lp_pool1d."""
    return _lp_pool(1, max_pool1d, avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """See torch.nn.functional.lp_pool2d."""
    return _lp_pool(2, max_pool2d, avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """See torch.nn.functional.lp_pool3d."""
    return _lp_pool(3, max_pool3d, avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode)


class PoolingMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
