"""Trigonometric and hyperbolic functions and their inverses, atan2 among them. Re-exported by
ndgrad.ops.transcendental, whose Tensor methods mixin inherits TrigonometricMethods."""

import math

from ndgrad._argument_parser import alias, parses, parses_method, tensor_method
from ndgrad.ops._arrays import conj, xp_of
from ndgrad.ops._checks import no_complex, no_complex_kernel
from ndgrad.ops._op import ABOVE_ONE, BINARY, UNIT, FloatUnary, Op
from ndgrad.ops.comparison import where

__all__ = [
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "sin_", "cos_", "tan_", "asin_", "acos_", "atan_", "sinh_", "cosh_", "tanh_", "asinh_", "acosh_", "atanh_",
    "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh",
    "arcsin_", "arccos_", "arctan_", "arcsinh_", "arccosh_", "arctanh_", "deg2rad", "rad2deg", "deg2rad_", "rad2deg_",
]


# ---- trigonometric functions ----------------------------------------------------------------------------------------
class Sin(FloatUnary):
    """torch.sin."""

    name = "sin"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.sin(x))

    formula = "grad_self = grad * cos(self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * cos(x).conj(),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (x,) = ctx.saved_arrays
        return (grad * conj(xp_of(x).cos(x)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * cos(x)


class Cos(FloatUnary):
    """torch.cos."""

    name = "cos"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.cos(x))

    formula = "grad_self = grad * -sin(self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * -sin(x).conj(),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (x,) = ctx.saved_arrays
        return (grad * -conj(xp_of(x).sin(x)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * -sin(x)


class Tan(FloatUnary):
    """torch.tan."""

    name, domain = "tan", UNIT  # away from the poles at +-pi/2
    saves = ("result",)
    forward = staticmethod(lambda xp, x: xp.tan(x))

    formula = "grad_self = grad * (1 + result^2)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * (result * result + 1).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t * (result * result + 1)


class Asin(FloatUnary):
    """torch.asin."""

    name, domain = "asin", UNIT
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.arcsin(x))

    formula = "grad_self = grad / sqrt(1 - self^2)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * (1 - x * x).rsqrt().conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * (1 - x * x).rsqrt()


class Acos(FloatUnary):
    """torch.acos."""

    name, domain = "acos", UNIT
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.arccos(x))

    formula = "grad_self = -grad / sqrt(1 - self^2)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (-grad * (1 - x * x).rsqrt().conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return -x_t * (1 - x * x).rsqrt()


class Atan(FloatUnary):
    """torch.atan."""

    name = "atan"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.arctan(x))

    formula = "grad_self = grad / (1 + self^2)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad / (x * x + 1).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t / (x * x + 1)


class Atan2(Op):
    """torch.atan2(input, other): the angle of the point (other, input)."""

    name, family = "atan2", BINARY
    saves = ("x", "y")
    float_only = True
    forward = staticmethod(lambda xp, x, y: xp.arctan2(x, y))

    formula = "grad_self = grad * other / (self^2 + other^2); grad_other = grad * -self / (self^2 + other^2)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        # NOTE: at the origin, where atan2 jumps, PyTorch's gradient is 0: it masks the reciprocal there, not the
        # product (so differentiating again in grad gives 0 too, while the tangent stays 0 / 0).
        squared_norm = x * x + y * y
        scale = grad * where(squared_norm == 0, 0.0, squared_norm.reciprocal())
        return (scale * y if need_x else None), (scale * -x if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return (y * x_t - x * y_t) / (x * x + y * y)


# ---- hyperbolic functions -------------------------------------------------------------------------------------------
class Sinh(FloatUnary):
    """torch.sinh."""

    name = "sinh"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.sinh(x))

    formula = "grad_self = grad * cosh(self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * cosh(x).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * cosh(x)


class Cosh(FloatUnary):
    """torch.cosh."""

    name = "cosh"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.cosh(x))

    formula = "grad_self = grad * sinh(self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * sinh(x).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * sinh(x)


class Tanh(FloatUnary):
    """torch.tanh."""

    name = "tanh"
    saves = ("result",)
    forward = staticmethod(lambda xp, x: xp.tanh(x))

    formula = "grad_self = grad * (1 - result^2)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (TanhBackward.apply(grad, result.conj()),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (result,) = ctx.saved_arrays
        return (TanhBackward.forward(None, grad, conj(result)),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return TanhBackward.apply(x_t, result)


class TanhBackward(Op):
    """grad * (1 - tanh^2) in one step, as PyTorch's tanh_backward; differentiable for double backward."""

    saves = ("grad", "result")

    @staticmethod
    def forward(xp, grad, result):
        return grad * (1 - result * result)

    formula = "grad_grad_output = grad * (1 - result^2); grad_result = grad * grad_output * -2 result"
    @staticmethod
    def vjp(ctx, grad_grad):
        grad, result = ctx.saved_tensors
        return grad_grad * (1 - result * result).conj(), grad_grad * (grad * -2 * result).conj()

    @staticmethod
    def jvp(ctx, grad_t, result_t):
        grad, result = ctx.saved_tensors
        return TanhBackward.apply(grad_t, result) + result_t * grad * -2 * result


class Asinh(FloatUnary):
    """torch.asinh."""

    name = "asinh"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.arcsinh(x))

    formula = "grad_self = grad / sqrt(self^2 + 1)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * (x * x + 1).rsqrt().conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * (x * x + 1).rsqrt()


class Acosh(FloatUnary):
    """torch.acosh."""

    name, domain = "acosh", ABOVE_ONE
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.arccosh(x))

    formula = "grad_self = grad / sqrt(self^2 - 1)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * (x * x - 1).rsqrt().conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * (x * x - 1).rsqrt()


class Atanh(FloatUnary):
    """torch.atanh."""

    name, domain = "atanh", UNIT
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.arctanh(x))

    formula = "grad_self = grad / (1 - self^2)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad / (1 - x * x).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t / (1 - x * x)


# ---- angles ---------------------------------------------------------------------------------------------------------
class _AngleScale(FloatUnary):
    """An angle's change of unit: a multiplication by a constant (``scale``), computed by NumPy in input's dtype."""

    scale = None
    formula = "grad_self = grad * scale"

    @classmethod
    def vjp(cls, ctx, grad):
        return (grad * cls.scale,)

    @classmethod
    def jvp(cls, ctx, x_t):
        return x_t * cls.scale


class Deg2Rad(_AngleScale):
    """torch.deg2rad."""

    name, scale = "deg2rad", math.pi / 180
    forward = staticmethod(lambda xp, x: xp.deg2rad(x))


class Rad2Deg(_AngleScale):
    """torch.rad2deg."""

    name, scale = "rad2deg", 180 / math.pi
    forward = staticmethod(lambda xp, x: xp.rad2deg(x))


class _NoInPlaceDerivative(FloatUnary):
    """asinh_, acosh_, atanh_: PyTorch records them but defines no derivative, so backward raises as PyTorch's."""

    node_name = None

    formula = "grad_self: not implemented for the in-place form"
    @staticmethod
    def vjp(ctx, grad):
        function = type(ctx).__name__[: -len("Backward1")].lower()
        raise NotImplementedError(f"the derivative for 'inplace version of {function}' is not implemented.")


def _no_forward_ad(function):
    """A jvp that raises as PyTorch does for these in-place forms, naming ``function`` as PyTorch names it."""

    def jvp(ctx, x_t):
        raise NotImplementedError(
            f"Trying to use forward AD with {function} that does not support it because it has not been "
            "implemented yet."
        )

    return staticmethod(jvp)


class AsinhInPlace(_NoInPlaceDerivative):
    node_name = "AsinhBackward1"
    forward = Asinh.forward
    jvp = _no_forward_ad("asinh_")


class AcoshInPlace(_NoInPlaceDerivative):
    node_name = "AcoshBackward1"
    forward = Acosh.forward
    jvp = _no_forward_ad("acosh_")


class AtanhInPlace(_NoInPlaceDerivative):
    node_name = "AtanhBackward1"
    forward = Atanh.forward
    jvp = _no_forward_ad("atanh_")


# ---- the functions users call ---------------------------------------------------------------------------------------
@parses("sin(Tensor input, *, Tensor out=None)")
def sin(input):
    return Sin.apply(input)


@parses("cos(Tensor input, *, Tensor out=None)")
def cos(input):
    return Cos.apply(input)


@parses("tan(Tensor input, *, Tensor out=None)")
def tan(input):
    return Tan.apply(input)


@parses("asin(Tensor input, *, Tensor out=None)")
def asin(input):
    return Asin.apply(input)


@parses("acos(Tensor input, *, Tensor out=None)")
def acos(input):
    return Acos.apply(input)


@parses("atan(Tensor input, *, Tensor out=None)")
def atan(input):
    return Atan.apply(input)


@parses("atan2(Tensor input, Tensor other, *, Tensor out=None)")
def atan2(input, other):
    """The angle of (other, input), in (-pi, pi] (see torch.atan2)."""
    no_complex_kernel("atan2_cpu", input, other)
    return Atan2.apply(input, other)


@parses("sinh(Tensor input, *, Tensor out=None)")
def sinh(input):
    return Sinh.apply(input)


@parses("cosh(Tensor input, *, Tensor out=None)")
def cosh(input):
    return Cosh.apply(input)


@parses("tanh(Tensor input, *, Tensor out=None)")
def tanh(input):
    return Tanh.apply(input)


@parses("asinh(Tensor input, *, Tensor out=None)")
def asinh(input):
    return Asinh.apply(input)


@parses("acosh(Tensor input, *, Tensor out=None)")
def acosh(input):
    return Acosh.apply(input)


@parses("atanh(Tensor input, *, Tensor out=None)")
def atanh(input):
    return Atanh.apply(input)


@parses("deg2rad(Tensor input, *, Tensor out=None)")
def deg2rad(input):
    no_complex(input, "deg2rad is not supported for complex tensors.", RuntimeError)
    return Deg2Rad.apply(input)


@parses("rad2deg(Tensor input, *, Tensor out=None)")
def rad2deg(input):
    no_complex(input, "rad2deg is not supported for complex tensors.", RuntimeError)
    return Rad2Deg.apply(input)


# In-place forms: they write into ``input``, which keeps its dtype (see Op.apply_).
@parses("sin_(Tensor input)")
def sin_(input):
    return Sin.apply_(input)


@parses("cos_(Tensor input)")
def cos_(input):
    return Cos.apply_(input)


@parses("tan_(Tensor input)")
def tan_(input):
    return Tan.apply_(input)


@parses("asin_(Tensor input)")
def asin_(input):
    return Asin.apply_(input)


@parses("acos_(Tensor input)")
def acos_(input):
    return Acos.apply_(input)


@parses("atan_(Tensor input)")
def atan_(input):
    return Atan.apply_(input)


@parses("sinh_(Tensor input)")
def sinh_(input):
    return Sinh.apply_(input)


@parses("cosh_(Tensor input)")
def cosh_(input):
    return Cosh.apply_(input)


@parses("tanh_(Tensor input)")
def tanh_(input):
    return Tanh.apply_(input)


@parses("asinh_(Tensor input)")
def asinh_(input):
    return AsinhInPlace.apply_(input)


@parses("acosh_(Tensor input)")
def acosh_(input):
    return AcoshInPlace.apply_(input)


@parses("atanh_(Tensor input)")
def atanh_(input):
    return AtanhInPlace.apply_(input)


@parses("deg2rad_(Tensor input)")
def deg2rad_(input):
    no_complex(input, "deg2rad is not supported for complex tensors.", RuntimeError)
    return Deg2Rad.apply_(input)


@parses("rad2deg_(Tensor input)")
def rad2deg_(input):
    no_complex(input, "rad2deg is not supported for complex tensors.", RuntimeError)
    return Rad2Deg.apply_(input)


# NumPy's names, which PyTorch also takes: the same ops, so the same grad_fn (torch.arccos records AcosBackward0)
arcsin = alias(asin, "arcsin(Tensor input, *, Tensor out=None)")
arccos = alias(acos, "arccos(Tensor input, *, Tensor out=None)")
arctan = alias(atan, "arctan(Tensor input, *, Tensor out=None)")
arctan2 = alias(atan2, "arctan2(Tensor input, Tensor other, *, Tensor out=None)")
arcsinh = alias(asinh, "arcsinh(Tensor input, *, Tensor out=None)")
arccosh = alias(acosh, "arccosh(Tensor input, *, Tensor out=None)")
arctanh = alias(atanh, "arctanh(Tensor input, *, Tensor out=None)")
arcsin_ = alias(asin_, "arcsin_(Tensor input)")
arccos_ = alias(acos_, "arccos_(Tensor input)")
arctan_ = alias(atan_, "arctan_(Tensor input)")
arcsinh_ = alias(asinh_, "arcsinh_(Tensor input)")
arccosh_ = alias(acosh_, "arccosh_(Tensor input)")
arctanh_ = alias(atanh_, "arctanh_(Tensor input)")


class TrigonometricMethods:
    """The Tensor methods of this module's ops (Tensor inherits them through TranscendentalMethods)."""

    __slots__ = ()

    def sin(self):
        return sin.__wrapped__(self)
    def cos(self):
        return cos.__wrapped__(self)
    def tan(self):
        return tan.__wrapped__(self)
    def asin(self):
        return asin.__wrapped__(self)
    def acos(self):
        return acos.__wrapped__(self)
    def atan(self):
        return atan.__wrapped__(self)
    atan2 = tensor_method(atan2)
    def sinh(self):
        return sinh.__wrapped__(self)
    def cosh(self):
        return cosh.__wrapped__(self)
    def tanh(self):
        return tanh.__wrapped__(self)
    def asinh(self):
        return asinh.__wrapped__(self)
    def acosh(self):
        return acosh.__wrapped__(self)
    def atanh(self):
        return atanh.__wrapped__(self)

    def sin_(self):
        return sin_.__wrapped__(self)
    def cos_(self):
        return cos_.__wrapped__(self)
    def tan_(self):
        return tan_.__wrapped__(self)
    def asin_(self):
        return asin_.__wrapped__(self)
    def acos_(self):
        return acos_.__wrapped__(self)
    def atan_(self):
        return atan_.__wrapped__(self)
    @parses_method("atan2_(Tensor other)")
    def atan2_(self, other):
        no_complex_kernel("atan2_cpu", self, other)
        return Atan2.apply_(self, other)
    def sinh_(self):
        return sinh_.__wrapped__(self)
    def cosh_(self):
        return cosh_.__wrapped__(self)
    def tanh_(self):
        return tanh_.__wrapped__(self)
    def asinh_(self):
        return asinh_.__wrapped__(self)
    def acosh_(self):
        return acosh_.__wrapped__(self)
    def atanh_(self):
        return atanh_.__wrapped__(self)

    arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
    arcsin_, arccos_, arctan_, arcsinh_, arccosh_, arctanh_ = asin_, acos_, atan_, asinh_, acosh_, atanh_
    arctan2 = tensor_method(arctan2)
    arctan2_ = alias(atan2_, "arctan2_(Tensor other)")
    def deg2rad(self):
        return deg2rad.__wrapped__(self)
    def rad2deg(self):
        return rad2deg.__wrapped__(self)
    deg2rad_, rad2deg_ = deg2rad_.__wrapped__, rad2deg_.__wrapped__
