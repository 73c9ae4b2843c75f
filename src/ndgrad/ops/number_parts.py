"""Functions of the parts of numbers: their signs (copysign, signbit, heaviside), their binary exponents (ldexp, frexp,
float_power), their floating-point neighbours (nextafter), and the divisors of integers (gcd, lcm)."""

import math

import ndgrad.return_types as return_types
from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad._dtype import complex128, float64, get_default_dtype, result_type
from ndgrad.ops._checks import check_castable, is_tensor, no_complex, no_complex_kernel, require_kind, zeros_like_grad
from ndgrad.ops._op import BINARY, NONZERO, UNARY, Op, WithoutDerivative
from ndgrad.ops.arithmetic import pow
from ndgrad.ops.comparison import where
from ndgrad.ops.transcendental import exp2

__all__ = [
    "heaviside", "copysign", "float_power", "gcd", "gcd_", "lcm", "lcm_", "ldexp", "ldexp_", "frexp", "signbit",
    "nextafter",
]


# ---- signs -----------------------------------------------------------------------------------------------------------
class Heaviside(WithoutDerivative):
    """torch.heaviside: 0 below zero, 1 above, ``values`` at zero. PyTorch records it without a derivative."""

    node_name, aten = "NotImplemented", "heaviside"

    @staticmethod
    def forward(xp, x, values):
        # NOTE: PyTorch's kernel, not NumPy's heaviside: NaN compares false, so gives 0 (NumPy gives NaN)
        return xp.where(x == 0, values, x > 0).astype(x.dtype, copy=False)


def _checked_heaviside(input, values):
    if input.is_complex() or values.is_complex():
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return values


class Copysign(Op):
    """torch.copysign by a tensor: |input| with the sign of other; integers compute in the default float dtype."""

    name, family, domain = "copysign", BINARY, NONZERO
    float_only = True
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, y):
        return xp.copysign(x, y)

    formula = "grad_self = grad * (self == 0 ? 0 : result / self); grad_other = zeros_like(other)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return grad * _sign_ratio(x, result), zeros_like_grad(grad)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, result = ctx.saved_tensors
        return x_t * _sign_ratio(x, result)


class CopysignScalar(Copysign):
    """torch.copysign by a number."""

    name, family = "copysign", UNARY
    node_name = "CopysignBackward1"

    formula = "grad_self = grad * (self == 0 ? 0 : result / self)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (grad * _sign_ratio(x, result),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        return x_t * _sign_ratio(x, result)


def _sign_ratio(x, result):
    """result / x, +-1: whether copysign flipped x; 0 where x is 0, as PyTorch masks the 0/0 there."""
    return where(x == 0, 0.0, result / where(x == 0, 1.0, x))


def _copysign(input, other, in_place):
    no_complex_kernel("copysign_cpu", input, other)
    if in_place and input.dtype._category < 2:  # an integer result would be float
        raise RuntimeError(f"result type {get_default_dtype().title} can't be cast to the desired output type "
                           f"{input.dtype.title}")
    if in_place:
        check_castable(input, other)
    if is_tensor(other):
        return (Copysign.apply_ if in_place else Copysign.apply)(input, other)
    return (CopysignScalar.apply_ if in_place else CopysignScalar.apply)(input, y=float(other))


# ---- binary exponents ------------------------------------------------------------------------------------------------
class Ldexp(Op):
    """torch.ldexp: input * 2**other; integers compute in the default float dtype."""

    name, family = "ldexp", BINARY
    float_only = True
    saves = ("y", "result")

    @staticmethod
    def forward(xp, x, y):
        return x * xp.exp2(y)

    formula = "grad_self = grad * 2^other; grad_other = grad * result * ln(2)"
    @staticmethod
    def vjp(ctx, grad):
        y, result = ctx.saved_tensors
        return grad * exp2(y), grad * result * math.log(2)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        y, result = ctx.saved_tensors
        x_part = None if x_t is None else x_t * exp2(y)
        y_part = None if y_t is None else y_t * result * math.log(2)
        return y_part if x_part is None else x_part if y_part is None else x_part + y_part


class Frexp(Op):
    """torch.frexp: (mantissa, exponent) with input = mantissa * 2**exponent, |mantissa| in [0.5, 1)."""

    name, family = "frexp", UNARY
    outputs = ("mantissa", "exponent")
    saves = ("exponent",)

    @staticmethod
    def forward(xp, x):
        mantissa, exponent = xp.frexp(x)
        return mantissa, exponent.astype(xp.int32)

    formula = "grad_self = grad / 2^exponent  (the exponent is piecewise constant)"
    @staticmethod
    def vjp(ctx, grad, grad_exponent):
        (exponent,) = ctx.saved_tensors
        return (grad / exp2(exponent),)

    @staticmethod
    def jvp(ctx, x_t):
        (exponent,) = ctx.saved_tensors
        return x_t / exp2(exponent), None


def _float_power_dtype(input, exponent):
    """float_power computes in double precision: complex128 if either operand is complex, else float64."""
    operands = (input, exponent)
    complex_operand = any(x.is_complex() if is_tensor(x) else isinstance(x, complex) for x in operands)
    return complex128 if complex_operand else float64


def _as_dtype(operand, dtype):
    return operand.to(dtype) if is_tensor(operand) else (complex(operand) if dtype is complex128 else float(operand))


# ---- floating-point neighbours ---------------------------------------------------------------------------------------
class Nextafter(Op):
    """torch.nextafter: the next float after input towards other. It differs from input by one unit in the last
    place, so PyTorch passes input's gradient through (none where input already equals other) and gives other
    zeros."""

    name, family = "nextafter", BINARY
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        return xp.nextafter(x, y)

    formula = "grad_self = where(self != other, grad, 0); grad_other = zeros_like(other)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        return where(x != y, grad, 0.0), zeros_like_grad(grad)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return where(x != y, 0.0 if x_t is None else x_t, 0.0).to(x.dtype)


def _nextafter(input, other):
    require_kind(result_type((input, other)), "nextafter_cpu", "f")
    return other


# ---- results without a gradient: integers and bools ------------------------------------------------------------------
class _Integers(Op):
    """Ops whose results are integers or bools: never recorded, never differentiated."""

    differentiable = False


class Gcd(_Integers):
    forward = staticmethod(lambda xp, x, y: xp.gcd(x, y))


class Lcm(_Integers):
    forward = staticmethod(lambda xp, x, y: xp.lcm(x, y))


class Signbit(_Integers):
    forward = staticmethod(lambda xp, x: xp.signbit(x) if x.dtype.kind != "b" else xp.zeros_like(x))


def _integers(input, other, kernel):
    """PyTorch's gcd and lcm kernels exist for integer dtypes only."""
    require_kind(result_type((input, other)), kernel, "iu")
    return other


# ---- the functions users call ----------------------------------------------------------------------------------------
@parses("heaviside(Tensor input, Tensor values, *, Tensor out=None)")
def heaviside(input, values):
    """The Heaviside step function of input, ``values`` where input is zero (see torch.heaviside)."""
    return Heaviside.apply(input, _checked_heaviside(input, values))


@parses("copysign(Tensor input, Tensor other, *, Tensor out=None)",
        "copysign(Tensor input, Scalar other, *, Tensor out=None)")
def copysign(input, other):
    """|input| with the sign of other, elementwise (see torch.copysign)."""
    return _copysign(input, other, in_place=False)


@parses("float_power(Tensor input, Tensor exponent, *, Tensor out=None)",
        "float_power(Scalar self, Tensor exponent, *, Tensor out=None)",
        "float_power(Tensor input, Scalar exponent, *, Tensor out=None)")
def float_power(input, exponent):
    """input ** exponent in double precision (see torch.float_power): pow of the operands cast to float64 or
    complex128, as PyTorch builds it (so its grad_fn is pow's)."""
    dtype = _float_power_dtype(input, exponent)
    return pow(_as_dtype(input, dtype), _as_dtype(exponent, dtype))


@parses("gcd(Tensor input, Tensor other, *, Tensor out=None)")
def gcd(input, other):
    """The greatest common divisor of integers, elementwise (see torch.gcd)."""
    return Gcd.apply(input, _integers(input, other, "gcd_cpu"))


@parses("gcd_(Tensor input, Tensor other)")
def gcd_(input, other):
    check_castable(input, other)
    return Gcd.apply_(input, _integers(input, other, "gcd_cpu"))


@parses("lcm(Tensor input, Tensor other, *, Tensor out=None)")
def lcm(input, other):
    """The least common multiple of integers, elementwise (see torch.lcm)."""
    return Lcm.apply(input, _integers(input, other, "lcm_cpu"))


@parses("lcm_(Tensor input, Tensor other)")
def lcm_(input, other):
    check_castable(input, other)
    return Lcm.apply_(input, _integers(input, other, "lcm_cpu"))


@parses("ldexp(Tensor input, Tensor other, *, Tensor out=None)")
def ldexp(input, other):
    """input * 2**other, elementwise (see torch.ldexp)."""
    return Ldexp.apply(input, other)


@parses("ldexp_(Tensor input, Tensor other)")
def ldexp_(input, other):
    if input.dtype._category < 2:
        raise RuntimeError(f"ldexp can't be cast to the desired output type {input.dtype.title}")
    check_castable(input, other)
    return Ldexp.apply_(input, other)


@parses("frexp(Tensor input, *, Tensor[2] out=None)")
def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent (see torch.frexp)."""
    if input.dtype.numpy.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(Frexp.apply(input))


@parses("signbit(Tensor input, *, Tensor out=None)")
def signbit(input):
    """Whether each element's sign bit is set: True for -0.0 too (see torch.signbit)."""
    no_complex(input, "signbit is not implemented for complex tensors.")
    return Signbit.apply(input)


@parses("nextafter(Tensor input, Tensor other, *, Tensor out=None)")
def nextafter(input, other):
    """The next floating-point value after input towards other (see torch.nextafter)."""
    return Nextafter.apply(input, _nextafter(input, other))


class NumberPartsMethods:
    """The Tensor methods of this module's functions (Tensor inherits them)."""

    __slots__ = ()

    heaviside = tensor_method(heaviside)
    copysign = tensor_method(copysign)
    float_power = tensor_method(float_power)
    gcd = tensor_method(gcd)
    lcm = tensor_method(lcm)
    ldexp = tensor_method(ldexp)
    def frexp(self):
        return frexp.__wrapped__(self)
    def signbit(self):
        return signbit.__wrapped__(self)
    nextafter = tensor_method(nextafter)

    @parses_method("heaviside_(Tensor values)")
    def heaviside_(self, values):
        return Heaviside.apply_(self, _checked_heaviside(self, values))
    @parses_method("copysign_(Tensor other)",
                   "copysign_(Scalar other)")
    def copysign_(self, other):
        return _copysign(self, other, in_place=True)
    @parses_method("float_power_(Tensor exponent)",
                   "float_power_(Scalar exponent)")
    def float_power_(self, exponent):
        dtype = _float_power_dtype(self, exponent)
        if self.dtype is not dtype:
            raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.title} but the operation's "
                               f"result requires dtype {dtype.title}")
        return self.pow_(_as_dtype(exponent, dtype))
    gcd_ = tensor_method(gcd_)
    lcm_ = tensor_method(lcm_)
    ldexp_ = tensor_method(ldexp_)
    @parses_method("nextafter_(Tensor other)")
    def nextafter_(self, other):
        return Nextafter.apply_(self, _nextafter(self, other))
