"""Discrete Fourier transforms (the functions of ndgrad.fft), built as PyTorch builds them on three primitives:
complex to complex (_fft_c2c), real to complex (_fft_r2c, one-sided or not) and complex to real (_fft_c2r).

A primitive takes PyTorch's ``normalization``: 0 scales by nothing, 1 by 1/sqrt(n), 2 by 1/n (n: the number of
points transformed). c2c runs forward (exp(-i...)) or backward; r2c always runs forward and c2r backward.
"""

import math

from ndgrad._argument_parser import parses
from ndgrad._device import array_namespace
from ndgrad._dtype import get_default_dtype
from ndgrad._fpstate import silenced
from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.complex_numbers import real
from ndgrad.ops.joining import cat, roll
from ndgrad.ops.resampling import pad
from ndgrad.ops.shape import wrap_dim

__all__ = []
FFT = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn",
    "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq",
]  # the names of torch.fft (ndgrad.fft re-exports them)

NONE, BY_ROOT_N, BY_N = 0, 1, 2
# NumPy's norm for each normalization, for its forward (fftn) and its backward (ifftn, irfftn) transforms.
_NUMPY_NORM = {True: ("backward", "ortho", "forward"), False: ("forward", "ortho", "backward")}


class FftC2C(Op):
    """torch._fft_c2c: the transform of a complex tensor over ``dim``."""

    name, family = "_fft_c2c", UNARY

    @staticmethod
    def forward(xp, x, dim, normalization, forward):
        transform = xp.fft.fftn if forward else xp.fft.ifftn
        return transform(x, axes=dim, norm=_NUMPY_NORM[forward][normalization]).astype(x.dtype, copy=False)

    formula = "grad_self = the transform in the other direction of grad, with the same normalization"
    @staticmethod
    def vjp(ctx, grad):
        # NOTE: the adjoint of a transform is the transform in the other direction, with the same scale.
        return (FftC2C.apply(grad, dim=ctx.dim, normalization=ctx.normalization, forward=not ctx.forward),)

    @staticmethod
    def jvp(ctx, x_t):
        return FftC2C.apply(x_t, dim=ctx.dim, normalization=ctx.normalization, forward=ctx.forward)


class FftR2C(Op):
    """torch._fft_r2c: the forward transform of a real tensor over ``dim``; ``onesided`` keeps only the first
    n // 2 + 1 frequencies of the last dim (the others are their conjugates)."""

    name, family = "_fft_r2c", UNARY

    @staticmethod
    def forward(xp, x, dim, normalization, onesided):
        transform = xp.fft.rfftn if onesided else xp.fft.fftn
        result = transform(x, axes=dim, norm=_NUMPY_NORM[True][normalization])
        return result.astype(_COMPLEX[x.dtype.name], copy=False)

    formula = "grad_self = real(inverse-direction transform of grad, dropped frequencies as zeros)"
    @staticmethod
    def vjp(ctx, grad):
        if ctx.onesided:  # the dropped frequencies get no gradient: zeros in their place
            last = ctx.dim[-1]
            missing = ctx.input_shapes[0][last] - grad.shape[last]
            if missing > 0:
                shape = tuple(missing if d == last else n for d, n in enumerate(grad.shape))
                grad = cat([grad, _constant(grad, 0, shape)], last)
        return (real(FftC2C.apply(grad, dim=ctx.dim, normalization=ctx.normalization, forward=False)),)

    @staticmethod
    def jvp(ctx, x_t):
        return FftR2C.apply(real(x_t), dim=ctx.dim, normalization=ctx.normalization, onesided=ctx.onesided)


class FftC2R(Op):
    """torch._fft_c2r: the backward transform of the one-sided spectrum of a real signal (``last_dim_size`` points
    along the last of ``dim``) back to that signal."""

    name, family = "_fft_c2r", UNARY

    @staticmethod
    def forward(xp, x, dim, normalization, last_dim_size):
        sizes = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
        result = xp.fft.irfftn(x, s=sizes, axes=dim, norm=_NUMPY_NORM[False][normalization])
        return result.astype(x.real.dtype, copy=False)

    formula = "grad_self = the one-sided forward-direction transform of grad, conjugate-pair frequencies doubled"
    @staticmethod
    def vjp(ctx, grad):
        # NOTE: as PyTorch: the one-sided transform of grad, the frequencies that stand for a conjugate pair doubled.
        result = FftR2C.apply(grad, dim=ctx.dim, normalization=ctx.normalization, onesided=True)
        last = ctx.dim[-1]
        doubled = grad.shape[last] - result.shape[last]
        if doubled <= 0:
            return (result,)
        weights = [1.0] + [2.0] * doubled + [1.0] * (result.shape[last] - 1 - doubled)
        shape = tuple(len(weights) if d == last else 1 for d in range(result.ndim))
        return (result * _constant(grad, weights, shape),)

    @staticmethod
    def jvp(ctx, x_t):
        return FftC2R.apply(x_t, dim=ctx.dim, normalization=ctx.normalization, last_dim_size=ctx.last_dim_size)


_COMPLEX = {"float16": "complex64", "float32": "complex64", "float64": "complex128"}


def _constant(like, values, shape):
    """A tensor of ``values`` broadcast to ``shape``, in like's real dtype and on its device."""
    from ndgrad._tensor import Tensor  # the tensor module imports the ops

    xp = array_namespace(like.device)
    return Tensor._wrap(xp.broadcast_to(xp.asarray(values, dtype=like._data.real.dtype), shape).copy())


# ---- arguments, as PyTorch reads them -------------------------------------------------------------------------------
def _normalization(norm, forward):
    """PyTorch's normalization for ``norm`` ("backward" by default, "ortho" or "forward") in this direction."""
    if norm is None or norm == "backward":
        return NONE if forward else BY_N
    if norm == "forward":
        return BY_N if forward else NONE
    if norm == "ortho":
        return BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _check_size(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _promoted(input, require_complex=False):
    """Integer inputs in the default float dtype; with ``require_complex``, real inputs as complex."""
    if input.dtype.is_complex:
        return input
    if input.dtype.name == "float16":
        raise RuntimeError("Unsupported dtype Half")
    if not input.dtype.is_floating_point:
        input = input.to(get_default_dtype())
    return input.to(input.dtype.to_complex()) if require_complex else input


def _resized(input, dims, sizes):
    """input cut (a slice) or zero-padded (one pad) to ``sizes`` along ``dims``, as PyTorch's FFTs resize."""
    pads = [0] * (2 * input.ndim)
    for dim, size in zip(dims, sizes):
        current = input.shape[dim]
        if size < current:
            input = input.narrow(dim, 0, size)
        elif size > current:
            pads[2 * (input.ndim - 1 - dim) + 1] = size - current
    if any(pads):
        input = pad(input, pads)
    return input


def _one_dim(function, input, n, dim):
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = wrap_dim(dim, input.ndim)
    return dim


def _shape_and_dims(input, s, dim):
    """PyTorch's canonical (sizes, dims) of an n-dimensional transform."""
    if isinstance(s, int):
        s = (s,)
    if dim is not None:
        dims = (wrap_dim(dim, input.ndim),) if isinstance(dim, int) else tuple(wrap_dim(d, input.ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if dim is None:
            if len(s) > input.ndim:
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {input.ndim} dimensions.")
            dims = tuple(range(input.ndim - len(s), input.ndim))
        sizes = tuple(input.shape[d] if size == -1 else size for d, size in zip(dims, s))
    else:
        if dim is None:
            dims = tuple(range(input.ndim))
        sizes = tuple(input.shape[d] for d in dims)
    for size in sizes:
        _check_size(size)
    return sizes, dims


# ---- one dimension ----------------------------------------------------------------------------------------------
def _c2c(function, input, n, dim, norm, forward):
    dim = _one_dim(function, input, n, dim)
    size = input.shape[dim] if n is None else n
    _check_size(size)
    if n is not None:
        input = _resized(input, (dim,), (size,))
    return FftC2C.apply(input, dim=(dim,), normalization=_normalization(norm, forward), forward=forward)


def _r2c(function, input, n, dim, norm, forward, onesided):
    if input.dtype.is_complex:
        raise RuntimeError(f"{function} expects a real input tensor, but got {input.dtype.title}")
    input = _promoted(input)
    dim = _one_dim(function, input, n, dim)
    size = input.shape[dim] if n is None else n
    _check_size(size)
    if n is not None:
        input = _resized(input, (dim,), (size,))
    result = FftR2C.apply(input, dim=(dim,), normalization=_normalization(norm, forward), onesided=onesided)
    return result if forward else result.conj()


def _c2r(function, input, n, dim, norm, forward):
    input = _promoted(input, require_complex=True)
    dim = _one_dim(function, input, n, dim)
    size = 2 * (input.shape[dim] - 1) if n is None else n
    _check_size(size)
    if n is not None:
        input = _resized(input, (dim,), (size // 2 + 1,))
    if forward:  # hfft: the transform of a Hermitian signal is the backward transform of its conjugate
        input = input.conj()
    return FftC2R.apply(input, dim=(dim,), normalization=_normalization(norm, forward), last_dim_size=size)


@parses("fft_fft(Tensor input, SymInt? n=None, int dim=-1, str? norm=None, *, Tensor out=None)")
def fft(input, n=None, dim=-1, norm=None):
    """The discrete Fourier transform along ``dim`` (see torch.fft.fft)."""
    if input.dtype.is_complex:
        return _c2c("fft", input, n, dim, norm, True)
    return _r2c("fft", input, n, dim, norm, True, onesided=False)


@parses("fft_ifft(Tensor input, SymInt? n=None, int dim=-1, str? norm=None, *, Tensor out=None)")
def ifft(input, n=None, dim=-1, norm=None):
    """The inverse discrete Fourier transform along ``dim`` (see torch.fft.ifft)."""
    if input.dtype.is_complex:
        return _c2c("ifft", input, n, dim, norm, False)
    return _r2c("ifft", input, n, dim, norm, False, onesided=False)


@parses("fft_rfft(Tensor input, SymInt? n=None, int dim=-1, str? norm=None, *, Tensor out=None)")
def rfft(input, n=None, dim=-1, norm=None):
    """The transform of a real signal: the n // 2 + 1 non-negative frequencies (see torch.fft.rfft)."""
    return _r2c("rfft", input, n, dim, norm, True, onesided=True)


@parses("fft_irfft(Tensor input, SymInt? n=None, int dim=-1, str? norm=None, *, Tensor out=None)")
def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of rfft: a real signal of n points (default 2 (m - 1)) (see torch.fft.irfft)."""
    return _c2r("irfft", input, n, dim, norm, False)


@parses("fft_hfft(Tensor input, SymInt? n=None, int dim=-1, str? norm=None, *, Tensor out=None)")
def hfft(input, n=None, dim=-1, norm=None):
    """The transform of a Hermitian-symmetric signal given by its first half: a real spectrum (see torch.fft.hfft)."""
    return _c2r("hfft", input, n, dim, norm, True)


@parses("fft_ihfft(Tensor input, SymInt? n=None, int dim=-1, str? norm=None, *, Tensor out=None)")
def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of hfft: the first half of a Hermitian-symmetric signal (see torch.fft.ihfft)."""
    return _r2c("ihfft", input, n, dim, norm, False, onesided=True)


# ---- n dimensions -----------------------------------------------------------------------------------------------
def _c2c_n(input, s, dim, norm, forward):
    sizes, dims = _shape_and_dims(input, s, dim)  # the n-dimensional transforms check dims before dtypes
    input = _promoted(input, require_complex=True)
    input = _resized(input, dims, sizes)
    if not dims:
        return input
    return FftC2C.apply(input, dim=dims, normalization=_normalization(norm, forward), forward=forward)


@parses("fft_fftn(Tensor input, SymInt[1]? s=None, int[1]? dim=None, str? norm=None, *, Tensor out=None)")
def fftn(input, s=None, dim=None, norm=None):
    """The n-dimensional discrete Fourier transform over ``dim`` (default all) (see torch.fft.fftn)."""
    return _c2c_n(input, s, dim, norm, True)


@parses("fft_ifftn(Tensor input, SymInt[1]? s=None, int[1]? dim=None, str? norm=None, *, Tensor out=None)")
def ifftn(input, s=None, dim=None, norm=None):
    """The n-dimensional inverse transform (see torch.fft.ifftn)."""
    return _c2c_n(input, s, dim, norm, False)


@parses("fft_fft2(Tensor input, SymInt[1]? s=None, int[1] dim={-2,-1}, str? norm=None, *, Tensor out=None)")
def fft2(input, s=None, dim=(-2, -1), norm=None):
    """fftn over the last two dims (see torch.fft.fft2)."""
    return fftn(input, s, dim, norm)


@parses("fft_ifft2(Tensor input, SymInt[1]? s=None, int[1] dim={-2,-1}, str? norm=None, *, Tensor out=None)")
def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """ifftn over the last two dims (see torch.fft.ifft2)."""
    return ifftn(input, s, dim, norm)


@parses("fft_rfftn(Tensor input, SymInt[1]? s=None, int[1]? dim=None, str? norm=None, *, Tensor out=None)")
def rfftn(input, s=None, dim=None, norm=None):
    """The n-dimensional transform of a real signal, one-sided along the last of ``dim`` (see torch.fft.rfftn)."""
    if input.dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {input.dtype.title}")
    sizes, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    input = _promoted(input)
    input = _resized(input, dims, sizes)
    return FftR2C.apply(input, dim=dims, normalization=_normalization(norm, True), onesided=True)


@parses("fft_irfftn(Tensor input, SymInt[1]? s=None, int[1]? dim=None, str? norm=None, *, Tensor out=None)")
def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of rfftn: a real signal (see torch.fft.irfftn)."""
    return _c2r_n("irfftn", input, s, dim, norm, forward=False)


def _c2r_n(function, input, s, dim, norm, forward):
    """irfftn and hfftn: sizes as given (the last default 2 (m - 1)), the last dim's input cut to size // 2 + 1."""
    sizes, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError(f"{function} must transform at least one axis")
    last = sizes[-1] if s is not None and (isinstance(s, int) or s[-1] != -1) else 2 * (input.shape[dims[-1]] - 1)
    _check_size(last)
    input = _promoted(input, require_complex=True)
    input = _resized(input, dims, sizes[:-1] + (last // 2 + 1,))
    normalization = _normalization(norm, forward)
    if forward:  # hfftn: forward transforms over all but the last dim, then hfft's conjugate trick on the last
        if len(dims) > 1:
            input = FftC2C.apply(input, dim=dims[:-1], normalization=normalization, forward=True)
        input = input.conj()
        dims = dims[-1:]
    return FftC2R.apply(input, dim=dims, normalization=normalization, last_dim_size=last)


@parses("fft_hfftn(Tensor input, SymInt[1]? s=None, int[1]? dim=None, str? norm=None, *, Tensor out=None)")
def hfftn(input, s=None, dim=None, norm=None):
    """The n-dimensional transform of a Hermitian-symmetric signal: a real spectrum (see torch.fft.hfftn)."""
    return _c2r_n("hfftn", input, s, dim, norm, forward=True)


@parses("fft_ihfftn(Tensor input, SymInt[1]? s=None, int[1]? dim=None, str? norm=None, *, Tensor out=None)")
def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of hfftn: the one-sided inverse transform of a real signal (see torch.fft.ihfftn)."""
    if input.dtype.is_complex:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {input.dtype.title}")
    sizes, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    input = _promoted(input)
    input = _resized(input, dims, sizes)
    normalization = _normalization(norm, False)
    result = FftR2C.apply(input, dim=dims[-1:], normalization=normalization, onesided=True).conj_physical()
    if len(dims) == 1:
        return result
    return FftC2C.apply(result, dim=dims[:-1], normalization=normalization, forward=False)


@parses("fft_rfft2(Tensor input, SymInt[1]? s=None, int[1] dim={-2,-1}, str? norm=None, *, Tensor out=None)")
def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """rfftn over the last two dims (see torch.fft.rfft2)."""
    return rfftn(input, s, dim, norm)


@parses("fft_irfft2(Tensor input, SymInt[1]? s=None, int[1] dim={-2,-1}, str? norm=None, *, Tensor out=None)")
def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """irfftn over the last two dims (see torch.fft.irfft2)."""
    return irfftn(input, s, dim, norm)


@parses("fft_hfft2(Tensor input, SymInt[1]? s=None, int[1] dim={-2,-1}, str? norm=None, *, Tensor out=None)")
def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """hfftn over the last two dims (see torch.fft.hfft2)."""
    return hfftn(input, s, dim, norm)


@parses("fft_ihfft2(Tensor input, SymInt[1]? s=None, int[1] dim={-2,-1}, str? norm=None, *, Tensor out=None)")
def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """ihfftn over the last two dims (see torch.fft.ihfft2)."""
    return ihfftn(input, s, dim, norm)


# ---- frequencies and shifts -------------------------------------------------------------------------------------
@parses("fft_fftshift(Tensor input, int[1]? dim=None)")
def fftshift(input, dim=None):
    """The zero frequency moved to the middle of ``dim`` (default all dims): a roll by n // 2 (see
    torch.fft.fftshift)."""
    return _shift(input, dim, lambda n: n // 2)


@parses("fft_ifftshift(Tensor input, int[1]? dim=None)")
def ifftshift(input, dim=None):
    """The inverse of fftshift: a roll by (n + 1) // 2 back (see torch.fft.ifftshift)."""
    return _shift(input, dim, lambda n: (n + 1) // 2)


def _shift(input, dim, amount):
    dims = tuple(range(input.ndim)) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    return roll(input, tuple(amount(input.shape[wrap_dim(d, input.ndim)]) for d in dims), dims)


@parses("fft_fftfreq(int n, float d=1.0, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point transform: 0, 1, ..., then the negative ones, over d n (see
    torch.fft.fftfreq)."""
    return _frequencies("fftfreq", n, n, d, dtype, device, requires_grad)


@parses("fft_rfftfreq(int n, float d=1.0, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The n // 2 + 1 non-negative sample frequencies of an n-point rfft (see torch.fft.rfftfreq)."""
    half = -(-n // 2) if n < 0 else n // 2  # C++'s division, which rounds toward zero
    return _frequencies("rfftfreq", half + 1, n, d, dtype, device, requires_grad)


@silenced
def _frequencies(function, count, n, d, dtype, device, requires_grad):
    """k / (d n) for k = 0 .. count - 1, the upper half of fftfreq's made negative; computed as PyTorch: made
    empty first, in ``dtype``, then times the double 1 / (n d), which is inf or nan where d n is 0."""
    from ndgrad._factory import made, new_size

    dtype = dtype or get_default_dtype()
    new_size((count,), dtype)  # PyTorch allocates before it looks at the dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{function} requires a floating point or complex dtype")
    if dtype.is_complex:  # PyTorch starts from an arange in this dtype, which has no complex kernel
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype.title}'")
    xp = array_namespace(device or "cpu")
    compute = xp.float32 if dtype.name == "float16" else dtype.numpy  # half computes in float, as PyTorch's kernels
    values = xp.arange(count, dtype=compute)
    if function == "fftfreq":
        values[(n + 1) // 2:] -= n
    spacing = n * d
    scale = 1.0 / spacing if spacing else math.copysign(math.inf, spacing)  # C++'s 1.0 / 0.0, where Python raises
    return made((values * values.dtype.type(scale)).astype(dtype.numpy, copy=False), requires_grad)
