"""The window functions of signal processing (hann, hamming, blackman, bartlett, kaiser) as PyTorch computes them:
a periodic window of length N is the symmetric window of length N + 1 without its last sample."""

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._dtype import get_default_dtype
from ndgrad._factory import FACTORY_KEYWORDS, made, placed

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


def _window(name, window_length, periodic, dtype, device, requires_grad, symmetric):
    """``symmetric(n)``: the symmetric window of n >= 2 samples, as a float64 array; computed in float64 and cast,
    as close to PyTorch's float arithmetic as float32 rounding allows."""
    dtype = dtype or get_default_dtype()
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={dtype.cpp_name}, "
                           f"device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
                           "memory_format=(nullopt))")
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        values = symmetric(window_length + 1)[:-1] if periodic else symmetric(window_length)
    return made(placed(values.astype(dtype.numpy), device), requires_grad)


def _cosine_sum(*coefficients):
    """a0 - a1 cos(2 pi k / (n - 1)) + a2 cos(4 pi k / (n - 1)) - ...: the generalised cosine windows."""
    def symmetric(n):
        phase = 2 * np.pi * np.arange(n) / (n - 1)
        return sum((-1) ** j * a * np.cos(j * phase) for j, a in enumerate(coefficients))

    return symmetric


def _bartlett(n):
    return 1 - np.abs(2 * np.arange(n) / (n - 1) - 1)


def _kaiser(beta):
    def symmetric(n):
        ratio = 2 * np.arange(n) / (n - 1) - 1
        return np.i0(beta * np.sqrt(np.maximum(1 - ratio * ratio, 0))) / np.i0(beta)

    return symmetric


@parses(f"hann_window(int window_length, *, {FACTORY_KEYWORDS})",
        f"hann_window(int window_length, bool periodic, *, {FACTORY_KEYWORDS})")
def hann_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """0.5 - 0.5 cos(2 pi k / (N - 1)) (see torch.hann_window)."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, _cosine_sum(0.5, 0.5))


@parses(f"hamming_window(int window_length, *, {FACTORY_KEYWORDS})",
        f"hamming_window(int window_length, bool periodic, *, {FACTORY_KEYWORDS})",
        f"hamming_window(int window_length, bool periodic, float alpha, *, {FACTORY_KEYWORDS})",
        f"hamming_window(int window_length, bool periodic, float alpha, float beta, *, {FACTORY_KEYWORDS})")
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, device=None,
                   requires_grad=False):
    """alpha - beta cos(2 pi k / (N - 1)) (see torch.hamming_window)."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, _cosine_sum(alpha, beta))


@parses(f"blackman_window(int window_length, *, {FACTORY_KEYWORDS})",
        f"blackman_window(int window_length, bool periodic, *, {FACTORY_KEYWORDS})")
def blackman_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1)) (see torch.blackman_window)."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum(0.42, 0.5, 0.08))


@parses(f"bartlett_window(int window_length, *, {FACTORY_KEYWORDS})",
        f"bartlett_window(int window_length, bool periodic, *, {FACTORY_KEYWORDS})")
def bartlett_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """The triangular window, 1 - |2k / (N - 1) - 1| (see torch.bartlett_window)."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, _bartlett)


@parses(f"kaiser_window(int window_length, *, {FACTORY_KEYWORDS})",
        f"kaiser_window(int window_length, bool periodic, *, {FACTORY_KEYWORDS})",
        f"kaiser_window(int window_length, bool periodic, float beta, *, {FACTORY_KEYWORDS})")
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None, requires_grad=False):
    """I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta) (see torch.kaiser_window)."""
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, _kaiser(beta))
