"""torch.special's orthogonal polynomials of degree n at x: Chebyshev's four kinds (plain and shifted to [0, 1]),
Hermite's two, Laguerre's and Legendre's. Each is its three-term recurrence; PyTorch records no gradient for them."""

from ndgrad._argument_parser import parses
from ndgrad.ops._checks import no_complex_kernel
from ndgrad.ops._op import Op

__all__ = []  # torch.special's names only: see ndgrad.special


class OrthogonalPolynomial(Op):
    """P_n(x) by P_(k+1) = (a_k x + b_k) P_k - c_k P_(k-1) from P_0 = 1 and P_1 = ``first``(x), for the degree n
    truncated to an integer (0 for n < 0, and for NaN, as PyTorch's cast to int64 gives); ``shifted``: of 2x - 1."""

    float_only = True
    differentiable = False
    shifted = False

    @staticmethod
    def first(x):
        raise NotImplementedError

    @staticmethod
    def step(k):
        """(a_k, b_k, c_k) of the recurrence."""
        raise NotImplementedError

    @classmethod
    def forward(cls, xp, x, n):
        dtype = (x if hasattr(x, "dtype") else n).dtype  # Op.apply cast the tensors; a number may be either side
        x, n = xp.broadcast_arrays(xp.asarray(x, dtype=dtype), xp.asarray(n))
        if cls.shifted:
            x = x + x - 1
        degree = xp.where(xp.isnan(n), -1, xp.trunc(n)) if n.dtype.kind == "f" else n
        previous, current = xp.ones_like(x), cls.first(x)
        result = xp.where(degree == 0, previous, xp.where(degree == 1, current, 0))
        top = int(degree.max()) if degree.size else 0
        for k in range(1, top):
            a, b, c = cls.step(k)
            previous, current = current, (a * x + b) * current - c * previous
            result = xp.where(degree == k + 1, current, result)
        return result.astype(dtype, copy=False)


class ChebyshevT(OrthogonalPolynomial):
    first = staticmethod(lambda x: x)
    step = staticmethod(lambda k: (2, 0, 1))


class ChebyshevU(OrthogonalPolynomial):
    first = staticmethod(lambda x: 2 * x)
    step = staticmethod(lambda k: (2, 0, 1))


class ChebyshevV(OrthogonalPolynomial):
    first = staticmethod(lambda x: 2 * x - 1)
    step = staticmethod(lambda k: (2, 0, 1))


class ChebyshevW(OrthogonalPolynomial):
    first = staticmethod(lambda x: 2 * x + 1)
    step = staticmethod(lambda k: (2, 0, 1))


class ShiftedChebyshevT(ChebyshevT):
    shifted = True


class ShiftedChebyshevU(ChebyshevU):
    shifted = True


class ShiftedChebyshevV(ChebyshevV):
    shifted = True


class ShiftedChebyshevW(ChebyshevW):
    shifted = True


class HermiteH(OrthogonalPolynomial):
    """The physicists' Hermite polynomials."""

    first = staticmethod(lambda x: 2 * x)
    step = staticmethod(lambda k: (2, 0, 2 * k))


class HermiteHe(OrthogonalPolynomial):
    """The probabilists' Hermite polynomials."""

    first = staticmethod(lambda x: x)
    step = staticmethod(lambda k: (1, 0, k))


class LaguerreL(OrthogonalPolynomial):
    first = staticmethod(lambda x: 1 - x)
    step = staticmethod(lambda k: (-1 / (k + 1), (2 * k + 1) / (k + 1), k / (k + 1)))


class LegendreP(OrthogonalPolynomial):
    first = staticmethod(lambda x: x)
    step = staticmethod(lambda k: ((2 * k + 1) / (k + 1), 0, k / (k + 1)))


def _polynomial(op, name, x, n):
    from ndgrad._tensor import Tensor

    no_complex_kernel(f"{name}_cpu", *[v for v in (x, n) if isinstance(v, Tensor)])
    return op.apply(x, n)


def _schemas(name):
    return (f"special_{name}(Tensor x, Tensor n, *, Tensor out=None)",
            f"special_{name}(Scalar x, Tensor n, *, Tensor out=None)",
            f"special_{name}(Tensor x, Scalar n, *, Tensor out=None)")


@parses(*_schemas("chebyshev_polynomial_t"))
def chebyshev_polynomial_t(x, n):
    return _polynomial(ChebyshevT, "chebyshev_polynomial_t", x, n)


@parses(*_schemas("chebyshev_polynomial_u"))
def chebyshev_polynomial_u(x, n):
    return _polynomial(ChebyshevU, "chebyshev_polynomial_u", x, n)


@parses(*_schemas("chebyshev_polynomial_v"))
def chebyshev_polynomial_v(x, n):
    return _polynomial(ChebyshevV, "chebyshev_polynomial_v", x, n)


@parses(*_schemas("chebyshev_polynomial_w"))
def chebyshev_polynomial_w(x, n):
    return _polynomial(ChebyshevW, "chebyshev_polynomial_w", x, n)


@parses(*_schemas("shifted_chebyshev_polynomial_t"))
def shifted_chebyshev_polynomial_t(x, n):
    return _polynomial(ShiftedChebyshevT, "shifted_chebyshev_polynomial_t", x, n)


@parses(*_schemas("shifted_chebyshev_polynomial_u"))
def shifted_chebyshev_polynomial_u(x, n):
    return _polynomial(ShiftedChebyshevU, "shifted_chebyshev_polynomial_u", x, n)


@parses(*_schemas("shifted_chebyshev_polynomial_v"))
def shifted_chebyshev_polynomial_v(x, n):
    return _polynomial(ShiftedChebyshevV, "shifted_chebyshev_polynomial_v", x, n)


@parses(*_schemas("shifted_chebyshev_polynomial_w"))
def shifted_chebyshev_polynomial_w(x, n):
    return _polynomial(ShiftedChebyshevW, "shifted_chebyshev_polynomial_w", x, n)


@parses(*_schemas("hermite_polynomial_h"))
def hermite_polynomial_h(x, n):
    return _polynomial(HermiteH, "hermite_polynomial_h", x, n)


@parses(*_schemas("hermite_polynomial_he"))
def hermite_polynomial_he(x, n):
    return _polynomial(HermiteHe, "hermite_polynomial_he", x, n)


@parses(*_schemas("laguerre_polynomial_l"))
def laguerre_polynomial_l(x, n):
    return _polynomial(LaguerreL, "laguerre_polynomial_l", x, n)


@parses(*_schemas("legendre_polynomial_p"))
def legendre_polynomial_p(x, n):
    return _polynomial(LegendreP, "legendre_polynomial_p", x, n)
