"""Convolutions (1-3d, transposed) through im2col and one matrix product, and unfold/fold.

One primitive, Convolution (torch.convolution), serves conv1d/2d/3d and conv_transpose1d/2d/3d; its rules are matrix
products around Im2Col (F.unfold) and Col2Im (F.fold), two linear primitives that are each other's adjoint.
"""

import math

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._dtype import legacy_type_name
from ndgrad.ops._op import MATMUL, SHAPE, Op
from ndgrad.ops.complex_numbers import view_as_real
from ndgrad.ops.shape import Select

__all__ = ["convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
FUNCTIONAL = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold",
              "fold"]


# ---- im2col / col2im on raw arrays ---------------------------------------------------------------------------
# Layout (PyTorch's unfold): cols[n, c * K + k, l] = x_padded[n, c, o * stride + k * dilation] for kernel offset k
# (flattened over the spatial dims, K of them) and output position o (flattened: l).
def _out_sizes(sizes, kernel_size, dilation, padding, stride):
    return tuple((i + lo + hi - d * (k - 1) - 1) // s + 1
                 for i, k, d, (lo, hi), s in zip(sizes, kernel_size, dilation, padding, stride))


def _im2col(xp, x, kernel_size, dilation, padding, stride):
    """(N, C, *I) -> (N, C * prod(kernel), L): every window as a column, one strided view copied once."""
    if any(lo or hi for lo, hi in padding):
        x = xp.pad(x, ((0, 0), (0, 0), *padding))
    n, c, *sizes = x.shape
    nd = len(kernel_size)
    out = _out_sizes(sizes, kernel_size, dilation, ((0, 0),) * nd, stride)
    strides = x.strides
    view = xp.lib.stride_tricks.as_strided(
        x, (n, c, *kernel_size, *out),
        (*strides[:2], *(t * d for t, d in zip(strides[2:], dilation)), *(t * s for t, s in zip(strides[2:], stride))),
    )
    return view.reshape(n, c * math.prod(kernel_size), math.prod(out))


def _col2im(xp, cols, output_size, kernel_size, dilation, padding, stride, positions=None):
    """The adjoint of _im2col: each column added back where its window lies (a loop over kernel offsets only).
    ``positions``: the window grid, where output_padding (>= stride) leaves room for more windows than cols hold."""
    n, ck, _ = cols.shape
    c = ck // math.prod(kernel_size)
    padded = tuple(i + lo + hi for i, (lo, hi) in zip(output_size, padding))
    out = positions or _out_sizes(padded, kernel_size, dilation, ((0, 0),) * len(padded), stride)
    cols = cols.reshape(n, c, *kernel_size, *out)
    result = xp.zeros((n, c, *padded), dtype=cols.dtype)
    for offset in np.ndindex(*kernel_size):
        window = tuple(slice(k * d, k * d + s * (o - 1) + 1, s) for k, d, s, o in zip(offset, dilation, stride, out))
        result[(slice(None), slice(None), *window)] += cols[(slice(None), slice(None), *offset)]
    crop = tuple(slice(lo, lo + i) for (lo, _), i in zip(padding, output_size))
    return result[(slice(None), slice(None), *crop)]


def _batched(xp, forward, x, nd, *args):
    """Run a batched forward on an unbatched input (one dim fewer) by adding and removing the batch dim."""
    if x.ndim == nd + 1:
        return forward(xp, x[None], *args)[0]
    return forward(xp, x, *args)


def _window(ctx):
    return {"kernel_size": ctx.kernel_size, "dilation": ctx.dilation, "padding": ctx.padding, "stride": ctx.stride}


class Im2Col(Op):
    """F.unfold, for any number of spatial dims: padding is a (low, high) pair per dim."""

    name, family = "unfold", SHAPE

    @staticmethod
    def forward(xp, x, kernel_size, dilation, padding, stride):
        return _batched(xp, _im2col, x, len(kernel_size), kernel_size, dilation, padding, stride)

    formula = "grad_self = col2im(grad)  (overlapping windows add up)"
    @staticmethod
    def vjp(ctx, grad):
        shape = ctx.input_shapes[0]
        return (Col2Im.apply(grad, output_size=shape[len(shape) - len(ctx.kernel_size):], **_window(ctx)),)

    @staticmethod
    def jvp(ctx, x_t):
        return Im2Col.apply(x_t, **_window(ctx))


class Col2Im(Op):
    """F.fold: sums the columns back into an image of ``output_size``."""

    name, family = "fold", SHAPE

    @staticmethod
    def forward(xp, x, output_size, kernel_size, dilation, padding, stride):
        if x.ndim == 2:
            return _col2im(xp, x[None], output_size, kernel_size, dilation, padding, stride)[0]
        return _col2im(xp, x, output_size, kernel_size, dilation, padding, stride)

    formula = "grad_self = im2col(grad)"
    @staticmethod
    def vjp(ctx, grad):
        return (Im2Col.apply(grad, **_window(ctx)),)

    @staticmethod
    def jvp(ctx, x_t):
        return Col2Im.apply(x_t, output_size=ctx.output_size, **_window(ctx))


# ---- the convolution primitive ---------------------------------------------------------------------------------
class Convolution(Op):
    """torch.convolution: input (N, C_in, *I), weight (C_out, C_in / groups, *K) or, transposed,
    (C_in, C_out / groups, *K); padding is a (low, high) pair per spatial dim."""

    name, family = "convolution", MATMUL
    saves = ("x", "weight")

    @staticmethod
    def forward(xp, x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
        n, kernel = x.shape[0], weight.shape[2:]
        if not transposed:
            cols = _im2col(xp, x, kernel, dilation, padding, stride)  # (N, C_in K, L)
            cols = cols.reshape(n, groups, cols.shape[1] // groups, cols.shape[-1])
            out = xp.matmul(weight.reshape(groups, weight.shape[0] // groups, -1), cols)  # (N, G, C_out/G, L)
            sizes = _out_sizes(x.shape[2:], kernel, dilation, padding, stride)
        else:
            sizes = _transposed_sizes(x.shape[2:], kernel, dilation, padding, stride, output_padding)
            w = weight.reshape(groups, weight.shape[0] // groups, -1)  # (G, C_in/G, C_out/G K)
            # NOTE: sizes spelled out, not -1, in every reshape here: with no samples (n = 0) there is nothing to
            # infer them from
            columns = x.reshape(n, groups, w.shape[1], math.prod(x.shape[2:]))
            cols = xp.matmul(w.transpose(0, 2, 1), columns)  # (N, G, C_out/G K, L)
            out = _col2im(xp, cols.reshape(n, groups * cols.shape[2], cols.shape[-1]), sizes, kernel, dilation,
                          padding, stride, positions=x.shape[2:])
        out = out.reshape(n, weight.shape[1] * groups if transposed else weight.shape[0], *sizes)
        if bias is not None:
            out += bias.reshape(-1, *(1,) * len(sizes))
        return out

    formula = "grad_input = conv_transpose(grad, weight); grad_weight = conv(input, grad); grad_bias = sum(grad)"
    @staticmethod
    def vjp(ctx, grad):
        x, weight = ctx.saved_tensors
        g, kernel, n = ctx.groups, weight.shape[2:], x.shape[0]
        args = {"kernel_size": kernel, "dilation": ctx.dilation, "padding": ctx.padding, "stride": ctx.stride}
        w = weight.reshape(g, weight.shape[0] // g, -1)
        needs = ctx.needs_input_grad
        grad_x = grad_weight = grad_bias = None
        if not ctx.transposed:
            grad_groups = grad.reshape(n, g, w.shape[1], math.prod(grad.shape[2:]))  # (N, G, C_out/G, L)
            if needs[0]:
                cols = (w.transpose(1, 2) @ grad_groups).reshape(n, g * w.shape[2], grad_groups.shape[-1])
                grad_x = Col2Im.apply(cols, output_size=x.shape[2:], **args)
            if needs[1]:
                cols = Im2Col.apply(x, **args)
                cols = cols.reshape(n, g, w.shape[2], cols.shape[-1]).transpose(2, 3)
                grad_weight = (grad_groups @ cols).sum(0).reshape(weight.shape)
        else:
            # NOTE: output_padding takes the place of the high padding: the windows run over grad and only the rest
            # of that padding, so they number as many as the input's positions, even where output_padding >= stride
            extras = tuple(zip(ctx.output_padding, ctx.padding))
            beyond = [max(extra - hi, 0) for extra, (_, hi) in extras]
            windowed = grad[(..., *(slice(size - cut) for size, cut in zip(grad.shape[2:], beyond)))] if any(beyond) \
                else grad
            args["padding"] = tuple((lo, max(hi - extra, 0)) for extra, (lo, hi) in extras)
            cols = Im2Col.apply(windowed, **args)  # (N, C_out K, L_in)
            cols = cols.reshape(n, g, w.shape[2], cols.shape[-1])
            if needs[0]:
                grad_x = (w @ cols).reshape(x.shape)
            if needs[1]:
                x_groups = x.reshape(n, g, w.shape[1], math.prod(x.shape[2:]))
                grad_weight = (x_groups @ cols.transpose(2, 3)).sum(0).reshape(weight.shape)
        if len(needs) > 2 and needs[2]:
            grad_bias = grad.sum((0, *range(2, grad.ndim)))
        return grad_x, grad_weight, grad_bias

    @staticmethod
    def jvp(ctx, x_t, weight_t, bias_t):
        x, weight = ctx.saved_tensors
        params = {k: getattr(ctx, k) for k in
                  ("stride", "padding", "dilation", "transposed", "output_padding", "groups")}
        result = Convolution.apply(x_t, weight, None, **params) + Convolution.apply(x, weight_t, None, **params)
        if bias_t is not None:
            result = result + bias_t.reshape(-1, *(1,) * (x.ndim - 2))
        return result


def _convolve(input, weight, bias, **params):
    """Convolution.apply on real tensors. Complex ones take PyTorch's path, whose graph (AddBackward0 on top) is part
    of the spec: three real convolutions (Gauss's trick), a - b + i (c - a - b) with a = conv(x_r, w_r, b_r),
    b = conv(x_i, w_i) and c = conv(x_r + x_i, w_r + w_i, b_r + b_i)."""
    if not input.dtype.is_complex:
        return Convolution.apply(input, weight, bias, **params)
    x_r, x_i = _real_and_imaginary(input)
    w_r, w_i = _real_and_imaginary(weight)
    b_r = b_sum = None
    if bias is not None:
        b_r, b_i = _real_and_imaginary(bias)
        b_sum = b_r + b_i
    a = Convolution.apply(x_r, w_r, b_r, **params)
    b = Convolution.apply(x_i, w_i, None, **params)
    c = Convolution.apply(x_r + x_i, w_r + w_i, b_sum, **params)
    return a - b + 1j * (c - a - b)


def _real_and_imaginary(tensor):
    pairs = view_as_real(tensor.resolve_conj())
    return Select.apply(pairs, dim=tensor.ndim, index=0), Select.apply(pairs, dim=tensor.ndim, index=1)


def _transposed_sizes(sizes, kernel, dilation, padding, stride, output_padding):
    return tuple((i - 1) * s - lo - hi + d * (k - 1) + op + 1
                 for i, k, d, (lo, hi), s, op in zip(sizes, kernel, dilation, padding, stride, output_padding))


# ---- argument checks and the public functions ------------------------------------------------------------------
def _tuple(value, nd):
    if isinstance(value, int):
        return (value,) * nd
    value = tuple(value)
    return value * nd if len(value) == 1 else value


def _size(tensor):
    return "[" + ", ".join(map(str, tensor.shape)) + "]"


def _type_string(tensor):
    """PyTorch's Tensor::toString(), which its complex convolution prints: ndgrad.DoubleTensor, CPUComplexDoubleType."""
    if tensor.dtype.is_complex:
        return f"{tensor.device.type.upper()}{tensor.dtype.title}Type"
    return legacy_type_name(tensor.dtype, tensor.device.type)


def _check_dtypes(input, weight, bias, nd, transposed):
    """PyTorch's dtype errors, which come from different places: conv1d/2d/3d compare the bias's dtype first, the
    complex convolution compares full types, the real kernels scalar types, and the 1-d/2-d transposed kernels add a
    bias of another real dtype in place. Returns the bias to use (that addition casts it to the input's dtype)."""
    if not transposed and bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({input.dtype.cpp_name}) and bias type ({bias.dtype.cpp_name}) should be the "
                           "same")
    if input.dtype.is_complex:
        for role, parameter in (("weight", weight), ("bias", bias)):
            if parameter is not None and parameter.dtype != input.dtype:
                raise RuntimeError(f"Input type ({_type_string(input)}) and {role} type ({_type_string(parameter)}) "
                                   "should be the same")
        return bias
    if weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.title} but found {weight.dtype.title}")
    if bias is None or bias.dtype == input.dtype:
        return bias
    if nd == 3:
        raise RuntimeError(f"expected scalar type {input.dtype.title} but found {bias.dtype.title}")
    if bias.dtype.is_complex:
        raise RuntimeError(f"result type {bias.dtype.title} can't be cast to the desired output type "
                           f"{input.dtype.title}")
    return bias.to(input.dtype)


def _check_common(name, input, weight, bias, nd, stride, padding, dilation, transposed=False):
    """The checks conv and conv_transpose share; returns the bias to use (see _check_dtypes)."""
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                           f"size: {_size(input)}")
    if weight.ndim != nd + 2:
        raise RuntimeError("weight should have at least three dimensions" if weight.ndim < 3 else
                           f"Expected {nd + 2}-dimensional weight for {nd + 2}-dimensional input {_size(input)}, "
                           f"but got {weight.ndim}-dimensional weight of size {_size(weight)} instead")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    return _check_dtypes(input, weight, bias, nd, transposed)


def _conv(name, nd, input, weight, bias, stride, padding, dilation, groups):
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    if not isinstance(padding, str):
        padding = _tuple(padding, nd)
    bias = _check_common(name, input, weight, bias, nd, stride, padding, dilation)
    unbatched = input.ndim == nd + 1
    batch = input.unsqueeze(0) if unbatched else input
    kernel = weight.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            totals = [d * (k - 1) for d, k in zip(dilation, kernel)]
            pairs = tuple((t // 2, t - t // 2) for t in totals)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    if not isinstance(padding, str):
        pairs = tuple((p, p) for p in padding)
    channels = batch.shape[1]
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_size(weight)}] instead")
    if channels != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_size(weight)}, expected input{_size(batch)} to "
                           f"have {weight.shape[1] * groups} channels, but got {channels} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {_size(weight)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {_size(bias)} instead")
    padded = [i + lo + hi for i, (lo, hi) in zip(batch.shape[2:], pairs)]
    if any(p < d * (k - 1) + 1 for p, d, k in zip(padded, dilation, kernel)):
        effective = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, effective))}). Kernel size can't be greater than actual input size")
    result = _convolve(batch, weight, bias, stride=stride, padding=pairs, dilation=dilation, transposed=False,
                       output_padding=(0,) * nd, groups=groups)
    return result.squeeze(0) if unbatched else result


def _conv_transpose(name, nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    stride, dilation, padding = _tuple(stride, nd), _tuple(dilation, nd), _tuple(padding, nd)
    output_padding = _tuple(output_padding, nd)
    bias = _check_common(name, input, weight, bias, nd, stride, padding, dilation, transposed=True)
    unbatched = input.ndim == nd + 1
    batch = input.unsqueeze(0) if unbatched else input
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if batch.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_size(weight)}, expected input{_size(batch)} to "
                           f"have {weight.shape[0]} channels, but got {batch.shape[1]} channels instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_size(weight)}] instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {_size(weight)}, expected bias to be 1-dimensional "
                           f"with {weight.shape[1] * groups} elements, but got bias of size {_size(bias)} instead")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           f"output_padding: {', '.join(map(str, output_padding))}, "
                           f"stride: {', '.join(map(str, stride))}, dilation: {', '.join(map(str, dilation))}")
    sizes = _transposed_sizes(batch.shape[2:], weight.shape[2:], dilation, tuple((p, p) for p in padding), stride,
                              output_padding)
    if any(s <= 0 for s in sizes):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, batch.shape[2:]))}). "
                           f"Calculated output size per channel: ({' x '.join(map(str, sizes))}). Output size is too "
                           "small")
    result = _convolve(batch, weight, bias, stride=stride, padding=tuple((p, p) for p in padding),
                       dilation=dilation, transposed=True, output_padding=output_padding, groups=groups)
    return result.squeeze(0) if unbatched else result


@parses("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
        "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups)")
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """The convolution every real conv function calls (see torch.convolution); it has no complex kernels."""
    nd = weight.ndim - 2
    if input.dtype.is_complex:
        raise NotImplementedError(f"\"{_kernel_name(nd, transposed, dilation)}\" not implemented for "
                                  f"'{input.dtype.title}'")
    if transposed:
        return _conv_transpose("convolution", nd, input, weight, bias, stride, padding, output_padding, groups,
                               dilation)
    return _conv("convolution", nd, input, weight, bias, stride, padding, dilation, groups)


def _kernel_name(nd, transposed, dilation):
    """The real kernel torch.convolution picks, which names itself when refusing a complex input."""
    if transposed:
        return f"slow_conv_transpose{max(nd, 2)}d_out_cpu"
    if any(d != 1 for d in _tuple(dilation, nd)):
        return "slow_conv_dilated<>"
    return "compute_columns3d" if nd == 3 else "slow_conv2d_cpu"


@parses("conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, "
        "SymInt[1] dilation=1, SymInt groups=1)",
        'conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, str padding="valid", '
        "SymInt[1] dilation=1, SymInt groups=1)")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution (cross-correlation) over (N, C, L) (see torch.nn.functional.conv1d)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@parses("conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
        "SymInt[2] dilation=1, SymInt groups=1)",
        'conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, str padding="valid", '
        "SymInt[2] dilation=1, SymInt groups=1)")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution over (N, C, H, W); padding may be 'same' or 'valid' (see torch.nn.functional.conv2d)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@parses("conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, "
        "SymInt[3] dilation=1, SymInt groups=1)",
        'conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, str padding="valid", '
        "SymInt[3] dilation=1, SymInt groups=1)")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution over (N, C, D, H, W) (see torch.nn.functional.conv3d)."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


@parses("conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, "
        "SymInt[1] output_padding=0, SymInt groups=1, SymInt[1] dilation=1)")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv1d ("deconvolution"); weight is (C_in, C_out / groups, K)."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


@parses("conv_transpose2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
        "SymInt[2] output_padding=0, SymInt groups=1, SymInt[2] dilation=1)")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv2d; weight is (C_in, C_out / groups, kH, kW)."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


@parses("conv_transpose3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, "
        "SymInt[3] output_padding=0, SymInt groups=1, SymInt[3] dilation=1)")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv3d; weight is (C_in, C_out / groups, kD, kH, kW)."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def _fold_args(kernel_size, dilation, padding, stride):
    return _tuple(kernel_size, 2), _tuple(dilation, 2), tuple((p, p) for p in _tuple(padding, 2)), _tuple(stride, 2)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Every sliding block of a (N, C, H, W) input as a column of (N, C kH kW, L) (see torch.nn.functional.unfold)."""
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    kernel_size, dilation, padding, stride = _fold_args(kernel_size, dilation, padding, stride)
    return Im2Col.apply(input, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold: columns (N, C kH kW, L) summed into (N, C, *output_size) (see F.fold)."""
    output_size = _tuple(output_size, 2)
    kernel_size, dilation, pairs, stride = _fold_args(kernel_size, dilation, padding, stride)
    blocks = _out_sizes(output_size, kernel_size, dilation, pairs, stride)
    if input.ndim in (2, 3) and input.shape[-1] != math.prod(blocks):
        raise RuntimeError(
            f"Given output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
            f"padding={_tuple(padding, 2)}, stride={stride}, expected size of input's dimension {input.ndim - 1} to "
            f"match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = {math.prod(blocks)}, but got "
            f"input.size({input.ndim - 1})={input.shape[-1]}.")
    return Col2Im.apply(input, output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=pairs,
                        stride=stride)


class ConvolutionMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
