"""stft and istft against torch: values and gradients (complex outputs compared as real and imaginary parts) over
framing, windowing, centring, normalization and sidedness; round trips; torch's errors and warnings."""

import warnings

import numpy as np
import pytest
import torch

import ndgrad

RNG = np.random.default_rng(0)
SIGNALS = {"1-d": RNG.standard_normal(40), "batched": RNG.standard_normal((3, 40))}
CASES = [  # n_fft, hop_length, win_length, center, normalized, onesided
    (8, None, None, True, False, None),
    (8, 3, None, False, False, None),
    (16, 4, 12, True, True, None),
    (10, 5, 7, True, False, False),
    (12, 2, None, False, True, True),
]


def _both(values, requires_grad=True):
    return (ndgrad.tensor(values, requires_grad=requires_grad), torch.tensor(values, requires_grad=requires_grad))


def _windows(win_length, n_fft):
    values = np.hanning((win_length or n_fft) + 2)[1:-1]  # no zeros, so istft's envelope never vanishes
    return _both(values, requires_grad=False)


def _close(ours, theirs):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape", SIGNALS)
@pytest.mark.parametrize("case", CASES)
def test_stft_values_and_gradients(shape, case):
    n_fft, hop, win, center, normalized, onesided = case
    (x, tx), (w, tw) = _both(SIGNALS[shape]), _windows(win, n_fft)
    ours = ndgrad.stft(x, n_fft, hop, win, w, center, "reflect", normalized, onesided, return_complex=True)
    theirs = torch.stft(tx, n_fft, hop, win, tw, center, "reflect", normalized, onesided, return_complex=True)
    _close(ours.real, theirs.real)
    _close(ours.imag, theirs.imag)
    weights = RNG.standard_normal(tuple(theirs.shape))
    (ours.real * ndgrad.tensor(weights) + ours.imag.sin()).sum().backward()
    (theirs.real * torch.tensor(weights) + theirs.imag.sin()).sum().backward()
    _close(x.grad, tx.grad)


@pytest.mark.parametrize("shape", SIGNALS)
@pytest.mark.parametrize("case", CASES)
def test_istft_inverts_stft_as_torch(shape, case):
    n_fft, hop, win, center, normalized, onesided = case
    (x, tx), (w, tw) = _both(SIGNALS[shape]), _windows(win, n_fft)
    length = SIGNALS[shape].shape[-1] if center else None
    ours = x.stft(n_fft, hop, win, w, center, normalized=normalized, onesided=onesided, return_complex=True)
    theirs = tx.stft(n_fft, hop, win, tw, center, normalized=normalized, onesided=onesided, return_complex=True)
    back = ours.istft(n_fft, hop, win, w, center, normalized, onesided, length)
    torch_back = theirs.istft(n_fft, hop, win, tw, center, normalized, onesided, length)
    _close(back, torch_back)
    if center:
        _close(back, tx)  # lossless
    (back * back).sum().backward()
    (torch_back * torch_back).sum().backward()
    _close(x.grad, tx.grad)


def test_real_output_complex_input_and_rectangular_window():
    (x, tx) = _both(SIGNALS["batched"], requires_grad=False)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        ours = ndgrad.stft(x, 8, return_complex=False)
    _close(ours, torch.stft(tx, 8, return_complex=False))
    z = RNG.standard_normal(40) + 1j * RNG.standard_normal(40)
    ours, theirs = ndgrad.stft(ndgrad.tensor(z), 8), torch.stft(torch.tensor(z), 8)
    _close(ndgrad.view_as_real(ours), torch.view_as_real(theirs))
    with pytest.warns(UserWarning, match="A window was not provided"):
        back = ndgrad.istft(ours, 8, onesided=False, return_complex=True, length=40)
    with pytest.warns(UserWarning, match="A window was not provided"):
        torch_back = torch.istft(theirs, 8, return_complex=True, length=40)
    _close(ndgrad.view_as_real(back), torch.view_as_real(torch_back))


def test_length_longer_than_the_signal_is_zero_padded_with_a_warning():
    (x, tx), (w, tw) = _both(SIGNALS["1-d"], requires_grad=False), _windows(None, 8)
    ours, theirs = ndgrad.stft(x, 8, window=w, return_complex=True), torch.stft(tx, 8, window=tw, return_complex=True)
    with pytest.warns(UserWarning, match="shorter than the length parameter"):
        back = ndgrad.istft(ours, 8, window=w, length=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(back, torch.istft(theirs, 8, window=tw, length=50))


def test_align_to_window_frames_from_the_window_start():
    (x, tx), (w, tw) = _both(SIGNALS["batched"], requires_grad=False), _windows(3, 8)
    ours = ndgrad.stft(x, 8, 2, 3, w, center=False, align_to_window=True, return_complex=True)
    theirs = torch.stft(tx, 8, 2, 3, tw, center=False, align_to_window=True, return_complex=True)
    _close(ndgrad.view_as_real(ours), torch.view_as_real(theirs))


def _message(library, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(library)
        except Exception as error:  # noqa: BLE001 (the type is compared too)
            return type(error).__name__, str(error).split("\n")[0].split(" (Triggered internally")[0]
    return None


def _spectrum(library, n_fft=8):
    signal = library.tensor(SIGNALS["1-d"])
    return library.stft(signal, n_fft, window=library.ones(n_fft, dtype=library.float64), return_complex=True)


ERRORS = {
    "no return_complex": lambda t: t.stft(t.tensor(SIGNALS["1-d"]), 8),
    "n_fft too large": lambda t: t.stft(t.tensor(SIGNALS["1-d"]), 50, center=False, return_complex=True),
    "hop 0": lambda t: t.stft(t.tensor(SIGNALS["1-d"]), 8, hop_length=0, return_complex=True),
    "win too long": lambda t: t.stft(t.tensor(SIGNALS["1-d"]), 8, win_length=9, return_complex=True),
    "window size": lambda t: t.stft(t.tensor(SIGNALS["1-d"]), 8, window=t.ones(5, dtype=t.float64),
                                    return_complex=True),
    "integer input": lambda t: t.stft(t.tensor(SIGNALS["1-d"]).long(), 8, return_complex=True),
    "3-d input": lambda t: t.stft(t.tensor(SIGNALS["1-d"])[None, None], 8, return_complex=True),
    "onesided complex": lambda t: t.stft(t.tensor(SIGNALS["1-d"]).to(t.complex128), 8, onesided=True),
    "align with center": lambda t: t.stft(t.tensor(SIGNALS["1-d"]), 8, align_to_window=True, return_complex=True),
    "pad mode": lambda t: t.stft(t.tensor(SIGNALS["1-d"]), 8, pad_mode="foo", return_complex=True),
    "istft real input": lambda t: t.istft(t.view_as_real(_spectrum(t)), 8),
    "istft n_fft": lambda t: t.istft(_spectrum(t), 10),
    "istft two-sided": lambda t: t.istft(_spectrum(t), 8, onesided=False),
    "istft complex onesided": lambda t: t.istft(_spectrum(t), 8, return_complex=True),
    "istft hop": lambda t: t.istft(_spectrum(t), 8, hop_length=0),
    "istft win": lambda t: t.istft(_spectrum(t), 8, win_length=9),
    "istft window": lambda t: t.istft(_spectrum(t), 8, window=t.ones(3)),
    "istft envelope": lambda t: t.istft(_spectrum(t), 8, hop_length=8, window=t.hann_window(8, dtype=t.float64)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_are_torchs(name):
    theirs = _message(torch, ERRORS[name])
    assert theirs is not None
    assert _message(ndgrad, ERRORS[name]) == theirs
