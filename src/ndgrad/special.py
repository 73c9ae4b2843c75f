"""ndgrad.special, torch.special's mirror. Its own functions live in ndgrad.ops.special_functions, ndgrad.ops.bessel
and ndgrad.ops.orthogonal_polynomials; the rest are torch's top-level functions under torch.special's names, each
declared with the signature torch.special gives it (errors name ``special_erf``, not ``erf``)."""

from ndgrad._argument_parser import alias, parses
from ndgrad.ops import reduction, rounding, softmaxes, special, transcendental
from ndgrad.ops.bessel import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
)
from ndgrad.ops.orthogonal_polynomials import (
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)
from ndgrad.ops.special_functions import (
    entr,
    erfcx,
    gammainc,
    gammaincc,
    i0e,
    i1,
    i1e,
    log_ndtr,
    multigammaln,
    ndtr,
    ndtri,
    xlog1py,
    zeta,
)
from ndgrad.ops.special_functions import i0 as _i0
from ndgrad.ops.special_functions import logit as _logit

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
    "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e",
    "i1", "i1e", "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit",
    "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta",
]

_ONE_TENSOR = "(Tensor input, *, Tensor out=None)"
erf = alias(special.erf, f"special_erf{_ONE_TENSOR}")
erfc = alias(special.erfc, f"special_erfc{_ONE_TENSOR}")
erfinv = alias(special.erfinv, f"special_erfinv{_ONE_TENSOR}")
gammaln = alias(special.lgamma, f"special_gammaln{_ONE_TENSOR}")
digamma = alias(special.digamma, f"special_digamma{_ONE_TENSOR}")
psi = alias(special.digamma, f"special_psi{_ONE_TENSOR}")
polygamma = alias(special.polygamma, "special_polygamma(int n, Tensor input, *, Tensor out=None)")
sinc = alias(special.sinc, f"special_sinc{_ONE_TENSOR}")
xlogy = alias(special.xlogy, *[f"special_{schema}" for schema in special.xlogy.signature.schemas])
exp2 = alias(transcendental.exp2, f"special_exp2{_ONE_TENSOR}")
expm1 = alias(transcendental.expm1, f"special_expm1{_ONE_TENSOR}")
log1p = alias(transcendental.log1p, f"special_log1p{_ONE_TENSOR}")
expit = alias(transcendental.sigmoid, f"special_expit{_ONE_TENSOR}")
i0 = alias(_i0, f"special_i0{_ONE_TENSOR}")
logit = alias(_logit, "special_logit(Tensor input, float? eps=None, *, Tensor out=None)")
softmax = alias(softmaxes.softmax, "special_softmax(Tensor input, int dim, ScalarType? dtype=None)")
log_softmax = alias(softmaxes.log_softmax, "special_log_softmax(Tensor input, int dim, *, ScalarType? dtype=None)")
logsumexp = alias(reduction.logsumexp, "special_logsumexp(Tensor input, int[1] dim, bool keepdim=False, *, "
                                       "Tensor out=None)")


@parses("special_round(Tensor input, *, int decimals=0, Tensor out=None)")
def round(input, *, decimals=0):
    """torch.round with ``decimals`` always given: torch.special.round records RoundBackward1, even for 0."""
    return rounding.round.__wrapped__(input, decimals=decimals)
