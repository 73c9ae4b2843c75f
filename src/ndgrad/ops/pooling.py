"""Average pooling over 1 to 3 spatial dims: sliding and adaptive windows.

Average pooling is linear and separable: one matrix per spatial dim (see _separable.Separable), a NumPy table of
the sizes alone, built on the host whatever the device of the data. The 1-d forms are 2-d ones over a height of 1,
as torch builds them.
"""

from functools import lru_cache

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad.ops._checks import int_list, require_kind
from ndgrad.ops._op import REDUCTION
from ndgrad.ops._pool_windows import adaptive_windows, check_1d, pool_arguments
from ndgrad.ops._separable import Separable, SparseMatrix, check

__all__ = ["avg_pool1d", "adaptive_avg_pool1d"]
FUNCTIONAL = ["avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d"]  # the rest: functional_pooling


class AdaptiveAvgPool2D(Separable):
    """torch.nn.functional.adaptive_avg_pool2d."""

    name, family = "adaptive_avg_pool2d", REDUCTION


class AdaptiveAvgPool3D(AdaptiveAvgPool2D):
    """torch.nn.functional.adaptive_avg_pool3d."""

    name = "adaptive_avg_pool3d"


@lru_cache(maxsize=256)  # the matrices depend on sizes alone, and a network pools the same sizes at every step
def _adaptive_average_matrix(size, out):
    positions, valid = adaptive_windows(size, out)
    return SparseMatrix(positions, 1 / valid.sum(axis=1, keepdims=True), size, valid)


def _adaptive_avg_pool(op, nd, input, output_size, kernel):
    """torch's adaptive_avg_pool2d/3d: a plain mean over the spatial dims for an output of ones, as torch's."""
    name, output_size = op.name, int_list(output_size, nd)
    check(len(output_size) == nd, f"{name}: output_size must be {nd}")
    received = ", ".join(map(str, output_size)) if nd < 3 else f"{output_size[0]}, {output_size[1]},{output_size[2]}"
    check(min(output_size) >= 0, f"{name}: elements of output_size must be greater than or equal to 0 but received "
          f"{{{received}}}")
    if tuple(output_size) == (1,) * nd:
        return input.mean(tuple(range(-1, -nd - 1, -1)), keepdim=True)  # the dims in torch's order, last first
    check(input.ndim in (nd + 1, nd + 2), f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got "
          f"{list(input.shape)}")
    for dim in range(1, input.ndim):
        check(input.shape[dim] > 0, f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
              f"input has sizes {list(input.shape)} with dimension {dim} being empty")
    require_kind(input.dtype, kernel, "f")
    matrices = tuple(_adaptive_average_matrix(n, o) for n, o in zip(input.shape[-nd:], output_size))
    return op.apply(input, matrices=matrices)


@parses("adaptive_avg_pool2d(Tensor input, SymInt[2] output_size, *, Tensor out=None)")
def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling over nearly equal windows (see torch._C._nn.adaptive_avg_pool2d)."""
    return _adaptive_avg_pool(AdaptiveAvgPool2D, 2, input, output_size, "adaptive_avg_pool2d")


@parses("adaptive_avg_pool3d(Tensor input, SymInt[3] output_size, *, Tensor out=None)")
def adaptive_avg_pool3d(input, output_size):
    """3-D average pooling over nearly equal windows (see torch._C._nn.adaptive_avg_pool3d)."""
    return _adaptive_avg_pool(AdaptiveAvgPool3D, 3, input, output_size, "adaptive_avg_pool3d_cpu")


@parses("adaptive_avg_pool1d(Tensor input, int[1] output_size)")
def adaptive_avg_pool1d(input, output_size):
    """See torch.nn.functional.adaptive_avg_pool1d."""
    check(input.ndim in (2, 3), f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
          "#1 'self' (while checking arguments for adaptive_avg_pool1d)")
    for dim in range(1, input.ndim):
        check(input.shape[dim] > 0, "adaptive_avg_pool1d(): Expected input to have non-zero size for non-batch "
              f"dimensions, but input has sizes {list(input.shape)} with dimension {dim} being empty")
    output_size = int_list(output_size, 1)
    check(len(output_size) == 1, f"adaptive_avg_pool1d() argument 'output_size' should contain one int (got "
          f"{len(output_size)})")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size[0])).squeeze(-2)


class AvgPool2D(Separable):
    """torch.nn.functional.avg_pool2d."""

    name, family = "avg_pool2d", REDUCTION


class AvgPool3D(AvgPool2D):
    """torch.nn.functional.avg_pool3d."""

    name = "avg_pool3d"


@lru_cache(maxsize=256)
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


# the kernels' dtypes among the non-floating ones, where NumPy would compute any
_AVG_KERNELS = {2: ("avg_pool2d", ("float16", "bfloat16", "float32", "float64", "int64")),
                3: ("avg_pool3d_out_frame", ("float32", "float64", "int64"))}


def _avg_pool(op, nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    kernel, stride, padding, _, out = pool_arguments(op.name, input, nd, kernel_size, stride, padding, None,
                                                      ceil_mode, divisor_override)
    name, dtypes = _AVG_KERNELS[nd]
    if input.dtype.name not in dtypes:
        raise NotImplementedError(f"\"{name}\" not implemented for '{input.dtype.title}'")
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
    """See torch.avg_pool1d: avg_pool2d over a height of 1."""
    kernel, stride, padding = check_1d("avg_pool1d", input, ("kernel_size", kernel_size), ("stride", stride),
                                       ("padding", padding))
    return avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), ceil_mode,
                      count_include_pad).squeeze(-2)


class PoolingMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
