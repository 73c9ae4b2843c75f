"""Arithmetic primitives: + - * / // % ** and their relatives, abs, sign, where, and the in-place fills.

Forward works on raw arrays; vjp uses ndgrad ops, so gradients are differentiable. Binary rules return
gradients of the broadcast shape: the engine sums each back to its input's shape.
"""

import math

from ndgrad._dtype import bool_, result_type
from ndgrad.ops._op import BINARY, NONZERO, POSITIVE, UNARY, Op, operand_or_raise
from ndgrad.ops.comparison import logical_and
from ndgrad.ops.transcendental import log

__all__ = [
    "add", "sub", "rsub", "mul", "div", "reciprocal", "floor_divide", "remainder", "pow", "neg", "abs", "sign",
    "where"
]


class Add(Op):
    """torch.add: input + alpha * other."""

    name, family = "add", BINARY

    @staticmethod
    def forward(xp, x, y, alpha=1):
        return xp.add(x, y) if alpha == 1 else xp.add(x, xp.multiply(y, alpha))

    @staticmethod
    def vjp(ctx, grad):
        return grad, (grad if ctx.alpha == 1 else grad * ctx.alpha)


class Sub(Op):
    """torch.sub: input - alpha * other."""

    name, family = "sub", BINARY

    @staticmethod
    def forward(xp, x, y, alpha=1):
        return xp.subtract(x, y) if alpha == 1 else xp.subtract(x, xp.multiply(y, alpha))

    @staticmethod
    def vjp(ctx, grad):
        return grad, -grad if ctx.alpha == 1 else grad * -ctx.alpha


class Rsub(Op):
    """torch.rsub with a tensor ``other``: other - alpha * input."""

    name, family = "rsub", BINARY

    @staticmethod
    def forward(xp, x, y, alpha=1):
        return xp.subtract(y, x) if alpha == 1 else xp.subtract(y, xp.multiply(x, alpha))

    @staticmethod
    def vjp(ctx, grad):
        return (-grad if ctx.alpha == 1 else grad * -ctx.alpha), grad


class RsubScalar(Rsub):
    """torch.rsub with a number ``other`` (``2 - x``); the number is a parameter, so the node has one edge."""

    name, family = "rsub", UNARY
    node_name = "RsubBackward1"

    @staticmethod
    def vjp(ctx, grad):
        return (-grad if ctx.alpha == 1 else grad * -ctx.alpha,)


class Mul(Op):
    """torch.mul: elementwise product."""

    name, family = "mul", BINARY
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        return xp.multiply(x, y)

    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (grad * y if need_x else None), (grad * x if need_y else None)


class Div(Op):
    """torch.div: true division; integer inputs give the default float dtype."""

    name, family, domain = "div", BINARY, NONZERO
    saves = ("x", "y")
    float_only = True

    @staticmethod
    def forward(xp, x, y):
        return xp.true_divide(x, y)

    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (grad / y if need_x else None), (-grad * x / (y * y) if need_y else None)


class Reciprocal(Op):
    """torch.reciprocal: 1 / input; what ``2 / x`` runs before multiplying by 2."""

    name, family, domain = "reciprocal", UNARY, NONZERO
    saves = ("result",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        return xp.reciprocal(x)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (-grad * result * result,)


class FloorDivide(Op):
    """torch.floor_divide (``//``): PyTorch records it but defines no derivative, so backward raises."""

    node_name = "NotImplemented"

    @staticmethod
    def forward(xp, x, y):
        return xp.floor_divide(x, y)

    @staticmethod
    def vjp(ctx, grad):
        raise RuntimeError("the derivative for 'floor_divide' is not implemented.")


class Remainder(Op):
    """torch.remainder (``%``) by a tensor: the result has the sign of the divisor, like Python's %."""

    name, family, domain = "remainder", BINARY, NONZERO
    node_name = "RemainderBackward1"
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        return xp.remainder(x, y)

    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        # NOTE: x % y = x - y * floor(x / y); floor is piecewise constant, so its quotient is a constant here.
        return grad, -grad * floor_divide(x, y).detach()


class RemainderScalar(Remainder):
    """torch.remainder by a number (``x % 2``): x minus a piecewise-constant term, so the gradient is grad."""

    name, family = "remainder", UNARY
    node_name = "RemainderBackward0"
    saves = ()

    @staticmethod
    def vjp(ctx, grad):
        return (grad,)


class Pow(Op):
    """torch.pow with a number exponent (``x ** 2``)."""

    name, family, domain = "pow", UNARY, POSITIVE
    saves = ("x",)

    @staticmethod
    def forward(xp, x, exponent):
        return xp.power(x, exponent)

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        if ctx.exponent == 0:
            return (grad * 0,)
        return (grad * ctx.exponent * x ** (ctx.exponent - 1),)


class PowTensor(Op):
    """torch.pow with a tensor exponent (``x ** y``)."""

    name, family, domain = "pow", BINARY, POSITIVE
    node_name = "PowBackward1"
    saves = ("x", "y", "result")

    @staticmethod
    def forward(xp, x, y):
        return xp.power(x, y)

    @staticmethod
    def vjp(ctx, grad):
        x, y, result = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        grad_x = grad * y * x ** (y - 1) if need_x else None
        # NOTE: 0 ** y has no log; PyTorch defines that gradient as 0 where y >= 0, and so do we.
        grad_y = where(logical_and(x == 0, y >= 0), 0.0, grad * result * log(x)) if need_y else None
        return grad_x, grad_y


class PowScalarBase(Op):
    """torch.pow with a number base (``2 ** x``)."""

    name, family = "pow", UNARY
    node_name = "PowBackward2"
    saves = ("result",)

    @staticmethod
    def forward(xp, exponent, base):
        return xp.power(base, exponent)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        if ctx.base == 0:
            return (grad * 0,)
        return (grad * result * math.log(ctx.base),)


class Neg(Op):
    """torch.neg: -input."""

    name, family = "neg", UNARY

    @staticmethod
    def forward(xp, x):
        return xp.negative(x)

    @staticmethod
    def vjp(ctx, grad):
        return (-grad,)


class Abs(Op):
    """torch.abs; its gradient at 0 is 0, as PyTorch's."""

    name, family, domain = "abs", UNARY, NONZERO
    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        return xp.abs(x)

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * sign(x),)


class Sign(Op):
    """torch.sign: -1, 0 or 1; piecewise constant, so its gradient is zero."""

    name, family, domain = "sign", UNARY, NONZERO

    @staticmethod
    def forward(xp, x):
        return xp.sign(x)

    @staticmethod
    def vjp(ctx, grad):
        return (grad * 0,)


class Where(Op):
    """torch.where(condition, input, other); the condition is a parameter, not an input: it has no gradient."""

    @staticmethod
    def forward(xp, x, y, condition):
        return xp.where(condition, x, y)

    @staticmethod
    def vjp(ctx, grad):
        need_x, need_y = ctx.needs_input_grad
        grad_x = where(ctx.condition, grad, 0.0) if need_x else None
        return grad_x, (where(ctx.condition, 0.0, grad) if need_y else None)


class Fill(Op):
    """Tensor.fill_: every element becomes ``value``; the old values get a zero gradient."""

    node_name = "FillBackward2"  # PyTorch's name for fill_ with a number

    @staticmethod
    def forward(xp, x, value):
        return xp.full_like(x, value)

    @staticmethod
    def vjp(ctx, grad):
        return (grad * 0,)


class Zero(Fill):
    """Tensor.zero_."""

    @staticmethod
    def forward(xp, x):
        return xp.zeros_like(x)


# ---- the functions users call --------------------------------------------------------------------------------------
def add(input, other, *, alpha=1):
    """input + alpha * other (see torch.add)."""
    return Add.apply(input, other, alpha=alpha)


def sub(input, other, *, alpha=1):
    """input - alpha * other (see torch.sub)."""
    _check_sub(input, other)
    return Sub.apply(input, other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    """other - alpha * input (see torch.rsub)."""
    from ndgrad._tensor import Tensor

    _check_sub(input, other)
    if isinstance(other, Tensor):
        return Rsub.apply(input, other, alpha=alpha)
    return RsubScalar.apply(_promoted_with(input, other), y=other, alpha=alpha)


def _promoted_with(tensor, number):
    """``tensor`` in the dtype that an op with this number computes in, for ops that take the number as a
    parameter rather than an input (PyTorch gives their nodes no edge for it)."""
    dtype = result_type((tensor, number))
    return tensor if dtype is tensor.dtype else tensor.to(dtype)


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


def _refuse_bool(input, other, kernel):
    """PyTorch has no bool kernel for these ops, where NumPy would silently compute in int8."""
    if result_type((input, other)) is bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def mul(input, other):
    """Elementwise product (see torch.mul)."""
    return Mul.apply(input, other)


def div(input, other):
    """Elementwise true division (see torch.div)."""
    return Div.apply(input, other)


def reciprocal(input):
    return Reciprocal.apply(input)


def floor_divide(input, other):
    _refuse_bool(input, other, "div_floor_cpu")
    return FloorDivide.apply(input, other)


def remainder(input, other):
    from ndgrad._tensor import Tensor

    _refuse_bool(input, other, "remainder_cpu")
    if isinstance(other, Tensor):
        return Remainder.apply(input, other)
    return RemainderScalar.apply(_promoted_with(input, other), y=other)


def pow(input, exponent):
    """input ** exponent, for a tensor or number on either side (see torch.pow)."""
    from ndgrad._tensor import Tensor

    if not isinstance(input, Tensor):
        _refuse_bool(input, exponent, "pow")
        return PowScalarBase.apply(_promoted_with(exponent, input), base=input)
    if isinstance(exponent, Tensor):
        _refuse_bool(input, exponent, "pow")
        return PowTensor.apply(input, exponent)
    if input.dtype is bool_ and isinstance(exponent, bool):
        return input.clone() if exponent else input == input  # PyTorch's shortcuts for x ** 1 and x ** 0
    return Pow.apply(_promoted_with(input, exponent), exponent=exponent)


def neg(input):
    return Neg.apply(input)


def abs(input):
    return Abs.apply(input)


def sign(input):
    return Sign.apply(input)


def where(condition, input, other):
    """Elements of input where condition holds, else of other (see torch.where)."""
    return Where.apply(input, other, condition=getattr(condition, "_data", condition))


class ArithmeticMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def add(self, other, *, alpha=1):
        return add(self, other, alpha=alpha)
    def sub(self, other, *, alpha=1):
        return sub(self, other, alpha=alpha)
    def mul(self, other):
        return mul(self, other)
    def div(self, other):
        return div(self, other)
    def pow(self, exponent):
        return pow(self, exponent)
    def neg(self):
        return neg(self)
    def abs(self):
        return abs(self)
    def reciprocal(self):
        return reciprocal(self)
    def sign(self):
        return sign(self)
    def add_(self, other, *, alpha=1):
        return Add.apply_(self, operand_or_raise(other), alpha=alpha)
    def sub_(self, other, *, alpha=1):
        return Sub.apply_(self, operand_or_raise(other), alpha=alpha)
    def mul_(self, other):
        return Mul.apply_(self, operand_or_raise(other))
    def div_(self, other):
        return Div.apply_(self, operand_or_raise(other))
    def zero_(self):
        return Zero.apply_(self)
    def fill_(self, value):
        return Fill.apply_(self, value=operand_or_raise(value))
