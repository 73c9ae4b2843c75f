"""Pooling windows, shared by max and average pooling: the window arguments and output sizes as torch checks and
computes them, and the nearly equal windows of adaptive pooling."""

import math

import numpy as np

from ndgrad.ops._separable import as_tuple, check

COUNTS = {1: "one", 2: "two", 3: "three"}


def plane_sizes(shape, nd):
    """(planes, cells): the leading dims flattened, and the spatial ones (explicit: planes may be 0)."""
    return math.prod(shape[:-nd]), math.prod(shape[-nd:])


def adaptive_windows(size, out):
    """Window o covers [floor(o * size / out), ceil((o + 1) * size / out)): its positions, padded to one length
    (host tables of the sizes, which the pooling ops move to the data's device)."""
    start = np.arange(out) * size // out
    end = -(-(np.arange(out) + 1) * size // out)
    positions = start[:, None] + np.arange((end - start).max(initial=1))
    valid = positions < end[:, None]
    return np.where(valid, positions, start[:, None]), valid


def pool_arguments(name, input, nd, kernel_size, stride, padding, dilation, ceil_mode, verb="must either be"):
    """Window arguments as nd-tuples, checked as torch checks them, and the output sizes."""
    count, letters = COUNTS[nd], "THW"[3 - nd:]
    kernel = as_tuple(kernel_size, nd, f"{name}: kernel_size {verb} a single int, or a tuple of {count} ints")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else as_tuple(
        stride, nd, f"{name}: stride {verb} omitted, a single int, or a tuple of {count} ints")
    padding = as_tuple(padding, nd, f"{name}: padding {verb} a single int, or a tuple of {count} ints")
    dilation = as_tuple(dilation, nd, f"{name}: dilation must be either a single int, or a tuple of {count} ints")

    def listed(prefix, values):
        return " ".join(f"{prefix}{letter}: {v}" for letter, v in zip(letters, values))

    check(0 not in stride, "stride should not be zero")
    check(min(kernel) > 0, f"kernel size should be greater than zero, but got {listed('k', kernel)}")
    check(min(stride) > 0, f"stride should be greater than zero, but got {listed('d', stride)}")
    check(min(dilation) > 0, f"dilation should be greater than zero, but got {listed('dilation', dilation)}")
    for k, p, d in zip(kernel, padding, dilation):
        check(p <= ((k - 1) * d + 1) // 2, "pad should be at most half of effective kernel size, but got "
              f"pad={p}, kernel_size={k} and dilation={d}")
    shape = input.shape
    check(input.ndim in (nd + 1, nd + 2) and all(shape[1:]),
          f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    if name == "avg_pool3d":
        check(all(n >= k for n, k in zip(shape[-nd:], kernel)), f"input image ({listed('', shape[-nd:])}) smaller "
              f"than kernel size ({listed('k', kernel)})")
    out = [pool_size(*args, ceil_mode) for args in zip(shape[-nd:], kernel, stride, padding, dilation)]
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, shape[-nd - 1:]))}). Calculated output size: "
                           f"({shape[-nd - 1]}x{'x'.join(map(str, out))}). Output size is too small")
    return kernel, stride, padding, dilation, out


def pool_size(size, kernel, stride, padding, dilation, ceil_mode):
    """The output length of a pooling window sliding over ``size`` (torch's pooling_output_shape)."""
    out = (size + 2 * padding - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1  # the last window must start inside the input or its left padding
    return out


def single(value, name, argument, stride=False):
    if stride and (value is None or (not isinstance(value, int) and len(value) == 0)):
        return None
    return as_tuple(value, 1, f"{name}() {argument} must be a single int")[0]


def adaptive_size(name, input, output_size, nd):
    size = as_tuple(output_size, nd, f"{name}: output_size must be {nd}")
    size = tuple(input.shape[-nd + i] if s is None else s for i, s in enumerate(size))
    received = ", ".join(map(str, size)) if nd < 3 else f"{size[0]}, {size[1]},{size[2]}"
    check(min(size) >= 0, f"{name}: elements of output_size must be greater than or equal to 0 but received "
          f"{{{received}}}")
    return size


def require_float(input, kernel):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")
