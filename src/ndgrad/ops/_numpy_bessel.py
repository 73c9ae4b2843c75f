"""Bessel and Airy functions on NumPy arrays, named as in scipy.special (i0, i0e, i1, i1e, j0, j1, y0, y1, k0, k0e,
k1, k1e) with airy_ai, for ndgrad.ops.special_functions and ndgrad.ops.bessel. Each computes in float64.

Near 0 they sum power series; far out, Hankel's asymptotic expansions; in between, Miller's backward recurrence (J and
Y), and the trapezoidal rule on e^-x cosh t (K and Ai for positive x), which converges exponentially for such
integrands. Relative error is about 1e-15, except near the zeros of J, Y and Ai, where the error is absolute (about
1e-16 for J and Y, 1e-13 for Ai on [-8, -6], where neither its series nor its asymptotic expansion is sharper).
"""

import math

import numpy as np

__all__ = ["i0", "i0e", "i1", "i1e", "j0", "j1", "y0", "y1", "k0", "k0e", "k1", "k1e", "airy_ai"]

EULER_GAMMA = 0.5772156649015329
SERIES_TERMS = 60  # (x/2)^2k / (k! (k+n)!) has fallen below 1e-17 of the sum by then, for |x| <= 20
HANKEL_TERMS = 40  # k! / (2z)^k < 1e-16 for z >= 20, where the expansions start
HANKEL_FROM = 20.0
MILLER_UP_TO = 25.0


def _float64(x):
    return np.asarray(x, np.float64)


def _power_series(n, x, sign=1):
    """sum_k (x/2)^(2k+n) (sign)^k / (k! (k+n)!), I_n's series (sign 1) or J_n's (sign -1), and the same sum with
    each term weighted by psi(k+1) + psi(k+n+1), which the series of K_n and Y_n add to a logarithm's multiple."""
    quarter_square = sign * x * x / 4
    term = (x / 2) ** n / math.factorial(n)
    weight = 2 * -EULER_GAMMA + (1.0 if n == 1 else 0.0)  # psi(1) + psi(n + 1)
    plain, weighted = term, term * weight
    for k in range(1, SERIES_TERMS):
        term = term * quarter_square / (k * (k + n))
        weight += 1 / k + 1 / (k + n)
        plain, weighted = plain + term, weighted + term * weight
    return plain, weighted


def _hankel(mu, z, alternating):
    """sum_k (+-1)^k a_k / z^k with a_k = prod_{j<=k} (mu - (2j-1)^2) / (k! 8^k): I's (alternating) and K's
    asymptotic series for mu = 4 nu^2; stops where the terms start to grow (it diverges past k ~ 2z)."""
    total, term, growing = np.ones_like(z), np.ones_like(z), np.zeros(z.shape, bool)
    for k in range(1, HANKEL_TERMS):
        new = term * (mu - (2 * k - 1) ** 2) / (8 * k * z) * (-1 if alternating else 1)
        growing |= np.abs(new) > np.abs(term)
        term = np.where(growing, 0.0, new)
        total = total + term
    return total


def _hankel_pq(mu, z):
    """P and Q of the Hankel expansions of J and Y: the even and odd terms of the alternating series in z."""
    p, q, term = np.ones_like(z), np.zeros_like(z), np.ones_like(z)
    for k in range(1, HANKEL_TERMS):
        term = term * (mu - (2 * k - 1) ** 2) / (8 * k * z)
        sign = -1 if (k // 2) % 2 else 1  # (-1)^floor(k/2): P = a0 - a2 + a4 ..., Q = a1 - a3 + ...
        if k % 2:
            q = q + sign * term
        else:
            p = p + sign * term
    return p, q


def _scaled_i(n, x):
    """e^-|x| I_n(|x|): the power series up to 20, I's asymptotic series beyond."""
    a = np.abs(x)
    small = a <= HANKEL_FROM
    series = _power_series(n, np.where(small, a, 0.0))[0] * np.exp(-np.where(small, a, 0.0))
    z = np.where(small, HANKEL_FROM, a)
    asymptotic = _hankel(4.0 * n * n, z, alternating=True) / np.sqrt(2 * math.pi * z)
    return np.where(small, series, asymptotic)


def i0e(x):
    x = _float64(x)
    return np.where(np.isnan(x), x, _scaled_i(0, x))


def i1e(x):
    x = _float64(x)
    return np.where(np.isnan(x), x, np.copysign(_scaled_i(1, x), x))


def i0(x):
    """I_0; NaN at +-inf (PyTorch's value)."""
    x = _float64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        result = _scaled_i(0, x) * np.exp(np.abs(x) / 2) * np.exp(np.abs(x) / 2)  # halves: e^|x| overflows first
    return np.where(np.isinf(x), math.nan, result)


def i1(x):
    """I_1; NaN at +-inf (PyTorch's value)."""
    x = _float64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        result = np.copysign(_scaled_i(1, x), x) * np.exp(np.abs(x) / 2) * np.exp(np.abs(x) / 2)
    return np.where(np.isinf(x), math.nan, result)


# ---- K: the series below 2, the trapezoidal rule up to 20, the asymptotic series beyond --------------------------
K_SERIES_UP_TO = 2.0
TRAPEZOID_STEP = 0.1


def scaled_k_integral(nu, z):
    """e^z K_nu(z) = integral_0^inf exp(-z (cosh t - 1)) cosh(nu t) dt for z > 0, by the trapezoidal rule: the
    integrand is analytic and decays doubly exponentially, so a step of 0.1 is exact to rounding for z <= 25."""
    z = z[..., None]
    end = math.acosh(1 + 45 / float(np.min(z, initial=K_SERIES_UP_TO)))  # exp(-45): past float64's precision
    t = np.arange(0.0, end + TRAPEZOID_STEP, TRAPEZOID_STEP)
    values = np.exp(-z * 2 * np.sinh(t / 2) ** 2) * np.cosh(nu * t)  # cosh t - 1 = 2 sinh^2(t/2), no cancellation
    return TRAPEZOID_STEP * (values.sum(-1) - values[..., 0] / 2)


def _scaled_k(n, x):
    """e^x K_n(x) for x > 0 (NaN below 0, inf at 0)."""
    small = x <= K_SERIES_UP_TO
    middle = ~small & (x <= HANKEL_FROM)
    s = np.where(small & (x > 0), x, 1.0)
    plain, weighted = _power_series(n, s)
    log_half = np.log(s / 2)
    if n == 0:  # K_0 = -log(x/2) I_0 + sum psi(k+1) (x^2/4)^k / k!^2
        series = -log_half * plain + weighted / 2
    else:  # K_1 = 1/x + log(x/2) I_1 - (1/2) sum (psi(k+1) + psi(k+2)) terms
        series = 1 / s + log_half * plain - weighted / 2
    series = series * np.exp(s)
    trapezoid = scaled_k_integral(float(n), np.where(middle, x, HANKEL_FROM))
    z = np.where(x > HANKEL_FROM, x, HANKEL_FROM)
    asymptotic = _hankel(4.0 * n * n, z, alternating=False) * np.sqrt(math.pi / (2 * z))
    result = np.where(small, series, np.where(middle, trapezoid, asymptotic))
    result = np.where(x == 0, math.inf, result)
    return np.where(x < 0, math.nan, np.where(x == math.inf, 0.0, result))


def k0e(x):
    x = _float64(x)
    return np.where(np.isnan(x), x, _scaled_k(0, x))


def k1e(x):
    x = _float64(x)
    return np.where(np.isnan(x), x, _scaled_k(1, x))


def k0(x):
    x = _float64(x)
    with np.errstate(under="ignore"):
        return np.where(np.isnan(x), x, _scaled_k(0, x) * np.exp(-x))


def k1(x):
    x = _float64(x)
    with np.errstate(under="ignore"):
        return np.where(np.isnan(x), x, _scaled_k(1, x) * np.exp(-x))


# ---- J and Y -------------------------------------------------------------------------------------------------------
def _miller(x):
    """J_0, J_1, Y_0, Y_1 for 1 <= x <= 25 by Miller's backward recurrence J_{k-1} = (2k/x) J_k - J_{k+1}, started
    far above x, normalised by J_0 + 2 sum J_2k = 1. Y comes from the Neumann series
    Y_0 = (2/pi) (log(x/2) + gamma) J_0 - (4/pi) sum (-1)^k J_2k / k, and Y_1 = -Y_0'."""
    top = float(np.max(x, initial=1.0))
    start = 2 * int((top + 12 * top ** (1 / 3) + 20) / 2)
    above, current = np.zeros_like(x), np.full_like(x, 1e-30)
    norm, y0_sum, y1_sum = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    odd_above = np.zeros_like(x)  # J_{2k+1}, for Y_1's terms (J_{2k-1} - J_{2k+1}) / k
    for k in range(start, 0, -1):
        below = 2 * k / x * current - above  # J_{k-1}
        if k % 2 == 0:  # current is J_k with k even
            half = k // 2
            sign = -1.0 if half % 2 else 1.0
            norm = norm + 2 * current
            y0_sum = y0_sum + sign * current / half
            y1_sum = y1_sum + sign * (below - odd_above) / half
        else:
            odd_above = current
        above, current = current, below
    j0_value, j1_value = current / (norm + current), above / (norm + current)
    y0_sum, y1_sum = y0_sum / (norm + current), y1_sum / (norm + current)
    log_term = np.log(x / 2) + EULER_GAMMA
    y0_value = 2 / math.pi * log_term * j0_value - 4 / math.pi * y0_sum
    y1_value = 2 / math.pi * (log_term * j1_value - j0_value / x) + 2 / math.pi * y1_sum
    return j0_value, j1_value, y0_value, y1_value


def _bessel_jy(x):
    """J_0, J_1 (of |x|) and Y_0, Y_1 (of x > 0) by region: series up to 1, Miller up to 25, Hankel beyond."""
    a = np.abs(x)
    small, large = a <= 1, a > MILLER_UP_TO
    s = np.where(small, a, 1.0)
    j0_series, j0_weighted = _power_series(0, s, -1)
    j1_series, j1_weighted = _power_series(1, s, -1)
    log_half = np.log(s / 2)
    y0_series = 2 / math.pi * (log_half * j0_series - j0_weighted / 2)
    y1_series = -2 / (math.pi * s) + 2 / math.pi * log_half * j1_series - j1_weighted / math.pi
    miller = _miller(np.where(small | large, 1.0, a))
    z = np.where(large, a, HANKEL_FROM + 10)
    cos, sin = np.cos(z), np.sin(z)
    scale = np.sqrt(2 / (math.pi * z)) / math.sqrt(2)
    p0, q0 = _hankel_pq(0.0, z)
    p1, q1 = _hankel_pq(4.0, z)
    # chi = z - pi/4 for order 0 and z - 3 pi/4 for order 1, through cos z and sin z, which NumPy reduces exactly
    cos0, sin0, cos1, sin1 = cos + sin, sin - cos, sin - cos, -(sin + cos)
    hankel = (scale * (p0 * cos0 - q0 * sin0), scale * (p1 * cos1 - q1 * sin1),
              scale * (p0 * sin0 + q0 * cos0), scale * (p1 * sin1 + q1 * cos1))
    series = (j0_series, j1_series, y0_series, y1_series)
    return [np.where(small, s_value, np.where(large, h_value, m_value))
            for s_value, m_value, h_value in zip(series, miller, hankel)]


def j0(x):
    """J_0; NaN at +-inf (PyTorch's value)."""
    x = _float64(x)
    result = _bessel_jy(np.where(np.isfinite(x), x, 1.0))[0]
    return np.where(np.isfinite(x), result, math.nan)


def j1(x):
    """J_1; NaN at +-inf (PyTorch's value)."""
    x = _float64(x)
    result = _bessel_jy(np.where(np.isfinite(x), x, 1.0))[1]
    return np.where(np.isfinite(x), np.where(x < 0, -result, result), math.nan)  # odd


def _bessel_y(x, order):
    finite = np.isfinite(x) & (x > 0)
    result = _bessel_jy(np.where(finite, x, 1.0))[2 + order]
    return np.where(finite, result, np.where(x == 0, -math.inf, math.nan))


def y0(x):
    """Y_0; -inf at 0, NaN below 0 and at +-inf (PyTorch's values)."""
    return _bessel_y(_float64(x), 0)


def y1(x):
    """Y_1; -inf at 0, NaN below 0 and at +-inf (PyTorch's values)."""
    return _bessel_y(_float64(x), 1)


# ---- Airy Ai -------------------------------------------------------------------------------------------------------
AI_0 = 0.3550280538878172  # Ai(0) = 3^(-2/3) / Gamma(2/3)
AI_PRIME_0 = -0.2588194037928068  # Ai'(0) = -3^(-1/3) / Gamma(1/3)
AIRY_SERIES_FROM = -7.8  # below, the asymptotic expansion; the crossing of the two methods' errors (about 1e-13)
AIRY_SERIES_TERMS = 80


def _airy_series(x):
    """Ai(x) = Ai(0) f(x) + Ai'(0) g(x), f = sum 3^k (1/3)_k x^3k / (3k)!, g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!, in
    extended precision: for negative x the terms reach e^zeta before they cancel to Ai."""
    x = x.astype(np.longdouble)
    cube = x * x * x
    f_term, g_term = np.ones_like(x), x.copy()
    f_sum, g_sum = f_term.copy(), g_term.copy()
    for k in range(1, AIRY_SERIES_TERMS):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f_sum, g_sum = f_sum + f_term, g_sum + g_term
    return (np.longdouble(AI_0) * f_sum + np.longdouble(AI_PRIME_0) * g_sum).astype(np.float64)


def _airy_oscillating(x):
    """Ai(-z) ~ z^(-1/4) / sqrt(pi) [sin(zeta + pi/4) P - cos(zeta + pi/4) Q], zeta = 2/3 z^(3/2), with
    P = sum (-1)^k u_2k / zeta^2k, Q = sum (-1)^k u_(2k+1) / zeta^(2k+1), u_k = u_(k-1) (6k-5)(6k-3)(6k-1) /
    (216 k (2k-1)); summed up to the smallest term."""
    z = -x
    zeta = 2 / 3 * z * np.sqrt(z)
    p, q, term = np.ones_like(z), np.zeros_like(z), np.ones_like(z)
    growing = np.zeros(z.shape, bool)
    for k in range(1, 60):
        new = term * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / (216 * k * (2 * k - 1) * zeta)
        growing |= new > term
        term = np.where(growing, 0.0, new)
        sign = -1 if (k // 2) % 2 else 1
        if k % 2:
            q = q + sign * term
        else:
            p = p + sign * term
    # sin and cos of zeta + pi/4 through sin and cos of zeta, which NumPy reduces exactly
    sin, cos = np.sin(zeta), np.cos(zeta)
    return ((sin + cos) * p - (cos - sin) * q) / (math.sqrt(2 * math.pi) * np.sqrt(np.sqrt(z)))


def airy_ai(x):
    """Ai(x): series on [-7.8, 1], the oscillating expansion below, sqrt(x/3) K_1/3(zeta) / pi above (K by the
    trapezoidal rule, then by its asymptotic series); NaN at +-inf, as PyTorch gives."""
    x = _float64(x)
    finite = np.isfinite(x)
    series_part = finite & (x >= AIRY_SERIES_FROM) & (x <= 1)
    series = _airy_series(np.where(series_part, x, 0.0))
    oscillating = _airy_oscillating(np.where(x < AIRY_SERIES_FROM, x, 2 * AIRY_SERIES_FROM))
    positive = x > 1
    zeta = 2 / 3 * np.where(positive & finite, x, 1.0) ** 1.5
    middle = zeta <= HANKEL_FROM
    trapezoid = scaled_k_integral(1 / 3, np.where(middle, zeta, 1.0))
    far = np.where(middle, HANKEL_FROM, zeta)
    asymptotic = _hankel(4 / 9, far, alternating=False) * np.sqrt(math.pi / (2 * far))
    with np.errstate(under="ignore"):
        decaying = np.sqrt(np.where(positive, x, 1.0) / 3) / math.pi * np.where(middle, trapezoid, asymptotic)
        decaying = decaying * np.exp(-zeta)
    result = np.where(series_part, series, np.where(positive, decaying, oscillating))
    return np.where(finite, result, math.nan)
