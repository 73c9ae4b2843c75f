"""The special functions NumPy lacks, for ndgrad.ops.special: erf, erfc, erfinv, gammaln, digamma, polygamma.

Named as in scipy.special, so that CuPy arrays can use cupyx.scipy.special's functions with the same calls. Each
computes in float64 and returns its input's dtype; erf, erfc and lgamma are Python's math functions, one element
at a time (the C library's, accurate to an ulp or two), the rest vectorised series.
"""

import math
from fractions import Fraction

import numpy as np

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "polygamma"]


def _each(function, values):
    """``function`` of every element of a float64 array: a float64 array of the same shape."""
    flat = map(function, values.ravel().tolist())
    return np.fromiter(flat, np.float64, values.size).reshape(values.shape)


def erf(x):
    return _each(math.erf, np.asarray(x, np.float64)).astype(x.dtype, copy=False)


def erfc(x):
    return _each(math.erfc, np.asarray(x, np.float64)).astype(x.dtype, copy=False)


def gammaln(x):
    """log|Gamma(x)|; +inf at the poles (0 and the negative integers), where math.lgamma raises."""
    values = np.asarray(x, np.float64)
    poles = (values <= 0) & (values == np.floor(values))
    result = _each(math.lgamma, np.where(poles, 1.0, values))
    result[poles] = math.inf
    return result.astype(x.dtype, copy=False)


def _erf_residual(x, target):
    """erf(x) - target, with no cancellation: near 1, 1 - target is exact and erfc(x) accurate."""
    return math.erf(x) - target if target <= 0.5 else (1.0 - target) - math.erfc(x)


def erfinv(y):
    """The inverse of erf on (-1, 1); +-inf at +-1 and nan outside."""
    values = np.asarray(y, np.float64)
    target = np.abs(values)
    inside = target < 1
    target = np.where(inside, target, 0.0)
    # Winitzki's closed form (relative error < 2e-3) as the start; Halley's method triples the correct digits per
    # step, so two steps reach float64 precision: x -= u / (1 + x u), u = (erf(x) - y) / erf'(x).
    log_term = np.log1p(-target) + np.log1p(target)  # log(1 - y^2) without cancellation
    shape = 2 / (math.pi * 0.147) + log_term / 2
    x = np.sqrt(np.sqrt(shape * shape - log_term / 0.147) - shape)
    for _ in range(2):
        residual = np.fromiter(map(_erf_residual, x.ravel().tolist(), target.ravel().tolist()), np.float64, x.size)
        step = residual.reshape(x.shape) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
        x = x - step / (1 + x * step)
    x = np.where(inside, x, np.where(np.abs(values) == 1, math.inf, math.nan))
    return np.copysign(x, values).astype(y.dtype, copy=False)


def _bernoulli_over_factorial(count):
    """B_2k / (2k)! for k = 1..count, from the recurrence sum_{j<=m} C(m+1, j) B_j = 0, in exact fractions."""
    numbers = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        numbers.append(-sum(math.comb(m + 1, j) * numbers[j] for j in range(m)) / (m + 1))
    return [float(numbers[2 * k] / math.factorial(2 * k)) for k in range(1, count + 1)]


_EULER_MACLAURIN = _bernoulli_over_factorial(12)
# digamma's asymptotic series: psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k), k = 1..7.
_DIGAMMA_SERIES = [b * math.factorial(2 * k) / (2 * k) for k, b in enumerate(_EULER_MACLAURIN[:7], start=1)]


def digamma(x):
    """psi = Gamma'/Gamma, as PyTorch computes it: reflection below 0, the recurrence up to 10, the asymptotic series.

    psi(+-0) is -+inf and psi is nan at the negative integers (PyTorch's choices, SciPy's too).
    """
    values = np.asarray(x, np.float64)
    negative = values < 0
    # NOTE: reflection, psi(x) = psi(1 - x) - pi / tan(pi x); tan has period 1, so the fractional part keeps it exact.
    z = np.where(negative, 1 - values, values)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(negative, -math.pi / np.tan(math.pi * (values - np.trunc(values))), 0.0)
        for _ in range(10):  # psi(z) = psi(z + 1) - 1/z, until z >= 10
            small = z < 10
            result = np.where(small, result - 1 / z, result)
            z = np.where(small, z + 1, z)
        inverse_square = 1 / (z * z)
        series = np.zeros_like(z)
        for coefficient in reversed(_DIGAMMA_SERIES):
            series = (series + coefficient) * inverse_square
        result = result + np.log(z) - 0.5 / z - series
    result = np.where(values == 0, np.copysign(math.inf, -values), result)
    result = np.where(negative & (values == np.trunc(values)), math.nan, result)
    return result.astype(x.dtype, copy=False)


def polygamma(n, x):
    """The n-th derivative of digamma: (-1)^(n+1) n! zeta(n + 1, x) for n >= 1."""
    if n == 0:
        return digamma(x)
    values = np.asarray(x, np.float64)
    sign = 1.0 if n % 2 else -1.0
    result = sign * math.factorial(n) * _hurwitz_zeta(n + 1, values)
    # NOTE: PyTorch's values at one infinity are NaN: trigamma's at -inf (its reflection formula), and the higher
    # orders' at +inf (its zeta function's)
    result = np.where(values == (-math.inf if n == 1 else math.inf), math.nan, result)
    return result.astype(x.dtype, copy=False)


def _hurwitz_zeta(s, q):
    """zeta(s, q) = sum_k (q + k)^-s for an integer s >= 2: terms summed until q + k >= s + 10, then the
    Euler-Maclaurin tail. inf at the poles (q = 0, -1, -2, ...)."""
    poles = (q <= 0) & (q == np.floor(q))
    a = np.where(poles | ~np.isfinite(q), s + 10.0, q)
    total = np.zeros_like(a)
    while True:
        small = a < s + 10
        if not small.any():
            break
        total += np.where(small, a ** -s, 0.0)
        a = np.where(small, a + 1, a)
    # sum_{k>=0} f(a + k) = integral_a^inf f + f(a)/2 + sum_j B_2j/(2j)! (s)_(2j-1) a^(-s-2j+1), for f(t) = t^-s.
    term = a ** -s
    tail = a * term / (s - 1) + term / 2
    power, rising, inverse_square = term / a, float(s), 1 / (a * a)
    for j, coefficient in enumerate(_EULER_MACLAURIN, start=1):
        tail += coefficient * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        power = power * inverse_square
    total += tail
    total[poles] = math.inf
    return np.where(np.isnan(q), math.nan, np.where(q == math.inf, 0.0, total))
