"""torch.special's Bessel and Airy functions: bessel_j0/j1/y0/y1, modified_bessel_i0/i1/k0/k1,
scaled_modified_bessel_k0/k1, spherical_bessel_j0 and airy_ai. PyTorch records no gradient for any of them (their
results never require grad). Kernels from ndgrad.ops.special.special_functions, named as in scipy.special."""

from ndgrad._argument_parser import parses
from ndgrad.ops._checks import no_complex_kernel
from ndgrad.ops._op import Op
from ndgrad.ops.special import special_functions

__all__ = []  # torch.special's names only: see ndgrad.special


class BesselFunction(Op):
    """An elementwise function PyTorch does not differentiate, computed by the kernel named ``kernel``."""

    float_only = True
    differentiable = False
    kernel = None

    @classmethod
    def forward(cls, xp, x):
        return getattr(special_functions(xp), cls.kernel)(x).astype(x.dtype, copy=False)


class J0(BesselFunction):
    """J_0."""

    kernel = "j0"


class J1(BesselFunction):
    """J_1."""

    kernel = "j1"


class Y0(BesselFunction):
    """Y_0."""

    kernel = "y0"


class Y1(BesselFunction):
    """Y_1."""

    kernel = "y1"


class I0(BesselFunction):
    """I_0."""

    kernel = "i0"


class I1(BesselFunction):
    """I_1."""

    kernel = "i1"


class K0(BesselFunction):
    """K_0."""

    kernel = "k0"


class K1(BesselFunction):
    """K_1."""

    kernel = "k1"


class K0e(BesselFunction):
    """exp(x) K_0."""

    kernel = "k0e"


class K1e(BesselFunction):
    """exp(x) K_1."""

    kernel = "k1e"


class AiryAi(BesselFunction):
    """Ai."""

    kernel = "airy_ai"


class SphericalBesselJ0(BesselFunction):
    """sin(x) / x, and its Taylor series 1 - x^2/6 + x^4/120 - ... near 0, where the quotient would be 0 / 0."""

    @staticmethod
    def forward(xp, x):
        small = xp.abs(x) < 0.5
        square = x * x
        series = 1 - square / 6 * (1 - square / 20 * (1 - square / 42 * (1 - square / 72 * (1 - square / 110))))
        quotient = xp.sin(x) / xp.where(small, 1, x)
        return xp.where(small, series, xp.where(xp.isinf(x), 0, quotient)).astype(x.dtype, copy=False)


def _apply(op, input, name):
    no_complex_kernel(f"{name}_cpu", input)
    return op.apply(input)


@parses("special_bessel_j0(Tensor input, *, Tensor out=None)")
def bessel_j0(input):
    return _apply(J0, input, "bessel_j0")


@parses("special_bessel_j1(Tensor input, *, Tensor out=None)")
def bessel_j1(input):
    return _apply(J1, input, "bessel_j1")


@parses("special_bessel_y0(Tensor input, *, Tensor out=None)")
def bessel_y0(input):
    return _apply(Y0, input, "bessel_y0")


@parses("special_bessel_y1(Tensor input, *, Tensor out=None)")
def bessel_y1(input):
    return _apply(Y1, input, "bessel_y1")


@parses("special_modified_bessel_i0(Tensor input, *, Tensor out=None)")
def modified_bessel_i0(input):
    return _apply(I0, input, "modified_bessel_i0")


@parses("special_modified_bessel_i1(Tensor input, *, Tensor out=None)")
def modified_bessel_i1(input):
    return _apply(I1, input, "modified_bessel_i1")


@parses("special_modified_bessel_k0(Tensor input, *, Tensor out=None)")
def modified_bessel_k0(input):
    return _apply(K0, input, "modified_bessel_k0")


@parses("special_modified_bessel_k1(Tensor input, *, Tensor out=None)")
def modified_bessel_k1(input):
    return _apply(K1, input, "modified_bessel_k1")


@parses("special_scaled_modified_bessel_k0(Tensor x, *, Tensor out=None)")
def scaled_modified_bessel_k0(x):
    return _apply(K0e, x, "scaled_modified_bessel_k0")


@parses("special_scaled_modified_bessel_k1(Tensor x, *, Tensor out=None)")
def scaled_modified_bessel_k1(x):
    return _apply(K1e, x, "scaled_modified_bessel_k1")


@parses("special_spherical_bessel_j0(Tensor x, *, Tensor out=None)")
def spherical_bessel_j0(x):
    return _apply(SphericalBesselJ0, x, "spherical_bessel_j0")


@parses("special_airy_ai(Tensor x, *, Tensor out=None)")
def airy_ai(x):
    return _apply(AiryAi, x, "airy_ai")
