"""The special functions of torch.special that torch also has at top level: erf, erfc, erfinv, lgamma, digamma,
polygamma, xlogy, sinc. Re-exported by ndgrad.ops.transcendental. NumPy lacks most of them: on NumPy arrays they
come from ndgrad.ops._numpy_special, on CuPy arrays from cupyx.scipy.special (same names, same calls)."""

import math

from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad.ops import _numpy_special
from ndgrad.ops._checks import no_complex_kernel
from ndgrad.ops._op import BINARY, POSITIVE, UNARY, UNIT, Op

__all__ = [
    "erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "xlogy", "sinc", "erf_", "erfc_", "xlogy_", "sinc_",
]


def special_functions(xp):
    """erf, erfc, erfinv, gammaln, digamma, polygamma for this array library: ours for NumPy, cupyx.scipy.special
    for CuPy, and for any other array library the ``special`` namespace it carries (the tests' stand-in GPU)."""
    if xp.__name__ == "numpy":
        return _numpy_special
    if xp.__name__ == "cupy":
        from cupyx.scipy import special  # only CuPy arrays get here, so NumPy users never import it

        return special
    return xp.special


class _Special(Op):
    """An elementwise function of one tensor; integer inputs compute in the default float dtype.

    Rules call Tensor methods (``x.exp()``) for the functions of ndgrad.ops.transcendental, which imports this module.
    """

    family = UNARY
    float_only = True


class Erf(_Special):
    """torch.erf: the error function."""

    name = "erf"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: special_functions(xp).erf(x).astype(x.dtype, copy=False))

    formula = "grad_self = grad * 2 / sqrt(pi) * exp(-self^2)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * (-(x * x)).exp() * (2 / math.sqrt(math.pi)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * (-(x * x)).exp() * (2 / math.sqrt(math.pi))


class Erfc(_Special):
    """torch.erfc: 1 - erf(input), accurate where erf is near 1."""

    name = "erfc"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: special_functions(xp).erfc(x).astype(x.dtype, copy=False))

    formula = "grad_self = grad * -2 / sqrt(pi) * exp(-self^2)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * (-(x * x)).exp() * (-2 / math.sqrt(math.pi)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * (-(x * x)).exp() * (-2 / math.sqrt(math.pi))


class Erfinv(_Special):
    """torch.erfinv: the inverse of erf on (-1, 1)."""

    name, domain = "erfinv", UNIT
    saves = ("result",)
    forward = staticmethod(lambda xp, x: special_functions(xp).erfinv(x).astype(x.dtype, copy=False))

    formula = "grad_self = grad * sqrt(pi) / 2 * exp(result^2)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * (result * result).exp() * (math.sqrt(math.pi) / 2),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t * (result * result).exp() * (math.sqrt(math.pi) / 2)


class Lgamma(_Special):
    """torch.lgamma: log |Gamma(input)|."""

    name, domain = "lgamma", POSITIVE
    saves = ("x",)
    forward = staticmethod(lambda xp, x: special_functions(xp).gammaln(x).astype(x.dtype, copy=False))

    formula = "grad_self = grad * digamma(self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * digamma(x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * digamma(x)


class Digamma(_Special):
    """torch.digamma: the derivative of lgamma."""

    name, domain = "digamma", POSITIVE
    saves = ("x",)
    forward = staticmethod(lambda xp, x: special_functions(xp).digamma(x).astype(x.dtype, copy=False))

    formula = "grad_self = grad * polygamma(1, self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * polygamma(1, x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * polygamma(1, x)


class Polygamma(_Special):
    """torch.polygamma(n, input): the n-th derivative of digamma."""

    name, domain = "polygamma", POSITIVE
    saves = ("x",)

    @staticmethod
    def forward(xp, x, n):
        return special_functions(xp).polygamma(n, x).astype(x.dtype, copy=False)

    formula = "grad_self = grad * polygamma(n + 1, self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * polygamma(ctx.n + 1, x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * polygamma(ctx.n + 1, x)


class PolygammaInPlace(Polygamma):
    """Tensor.polygamma_: PyTorch names its node apart from polygamma's."""

    name = "polygamma_"
    node_name = "PolygammaBackward1"


class Sinc(_Special):
    """torch.sinc: sin(pi x) / (pi x), and 1 at 0."""

    name = "sinc"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.sinc(x))

    formula = "grad_self = grad * (cos(pi self) - sinc(self)) / self"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * _sinc_derivative(x).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * _sinc_derivative(x)


def _sinc_derivative(x):
    from ndgrad.ops.comparison import where

    at_zero = x == 0
    x = where(at_zero, 1.0, x)  # the slope's limit at 0 is 0, where the formula is 0 / 0
    pi_x = x * math.pi
    return where(at_zero, 0.0, (pi_x * pi_x.cos() - pi_x.sin()) / (x * pi_x))


class Xlogy(Op):
    """torch.xlogy: input * log(other), and 0 where input is 0 (unless other is nan)."""

    name, family, domain = "xlogy", BINARY, POSITIVE
    saves = ("x", "y")
    float_only = True

    @staticmethod
    def forward(xp, x, y):
        return xp.where((x == 0) & ~xp.isnan(y), 0, x * xp.log(y))

    formula = "grad_self = grad * log(other); grad_other = grad * self / other"
    @staticmethod
    def vjp(ctx, grad):
        from ndgrad.ops.comparison import logical_and, where

        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        grad_x = where(logical_and(x == 0, y <= 0), 0.0, xlogy(grad, y)) if need_x else None
        return grad_x, (grad * x / y if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        from ndgrad.ops.comparison import logical_and, where

        x, y = ctx.saved_tensors
        return where(logical_and(x == 0, y <= 0), 0.0, xlogy(x_t, y)) + y_t * x / y


class XlogyScalarOther(Op):
    """torch.xlogy with a number ``other``: a parameter, so the node has one edge."""

    name, family, domain = "xlogy", UNARY, POSITIVE
    node_name = "XlogyBackward2"
    saves = ("x",)
    float_only = True

    @staticmethod
    def forward(xp, x, y):
        log_y = math.log(y) if y > 0 else (-math.inf if y == 0 else math.nan)
        return x * log_y if math.isnan(y) else xp.where(x == 0, 0, x * log_y)

    formula = "grad_self = grad * log(other)"
    @staticmethod
    def vjp(ctx, grad):
        from ndgrad.ops.comparison import where

        (x,) = ctx.saved_tensors
        grad_x = xlogy(grad, ctx.y)
        return (where(x == 0, 0.0, grad_x) if ctx.y <= 0 else grad_x,)

    @staticmethod
    def jvp(ctx, x_t):
        return XlogyScalarOther.vjp(ctx, x_t)[0]  # linear in x: the vjp's formula with the tangent for grad


class XlogyScalarSelf(Op):
    """torch.xlogy with a number ``input`` (a parameter, here ``x``) and a tensor ``other``."""

    name, family, domain = "xlogy", UNARY, POSITIVE
    node_name = "XlogyBackward1"
    saves = ("y",)
    float_only = True

    @staticmethod
    def forward(xp, y, x):
        return xp.where(xp.isnan(y), y, xp.zeros_like(y)) if x == 0 else x * xp.log(y)

    formula = "grad_other = grad * self / other"
    @staticmethod
    def vjp(ctx, grad):
        (y,) = ctx.saved_tensors
        return (grad * ctx.x / y,)

    @staticmethod
    def jvp(ctx, y_t):
        (y,) = ctx.saved_tensors
        return y_t * ctx.x / y


# ---- the functions users call ---------------------------------------------------------------------------------------
@parses("erf(Tensor input, *, Tensor out=None)")
def erf(input):
    return Erf.apply(_real_only(input, "erf_vml_cpu"))


@parses("erfc(Tensor input, *, Tensor out=None)")
def erfc(input):
    return Erfc.apply(_real_only(input, "erfc_vml_cpu"))


@parses("erfinv(Tensor input, *, Tensor out=None)")
def erfinv(input):
    return Erfinv.apply(_real_only(input, "erfinv_vml_cpu"))


@parses("lgamma(Tensor input, *, Tensor out=None)")
def lgamma(input):
    return Lgamma.apply(_real_only(input, "lgamma_vml_cpu"))


@parses("digamma(Tensor input, *, Tensor out=None)")
def digamma(input):
    return Digamma.apply(_real_only(input, "digamma"))


def _real_only(input, kernel):
    """These functions have no complex kernels in PyTorch."""
    no_complex_kernel(kernel, input)
    return input


def _polygamma_kernel(n):
    return ("digamma", "trigamma")[n] if n < 2 else "polygamma"


def _check_polygamma_order(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


@parses("polygamma(int n, Tensor input, *, Tensor out=None)")
def polygamma(n, input):
    """The n-th derivative of digamma (see torch.polygamma)."""
    _check_polygamma_order(n)
    return Polygamma.apply(_real_only(input, _polygamma_kernel(n)), n=n)


@parses("sinc(Tensor input, *, Tensor out=None)")
def sinc(input):
    return Sinc.apply(input)


@parses("xlogy(Tensor input, Tensor other, *, Tensor out=None)",
        "xlogy(Scalar self, Tensor other, *, Tensor out=None)",
        "xlogy(Tensor input, Scalar other, *, Tensor out=None)")
def xlogy(input, other):
    """input * log(other), 0 where input is 0; either side may be a number (see torch.xlogy)."""
    from ndgrad._tensor import Tensor  # the tensor module imports this one

    no_complex_kernel("xlogy_cpu", input, other)
    if isinstance(input, Tensor):
        if isinstance(other, Tensor):
            return Xlogy.apply(input, other)
        if isinstance(other, (int, float)):
            return XlogyScalarOther.apply(input, y=other)
    elif isinstance(input, (int, float)) and isinstance(other, Tensor):
        return XlogyScalarSelf.apply(other, x=input)
    raise TypeError(
        f"xlogy() received an invalid combination of arguments - got ({type(input).__name__}, "
        f"{type(other).__name__}), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n"
    )


# In-place forms: they write into ``input``, which keeps its dtype (see Op.apply_).
@parses("erf_(Tensor input)")
def erf_(input):
    return Erf.apply_(_real_only(input, "erf_vml_cpu"))


@parses("erfc_(Tensor input)")
def erfc_(input):
    return Erfc.apply_(_real_only(input, "erfc_vml_cpu"))


@parses("sinc_(Tensor input)")
def sinc_(input):
    return Sinc.apply_(input)


@parses("xlogy_(Tensor input, Tensor other)",
        "xlogy_(Tensor input, Scalar other)")
def xlogy_(input, other):
    no_complex_kernel("xlogy_cpu", input, other)
    if hasattr(other, "_data"):
        return Xlogy.apply_(input, other)
    return XlogyScalarOther.apply_(input, y=other)


class SpecialMethods:
    """The Tensor methods of this module's ops (Tensor inherits them through TranscendentalMethods)."""

    __slots__ = ()

    def erf(self):
        return erf.__wrapped__(self)
    def erfc(self):
        return erfc.__wrapped__(self)
    def erfinv(self):
        return erfinv.__wrapped__(self)
    def lgamma(self):
        return lgamma.__wrapped__(self)
    def digamma(self):
        return digamma.__wrapped__(self)
    @parses_method("polygamma(int n)")
    def polygamma(self, n):
        return polygamma(n, self)
    def sinc(self):
        return sinc.__wrapped__(self)
    xlogy = tensor_method(xlogy)

    def erf_(self):
        return erf_.__wrapped__(self)
    def erfc_(self):
        return erfc_.__wrapped__(self)
    def erfinv_(self):
        return Erfinv.apply_(_real_only(self, "erfinv_vml_cpu"))
    def lgamma_(self):
        return Lgamma.apply_(_real_only(self, "lgamma_vml_cpu"))
    def digamma_(self):
        return Digamma.apply_(_real_only(self, "digamma"))
    @parses_method("polygamma_(int n)")
    def polygamma_(self, n):
        _check_polygamma_order(n)
        return PolygammaInPlace.apply_(_real_only(self, _polygamma_kernel(n)), n=n)
    def sinc_(self):
        return sinc_.__wrapped__(self)
    xlogy_ = tensor_method(xlogy_)
