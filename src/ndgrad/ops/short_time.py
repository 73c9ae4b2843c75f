"""The short-time Fourier transform and its inverse (torch.stft, torch.istft), composites of differentiable ops as
PyTorch's are: frames are gathered by indexing, windowed, transformed by rfft/fft; istft inverts each frame and
overlap-adds them with index_add, dividing by the overlap-added squared window. Gradients flow through all of it.
"""

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._device import array_namespace
from ndgrad._warnings import warn
from ndgrad.ops.complex_numbers import view_as_real
from ndgrad.ops.gather_scatter import index_add
from ndgrad.ops.resampling import pad
from ndgrad.ops.spectral import fft, ifft, irfft, rfft

__all__ = ["stft", "istft"]

_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied.Please provide the same window used by stft to "
    "make the inversion lossless.To suppress this warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`."
)
_REAL_OUTPUT = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex tensors "
    "for all inputs, and return_complex=False will raise an error.\nNote: you can still call torch.view_as_real on "
    "the complex output to recover the old return format."
)
_ONESIDED_COMPLEX = "Cannot have onesided output if window or input is complex"


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The STFT of a 1-d signal or a batch of them (see torch.stft): shape (B?, N, T), N = n_fft // 2 + 1 when
    one-sided. torch writes the centre padding in Python and the rest in C++; the C++ part's messages name its
    arguments, which is why they are spelled out in ``_call``."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:  # F.pad's reflect and replicate modes want a batch and a channel dim, so torch views to 3-d
        extended = [1] * (3 - input.ndim) + list(input.shape)
        padded = pad(input.view(extended), [n_fft // 2, n_fft // 2], pad_mode)
        input = padded.view(padded.shape[-input.ndim:])
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    is_complex = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    called = _call("stft", input, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
                   normalized=normalized, onesided=onesided, return_complex=return_complex,
                   align_to_window=align_to_window)
    if return_complex is None and not is_complex:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if not (return_complex if return_complex is not None else is_complex):
        warn(_REAL_OUTPUT)
    _check(input.dtype.is_floating_point or input.dtype.is_complex, called,
           "expected a tensor of floating point or complex values")
    _check(input.ndim in (1, 2), called, "expected a 1D or 2D tensor")
    signal = input if input.ndim == 2 else input.unsqueeze(0)
    length = signal.shape[-1]
    _check(0 < n_fft <= length, called, f"expected 0 < n_fft < {length}, but got n_fft={win_length}")
    _check(hop_length > 0, called, f"expected hop_length > 0, but got hop_length={hop_length}")
    _check(0 < win_length <= n_fft, called, f"expected 0 < win_length <= n_fft, but got win_length={win_length}")
    _check(window is None or (window.ndim == 1 and window.shape[0] == win_length), called,
           f"expected a 1D window tensor of size equal to win_length={win_length}, but got window with size "
           f"{list(window.shape) if window is not None else []}")
    if onesided is None:
        onesided = not is_complex
    elif onesided and is_complex:
        raise RuntimeError(_ONESIDED_COMPLEX)
    if align_to_window and win_length < n_fft:  # frames start where their window starts, not n_fft's frame
        left = (n_fft - win_length) // 2
        signal = pad(signal, [left, n_fft - win_length - left])
        length = signal.shape[-1]
    frames = signal[:, _frame_index(signal, 1 + (length - n_fft) // hop_length, n_fft, hop_length)]
    if window is not None:
        frames = frames * _padded_window(window, n_fft)
    norm = "ortho" if normalized else "backward"
    spectrum = (rfft if onesided else fft)(frames, dim=-1, norm=norm).transpose(1, 2)  # (B, N, T)
    if input.ndim == 1:
        spectrum = spectrum.squeeze(0)
    return spectrum if return_complex or (return_complex is None and is_complex) else view_as_real(spectrum)


@parses("istft(Tensor input, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
        "bool center=True, bool normalized=False, bool? onesided=None, int? length=None, bool return_complex=False)")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The signal whose STFT is input (see torch.istft): each frame's inverse transform, windowed and overlap-added,
    divided by the overlap-added squared window (which must not vanish anywhere kept)."""
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    called = _call("istft", input, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
                   center=center, normalized=normalized, onesided=onesided, length=length,
                   return_complex=return_complex)
    if window is None:
        warn(_NO_WINDOW)
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    spectrum = input if input.ndim == 3 else input.unsqueeze(0)
    n_frequencies, n_frames = spectrum.shape[-2], spectrum.shape[-1]
    _check(0 < hop_length <= win_length, called, "expected 0 < hop_length <= win_length")
    _check(0 < win_length <= n_fft, called, "expected 0 < win_length <= n_fft")
    _check(window is None or (window.ndim == 1 and window.shape[0] == win_length), called,
           "Invalid window shape. window has to be 1D and length of `win_length`")
    onesided = n_frequencies != n_fft if onesided is None else onesided
    if onesided:
        _check(n_fft // 2 + 1 == n_frequencies, called, "expected the frequency dimension (3rd to the last) of the "
               f"input tensor to match n_fft / 2 + 1 when onesided=True, but got {n_frequencies}")
    else:
        _check(n_fft == n_frequencies, called, "expected the frequency dimension (3rd to the last) of the input "
               f"tensor to match n_fft when onesided=False, but got {n_frequencies}")
    # no window is a rectangular one, in the input's real dtype
    window = _padded_window(window, n_fft) if window is not None else spectrum.real.new_ones(n_fft)
    frames = spectrum.transpose(1, 2)  # (B, T, N)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError(_ONESIDED_COMPLEX)
        frames = ifft(frames, dim=-1, norm=norm)
    else:
        if window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        frames = irfft(frames.narrow(-1, 0, n_fft // 2 + 1), n=n_fft, dim=-1, norm=norm)
    squared_window = window.abs() ** 2
    frames = frames * window
    expected_length = n_fft + hop_length * (n_frames - 1)
    index = _frame_index(frames, n_frames, n_fft, hop_length).flatten()
    signal = index_add(frames.new_zeros(frames.shape[0], expected_length), 1, index, frames.flatten(1))
    envelope = index_add(squared_window.new_zeros(expected_length), 0, index, squared_window.repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = expected_length - start if length is None else min(start + length, expected_length)
    signal, envelope = signal[:, start:end], envelope[start:end]
    vanishes = envelope.numel() and envelope.abs().min().item() < 1e-11
    if vanishes:  # torch prints the boolean tensor it tested, after the call with no " : "
        raise RuntimeError(f"{called.removesuffix(' : ')} window overlap add min: 1\n[ CPUBoolType{{}} ]")
    signal = signal / envelope
    if length is not None and signal.shape[-1] < length:
        warn("The length of signal is shorter than the length parameter. Result is being padded with zeros in the "
             "tail. Please check your center and hop_length settings.")
        signal = pad(signal, [0, length - signal.shape[-1]])
    return signal.squeeze(0) if input.ndim == 2 else signal


def _frame_index(like, n_frames, n_fft, hop_length):
    """The (T, n_fft) positions in the signal of each frame's samples, on like's device."""
    from ndgrad._tensor import Tensor  # the tensor module imports the ops

    xp = array_namespace(like.device)
    starts = np.arange(max(n_frames, 0))[:, None] * hop_length
    return Tensor._wrap(xp.asarray(starts + np.arange(n_fft)[None, :], dtype=xp.int64))


def _padded_window(window, n_fft):
    """The window zero-padded on both sides to n_fft samples, centred as torch centres it."""
    left = (n_fft - window.shape[0]) // 2
    return pad(window, [left, n_fft - window.shape[0] - left]) if window.shape[0] < n_fft else window


def _call(name, input, **arguments):
    """How torch's C++ spells the call in its messages: ``stft(torch.DoubleTensor[20], n_fft=8, ...) : ``."""
    scalar_type = input.type().rsplit(".", 1)[-1].removesuffix("Tensor")  # ndgrad.DoubleTensor: Double
    if name == "stft":
        described = f"torch.{scalar_type}Tensor[{', '.join(map(str, input.shape))}]"
    else:
        described = f"CPU{scalar_type}Type{list(input.shape)}"

    def spelled(value):
        if value is None:
            return "None"
        if isinstance(value, bool):
            return str(int(value))
        if hasattr(value, "shape"):
            return f"torch.{value.type().rsplit('.', 1)[-1]}{{{list(value.shape)}}}"
        return str(value)

    return f"{name}({described}, {', '.join(f'{k}={spelled(v)}' for k, v in arguments.items())}) : "


def _check(condition, called, message):
    if not condition:
        raise RuntimeError(called + message)


class ShortTimeMethods:
    """Tensor.stft and Tensor.istft, which torch writes in Python with the functions' parameters."""

    __slots__ = ()

    def stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
             normalized=False, onesided=None, return_complex=None, align_to_window=None):
        return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                    return_complex, align_to_window)

    def istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
              onesided=None, length=None, return_complex=False):
        return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
                     return_complex)
