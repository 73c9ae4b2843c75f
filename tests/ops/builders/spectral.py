"""Sample builders for the FFT primitives of ndgrad.ops.spectral, each reached through the torch.fft functions that
record it: complex inputs for the c2c and c2r transforms, real ones for r2c; sizes cut and padded by ``n``/``s``."""

from ndgrad.ops import spectral

from ..samples import C, Call, Case, S, T, complexified, draw


def fft_call(name, **kwargs):
    """lib.fft.name(x, **kwargs)."""
    arguments = "".join(f", {k}={v!r}" for k, v in kwargs.items())
    return Call(f"fft.{name}(${arguments})", lambda lib, x: getattr(lib.fft, name)(x, **kwargs))


def cases(op, rng, specs, complex_input):
    """One case per (shape, layout, function name, keyword arguments)."""
    made = []
    for shape, layout, name, kwargs in specs:
        input = draw(rng, shape, layout=layout)
        made.append(Case(op, (complexified(input, rng) if complex_input else input,), fft_call(name, **kwargs)))
    return made


def c2c_cases(op, rng):
    return cases(op, rng, [
        ((5,), C, "fft", {}),
        ((3, 4), T, "ifft", {"norm": "ortho"}),
        ((3, 4), C, "fft2", {}),
        ((2, 3, 2), C, "fftn", {"norm": "forward", "dim": (0, 2)}),
        ((4,), C, "fft", {"n": 6}),
        ((3, 4), S, "ifft2", {"s": (2, 3)}),
    ], complex_input=True) + cases(op, rng, [((2, 3), C, "ifftn", {})], complex_input=False)


def r2c_cases(op, rng):
    return cases(op, rng, [
        ((5,), C, "fft", {}),
        ((3, 4), C, "rfft", {}),
        ((3, 5), T, "rfft", {"n": 4, "dim": 0}),
        ((3, 4), C, "rfft2", {"norm": "ortho"}),
        ((2, 3, 3), C, "rfftn", {"norm": "forward"}),
        ((2, 3), S, "rfft", {"n": 5}),
    ], complex_input=False)


def c2r_cases(op, rng):
    return cases(op, rng, [
        ((3, 4), C, "irfft", {}),
        ((5,), C, "irfft", {"n": 5, "norm": "ortho"}),
        ((3, 4), C, "irfftn", {}),
        ((3, 3), T, "irfft2", {"s": (3, 6), "norm": "forward"}),
        ((4,), C, "hfft", {}),
        ((2, 3), C, "hfftn", {"norm": "ortho"}),
    ], complex_input=True)


BUILDERS = {
    spectral.FftC2C: c2c_cases,
    spectral.FftR2C: r2c_cases,
    spectral.FftC2R: c2r_cases,
}
