"""Activation functions (relu and friends): elementwise, with PyTorch's gradient at the kinks."""

from ndgrad.ops._op import NONZERO, UNARY, Op

__all__ = [
    "relu"
]


class Relu(Op):
    """torch.relu: max(x, 0); the gradient at 0 is 0, as PyTorch's."""

    name, family, domain = "relu", UNARY, NONZERO
    saves = ("result",)

    @staticmethod
    def forward(xp, x):
        return xp.maximum(x, 0)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * (result > 0),)


# ---- the functions users call --------------------------------------------------------------------------------------
def relu(input):
    return Relu.apply(input)


class ActivationMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def relu(self):
        return relu(self)
