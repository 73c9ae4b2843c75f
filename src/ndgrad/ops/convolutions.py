"""Convolutions (1-3d, transposed) through im2col and one matrix product, and unfold/fold.

One primitive, Convolution (torch.convolution), serves conv1d/2d/3d and conv_transpose1d/2d/3d; its rules are matrix
products around Im2Col (F.unfold) and Col2Im (F.fold), two linear primitives that are each other's adjoint.
"""

import math
from collections.abc import Iterable

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._dtype import type_string
from ndgrad._warnings import warn
from ndgrad.ops._arrays import via_float32, xp_of
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops._checks import int_list
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
        if x.dtype.kind == "V":  # bfloat16: summed in float32, as PyTorch's kernel does
            return via_float32(Convolution.forward, xp, x, weight, bias, stride, padding, dilation, transposed,
                               output_padding, groups)
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
    def vjp_arrays(ctx, grad):
        if ctx.transposed:
            return NotImplemented  # the transposed form: the Tensor rule, on the arrays wrapped
        x, weight = ctx.saved_arrays
        xp = xp_of(grad)
        g, kernel, n = ctx.groups, weight.shape[2:], x.shape[0]
        window = (kernel, ctx.dilation, ctx.padding, ctx.stride)
        w = weight.reshape(g, weight.shape[0] // g, -1)  # (G, C_out/G, C_in/G K)
        positions = math.prod(grad.shape[2:])
        grad_groups = grad.reshape(n, g, w.shape[1], positions)  # (N, G, C_out/G, L)
        needs = ctx.needs_input_grad
        grad_x = grad_weight = grad_bias = None
        if needs[0]:
            cols = xp.matmul(w.transpose(0, 2, 1), grad_groups).reshape(n, g * w.shape[2], positions)
            grad_x = _col2im(xp, cols, x.shape[2:], *window)
        if needs[1]:  # a product per sample, summed: faster than one product over every sample's positions
            cols = _im2col(xp, x, *window).reshape(n, g, w.shape[2], positions)
            grad_weight = xp.matmul(grad_groups, cols.transpose(0, 1, 3, 2)).sum(0).reshape(weight.shape)
        if len(needs) > 2 and needs[2]:
            grad_bias = grad.sum(axis=(0, *range(2, grad.ndim)))
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


# ---- argument checks and the public functions, in torch's order ---------------------------------------------
def _expanded(values, name, nd):
    """A parameter list as torch's convolution expands it: one value for every spatial dim, or exactly ``nd``."""
    values = (values,) * nd if isinstance(values, int) else tuple(values)
    if len(values) == 1:
        return values * nd
    if len(values) != nd:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {nd} values to match the "
                           f"convolution dimensions, but got {name}={list(values)}")
    return values


def _size(tensor):
    return "[" + ", ".join(map(str, tensor.shape)) + "]"


def _check_dtypes(input, weight, bias, nd, transposed, dilation):
    """PyTorch's dtype errors, which come from different places: the complex convolution compares full types, the
    real kernels refuse bool and compare scalar types, and the 1-d/2-d transposed kernels add a bias of another real
    dtype in place. Returns the bias to use (that addition casts it to the input's dtype)."""
    if input.dtype.is_complex:
        for role, parameter in (("weight", weight), ("bias", bias)):
            if parameter is not None and parameter.dtype != input.dtype:
                raise RuntimeError(f"Input type ({type_string(input)}) and {role} type ({type_string(parameter)}) "
                                   "should be the same")
        return bias
    kernel = _kernel_name(nd, transposed, dilation)
    if input.dtype.name == "bool" or (input.dtype.name in ("int8", "int16", "int32", "uint8") and not kernel.startswith(
            ("slow_conv2d", "compute_columns"))):  # the dilated and transposed kernels compute int64 among the ints
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")
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


def _batchified(name, nd, input):
    """PyTorch's conv functions take an unbatched input as a batch of one."""
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                           f"size: {_size(input)}")
    return input.ndim == nd + 1, input.unsqueeze(0) if input.ndim == nd + 1 else input


def _check_input_dims(input, weight, space=" "):
    """torch.convolution and padding='same' take no unbatched input: as many dims as the weight (the latter's
    message has no space before the weight's size)."""
    k = weight.ndim
    if input.ndim != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight{space}{_size(weight)}, but "
                           f"got {input.ndim}-dimensional input of size {_size(input)} instead")


def _same_padding(input, weight, stride, dilation):
    """padding='same': the (low, high) padding each spatial dim needs for an output of the input's size."""
    k = weight.ndim
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    nd = k - 2
    _check_input_dims(input, weight, space="")
    stride = (stride,) if isinstance(stride, int) else tuple(stride)
    dilation = (dilation,) if isinstance(dilation, int) else tuple(dilation)
    for name, values in (("stride", stride), ("dilation", dilation)):
        if len(values) not in (1, nd):
            raise RuntimeError(f"{name} cannot broadcast to {nd} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for d, k in zip(dilation * nd if len(dilation) == 1 else dilation, weight.shape[2:])]
    pairs = tuple((int(t / 2), t - int(t / 2)) for t in totals)  # NOTE: C++'s division, towards zero
    if any(lo != hi for lo, hi in pairs):
        warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the "
             "input be created")
    return pairs


def _checked_parameters(input, weight, bias, stride, padding, dilation, groups, transposed, output_padding=0):
    """torch's _convolution: the parameters expanded to the weight's spatial dims, then checked against the input
    (check_input_shape_forward). ``padding``: (low, high) pairs, or one int or int list."""
    if weight.ndim <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    nd = weight.ndim - 2
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride, dilation = _expanded(stride, "stride", nd), _expanded(dilation, "dilation", nd)
    pairs = padding if isinstance(padding, tuple) and padding and isinstance(padding[0], tuple) else \
        tuple((p, p) for p in _expanded(padding, "padding", nd))
    output_padding = _expanded(output_padding, "output_padding", nd)
    if any(lo < 0 for lo, _ in pairs):  # 'same' pads (or crops) the rest on the high side first
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {input.ndim}-dimensional weight for {input.ndim}-dimensional input "
                           f"{_size(input)}, but got {weight.ndim}-dimensional weight of size {_size(weight)} instead")
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_size(weight)} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_size(weight)}] instead")
    if transposed:
        _check_transposed_shapes(input, weight, bias, groups)
    else:
        _check_shapes(input, weight, bias, groups, pairs, dilation)
    return stride, pairs, dilation, output_padding


def _check_shapes(input, weight, bias, groups, pairs, dilation):
    channels = input.shape[1]
    if channels != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_size(weight)}, expected input{_size(input)} to "
                           f"have {weight.shape[1] * groups} channels, but got {channels} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {_size(weight)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {_size(bias)} instead")
    padded = [i + lo + hi for i, (lo, hi) in zip(input.shape[2:], pairs)]
    effective = [d * (k - 1) + 1 for d, k in zip(dilation, weight.shape[2:])]
    if any(p < e for p, e in zip(padded, effective)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, effective))}). Kernel size can't be greater than actual input size")


def _check_transposed_shapes(input, weight, bias, groups):
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_size(weight)}, expected input{_size(input)} to "
                           f"have {weight.shape[0]} channels, but got {input.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {_size(weight)}, expected bias to be 1-dimensional "
                           f"with {weight.shape[1] * groups} elements, but got bias of size {_size(bias)} instead")


_AXES = ("depth", "height", "width")


def _kernel_values(values, nd):
    """The values as the real kernels see them: 1-d convolutions run as 2-d ones over a height of 1."""
    return (1, *values) if nd == 1 else tuple(values)


def _named(name, values):
    """PyTorch's kernels name each value by its axis: stride_height: 2 stride_width: 2."""
    return [f"{name}_{axis}: {value}" for axis, value in zip(_AXES[3 - len(values):], values)]


def _check_zero_dilation(dilation, nd, transposed):
    """The real kernels' own check (check_input_shape_forward refused only negative dilations)."""
    if all(d > 0 for d in dilation):
        return
    values = _kernel_values(dilation, nd)
    if transposed:
        raise RuntimeError("dilation should be greater than zero, but got " + ", ".join(_named("dilation", values)))
    raise RuntimeError(f"dilation should be greater than zero, but got {list(values)}")


def _conv(name, nd, input, weight, bias, stride, padding, dilation, groups):
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({input.dtype.cpp_name}) and bias type ({bias.dtype.cpp_name}) should be the "
                           "same")
    unbatched, batch = _batchified(name, nd, input)
    stride, dilation = int_list(stride, nd), int_list(dilation, nd)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            padding = _same_padding(batch, weight, stride, dilation)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = int_list(padding, nd)
    stride, pairs, dilation, _ = _checked_parameters(batch, weight, bias, stride, padding, dilation, groups, False)
    _check_zero_dilation(dilation, nd, transposed=False)
    bias = _check_dtypes(input, weight, bias, nd, False, dilation)
    result = _convolve(batch, weight, bias, stride=stride, padding=pairs, dilation=dilation, transposed=False,
                       output_padding=(0,) * nd, groups=groups)
    return result.squeeze(0) if unbatched else result


def _conv_transpose(name, nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    unbatched, batch = _batchified(name, nd, input)
    stride, padding, output_padding, dilation = (int_list(v, nd) for v in (stride, padding, output_padding,
                                                                                 dilation))
    stride, pairs, dilation, output_padding = _checked_parameters(batch, weight, bias, stride, padding, dilation,
                                                                  groups, True, output_padding)
    _check_zero_dilation(dilation, nd, transposed=True)
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        wide = [_kernel_values(values, nd) for values in (output_padding, stride, dilation)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(
            _named("output_padding", wide[0]) + _named("stride", wide[1]) + _named("dilation", wide[2])))
    sizes = _transposed_sizes(batch.shape[2:], weight.shape[2:], dilation, pairs, stride, output_padding)
    if any(s <= 0 for s in sizes):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, batch.shape[2:]))}). "
                           f"Calculated output size per channel: ({' x '.join(map(str, sizes))}). Output size is too "
                           "small")
    bias = _check_dtypes(input, weight, bias, nd, True, dilation)
    result = _convolve(batch, weight, bias, stride=stride, padding=pairs, dilation=dilation, transposed=True,
                       output_padding=output_padding, groups=groups)
    return result.squeeze(0) if unbatched else result


@parses("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
        "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups)")
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """The convolution every real conv function calls (see torch.convolution); it has no complex kernels."""
    nd = weight.ndim - 2
    _check_input_dims(input, weight)
    if input.dtype.is_complex:
        raise NotImplementedError(f"\"{_kernel_name(nd, transposed, dilation)}\" not implemented for "
                                  f"'{input.dtype.title}'")
    if transposed:
        return _conv_transpose("convolution", nd, input, weight, bias, stride, padding, output_padding, groups,
                               dilation)
    return _conv("convolution", nd, input, weight, bias, stride, padding, dilation, groups)


def _kernel_name(nd, transposed, dilation):
    """The real kernel torch.convolution picks, which names itself when refusing a dtype."""
    if transposed:
        return f"slow_conv_transpose{max(nd, 2)}d_out_cpu"
    if any(d != 1 for d in ((dilation,) if isinstance(dilation, int) else dilation)):
        return "slow_conv_dilated<>"
    return "compute_columns3d" if nd == 3 else "slow_conv2d_cpu"


@parses("conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, "
        "SymInt[1] dilation=1, SymInt groups=1)",
        'conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, str padding="valid", '
        "SymInt[1] dilation=1, SymInt groups=1)")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution (cross-correlation) over (N, C, L) (see torch.nn.functional.conv1d)."""
    if AUTOCAST.active:
        input, weight, bias = autocast_inputs("conv1d", input, weight, bias)
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@parses("conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
        "SymInt[2] dilation=1, SymInt groups=1)",
        'conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, str padding="valid", '
        "SymInt[2] dilation=1, SymInt groups=1)")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution over (N, C, H, W); padding may be 'same' or 'valid' (see torch.nn.functional.conv2d)."""
    if AUTOCAST.active:
        input, weight, bias = autocast_inputs("conv2d", input, weight, bias)
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@parses("conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, "
        "SymInt[3] dilation=1, SymInt groups=1)",
        'conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, str padding="valid", '
        "SymInt[3] dilation=1, SymInt groups=1)")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution over (N, C, D, H, W) (see torch.nn.functional.conv3d)."""
    if AUTOCAST.active:
        input, weight, bias = autocast_inputs("conv3d", input, weight, bias)
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


@parses("conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, "
        "SymInt[1] output_padding=0, SymInt groups=1, SymInt[1] dilation=1)")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv1d ("deconvolution"); weight is (C_in, C_out / groups, K)."""
    if AUTOCAST.active:
        input, weight, bias = autocast_inputs("conv_transpose1d", input, weight, bias)
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


@parses("conv_transpose2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
        "SymInt[2] output_padding=0, SymInt groups=1, SymInt[2] dilation=1)")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv2d; weight is (C_in, C_out / groups, kH, kW)."""
    if AUTOCAST.active:
        input, weight, bias = autocast_inputs("conv_transpose2d", input, weight, bias)
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


@parses("conv_transpose3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, "
        "SymInt[3] output_padding=0, SymInt groups=1, SymInt[3] dilation=1)")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv3d; weight is (C_in, C_out / groups, kD, kH, kW)."""
    if AUTOCAST.active:
        input, weight, bias = autocast_inputs("conv_transpose3d", input, weight, bias)
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


# ---- im2col and col2im (torch._C._nn), and torch.nn.functional's unfold and fold around them -------------------
def _window_arguments(**arguments):
    """The 2-d window parameters, each exactly 2 values (PyTorch's check, in this order), and their own checks."""
    for name, values in arguments.items():
        if len(values) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return [tuple(values) for values in arguments.values()]


def _positive(name, values, what="should be greater than zero", short=None):
    if not all(v > 0 if what != "should be non-negative" else v >= 0 for v in values):
        label = short or name
        raise RuntimeError(f"{name} {what}, but got {label}_height: {values[0]} {label}_width: {values[1]}")


def _integer_kernel(input, kernel):
    if input.dtype.name in ("int64", "int32", "int16", "int8", "uint8"):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")


@parses("im2col(Tensor input, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride, *, "
        "Tensor out=None)")
def im2col(input, kernel_size, dilation, padding, stride):
    """Every sliding block of a (N, C, H, W) input as a column of (N, C kH kW, L) (see torch._C._nn.im2col)."""
    kernel_size, dilation, padding, stride = _window_arguments(kernel_size=kernel_size, dilation=dilation,
                                                               padding=padding, stride=stride)
    _positive("kernel size", kernel_size, short="kernel")
    _positive("dilation", dilation)
    _positive("padding", padding, "should be non-negative", short="pad")
    _positive("stride", stride)
    if not (input.size(1) != 0 and input.size(2) != 0 and ((input.ndim == 3 and input.size(0) != 0) or (
            input.ndim == 4 and input.size(3) != 0))):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_size(input)}")
    height, width = input.shape[-2:]
    pairs = tuple((p, p) for p in padding)
    blocks = _out_sizes((height, width), kernel_size, dilation, pairs, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({height}, {height}), kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding blocks "
                           f"as {blocks}, but its components must be at least one.")
    _integer_kernel(input, "im2col_out_cpu")
    return Im2Col.apply(input, kernel_size=kernel_size, dilation=dilation, padding=pairs, stride=stride)


@parses("col2im(Tensor input, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, "
        "int[2] stride, *, Tensor out=None)")
def col2im(input, output_size, kernel_size, dilation, padding, stride):
    """The adjoint of im2col: columns (N, C kH kW, L) summed into (N, C, *output_size) (see torch._C._nn.col2im)."""
    output_size, kernel_size, dilation, padding, stride = _window_arguments(
        output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    _positive("kernel size", kernel_size, short="kernel")
    _positive("stride", stride)
    _positive("dilation", dilation)
    _positive("padding", padding, "should be non-negative", short="pad")
    if not ((input.ndim == 2 and input.size(0) != 0 and input.size(1) != 0) or (
            input.ndim == 3 and input.size(1) != 0 and input.size(2) != 0)):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {_size(input)}")
    planes, length = input.shape[-2:]
    if planes % math.prod(kernel_size):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={planes} and kernel_size={kernel_size}.")
    pairs = tuple((p, p) for p in padding)
    blocks = _out_sizes(output_size, kernel_size, dilation, pairs, stride)
    where = (f"Given output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
             f"stride={stride}, ")
    if length != math.prod(blocks):
        raise RuntimeError(f"{where}expected size of input's dimension 2 to match the calculated number of sliding "
                           f"blocks {blocks[0]} * {blocks[1]} = {math.prod(blocks)}, but got input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(f"{where}calculated shape of the array of sliding blocks as {blocks}, which is too small "
                           "(non-positive)")
    if min(output_size) < 1:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: output_size={output_size}.")
    _integer_kernel(input, "col2im_out_cpu")
    return Col2Im.apply(input, output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=pairs,
                        stride=stride)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Every sliding block of a (N, C, H, W) input as a column (see torch.nn.functional.unfold)."""
    return im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold (see torch.nn.functional.fold)."""
    return col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def _pair(value):
    """torch.nn.modules.utils._pair: an iterable as a tuple, anything else twice."""
    return tuple(value) if isinstance(value, Iterable) else (value, value)


class ConvolutionMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
