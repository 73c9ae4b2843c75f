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


def pool_arguments(name, input, nd, kernel_size, stride, padding, dilation, ceil_mode, divisor_override=None):
    """Window arguments as nd-tuples, checked in the order torch's max and avg pooling check them, and the output
    sizes. ``dilation`` None: average pooling (which has none, and checks the input's dims in its own way)."""
    count, letters, average = COUNTS[nd], "THW"[3 - nd:], dilation is None
    verb = "must be" if name == "avg_pool3d" else "must either be"
    kernel = as_tuple(kernel_size, nd, f"{name}: kernel_size {verb} a single int, or a tuple of {count} ints")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else as_tuple(
        stride, nd, f"{name}: stride {verb} omitted, a single int, or a tuple of {count} ints")
    padding = as_tuple(padding, nd, f"{name}: padding {verb} a single int, or a tuple of {count} ints")
    dilation = (1,) * nd if average else as_tuple(
        dilation, nd, f"{name}: dilation must be either a single int, or a tuple of {count} ints")
    check(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    if not (average and nd == 2):  # avg_pool2d reads the sizes first (IndexError for fewer dims)
        check(input.ndim in (nd + 1, nd + 2),
              f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    planes = input.size(-nd - 1)
    sizes = [input.size(d) for d in range(-nd, 0)]
    out = [pool_size(*args, ceil_mode) for args in zip(sizes, kernel, stride, padding, dilation)]

    def listed(prefix, values):
        return " ".join(f"{prefix}{letter}: {v}" for letter, v in zip(letters, values))

    check(min(kernel) > 0, f"kernel size should be greater than zero, but got {listed('k', kernel)}")
    check(min(stride) > 0, f"stride should be greater than zero, but got {listed('d', stride)}")
    check(min(dilation) > 0, f"dilation should be greater than zero, but got {listed('dilation', dilation)}")
    shape = list(input.shape)
    if nd == 2:
        check(input.ndim in (3, 4) and all(shape[1:]) and (input.ndim == 4 or shape[0]),
              f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{shape}")
        check(all(k // 2 >= p for k, p in zip(kernel, padding)), "pad should be smaller than or equal to half of "
              f"kernel size, but got padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
    else:
        where = "avg_pool3d()" if average else "max_pool3d_with_indices_out_cpu_template()"
        for extent in shape[1:] if input.ndim == 5 else shape:
            check(extent > 0, f"{where}: Expected input's non-batch dimensions to have positive length, but input has "
                  f"a shape of {shape} and non-batch dimension {extent} has length zero!")
        if average:
            check(all(n >= k for n, k in zip(sizes, kernel)), f"input image ({listed('', sizes)}) smaller than kernel "
                  f"size ({listed('k', kernel)})")
        check(all(k // 2 >= p for k, p in zip(kernel, padding)), "pad should be smaller than or equal to half of "
              f"kernel size, but got kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} padT: {padding[0]} padW: "
              f"{padding[2]} padH: {padding[1]}")
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, [planes, *sizes]))}). Calculated output size: "
                           f"({'x'.join(map(str, [planes, *out]))}). Output size is too small")
    return kernel, stride, padding, dilation, out


def pool_size(size, kernel, stride, padding, dilation, ceil_mode):
    """The output length of a pooling window sliding over ``size`` (torch's pooling_output_shape, with its checks)."""
    check(stride != 0, "stride should not be zero")
    check(padding >= 0, f"pad must be non-negative, but got pad: {padding}")
    check(padding <= int(((kernel - 1) * dilation + 1) / 2),  # NOTE: C++'s division, towards zero
          f"pad should be at most half of effective kernel size, but got pad={padding}, kernel_size={kernel} and "
          f"dilation={dilation}")
    out = (size + 2 * padding - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1  # the last window must start inside the input or its left padding
    return out


def check_1d(name, input, *arguments):
    """max_pool1d_with_indices' and avg_pool1d's checks before they pool in 2-d: the dims, then each argument one
    int; returns the ints (an omitted stride is the kernel size)."""
    check(input.ndim in (2, 3), f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
          f"#1 'self' (while checking arguments for {name})")
    values = []
    for argument, value in arguments:
        if argument == "stride" and (value is None or (not isinstance(value, int) and len(value) == 0)):
            value = values[0]
        value = (value,) if isinstance(value, int) else tuple(value)
        check(len(value) == 1, f"{name}() argument '{argument}' should contain one int (got {len(value)})")
        values.append(value[0])
    return values
