"""ndgrad.fft, torch.fft's mirror: the discrete Fourier transforms, their frequencies and shifts. The ops live in
ndgrad.ops.spectral, which lists them in FFT."""

from ndgrad.ops import spectral

__all__ = list(spectral.FFT)
globals().update({name: getattr(spectral, name) for name in spectral.FFT})
