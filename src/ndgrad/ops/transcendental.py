"""Exponentials, logarithms, roots and the sigmoid; ``square`` too, a pow, as PyTorch records PowBackward0 for it.
Re-exports the trigonometric and hyperbolic functions (ndgrad.ops.trigonometric) and the special functions
(ndgrad.ops.special), whose Tensor methods TranscendentalMethods inherits."""

import math

from ndgrad._argument_parser import parses, tensor_method
from ndgrad._dtype import result_type
from ndgrad.ops._arrays import conj
from ndgrad.ops._checks import require_kind
from ndgrad.ops._op import BINARY, POSITIVE, FloatUnary, Op

__all__ = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp", "logaddexp2", "sqrt", "rsqrt", "square",
    "sigmoid",
    "exp_", "exp2_", "expm1_", "log_", "log2_", "log10_", "log1p_", "sqrt_", "rsqrt_", "square_", "sigmoid_",
]


# ---- exponentials and logarithms ------------------------------------------------------------------------------------
class Exp(FloatUnary):
    """torch.exp."""

    name = "exp"
    saves = ("result",)
    forward = staticmethod(lambda xp, x: xp.exp(x))

    formula = "grad_self = grad * result"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * result.conj(),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (result,) = ctx.saved_arrays
        return (grad * conj(result),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t * result


class Exp2(FloatUnary):
    """torch.exp2: 2 ** input."""

    name = "exp2"
    saves = ("result",)
    forward = staticmethod(lambda xp, x: xp.exp2(x))

    formula = "grad_self = grad * result * log(2)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * result.conj() * math.log(2),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t * result * math.log(2)


class Expm1(FloatUnary):
    """torch.expm1: exp(input) - 1, accurate near 0."""

    name = "expm1"
    saves = ("result",)
    forward = staticmethod(lambda xp, x: xp.expm1(x))

    formula = "grad_self = grad * (result + 1)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * (result + 1).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t * (result + 1)


class Log(FloatUnary):
    """torch.log: natural logarithm."""

    name, domain = "log", POSITIVE
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.log(x))

    formula = "grad_self = grad / self"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad / x.conj(),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (x,) = ctx.saved_arrays
        return (grad / conj(x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t / x


class Log2(FloatUnary):
    """torch.log2."""

    name, domain = "log2", POSITIVE
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.log2(x))

    formula = "grad_self = grad / (self * log(2))"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad / (x.conj() * math.log(2)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t / (x * math.log(2))


class Log10(FloatUnary):
    """torch.log10."""

    name, domain = "log10", POSITIVE
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.log10(x))

    formula = "grad_self = grad / (self * log(10))"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad / (x.conj() * math.log(10)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t / (x * math.log(10))


class Log1p(FloatUnary):
    """torch.log1p: log(1 + input), accurate near 0."""

    name, domain = "log1p", POSITIVE
    node_name = "Log1PBackward0"
    saves = ("x",)
    forward = staticmethod(lambda xp, x: xp.log1p(x))

    formula = "grad_self = grad / (self + 1)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad / (x + 1).conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t / (x + 1)


class Logaddexp(Op):
    """torch.logaddexp: log(exp(input) + exp(other)) without overflow."""

    name, family = "logaddexp", BINARY
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        if x.dtype.kind != "c":
            return xp.logaddexp(x, y)
        # NOTE: NumPy has no complex logaddexp: a + log1p(exp(b - a)), a the operand of larger real part.
        swap = x.real < y.real
        larger, smaller = xp.where(swap, y, x), xp.where(swap, x, y)
        return larger + xp.log1p(xp.exp(smaller - larger))

    formula = "grad_self = grad * sigmoid(self - other); grad_other = grad * sigmoid(other - self)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        # grad / (1 + exp(y - x)), written stably
        return grad * sigmoid(x - y).conj(), grad * sigmoid(y - x).conj()

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return x_t * sigmoid(x - y) + y_t * sigmoid(y - x)


class Logaddexp2(Op):
    """torch.logaddexp2: log2(2**input + 2**other) without overflow."""

    name, family = "logaddexp2", BINARY
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        return xp.logaddexp2(x, y)

    formula = "grad_self = grad / (1 + 2^(other - self)); grad_other = grad / (1 + 2^(self - other))"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        return grad / (1 + exp2(y - x)), grad / (1 + exp2(x - y))

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return x_t / (1 + exp2(y - x)) + y_t / (1 + exp2(x - y))


# ---- roots and powers -----------------------------------------------------------------------------------------------
class Sqrt(FloatUnary):
    """torch.sqrt."""

    name, domain = "sqrt", POSITIVE
    saves = ("result",)
    forward = staticmethod(lambda xp, x: xp.sqrt(x))

    formula = "grad_self = grad / (2 * result)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad / (2 * result.conj()),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (result,) = ctx.saved_arrays
        return (grad / (2 * conj(result)),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t / (2 * result)


class Rsqrt(FloatUnary):
    """torch.rsqrt: 1 / sqrt(input)."""

    name, domain = "rsqrt", POSITIVE
    saves = ("result",)
    forward = staticmethod(lambda xp, x: xp.reciprocal(xp.sqrt(x)))

    formula = "grad_self = grad * -0.5 * result^3"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * (result**3).conj() * -0.5,)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return x_t * result**3 * -0.5


class Sigmoid(FloatUnary):
    """torch.sigmoid: 1 / (1 + exp(-x)), computed without overflow for large |x|."""

    name = "sigmoid"
    saves = ("result",)

    @staticmethod
    def forward(xp, x):
        if x.dtype.kind == "c":
            return 1 / (1 + xp.exp(-x))
        # NOTE: exp(-|x|) never overflows; the two branches are the same function written stably.
        e = xp.exp(-xp.abs(x))
        return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    formula = "grad_self = grad * result * (1 - result)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (SigmoidBackward.apply(grad, result.conj()),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (result,) = ctx.saved_arrays
        return (SigmoidBackward.forward(None, grad, conj(result)),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return SigmoidBackward.apply(x_t, result)


class SigmoidBackward(Op):
    """grad * s * (1 - s) in one step, as PyTorch's sigmoid_backward; differentiable for double backward."""

    saves = ("grad", "result")

    @staticmethod
    def forward(xp, grad, result):
        return grad * result * (1 - result)

    formula = "grad_grad_output = grad * result * (1 - result); grad_result = grad * grad_output * (1 - 2 result)"
    @staticmethod
    def vjp(ctx, grad_grad):
        grad, result = ctx.saved_tensors
        return grad_grad * (result * (1 - result)).conj(), grad_grad * (grad * (1 - 2 * result)).conj()

    @staticmethod
    def jvp(ctx, grad_t, result_t):
        grad, result = ctx.saved_tensors
        return SigmoidBackward.apply(grad_t, result) + result_t * grad * (1 - 2 * result)


# ---- the functions users call ---------------------------------------------------------------------------------------
@parses("exp(Tensor input, *, Tensor out=None)")
def exp(input):
    return Exp.apply(input)


@parses("exp2(Tensor input, *, Tensor out=None)")
def exp2(input):
    return Exp2.apply(input)


@parses("expm1(Tensor input, *, Tensor out=None)")
def expm1(input):
    return Expm1.apply(input)


@parses("log(Tensor input, *, Tensor out=None)")
def log(input):
    return Log.apply(input)


@parses("log2(Tensor input, *, Tensor out=None)")
def log2(input):
    return Log2.apply(input)


@parses("log10(Tensor input, *, Tensor out=None)")
def log10(input):
    return Log10.apply(input)


@parses("log1p(Tensor input, *, Tensor out=None)")
def log1p(input):
    return Log1p.apply(input)


@parses("logaddexp(Tensor input, Tensor other, *, Tensor out=None)")
def logaddexp(input, other):
    """log(exp(input) + exp(other)) (see torch.logaddexp)."""
    dtype = result_type((input, other))
    if dtype._category < 2:
        raise NotImplementedError(f"\"logaddexp_cpu\" not implemented for '{dtype.title}'")
    return Logaddexp.apply(input, other)


@parses("logaddexp2(Tensor input, Tensor other, *, Tensor out=None)")
def logaddexp2(input, other):
    """log2(2**input + 2**other) (see torch.logaddexp2): PyTorch has real floating kernels only."""
    require_kind(result_type((input, other)), "logaddexp2_cpu", "f")
    return Logaddexp2.apply(input, other)


@parses("sqrt(Tensor input, *, Tensor out=None)")
def sqrt(input):
    return Sqrt.apply(input)


@parses("rsqrt(Tensor input, *, Tensor out=None)")
def rsqrt(input):
    return Rsqrt.apply(input)


@parses("square(Tensor input, *, Tensor out=None)")
def square(input):
    """input * input, recorded as pow(input, 2) as PyTorch records it (see torch.square)."""
    from ndgrad.ops.arithmetic import pow  # arithmetic imports this module

    return pow(input, 2)


@parses("sigmoid(Tensor input, *, Tensor out=None)")
def sigmoid(input):
    return Sigmoid.apply(input)


# In-place forms: torch.exp_(x) is x.exp_(). They write into ``input``, which keeps its dtype (see Op.apply_).
@parses("exp_(Tensor input)")
def exp_(input):
    return Exp.apply_(input)


@parses("exp2_(Tensor input)")
def exp2_(input):
    return Exp2.apply_(input)


@parses("expm1_(Tensor input)")
def expm1_(input):
    return Expm1.apply_(input)


@parses("log_(Tensor input)")
def log_(input):
    return Log.apply_(input)


@parses("log2_(Tensor input)")
def log2_(input):
    return Log2.apply_(input)


@parses("log10_(Tensor input)")
def log10_(input):
    return Log10.apply_(input)


@parses("log1p_(Tensor input)")
def log1p_(input):
    return Log1p.apply_(input)


@parses("sqrt_(Tensor input)")
def sqrt_(input):
    return Sqrt.apply_(input)


@parses("rsqrt_(Tensor input)")
def rsqrt_(input):
    return Rsqrt.apply_(input)


@parses("square_(Tensor input)")
def square_(input):
    from ndgrad.ops.arithmetic import Pow

    return Pow.apply_(input, exponent=2)


@parses("sigmoid_(Tensor input)")
def sigmoid_(input):
    return Sigmoid.apply_(input)


class TranscendentalMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def exp(self):
        return exp.__wrapped__(self)
    def exp2(self):
        return exp2.__wrapped__(self)
    def expm1(self):
        return expm1.__wrapped__(self)
    def log(self):
        return log.__wrapped__(self)
    def log2(self):
        return log2.__wrapped__(self)
    def log10(self):
        return log10.__wrapped__(self)
    def log1p(self):
        return log1p.__wrapped__(self)
    logaddexp = tensor_method(logaddexp)
    logaddexp2 = tensor_method(logaddexp2)
    def sqrt(self):
        return sqrt.__wrapped__(self)
    def rsqrt(self):
        return rsqrt.__wrapped__(self)
    def square(self):
        return square.__wrapped__(self)
    def sigmoid(self):
        return sigmoid.__wrapped__(self)

    def exp_(self):
        return exp_.__wrapped__(self)
    def exp2_(self):
        return exp2_.__wrapped__(self)
    def expm1_(self):
        return expm1_.__wrapped__(self)
    def log_(self):
        return log_.__wrapped__(self)
    def log2_(self):
        return log2_.__wrapped__(self)
    def log10_(self):
        return log10_.__wrapped__(self)
    def log1p_(self):
        return log1p_.__wrapped__(self)
    def sqrt_(self):
        return sqrt_.__wrapped__(self)
    def rsqrt_(self):
        return rsqrt_.__wrapped__(self)
    def square_(self):
        return square_.__wrapped__(self)
    def sigmoid_(self):
        return sigmoid_.__wrapped__(self)
