"""The differentiable functions of torch.special that ndgrad.ops.special lacks: entr, erfcx, ndtr, ndtri, log_ndtr,
the modified Bessel functions i0, i0e, i1, i1e, logit, multigammaln, xlog1py, zeta and the incomplete gamma
functions. Their kernels come from ndgrad.ops.special.special_functions (ours on NumPy, cupyx.scipy.special on CuPy).
"""

import math

from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad.ops._checks import no_complex_kernel, require_kind
from ndgrad.ops._op import BINARY, POSITIVE, UNARY, FloatUnary, Op
from ndgrad.ops.special import digamma, special_functions

# torch's top-level names; those of torch.special alone are reached as ndgrad.special.<name> (see ndgrad.special)
__all__ = ["i0", "i0_", "logit", "logit_", "mvlgamma", "igamma", "igammac"]


def _kernel(name):
    """A forward that runs the kernel ``name`` of this array library and keeps the input's dtype."""
    return staticmethod(lambda xp, x: getattr(special_functions(xp), name)(x).astype(x.dtype, copy=False))


class Entr(FloatUnary):
    """torch.special.entr: -x log x, 0 at 0 and -inf below."""

    name, domain, node_name = "entr", POSITIVE, "SpecialEntrBackward0"
    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        positive = x > 0
        value = -x * xp.log(xp.where(positive, x, 1))
        return xp.where(positive, value, xp.where(x == 0, 0, xp.where(xp.isnan(x), x, -xp.inf))).astype(x.dtype)

    formula = "grad_self = grad * -(1 + log(self))"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * -(1 + x.log()),)

    @staticmethod
    def jvp(ctx, x_t):
        return Entr.vjp(ctx, x_t)[0]  # an elementwise rule is its own transpose


class Erfcx(FloatUnary):
    """torch.special.erfcx: exp(x^2) erfc(x), which neither overflows nor underflows for large x."""

    name, node_name = "erfcx", "SpecialErfcxBackward0"
    saves = ("x", "result")
    forward = _kernel("erfcx")

    formula = "grad_self = grad * (2 self result - 2 / sqrt(pi))"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (grad * (2 * x * result - 2 / math.sqrt(math.pi)),)

    @staticmethod
    def jvp(ctx, x_t):
        return Erfcx.vjp(ctx, x_t)[0]


class Ndtri(FloatUnary):
    """torch.special.ndtri: the standard normal quantile, the inverse of ndtr on (0, 1)."""

    name, domain, node_name = "ndtri", POSITIVE, "SpecialNdtriBackward0"
    saves = ("result",)
    forward = _kernel("ndtri")

    formula = "grad_self = grad * sqrt(2 pi) * exp(result^2 / 2)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * math.sqrt(2 * math.pi) * (result * result / 2).exp(),)

    @staticmethod
    def jvp(ctx, x_t):
        return Ndtri.vjp(ctx, x_t)[0]


class LogNdtr(FloatUnary):
    """torch.special.log_ndtr: log of the standard normal distribution function, accurate far into the left tail."""

    name, node_name = "log_ndtr", "SpecialLogNdtrBackward0"
    saves = ("x", "result")
    forward = _kernel("log_ndtr")

    formula = "grad_self = grad / sqrt(2 pi) * exp(-(result + self^2 / 2))"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (grad / math.sqrt(2 * math.pi) * (-(result + x * x / 2)).exp(),)

    @staticmethod
    def jvp(ctx, x_t):
        return LogNdtr.vjp(ctx, x_t)[0]


# ---- the modified Bessel functions of the first kind, plain and scaled by exp(-|x|) --------------------------------
class I0(FloatUnary):
    """torch.i0: the modified Bessel function of the first kind of order 0."""

    name = "i0"
    saves = ("x",)
    forward = _kernel("i0")

    formula = "grad_self = grad * i1(self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * I1.apply(x),)

    @staticmethod
    def jvp(ctx, x_t):
        return I0.vjp(ctx, x_t)[0]


class I0e(FloatUnary):
    """torch.special.i0e: exp(-|x|) I_0(x)."""

    name, node_name = "i0e", "SpecialI0EBackward0"
    saves = ("x", "result")
    forward = _kernel("i0e")

    formula = "grad_self = grad * (i1e(self) - sgn(self) * result)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (grad * (I1e.apply(x) - x.sgn() * result),)

    @staticmethod
    def jvp(ctx, x_t):
        return I0e.vjp(ctx, x_t)[0]


_EPSILON = {8: 2.0**-52, 4: 2.0**-23, 2: 2.0**-10}  # machine epsilon by float width in bytes


def _safe_at_zero(x, derivative):
    """``derivative(safe_x)`` where |x| > eps, and its limit 0.5 at 0, where its formula divides by 0 (the safe x
    keeps the division finite in the branch not taken, so that where's gradient is not NaN)."""
    from ndgrad.ops.comparison import where

    eps = _EPSILON[x._data.itemsize]
    not_tiny = x.abs() > eps
    safe = where(not_tiny, x, eps)
    return where(not_tiny, derivative(safe), 0.5)


class I1(FloatUnary):
    """torch.special.i1: the modified Bessel function of the first kind of order 1."""

    name, node_name = "i1", "SpecialI1Backward0"
    saves = ("x", "result")
    forward = _kernel("i1")

    formula = "grad_self = grad * (i0(self) - result / self), 0.5 at 0"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (grad * _safe_at_zero(x, lambda safe: I0.apply(safe) - result / safe),)

    @staticmethod
    def jvp(ctx, x_t):
        return I1.vjp(ctx, x_t)[0]


class I1e(FloatUnary):
    """torch.special.i1e: exp(-|x|) I_1(x)."""

    name, node_name = "i1e", "SpecialI1EBackward0"
    saves = ("x", "result")
    forward = _kernel("i1e")

    formula = "grad_self = grad * (i0e(self) - result * (sgn(self) + 1 / self)), 0.5 at 0"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (grad * _safe_at_zero(x, lambda safe: I0e.apply(safe) - result * (safe.sgn() + 1 / safe)),)

    @staticmethod
    def jvp(ctx, x_t):
        return I1e.vjp(ctx, x_t)[0]


# ---- logit and the multivariate log-gamma function -------------------------------------------------------------------
class Logit(FloatUnary):
    """torch.logit: log(x / (1 - x)), of x clamped to [eps, 1 - eps] if eps is given (a negative eps is None)."""

    name, domain = "logit", POSITIVE
    saves = ("x",)

    @staticmethod
    def forward(xp, x, eps):
        if eps is not None and eps >= 0:
            x = xp.clip(x, eps, 1 - eps)
        return xp.log(x / (1 - x))

    formula = "grad_self = grad / (self (1 - self)), 0 outside [eps, 1 - eps] (NaN outside [0, 1] without eps)"
    @staticmethod
    def vjp(ctx, grad):
        from ndgrad.autograd.grad_mode import is_grad_enabled
        from ndgrad.ops.comparison import logical_or, where

        (x,) = ctx.saved_tensors
        if ctx.eps is not None and ctx.eps >= 0:
            return (where(logical_or(x < ctx.eps, x > 1 - ctx.eps), 0.0, grad / (x * (1 - x))),)
        outside = logical_or(x < 0, x > 1)
        if is_grad_enabled():  # create_graph: PyTorch's differentiable formula, which masks the product
            return (where(outside, math.nan, grad / (x * (1 - x))),)
        # PyTorch's backward kernel: grad * inf at 0 and 1, whatever the zero's sign
        factor = where(logical_or(x == 0, x == 1), math.inf, 1 / (x * (1 - x)))
        return (grad * where(outside, math.nan, factor),)

    @staticmethod
    def jvp(ctx, x_t):
        from ndgrad.ops.comparison import logical_or, where

        (x,) = ctx.saved_tensors
        slope = x_t / (x * (1 - x))
        if ctx.eps is not None and ctx.eps >= 0:
            return where(logical_or(x < ctx.eps, x > 1 - ctx.eps), 0.0, slope)
        return where(logical_or(x < 0, x > 1), math.nan, slope)


class Mvlgamma(FloatUnary):
    """torch.mvlgamma: the log of the multivariate gamma function of dimension p,
    sum_j lgamma(x - j/2) + p (p - 1) / 4 log(pi)."""

    name, domain = "mvlgamma", POSITIVE
    saves = ("x",)

    @staticmethod
    def forward(xp, x, p):
        shifts = xp.arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=x.dtype)
        terms = special_functions(xp).gammaln(x[..., None] + shifts).astype(x.dtype, copy=False)
        return terms.sum(-1) + x.dtype.type(p * (p - 1) * math.log(math.pi) / 4)

    formula = "grad_self = grad * sum_j digamma(self - j/2)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        # the shifts as forward's arange makes them: the last is +0, so that -0 stays at digamma(+0), as in PyTorch
        return (grad * sum(digamma(x + (j - ctx.p + 1) * 0.5) for j in range(ctx.p)),)

    @staticmethod
    def jvp(ctx, x_t):
        return Mvlgamma.vjp(ctx, x_t)[0]


# ---- xlog1py: input * log1p(other), with numbers on either side as parameters --------------------------------------
class Xlog1py(Op):
    """torch.special.xlog1py: input * log1p(other), and 0 where input is 0 (unless other is NaN)."""

    name, family, domain, node_name = "xlog1py", BINARY, POSITIVE, "SpecialXlog1PyBackward0"
    saves = ("x", "y")
    float_only = True

    @staticmethod
    def forward(xp, x, y):
        return xp.where((x == 0) & ~xp.isnan(y), 0, x * xp.log1p(y))

    formula = "grad_self = grad * log1p(other) (0 where self = 0, other <= -1); grad_other = grad * self / (1 + other)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (_grad_self(x, y, grad) if need_x else None), (grad * x / (y + 1) if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return _grad_self(x, y, x_t) + y_t * x / (y + 1)


def _grad_self(x, y, grad):
    from ndgrad.ops.comparison import logical_and, where

    return where(logical_and(x == 0, y <= -1), 0.0, xlog1py.__wrapped__(grad, y))


class Xlog1pyScalarOther(Op):
    """torch.special.xlog1py with a number ``other``."""

    name, family, domain, node_name = "xlog1py", UNARY, POSITIVE, "SpecialXlog1PyBackward2"
    saves = ("x",)
    float_only = True

    @staticmethod
    def forward(xp, x, y):
        return Xlog1py.forward(xp, x, xp.asarray(y, dtype=x.dtype))

    formula = "grad_self = grad * log1p(other)"
    @staticmethod
    def vjp(ctx, grad):
        from ndgrad.ops.comparison import where

        (x,) = ctx.saved_tensors
        y = ctx.y
        log1p_y = math.log1p(y) if y > -1 else (-math.inf if y == -1 else math.nan)  # math.log1p raises at -1
        # NOTE: the factor is masked, not the product: the product's derivative in grad would be 0 * -inf there
        return (grad * where(x == 0, 0.0, log1p_y) if y <= -1 else grad * log1p_y,)

    @staticmethod
    def jvp(ctx, x_t):
        return Xlog1pyScalarOther.vjp(ctx, x_t)[0]


class Xlog1pyScalarSelf(Op):
    """torch.special.xlog1py with a number ``input`` (the parameter ``x``) and a tensor ``other``."""

    name, family, domain, node_name = "xlog1py", UNARY, POSITIVE, "SpecialXlog1PyBackward1"
    saves = ("y",)
    float_only = True

    @staticmethod
    def forward(xp, y, x):
        return Xlog1py.forward(xp, xp.asarray(x, dtype=y.dtype), y)

    formula = "grad_other = grad * self / (1 + other)"
    @staticmethod
    def vjp(ctx, grad):
        (y,) = ctx.saved_tensors
        return (grad * ctx.x / (y + 1),)

    @staticmethod
    def jvp(ctx, y_t):
        return Xlog1pyScalarSelf.vjp(ctx, y_t)[0]


# ---- functions differentiable in their second argument only ------------------------------------------------------
def _no_forward_ad(kernel):
    def jvp(ctx, *tangents):
        raise NotImplementedError(
            f"Trying to use forward AD with {kernel} that does not support it because it has not been implemented "
            "yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-"
            "request.yml so that we can prioritize its implementation or submit a PR adding the implementation to "
            "derivatives.yaml"
        )

    return staticmethod(jvp)


def _not_implemented(what):
    raise NotImplementedError(f"the derivative for '{what}' is not implemented.")


class Zeta(Op):
    """torch.special.zeta: the Hurwitz zeta function sum_k (other + k)^-input; differentiable in ``other`` only."""

    name, family, domain, node_name = "zeta", BINARY, POSITIVE, "SpecialZetaBackward0"
    saves = ("x", "y")
    float_only = True

    @staticmethod
    def forward(xp, x, y):
        return special_functions(xp).zeta(x, y).astype(xp.result_type(x, y), copy=False)

    formula = "grad_self: not implemented; grad_other = grad * -self * zeta(self + 1, other)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            _not_implemented("zeta")
        return None, grad * -x * Zeta.apply(x + 1, y)

    jvp = _no_forward_ad("special_zeta")


class ZetaScalarOther(Op):
    """torch.special.zeta with a number ``other``: recorded, but differentiable in nothing, as in PyTorch (so outside
    the op table, whose tests differentiate)."""

    node_name = "SpecialZetaBackward2"
    float_only = True

    @staticmethod
    def forward(xp, x, y):
        return Zeta.forward(xp, x, xp.asarray(y, dtype=x.dtype))

    formula = "grad_self: not implemented"
    @staticmethod
    def vjp(ctx, grad):
        _not_implemented("zeta")

    jvp = _no_forward_ad("special_zeta")


class ZetaScalarSelf(Op):
    """torch.special.zeta with a number ``input`` (the parameter ``x``) and a tensor ``other``."""

    name, family, domain, node_name = "zeta", UNARY, POSITIVE, "SpecialZetaBackward1"
    saves = ("y",)
    float_only = True

    @staticmethod
    def forward(xp, y, x):
        return Zeta.forward(xp, xp.asarray(x, dtype=y.dtype), y)

    formula = "grad_other = grad * -self * zeta(self + 1, other)"
    @staticmethod
    def vjp(ctx, grad):
        (y,) = ctx.saved_tensors
        return (grad * -ctx.x * ZetaScalarSelf.apply(y, x=ctx.x + 1),)

    jvp = _no_forward_ad("special_zeta")


class Igamma(Op):
    """torch.igamma (torch.special.gammainc): the regularised lower incomplete gamma function P(input, other);
    differentiable in ``other`` only."""

    name, family, domain = "igamma", BINARY, POSITIVE
    saves = ("x", "y")
    float_only = True
    kernel, sign = "gammainc", 1

    @classmethod
    def forward(cls, xp, x, y):
        return getattr(special_functions(xp), cls.kernel)(x, y).astype(xp.result_type(x, y), copy=False)

    formula = "grad_self: not implemented; grad_other = grad * exp((self - 1) log(other) - other - lgamma(self))"
    @classmethod
    def vjp(cls, ctx, grad):
        from ndgrad.ops.special import lgamma

        x, y = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            _not_implemented(f"{cls.name}: input")
        return None, grad * (cls.sign * ((x - 1) * y.log() - y - lgamma(x)).exp())

    jvp = _no_forward_ad("igamma")


class Igammac(Igamma):
    """torch.igammac (torch.special.gammaincc): the regularised upper incomplete gamma function Q = 1 - P."""

    name = "igammac"
    kernel, sign = "gammaincc", -1
    jvp = _no_forward_ad("igammac")


# ---- the functions users call ---------------------------------------------------------------------------------------
def _real(input, kernel):
    no_complex_kernel(kernel, input)
    return input


@parses("special_entr(Tensor input, *, Tensor out=None)")
def entr(input):
    return Entr.apply(_real(input, "entr_cpu"))


@parses("special_erfcx(Tensor input, *, Tensor out=None)")
def erfcx(input):
    return Erfcx.apply(_real(input, "erfcx_cpu"))


@parses("special_ndtr(Tensor input, *, Tensor out=None)")
def ndtr(input):
    """The standard normal distribution function, as PyTorch writes it: (1 + erf(x / sqrt 2)) / 2."""
    from ndgrad.ops.special import erf

    return (erf.__wrapped__(input * (1 / math.sqrt(2))) + 1) * 0.5


@parses("special_ndtri(Tensor input, *, Tensor out=None)")
def ndtri(input):
    return Ndtri.apply(_real(input, "ndtri_cpu"))


@parses("special_log_ndtr(Tensor input, *, Tensor out=None)")
def log_ndtr(input):
    return LogNdtr.apply(_real(input, "log_ndtr_cpu"))


@parses("i0(Tensor input, *, Tensor out=None)")
def i0(input):
    return I0.apply(_real(input, "i0_cpu"))


@parses("special_i0e(Tensor input, *, Tensor out=None)")
def i0e(input):
    return I0e.apply(_real(input, "i0e_cpu"))


@parses("special_i1(Tensor input, *, Tensor out=None)")
def i1(input):
    return I1.apply(_real(input, "i1_cpu"))


@parses("special_i1e(Tensor input, *, Tensor out=None)")
def i1e(input):
    return I1e.apply(_real(input, "i1e_cpu"))


@parses("logit(Tensor input, float? eps=None, *, Tensor out=None)")
def logit(input, eps=None):
    return Logit.apply(_real(input, "logit_cpu"), eps=eps)


def _check_dimension(p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


@parses("mvlgamma(Tensor input, int p, *, Tensor out=None)")
def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension ``p`` (see torch.mvlgamma)."""
    _check_dimension(p)
    return Mvlgamma.apply(_real(input, "mvlgamma"), p=p)


@parses("special_multigammaln(Tensor input, int p, *, Tensor out=None)")
def multigammaln(input, p):
    return mvlgamma.__wrapped__(input, p)


def _binary(name, kernel, ops, input, other):
    """The overload of a function of a tensor and a tensor or number: (tensor, tensor), (tensor, number) or
    (number, tensor), each its own op with its own node, as PyTorch records them."""
    from ndgrad._tensor import Tensor

    no_complex_kernel(kernel, input, other)
    both, number_other, number_self = ops
    if isinstance(other, Tensor):
        if isinstance(input, Tensor):
            return both.apply(input, other)
        return number_self.apply(other, x=input)
    return number_other.apply(input, y=other)


@parses("special_xlog1py(Tensor input, Tensor other, *, Tensor out=None)",
        "special_xlog1py(Scalar self, Tensor other, *, Tensor out=None)",
        "special_xlog1py(Tensor input, Scalar other, *, Tensor out=None)")
def xlog1py(input, other):
    return _binary("xlog1py", "xlog1py_cpu", (Xlog1py, Xlog1pyScalarOther, Xlog1pyScalarSelf), input, other)


@parses("special_zeta(Tensor input, Tensor other, *, Tensor out=None)",
        "special_zeta(Scalar self, Tensor other, *, Tensor out=None)",
        "special_zeta(Tensor input, Scalar other, *, Tensor out=None)")
def zeta(input, other):
    return _binary("zeta", "zeta_cpu", (Zeta, ZetaScalarOther, ZetaScalarSelf), input, other)


@parses("igamma(Tensor input, Tensor other, *, Tensor out=None)")
def igamma(input, other):
    """The regularised lower incomplete gamma function (see torch.igamma)."""
    no_complex_kernel("igamma_cpu", input, other)
    _no_integers("igamma_cpu", input, other)
    return Igamma.apply(input, other)


@parses("igammac(Tensor input, Tensor other, *, Tensor out=None)")
def igammac(input, other):
    """The regularised upper incomplete gamma function (see torch.igammac)."""
    no_complex_kernel("igammac_cpu", input, other)
    _no_integers("igammac_cpu", input, other)
    return Igammac.apply(input, other)


def _no_integers(kernel, input, other):
    """igamma has only floating kernels: integer tensors are refused rather than promoted."""
    from ndgrad._dtype import result_type

    require_kind(result_type((input, other)), kernel, "f")


@parses("special_gammainc(Tensor input, Tensor other, *, Tensor out=None)")
def gammainc(input, other):
    return igamma.__wrapped__(input, other)


@parses("special_gammaincc(Tensor input, Tensor other, *, Tensor out=None)")
def gammaincc(input, other):
    return igammac.__wrapped__(input, other)


# In-place forms: they write into ``input``, which keeps its dtype (see Op.apply_).
@parses("i0_(Tensor input)")
def i0_(input):
    return I0.apply_(_real(input, "i0_cpu"))


@parses("logit_(Tensor input, float? eps=None)")
def logit_(input, eps=None):
    return Logit.apply_(_real(input, "logit_cpu"), eps=eps)


class SpecialFunctionsMethods:
    """The Tensor methods of this module's ops."""

    __slots__ = ()

    def i0(self):
        return i0.__wrapped__(self)
    logit = tensor_method(logit)
    mvlgamma = tensor_method(mvlgamma)
    igamma = tensor_method(igamma)
    igammac = tensor_method(igammac)

    def i0_(self):
        return i0_.__wrapped__(self)
    logit_ = tensor_method(logit_)

    @parses_method("mvlgamma_(int p)")
    def mvlgamma_(self, p):
        _check_dimension(p)
        return Mvlgamma.apply_(_real(self, "mvlgamma"), p=p)

    @parses_method("igamma_(Tensor other)")
    def igamma_(self, other):
        no_complex_kernel("igamma_cpu", self, other)
        return Igamma.apply_(self, other)

    @parses_method("igammac_(Tensor other)")
    def igammac_(self, other):
        no_complex_kernel("igammac_cpu", self, other)
        return Igammac.apply_(self, other)

