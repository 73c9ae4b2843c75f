"""The special functions NumPy lacks, for ndgrad.ops.special and ndgrad.ops.special_functions: the error and gamma
families here, the Bessel functions from ndgrad.ops._numpy_bessel.

Named as in scipy.special, so that CuPy arrays can use cupyx.scipy.special's functions with the same calls. Each
computes in float64 and returns its input's dtype; erf, erfc and lgamma are Python's math functions, one element
at a time (the C library's, accurate to an ulp or two), the rest vectorised series.
"""

import math
from fractions import Fraction

import numpy as np

from ndgrad.ops._numpy_bessel import airy_ai, i0, i0e, i1, i1e, j0, j1, k0, k0e, k1, k1e, y0, y1

__all__ = [
    "erf", "erfc", "erfinv", "erfcx", "ndtri", "log_ndtr", "gammaln", "digamma", "polygamma", "zeta", "gammainc",
    "gammaincc", "i0", "i0e", "i1", "i1e", "j0", "j1", "y0", "y1", "k0", "k0e", "k1", "k1e", "airy_ai",
]


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
    """zeta(s, q) = sum_k (q + k)^-s for real s > 1: terms summed until q + k >= s + 10 (or until they no longer
    change the sum), then the Euler-Maclaurin tail. inf at the poles (q = 0, -1, -2, ...)."""
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), q)
    poles = (q <= 0) & (q == np.floor(q))
    a = np.where(poles | ~np.isfinite(q), s + 10.0, q)
    total = np.zeros_like(a)
    needs_tail = np.ones(a.shape, bool)
    while True:
        small = (a < s + 10) & needs_tail
        if not small.any():
            break
        term = np.where(small, a ** -s, 0.0)
        total += term
        # past a = 1 the terms shrink, and the rest sums to about a term / (s - 1): once that is below the sum's
        # last digit, it cannot change it
        needs_tail &= ~(small & (a >= 1) & (a * np.abs(term) <= 1e-17 * (s - 1) * np.abs(total)))
        a = np.where(small, a + 1, a)
    # sum_{k>=0} f(a + k) = integral_a^inf f + f(a)/2 + sum_j B_2j/(2j)! (s)_(2j-1) a^(-s-2j+1), for f(t) = t^-s.
    a = np.where(needs_tail, a, s + 10.0)
    term = a ** -s
    tail = a * term / (s - 1) + term / 2
    power, rising, inverse_square = term / a, s.copy(), 1 / (a * a)
    for j, coefficient in enumerate(_EULER_MACLAURIN, start=1):
        tail += coefficient * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        power = power * inverse_square
    total += np.where(needs_tail, tail, 0.0)
    total[poles] = math.inf
    return np.where(np.isnan(q), math.nan, np.where(q == math.inf, 0.0, total))


def zeta(x, q):
    """The Hurwitz zeta function with PyTorch's values off its domain: inf at x = 1 and at the poles q = 0, -1, ...;
    NaN for x < 1, for q < 0 with x not an integer, and for q = inf; at x = inf, inf, 1 or NaN as q < 1, = 1, > 1."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    inside = (x > 1) & np.isfinite(x) & np.isfinite(q) & ((q > 0) | (x == np.floor(x)))
    result = _hurwitz_zeta(np.where(inside, x, 2.0), np.where(inside, q, 1.0))
    result = np.where(inside, result, math.nan)
    at_infinity = np.where(q < 1, math.inf, np.where(q == 1, 1.0, math.nan))
    result = np.where((x == math.inf) & np.isfinite(q), at_infinity, result)
    result = np.where((q <= 0) & (q == np.floor(q)) & ~(x < 1), math.inf, result)
    return np.where(x == 1, math.inf, np.where(x < 1, math.nan, result))


# ---- the incomplete gamma functions ----------------------------------------------------------------------------------
_MAX_TERMS = 10_000  # the series and the continued fraction need about 9 sqrt(a) terms near x = a: a up to ~1e6


def _log_prefactor(a, x):
    """log(x^a e^-x / Gamma(a)), without the cancellation of a log x against log Gamma(a) that costs all digits for
    large a: with Stirling's series, -a (t - 1 - log t) + log(a / 2 pi) / 2 - stirling_error(a), t = x / a."""
    d = x / a - 1
    large = a > 20  # where five terms of the series leave an error under 1e-17
    safe = np.where(large, a, 40.0)
    stirling_error = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * safe**2)) / safe**2) / safe**2)
                      / safe**2) / safe
    stable = a * (np.log1p(d) - d) + 0.5 * np.log(safe / (2 * math.pi)) - stirling_error
    return np.where(large, stable, a * np.log(x) - x - gammaln(a))


def _lower_series(a, x):
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_k x^k / ((a+1)...(a+k)), for x < a + 1 (the terms then shrink)."""
    term, total = np.ones_like(a), np.ones_like(a)
    for k in range(1, _MAX_TERMS):
        term = term * x / (a + k)
        total = total + term
        if np.all(term <= 1e-17 * total):
            break
    else:
        _not_converged(a)
    return np.exp(_log_prefactor(a, x)) * total / a


def _not_converged(a):
    raise NotImplementedError(
        f"incomplete gamma function: a = {np.max(a):g} is beyond what ndgrad computes accurately (a up to about 1e6); "
        "PyTorch uses Temme's uniform asymptotic expansion there, which ndgrad does not have yet"
    )


def _upper_fraction(a, x):
    """Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)), for x >= a + 1,
    evaluated forwards by Lentz's method."""
    tiny = 1e-300
    b = x + 1 - a
    c, d = np.full_like(a, 1 / tiny), 1 / b
    h = d
    for k in range(1, _MAX_TERMS):
        numerator = -k * (k - a)
        b = b + 2
        d = numerator * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + numerator / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        step = d * c
        h = h * step
        if np.all(np.abs(step - 1) <= 1e-16):
            break
    else:
        _not_converged(a)
    return np.exp(_log_prefactor(a, x)) * h


def _incomplete_gamma(a, x, upper):
    """P(a, x) or (``upper``) Q(a, x) = 1 - P, with PyTorch's values where a or x is 0, infinite or negative."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    inside = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    series = inside & (x < a + 1)
    fraction = inside & ~series
    lower = _lower_series(np.where(series, a, 1.0), np.where(series, x, 0.5))
    upper_value = _upper_fraction(np.where(fraction, a, 1.0), np.where(fraction, x, 2.0))
    result = np.where(series, 1 - lower if upper else lower, np.where(fraction, upper_value if upper else
                                                                      1 - upper_value, math.nan))
    at_one, at_zero = (0.0, 1.0) if upper else (1.0, 0.0)
    # NOTE: in PyTorch's order of cases: the first that holds decides (a = inf and x = NaN is 0, or 1 for Q)
    cases = [
        ((x < 0) | (a < 0), math.nan), (a == 0, np.where(x > 0, at_one, math.nan)), (x == 0, at_zero),
        (a == math.inf, np.where(x == math.inf, math.nan, at_zero)), (x == math.inf, at_one),
    ]
    for condition, value in reversed(cases):
        result = np.where(condition, value, result)
    return result


def gammainc(a, x):
    """The regularised lower incomplete gamma function P(a, x), to about 1e-14, for a up to about 1e6, where the
    series and the continued fraction converge within _MAX_TERMS; beyond, where PyTorch switches to Temme's uniform
    expansion, a clear NotImplementedError instead of a wrong value."""
    return _incomplete_gamma(a, x, upper=False)


def gammaincc(a, x):
    """The regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x) (see gammainc for its accuracy)."""
    return _incomplete_gamma(a, x, upper=True)


# ---- the normal distribution and the scaled complementary error function -----------------------------------------
def _square_parts(x):
    """x^2 as a sum hi + lo of two floats, hi = fl(x^2) (Dekker's exact product), so exp(x^2) loses nothing."""
    split = x * 134217729.0  # 2^27 + 1
    high = split - (split - x)
    low = x - high
    square = x * x
    return square, ((high * high - square) + 2 * high * low) + low * low


def erfcx(x):
    """exp(x^2) erfc(x): the product with x^2 split exactly up to 26 (beyond, erfc underflows), then the
    asymptotic series 1 / (x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k, whose terms there fall below 1e-17."""
    values = np.asarray(x, np.float64)
    near = values < 26
    inner = np.where(near, values, 0.0)
    square, low = _square_parts(inner)
    with np.errstate(over="ignore", invalid="ignore"):
        product = np.exp(square) * (1 + low) * _each(math.erfc, inner)
        far = np.where(near, 26.0, values)
        term, total = np.ones_like(far), np.ones_like(far)
        for k in range(1, 12):
            term = -term * (2 * k - 1) / (2 * far * far)
            total = total + term
        asymptotic = total / (far * math.sqrt(math.pi))
    result = np.where(near, np.where(values == -math.inf, math.inf, product), asymptotic)
    return result.astype(x.dtype, copy=False)


def log_ndtr(x):
    """log Phi(x): log1p(-Phi(-x)) down to -1, below which log(erfcx(-x / sqrt 2) / 2) - x^2 / 2, which does not
    underflow."""
    values = np.asarray(x, np.float64)
    left = values < -1
    left_value = np.log(erfcx(-np.where(left, values, -2.0) / math.sqrt(2)) / 2) - values * values / 2
    right_value = np.log1p(-_each(math.erfc, np.where(left, 0.0, values) / math.sqrt(2)) / 2)
    return np.where(left, left_value, right_value).astype(x.dtype, copy=False)


def ndtri(p):
    """The quantile of the standard normal distribution, Phi^-1(p): sqrt 2 erfinv(2p - 1) on [0.25, 0.75], where
    2p - 1 is exact; in the tails, Halley's method on Phi(x) = q for q = min(p, 1 - p) (also exact), from a rational
    start good to 4.5e-4 (Abramowitz and Stegun 26.2.23), three steps to float64 precision."""
    values = np.asarray(p, np.float64)
    middle = (values >= 0.25) & (values <= 0.75)
    central = math.sqrt(2) * erfinv(np.where(middle, 2 * values - 1, 0.0))
    q = np.where(middle | ~(values > 0) | ~(values < 1), 0.125, np.minimum(values, 1 - values))
    t = np.sqrt(-2 * np.log(q))
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    for _ in range(3):
        cdf = _each(math.erfc, -x / math.sqrt(2)) / 2
        step = (cdf - q) / (np.exp(-x * x / 2) / math.sqrt(2 * math.pi))
        x = x - step / (1 + x * step / 2)
    tails = np.where(values < 0.5, x, -x)
    result = np.where(middle, central, tails)
    result = np.where(values == 0, -math.inf, np.where(values == 1, math.inf, result))
    return np.where((values < 0) | (values > 1) | np.isnan(values), math.nan, result).astype(p.dtype, copy=False)
