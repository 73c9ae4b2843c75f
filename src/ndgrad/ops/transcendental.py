"""Exponentials, logarithms, roots, trigonometric and hyperbolic functions, and the sigmoid."""

from ndgrad.ops._op import POSITIVE, UNARY, Op

__all__ = [
    "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid"
]


class Exp(Op):
    """torch.exp."""

    name, family = "exp", UNARY
    saves = ("result",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        return xp.exp(x)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * result,)


class Log(Op):
    """torch.log: natural logarithm."""

    name, family, domain = "log", UNARY, POSITIVE
    saves = ("x",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        return xp.log(x)

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad / x,)


class Sqrt(Op):
    """torch.sqrt."""

    name, family, domain = "sqrt", UNARY, POSITIVE
    saves = ("result",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        return xp.sqrt(x)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad / (2 * result),)


class Sin(Op):
    """torch.sin."""

    name, family = "sin", UNARY
    saves = ("x",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        return xp.sin(x)

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * cos(x),)


class Cos(Op):
    """torch.cos."""

    name, family = "cos", UNARY
    saves = ("x",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        return xp.cos(x)

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * -sin(x),)


class Tanh(Op):
    """torch.tanh."""

    name, family = "tanh", UNARY
    saves = ("result",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        return xp.tanh(x)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (TanhBackward.apply(grad, result),)


class TanhBackward(Op):
    """grad * (1 - tanh^2) in one step, as PyTorch's tanh_backward; differentiable for double backward."""

    saves = ("grad", "result")

    @staticmethod
    def forward(xp, grad, result):
        return grad * (1 - result * result)

    @staticmethod
    def vjp(ctx, grad_grad):
        grad, result = ctx.saved_tensors
        return grad_grad * (1 - result * result), grad_grad * grad * -2 * result


class Sigmoid(Op):
    """torch.sigmoid: 1 / (1 + exp(-x)), computed without overflow for large |x|."""

    name, family = "sigmoid", UNARY
    saves = ("result",)
    float_only = True

    @staticmethod
    def forward(xp, x):
        # NOTE: exp(-|x|) never overflows; the two branches are the same function written stably.
        e = xp.exp(-xp.abs(x))
        return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (SigmoidBackward.apply(grad, result),)


class SigmoidBackward(Op):
    """grad * s * (1 - s) in one step, as PyTorch's sigmoid_backward; differentiable for double backward."""

    saves = ("grad", "result")

    @staticmethod
    def forward(xp, grad, result):
        return grad * result * (1 - result)

    @staticmethod
    def vjp(ctx, grad_grad):
        grad, result = ctx.saved_tensors
        return grad_grad * result * (1 - result), grad_grad * grad * (1 - 2 * result)


# ---- the functions users call --------------------------------------------------------------------------------------
def exp(input):
    return Exp.apply(input)


def log(input):
    return Log.apply(input)


def sqrt(input):
    return Sqrt.apply(input)


def sin(input):
    return Sin.apply(input)


def cos(input):
    return Cos.apply(input)


def tanh(input):
    return Tanh.apply(input)


def sigmoid(input):
    return Sigmoid.apply(input)


class TranscendentalMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def exp(self):
        return exp(self)
    def log(self):
        return log(self)
    def sqrt(self):
        return sqrt(self)
    def sin(self):
        return sin(self)
    def cos(self):
        return cos(self)
    def tanh(self):
        return tanh(self)
    def sigmoid(self):
        return sigmoid(self)
