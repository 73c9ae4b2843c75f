"""Arithmetic primitives: + - * / // % ** and their relatives, abs, lerp, hypot, and the in-place forms and fills.

Forward works on raw arrays; vjp uses ndgrad ops, so gradients are differentiable. Binary rules return
gradients of the broadcast shape: the engine sums each back to its input's shape.
"""

import cmath
import math

import numpy as np

from ndgrad._argument_parser import alias, parses, parses_method, tensor_method
from ndgrad._dtype import bool_, fill_scalar, real_scalar, result_type
from ndgrad.ops._arrays import conj
from ndgrad.ops._checks import (
    check_castable,
    check_zero_division,
    checked_alpha,
    first_as_tensor,
    is_tensor,
    kind_checked,
    no_complex,
    no_complex_kernel,
    number_operand,
    promoted_with,
    refuse_bool,
    require_kind,
    zeros_like_grad,
)
from ndgrad.ops._op import BINARY, NONZERO, POSITIVE, TERNARY, UNARY, Op, WithoutDerivative, operand_or_raise
from ndgrad.ops.comparison import logical_and, where
from ndgrad.ops.complex_numbers import conjugate, real

# NOTE: rounding.py is the rest of this family (rounding, clamping); re-exported here, its methods a base of ours.
from ndgrad.ops.rounding import sgn
from ndgrad.ops.transcendental import log

__all__ = [
    "add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide", "reciprocal",
    "floor_divide", "remainder", "fmod", "pow", "neg", "negative", "positive", "abs", "absolute", "lerp", "hypot",
    "neg_", "negative_", "abs_", "reciprocal_", "fill", "fill_", "zero_",
]


class Add(Op):
    """torch.add: input + alpha * other."""

    name, family = "add", BINARY
    ufunc, ufunc_params = np.add, {"alpha": 1}

    @staticmethod
    def forward(xp, x, y, alpha=1):
        return xp.add(x, y) if alpha == 1 else xp.add(x, y * alpha)  # a number times alpha stays a weak number

    formula = "grad_self = grad; grad_other = grad * alpha"
    @staticmethod
    def vjp(ctx, grad):
        return grad, (grad if ctx.alpha == 1 else grad * conjugate(ctx.alpha))

    @staticmethod
    def vjp_arrays(ctx, grad):
        return grad, (grad if ctx.alpha == 1 else grad * conj(ctx.alpha))

    @staticmethod
    def jvp(ctx, x_t, y_t):
        return x_t if y_t is None else x_t + (y_t if ctx.alpha == 1 else y_t * ctx.alpha)


class Sub(Op):
    """torch.sub: input - alpha * other."""

    name, family = "sub", BINARY
    ufunc, ufunc_params = np.subtract, {"alpha": 1}

    @staticmethod
    def forward(xp, x, y, alpha=1):
        return xp.subtract(x, y) if alpha == 1 else xp.subtract(x, y * alpha)

    formula = "grad_self = grad; grad_other = -grad * alpha"
    @staticmethod
    def vjp(ctx, grad):
        return grad, -grad if ctx.alpha == 1 else grad * -conjugate(ctx.alpha)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return grad, -grad if ctx.alpha == 1 else grad * -conj(ctx.alpha)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        return x_t if y_t is None else x_t - (y_t if ctx.alpha == 1 else y_t * ctx.alpha)


class Rsub(Op):
    """torch.rsub with a tensor ``other``: other - alpha * input."""

    name, family = "rsub", BINARY

    @staticmethod
    def forward(xp, x, y, alpha=1):
        return xp.subtract(y, x) if alpha == 1 else xp.subtract(y, x * alpha)

    formula = "grad_self = -grad * alpha; grad_other = grad"
    @staticmethod
    def vjp(ctx, grad):
        return (-grad if ctx.alpha == 1 else grad * -conjugate(ctx.alpha)), grad

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (-grad if ctx.alpha == 1 else grad * -conj(ctx.alpha)), grad

    @staticmethod
    def jvp(ctx, x_t, y_t):
        return y_t - (x_t if ctx.alpha == 1 else x_t * ctx.alpha)


class RsubScalar(Rsub):
    """torch.rsub with a number ``other`` (``2 - x``); the number is a parameter, so the node has one edge."""

    name, family = "rsub", UNARY
    node_name = "RsubBackward1"

    formula = "grad_self = -grad * alpha"
    @staticmethod
    def vjp(ctx, grad):
        return (-grad if ctx.alpha == 1 else grad * -conjugate(ctx.alpha),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (-grad if ctx.alpha == 1 else grad * -conj(ctx.alpha),)

    @staticmethod
    def jvp(ctx, x_t):
        return -x_t if ctx.alpha == 1 else x_t * -ctx.alpha


class Mul(Op):
    """torch.mul: elementwise product."""

    name, family = "mul", BINARY
    saves = ("x", "y")
    saved_for = {"x": "y", "y": "x"}
    ufunc, ufunc_params = np.multiply, {}

    @staticmethod
    def forward(xp, x, y):
        return xp.multiply(x, y)

    formula = "grad_self = grad * other; grad_other = grad * self"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (grad * conjugate(y) if need_x else None), (grad * conjugate(x) if need_y else None)

    @staticmethod
    def vjp_arrays(ctx, grad):
        x, y = ctx.saved_arrays
        need_x, need_y = ctx.needs_input_grad
        return (grad * conj(y) if need_x else None), (grad * conj(x) if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return x_t * y if y_t is None else x_t * y + x * y_t


class Div(Op):
    """torch.div: true division; integer inputs give the default float dtype."""

    name, family, domain = "div", BINARY, NONZERO
    saves = ("x", "y")
    saved_for = {"x": "y"}
    float_only = True
    ufunc, ufunc_params = np.true_divide, {}

    @staticmethod
    def forward(xp, x, y):
        return xp.true_divide(x, y)

    formula = "grad_self = grad / other; grad_other = -grad * self / other^2"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        # NOTE: x / y / y, as PyTorch's, not x / y^2: differentiated again at x = 0, y = inf it meets no 0 * inf
        return (grad / conjugate(y) if need_x else None), (-grad * (x / y / y).conj() if need_y else None)

    @staticmethod
    def vjp_arrays(ctx, grad):
        x, y = ctx.saved_arrays
        need_x, need_y = ctx.needs_input_grad
        return (grad / conj(y) if need_x else None), (-grad * conj(x / y / y) if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return x_t / y if y_t is None else (x_t - y_t * (x / y)) / y


class Reciprocal(Op):
    """torch.reciprocal: 1 / input; what ``2 / x`` runs before multiplying by 2."""

    name, family, domain = "reciprocal", UNARY, NONZERO
    saves = ("result",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        return xp.reciprocal(x)

    formula = "grad_self = -grad * result^2"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (-grad * (result * result).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return -x_t * result * result


class DivScalar(Op):
    """Tensor / number as PyTorch's C++ records it (DivBackward1; Python's ``t / 2`` records DivBackward0): how
    torch's composites written in C++ end, cross_entropy's 'mean' with class probabilities, cumulative_trapezoid
    with sample points. Not a public op, so not in the op table."""

    node_name = "DivBackward1"

    @staticmethod
    def forward(xp, x, other):
        return x / other

    formula = "grad_self = grad / other"
    @staticmethod
    def vjp(ctx, grad):
        return (grad / ctx.other,)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t / ctx.other


class FloorDivide(WithoutDerivative):
    """torch.floor_divide (``//``): PyTorch records it but defines no derivative, so backward raises."""

    node_name = "NotImplemented"
    aten = "floor_divide"

    @staticmethod
    def forward(xp, x, y):
        return xp.floor_divide(x, y)


class Remainder(Op):
    """torch.remainder (``%``) by a tensor: the result has the sign of the divisor, like Python's %."""

    name, family, domain = "remainder", BINARY, NONZERO
    node_name = "RemainderBackward1"
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        return xp.remainder(x, y)

    formula = "grad_self = grad; grad_other = -grad * floor(self / other)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        # NOTE: x % y = x - y * floor(x / y); floor is piecewise constant, so its quotient is a constant here.
        return grad, -grad * floor_divide(x, y).detach()

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return x_t - y_t * floor_divide(x, y)


class RemainderScalar(Remainder):
    """torch.remainder by a number (``x % 2``): x minus a piecewise-constant term, so the gradient is grad."""

    name, family = "remainder", UNARY
    node_name = "RemainderBackward0"
    saves = ()

    formula = "grad_self = grad"
    @staticmethod
    def vjp(ctx, grad):
        return (grad,)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t


class Pow(Op):
    """torch.pow with a number exponent (``x ** 2``)."""

    name, family, domain = "pow", UNARY, POSITIVE
    saves = ("x",)

    @staticmethod
    def forward(xp, x, exponent):
        return xp.power(x, exponent)

    formula = "grad_self = grad * exponent * self^(exponent - 1)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        if ctx.exponent == 0:
            return (grad * 0,)
        return (grad * (ctx.exponent * x ** (ctx.exponent - 1)).conj(),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (x,) = ctx.saved_arrays
        if ctx.exponent == 0:
            return (grad * 0,)
        return (grad * conj(ctx.exponent * x ** (ctx.exponent - 1)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        if ctx.exponent == 0:
            return x_t * 0
        return x_t * ctx.exponent * x ** (ctx.exponent - 1)


class PowTensor(Op):
    """torch.pow with a tensor exponent (``x ** y``)."""

    name, family, domain = "pow", BINARY, POSITIVE
    node_name = "PowBackward1"
    saves = ("x", "y", "result")

    @staticmethod
    def forward(xp, x, y):
        return power(xp, x, y)

    formula = "grad_self = grad * exponent * self^(exponent - 1); grad_exponent = grad * result * log(self)"
    @staticmethod
    def vjp(ctx, grad):
        x, y, result = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        # NOTE: as PyTorch's, x ** 0 has gradient 0 for x even at x = 0 (where y * x ** (y - 1) is 0 * inf), and
        # 0 ** y has none for y where y >= 0 (log(0) = -inf). The second mask sits inside the product, so that
        # differentiating it again in grad gives 0 there too, as PyTorch's does.
        grad_x = where(y == 0, 0.0, grad * (y * x ** (y - 1)).conj()) if need_x else None
        grad_y = grad * where(_zero_base(x, y), 0.0, (result * log(x)).conj()) if need_y else None
        return grad_x, grad_y

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y, result = ctx.saved_tensors
        x_part = where(y == 0, 0.0, x_t * y * x ** (y - 1))
        return x_part + y_t * where(_zero_base(x, y), 0.0, result * log(x))


def power(xp, base, exponent):
    """xp.power, with PyTorch's integer powers where an integer exponent is negative (NumPy refuses them): a base
    of 1 gives 1, -1 gives -1 or 1 by the exponent's parity, any other base 0."""
    if getattr(exponent, "dtype", None) is None or exponent.dtype.kind not in "iu" or not (exponent < 0).any():
        return xp.power(base, exponent)
    result = xp.power(base, xp.where(exponent < 0, 0, exponent))
    of_minus_one = xp.where(exponent % 2 == 0, 1, -1)
    negative_power = xp.where(base == 1, 1, xp.where(base == -1, of_minus_one, 0))
    return xp.where(exponent < 0, negative_power, result).astype(result.dtype)


def _zero_base(x, y):
    """Where 0 ** y is 0 or 1 and PyTorch's gradient for y is 0: x == 0 and y >= 0 (Re(y) >= 0 for complex y)."""
    return logical_and(x == 0, real(y) >= 0)


class PowScalarBase(Op):
    """torch.pow with a number base (``2 ** x``)."""

    name, family = "pow", UNARY
    node_name = "PowBackward2"
    saves = ("result",)

    @staticmethod
    def forward(xp, exponent, base):
        return power(xp, base, exponent)

    formula = "grad_exponent = grad * result * log(self)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        if ctx.base == 0:  # log(0) = -inf: PyTorch's gradient is 0 where the result is finite, else -inf
            return (where(result.abs() < math.inf, 0.0, grad * result * -math.inf),)
        return (grad * (result * _log(ctx.base)).conj(),)

    @staticmethod
    def jvp(ctx, exponent_t):
        (result,) = ctx.saved_tensors
        if ctx.base == 0:  # log(0) = -inf: PyTorch's tangent is 0 where exponent >= 0 (result 0 or 1, finite)
            return where(result.abs() < math.inf, 0.0, exponent_t * result * -math.inf)
        return exponent_t * result * _log(ctx.base)


def _log(number):
    """The natural log of a Python number; complex for a complex or negative one."""
    return math.log(number) if isinstance(number, (int, float)) and number > 0 else cmath.log(number)


class Neg(Op):
    """torch.neg: -input."""

    name, family = "neg", UNARY

    @staticmethod
    def forward(xp, x):
        return xp.negative(x)

    formula = "grad_self = -grad"
    @staticmethod
    def vjp(ctx, grad):
        return (-grad,)

    @staticmethod
    def vjp_arrays(ctx, grad):
        return (-grad,)

    @staticmethod
    def jvp(ctx, x_t):
        return -x_t


class Abs(Op):
    """torch.abs; its gradient at 0 is 0, as PyTorch's."""

    name, family, domain = "abs", UNARY, NONZERO
    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        return xp.abs(x)

    formula = "grad_self = grad * sgn(self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * sgn(x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return real(x_t * sgn(x).conj())  # for a complex input: the change of |z| along x_t, a real number


class DivRounding(Op):
    """torch.div with rounding_mode 'trunc' or 'floor': piecewise constant, so both gradients are zero."""

    name, family, domain = "div", BINARY, NONZERO
    node_name = "DivBackward2"

    @staticmethod
    def forward(xp, x, y, rounding_mode):
        if rounding_mode == "floor":
            return xp.floor_divide(x, y)
        if x.dtype.kind in "fcV":
            return xp.trunc(xp.true_divide(x, y))
        quotient = xp.floor_divide(x, y)  # NOTE: integers have no truncating division: floor, then step toward 0
        return quotient + ((quotient < 0) & (quotient * y != x))

    formula = "grad_self = zeros_like(grad); grad_other = zeros_like(grad)  (piecewise constant)"
    @staticmethod
    def vjp(ctx, grad):
        return tuple(zeros_like_grad(grad) if need else None for need in ctx.needs_input_grad)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        return zeros_like_grad(x_t if y_t is None else x_t + y_t)  # the result's shape and dtype


class Fmod(Op):
    """torch.fmod by a tensor: the result has the sign of the dividend, like C's fmod."""

    name, family, domain = "fmod", BINARY, NONZERO
    node_name = "FmodBackward1"
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        return xp.fmod(x, y)

    formula = "grad_self = grad; grad_other = -grad * trunc(self / other)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        return grad, -grad * div(x, y, rounding_mode="trunc")

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return x_t - y_t * div(x, y, rounding_mode="trunc")


class FmodScalar(Fmod):
    """torch.fmod by a number: x minus a piecewise-constant term, so the gradient is grad."""

    name, family = "fmod", UNARY
    node_name = "FmodBackward0"
    saves = ()

    formula = "grad_self = grad"
    @staticmethod
    def vjp(ctx, grad):
        return (grad,)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t


class Lerp(Op):
    """torch.lerp with a number weight: input + weight * (end - input)."""

    name, family = "lerp", TERNARY  # the samples need the third argument, here a number

    @staticmethod
    def forward(xp, x, y, weight):
        # NOTE: PyTorch's two-sided formula: exact at both ends (weight 0 gives input, weight 1 gives end).
        return x + weight * (y - x) if -0.5 < weight < 0.5 else y - (y - x) * (1 - weight)

    formula = "grad_self = grad * (1 - weight); grad_end = grad * weight"
    @staticmethod
    def vjp(ctx, grad):
        return grad * conjugate(1 - ctx.weight), grad * conjugate(ctx.weight)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        return Lerp.apply(x_t, y_t, weight=ctx.weight)


class LerpTensor(Op):
    """torch.lerp with a tensor weight."""

    name, family = "lerp", TERNARY
    node_name = "LerpBackward1"
    saves = ("x", "y", "weight")

    @staticmethod
    def forward(xp, x, y, weight):
        return xp.where(xp.abs(weight) < 0.5, x + weight * (y - x), y - (y - x) * (1 - weight))

    formula = "grad_self = grad * (1 - weight); grad_end = grad * weight; grad_weight = grad * (end - self)"
    @staticmethod
    def vjp(ctx, grad):
        x, y, weight = ctx.saved_tensors
        return grad * (1 - weight).conj(), grad * weight.conj(), grad * (y - x).conj()

    @staticmethod
    def jvp(ctx, x_t, y_t, weight_t):
        x, y, weight = ctx.saved_tensors
        return LerpTensor.apply(x_t, y_t, weight) + weight_t * (y - x)


class Hypot(Op):
    """torch.hypot: sqrt(x**2 + y**2)."""

    name, family, domain = "hypot", BINARY, NONZERO
    saves = ("x", "y", "result")

    @staticmethod
    def forward(xp, x, y):
        return xp.hypot(x, y)

    formula = "grad_self = grad * self / result; grad_other = grad * other / result"
    @staticmethod
    def vjp(ctx, grad):
        x, y, result = ctx.saved_tensors
        return grad * x / result, grad * y / result

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y, result = ctx.saved_tensors
        return (x_t * x + y_t * y) / result


class Fill(Op):
    """Tensor.fill_: every element becomes ``value``; the old values get a zero gradient."""

    node_name = "FillBackward2"  # PyTorch's name for fill_ with a number
    idempotent = True

    @staticmethod
    def forward(xp, x, value):
        return xp.full_like(x, value)

    formula = "grad_self = grad * 0"
    @staticmethod
    def vjp(ctx, grad):
        return (grad * 0,)

    @staticmethod
    def jvp(ctx, x_t):
        return zeros_like_grad(x_t)


class FillTensor(Op):
    """Tensor.fill_ with a 0-d tensor ``value``, which gets the sum of the gradient; the old values get zero."""

    node_name = "FillBackward3"  # not idempotent: PyTorch copies the value in, and refuses repeated elements

    @staticmethod
    def forward(xp, x, value):
        return xp.full_like(x, value)

    formula = "grad_self = grad * 0; grad_value = grad.sum()"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_value = ctx.needs_input_grad
        return (grad * 0 if need_x else None), (grad.sum() if need_value else None)

    @staticmethod
    def jvp(ctx, x_t, value_t):
        return FillTensor.apply(x_t, value_t)


class Zero(Fill):
    """Tensor.zero_."""

    @staticmethod
    def forward(xp, x):
        return xp.zeros_like(x)


class FillOutOfPlace(Fill):
    """torch.fill: a new tensor of input's shape and dtype, every element ``value``."""

    name, family, node_name = "fill", UNARY, "FillBackward0"


class FillTensorOutOfPlace(FillTensor):
    """torch.fill with a 0-d tensor ``value``, which gets the sum of the gradient."""

    name, family, node_name = "fill", BINARY, "FillBackward1"


# ---- the functions users call --------------------------------------------------------------------------------------
@parses("fill_(Tensor input, Tensor value)",
        "fill_(Tensor input, Scalar value)")
def fill_(input, value):
    """Set every element to ``value``, a number or a 0-d tensor (see torch.Tensor.fill_)."""
    return _fill(input, value, Fill.apply_, FillTensor.apply_)


@parses("fill(Tensor input, Tensor value)",
        "fill(Tensor input, Scalar value)")
def fill(input, value):
    """A tensor like ``input`` with every element ``value`` (see torch.fill)."""
    return _fill(input, value, FillOutOfPlace.apply, FillTensorOutOfPlace.apply)


def _fill(input, value, number_form, tensor_form):
    if not hasattr(value, "_data"):
        return number_form(input, value=fill_scalar(value, input.dtype, input.numel()))
    if value.ndim:  # torch.fill's message names fill_ too
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
    return tensor_form(input, value if value.dtype is input.dtype else value.to(input.dtype))


@parses("zero_(Tensor input)")
def zero_(input):
    return Zero.apply_(input)


@parses("add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)",
        "add(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|deprecated")
def add(input, other, *, alpha=1):
    """input + alpha * other (see torch.add)."""
    if not hasattr(input, "_data"):  # add(1, 2): a number given for a Tensor argument, which PyTorch accepts here
        input = first_as_tensor(input, other)
    if type(alpha) is not int or alpha != 1:
        alpha = checked_alpha(input, other, alpha)
    return Add.apply(input, other, alpha=alpha)


@parses("sub(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)",
        "sub(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|deprecated")
def sub(input, other, *, alpha=1):
    """input - alpha * other (see torch.sub)."""
    _check_sub(input, other)
    if not hasattr(input, "_data"):
        input = first_as_tensor(input, other)
    if type(alpha) is not int or alpha != 1:
        alpha = checked_alpha(input, other, alpha)
    return Sub.apply(input, other, alpha=alpha)


subtract = alias(sub, "subtract(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)",
                      "subtract(Tensor input, Scalar other, Scalar alpha=1)")


@parses("rsub(Tensor input, Tensor other, *, Scalar alpha=1)",
        "rsub(Tensor input, Scalar other, Scalar alpha=1)")
def rsub(input, other, *, alpha=1):
    """other - alpha * input (see torch.rsub)."""
    _check_sub(input, other)
    if type(alpha) is not int or alpha != 1:
        alpha = checked_alpha(input, other, alpha)
    if is_tensor(other):
        return Rsub.apply(input, other, alpha=alpha)
    input = promoted_with(input, other)
    return RsubScalar.apply(input, y=number_operand(other, input), alpha=alpha)


def _check_sub(input, other):
    """PyTorch refuses ``-`` on bool operands (a Python bool counts as one); NumPy would compute it."""
    bools = sum(x.dtype is bool_ if hasattr(x, "_data") else isinstance(x, bool) for x in (input, other))
    if bools == 2:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
            "operator instead."
        )
    if bools == 1:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead."
        )


@parses("mul(Tensor input, Tensor other, *, Tensor out=None)")
def mul(input, other):
    """Elementwise product (see torch.mul)."""
    if not hasattr(input, "_data"):
        input = first_as_tensor(input, other)
    return Mul.apply(input, other)


multiply = alias(mul, "multiply(Tensor input, Tensor other, *, Tensor out=None)",
                      "multiply(Tensor input, Scalar other)")


@parses("div(Tensor input, Tensor other, *, Tensor out=None)",
        "div(Tensor input, Tensor other, *, str? rounding_mode, Tensor out=None)",
        "div(Tensor input, Scalar other, *, str? rounding_mode)")
def div(input, other, *, rounding_mode=None):
    """Elementwise division: true, or rounded by 'trunc' or 'floor' (see torch.div)."""
    input = first_as_tensor(input, other)
    if rounding_mode is None:
        return Div.apply(input, other)
    _check_rounding_mode(input, other, rounding_mode)
    return DivRounding.apply(input, other, rounding_mode=rounding_mode)


def _check_rounding_mode(input, other, rounding_mode):
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    refuse_bool(input, other, f"div_{rounding_mode}_cpu")
    no_complex_kernel(f"div_{rounding_mode}_cpu", input, other)
    check_zero_division(input, other)


divide = alias(div, "divide(Tensor input, Tensor other, *, Tensor out=None)",
                    "divide(Tensor input, Tensor other, *, str? rounding_mode, Tensor out=None)",
                    "divide(Tensor input, Scalar other)",
                    "divide(Tensor input, Scalar other, *, str? rounding_mode)")


@parses("true_divide(Tensor input, Tensor other, *, Tensor out=None)",
        "true_divide(Tensor input, Scalar other)")
def true_divide(input, other):
    """Elementwise true division (see torch.true_divide)."""
    return div(input, other)


@parses("reciprocal(Tensor input, *, Tensor out=None)")
def reciprocal(input):
    """1 / input (see torch.reciprocal)."""
    return Reciprocal.apply(input)


@parses("floor_divide(Tensor input, Tensor other, *, Tensor out=None)",
        "floor_divide(Tensor input, Scalar other)")
def floor_divide(input, other):
    """Elementwise division rounded down (see torch.floor_divide)."""
    refuse_bool(input, other, "div_floor_cpu")
    no_complex_kernel("div_floor_cpu", input, other)
    check_zero_division(input, other)
    return FloorDivide.apply(first_as_tensor(input, other), other)


@parses("remainder(Tensor input, Tensor other, *, Tensor out=None)",
        "remainder(Scalar self, Tensor other)",
        "remainder(Tensor input, Scalar other, *, Tensor out=None)")
def remainder(input, other):
    """Python's %: the result has the sign of other (see torch.remainder)."""
    refuse_bool(input, other, "remainder_cpu")
    no_complex_kernel("remainder_cpu", input, other)
    check_zero_division(input, other)
    if is_tensor(other):
        return Remainder.apply(first_as_tensor(input, other), other)
    input = promoted_with(input, other)
    return RemainderScalar.apply(input, y=number_operand(other, input))


@parses("fmod(Tensor input, Tensor other, *, Tensor out=None)",
        "fmod(Tensor input, Scalar other, *, Tensor out=None)")
def fmod(input, other):
    """C's fmod: the result has the sign of input (see torch.fmod)."""
    refuse_bool(input, other, "fmod_cpu")
    no_complex_kernel("fmod_cpu", input, other)
    check_zero_division(input, other)
    if is_tensor(other):
        return Fmod.apply(input, other)
    input = promoted_with(input, other)
    return FmodScalar.apply(input, y=number_operand(other, input))


@parses("pow(Tensor input, Tensor exponent, *, Tensor out=None)",
        "pow(Scalar self, Tensor exponent, *, Tensor out=None)",
        "pow(Tensor input, Scalar exponent, *, Tensor out=None)")
def pow(input, exponent):
    """input ** exponent, for a tensor or number on either side (see torch.pow)."""
    if not is_tensor(input):
        refuse_bool(input, exponent, "pow")
        exponent = promoted_with(exponent, input)
        return PowScalarBase.apply(exponent, base=number_operand(input, exponent))
    if is_tensor(exponent):
        refuse_bool(input, exponent, "pow")
        return PowTensor.apply(input, exponent)
    if input.dtype is bool_ and isinstance(exponent, bool):
        return input.clone() if exponent else input == input  # PyTorch's shortcuts for x ** 1 and x ** 0
    _check_integer_power(input, exponent)
    return Pow.apply(promoted_with(input, exponent), exponent=exponent)


def _check_integer_power(input, exponent):
    """A number exponent of an integer tensor: PyTorch refuses a negative one and one that its dtype cannot hold
    (``uint8 ** 300``); a tensor exponent it computes."""
    if input.dtype._category < 2 and isinstance(exponent, int) and not isinstance(exponent, bool):
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        real_scalar(exponent, input.dtype)


@parses("neg(Tensor input, *, Tensor out=None)")
def neg(input):
    """-input (see torch.neg)."""
    return Neg.apply(_negatable(input))


def _negatable(input):
    if is_tensor(input) and input.dtype is bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
            "the `~` or `logical_not()` operator instead."
        )
    return input


negative = alias(neg, "negative(Tensor input, *, Tensor out=None)")


@parses("positive(Tensor input)")
def positive(input):
    """input itself (see torch.positive)."""
    if input.dtype is bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@parses("abs(Tensor input, *, Tensor out=None)")
def abs(input):
    """Elementwise absolute value (see torch.abs)."""
    return Abs.apply(kind_checked(input, "abs_cpu", "iufc"))


absolute = alias(abs, "absolute(Tensor input, *, Tensor out=None)")


@parses("lerp(Tensor input, Tensor end, Tensor weight, *, Tensor out=None)",
        "lerp(Tensor input, Tensor end, Scalar weight, *, Tensor out=None)")
def lerp(input, end, weight):
    """input + weight * (end - input), with a number or tensor weight (see torch.lerp)."""
    if _lerp_checked(input, end, weight):
        return LerpTensor.apply(input, end, weight)
    return Lerp.apply(input, end, weight=weight)


def _lerp_(self, end, weight):
    if _lerp_checked(self, end, weight):
        return LerpTensor.apply_(self, end, weight)
    return Lerp.apply_(self, end, weight=weight)


def _lerp_checked(input, end, weight):
    """PyTorch's checks for lerp; True for the tensor-weight overload."""
    for label, operand in (("end", end), ("weight", weight)):
        # NOTE: PyTorch lets a 0-d weight tensor promote like a number: lerp(int, int, 0-d float) is float.
        if is_tensor(operand) and operand.dtype is not input.dtype and (label == "end" or operand.ndim):
            raise RuntimeError(
                f"expected dtype {input.dtype.cpp_name} for `{label}` but got dtype "
                f"{operand.dtype.cpp_name}"
            )
    if is_tensor(weight):
        require_kind(result_type((input, end, weight)), "lerp_kernel_tensor", "fc")
        return True
    require_kind(input.dtype, "lerp_kernel_scalar", "fc")
    return False


@parses("hypot(Tensor input, Tensor other, *, Tensor out=None)")
def hypot(input, other):
    """sqrt(input**2 + other**2), elementwise (see torch.hypot)."""
    return Hypot.apply(input, _hypot_other(input, other))


def _hypot_other(input, other):
    require_kind(result_type((input, other)), "hypot_cpu", "f")
    return other


# ---- in-place forms that need more than Cls.apply_ ------------------------------------------------------------------
@parses("neg_(Tensor input)")
def neg_(input):
    return Neg.apply_(_negatable(input))


negative_ = alias(neg_, "negative_(Tensor input)")


@parses("abs_(Tensor input)")
def abs_(input):
    no_complex(input, "In-place abs is not supported for complex tensors.", RuntimeError)
    return Abs.apply_(kind_checked(input, "abs_cpu", "iufc"))


@parses("reciprocal_(Tensor input)")
def reciprocal_(input):
    return Reciprocal.apply_(input)


def _number_(cls, self, *others, **params):
    """An in-place op with number parameters: PyTorch checks the result dtype before computing."""
    check_castable(self, *others, *(v for v in params.values() if isinstance(v, (int, float, complex))))
    return cls.apply_(self, *others, **params)


def _sub_operand(self, other):
    _check_sub(self, other)
    return other


def _div_(self, other, rounding_mode):
    other = operand_or_raise(other)
    if rounding_mode is None:
        return Div.apply_(self, other)
    _check_rounding_mode(self, other, rounding_mode)
    return DivRounding.apply_(self, other, rounding_mode=rounding_mode)


def _remainder_(self, other, tensor_op, number_op, kernel):
    other = operand_or_raise(other)
    check_castable(self, other)  # first, as PyTorch's in-place forms check the result dtype before the kernel's
    refuse_bool(self, other, kernel)
    no_complex_kernel(kernel, self, other)
    check_zero_division(self, other)
    if is_tensor(other) or number_op is None:  # floor_divide has one overload: a number is an input
        return tensor_op.apply_(self, other)
    return number_op.apply_(self, y=number_operand(other, self))


def _pow_(self, exponent):
    exponent = operand_or_raise(exponent)
    refuse_bool(self, exponent, "pow")
    if is_tensor(exponent):
        return PowTensor.apply_(self, exponent)
    _check_integer_power(self, exponent)
    return _number_(Pow, self, exponent=exponent)


class ArithmeticMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    add = tensor_method(add)
    sub = tensor_method(sub)
    subtract = tensor_method(subtract)
    mul = tensor_method(mul)
    multiply = tensor_method(multiply)
    div = tensor_method(div)
    divide = tensor_method(divide)
    @parses_method("true_divide(Tensor other)",
                   "true_divide(Scalar other)")
    def true_divide(self, other):
        return div(self, other)
    floor_divide = tensor_method(floor_divide)
    remainder = tensor_method(remainder)
    fmod = tensor_method(fmod)
    pow = tensor_method(pow)
    def neg(self):
        return neg.__wrapped__(self)
    negative = neg
    def positive(self):
        return positive.__wrapped__(self)
    def abs(self):
        return abs.__wrapped__(self)
    absolute = abs
    def reciprocal(self):
        return reciprocal.__wrapped__(self)
    lerp = tensor_method(lerp)
    hypot = tensor_method(hypot)
    @parses_method("add_(Tensor other, *, Scalar alpha=1)",
                   "add_(Scalar alpha, Tensor other)|deprecated")
    def add_(self, other, *, alpha=1):
        other = operand_or_raise(other)
        if type(alpha) is not int or alpha != 1:
            alpha = checked_alpha(self, other, alpha)
        return Add.apply_(self, other, alpha=alpha)
    @parses_method("sub_(Tensor other, *, Scalar alpha=1)",
                   "sub_(Scalar alpha, Tensor other)|deprecated")
    def sub_(self, other, *, alpha=1):
        other = _sub_operand(self, operand_or_raise(other))
        if type(alpha) is not int or alpha != 1:
            alpha = checked_alpha(self, other, alpha)
        return Sub.apply_(self, other, alpha=alpha)
    subtract_ = alias(sub_, "subtract_(Tensor other, *, Scalar alpha=1)",
                            "subtract_(Scalar other, Scalar alpha=1)")
    @parses_method("mul_(Tensor other)")
    def mul_(self, other):
        return Mul.apply_(self, operand_or_raise(other))
    multiply_ = alias(mul_, "multiply_(Tensor other)",
                            "multiply_(Scalar other)")
    @parses_method("div_(Tensor other)",
                   "div_(Tensor other, *, str? rounding_mode)",
                   "div_(Scalar other, *, str? rounding_mode)")
    def div_(self, other, *, rounding_mode=None):
        return _div_(self, other, rounding_mode)
    divide_ = alias(div_, "divide_(Tensor other)",
                          "divide_(Tensor other, *, str? rounding_mode)",
                          "divide_(Scalar other)",
                          "divide_(Scalar other, *, str? rounding_mode)")
    @parses_method("true_divide_(Tensor other)",
                   "true_divide_(Scalar other)")
    def true_divide_(self, other):
        return Div.apply_(self, operand_or_raise(other))
    @parses_method("floor_divide_(Tensor other)",
                   "floor_divide_(Scalar other)")
    def floor_divide_(self, other):
        return _remainder_(self, other, FloorDivide, None, "div_floor_cpu")
    @parses_method("remainder_(Tensor other)",
                   "remainder_(Scalar other)")
    def remainder_(self, other):
        return _remainder_(self, other, Remainder, RemainderScalar, "remainder_cpu")
    @parses_method("fmod_(Tensor other)",
                   "fmod_(Scalar other)")
    def fmod_(self, other):
        return _remainder_(self, other, Fmod, FmodScalar, "fmod_cpu")
    @parses_method("pow_(Tensor exponent)",
                   "pow_(Scalar exponent)")
    def pow_(self, exponent):
        return _pow_(self, exponent)
    neg_ = negative_ = neg_.__wrapped__
    abs_ = absolute_ = abs_.__wrapped__
    reciprocal_ = reciprocal_.__wrapped__
    @parses_method("lerp_(Tensor end, Tensor weight)",
                   "lerp_(Tensor end, Scalar weight)")
    def lerp_(self, end, weight):
        return _lerp_(self, end, weight)
    @parses_method("hypot_(Tensor other)")
    def hypot_(self, other):
        return Hypot.apply_(self, _hypot_other(self, other))
    zero_ = zero_.__wrapped__
    fill_ = tensor_method(fill_)
