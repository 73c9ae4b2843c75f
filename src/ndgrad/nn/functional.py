"""torch.nn.functional's mirror: the activation functions, whose ops live in ndgrad.ops.activation (sigmoid and tanh
in ndgrad.ops.transcendental). relu, selu and celu take ``inplace`` here, as torch.nn.functional's do."""

from ndgrad.ops import activation
from ndgrad.ops.activation import (
    celu_,
    elu,
    elu_,
    gelu,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    logsigmoid,
    mish,
    relu6,
    relu_,
    selu_,
    silu,
    softplus,
    softsign,
    tanhshrink,
)

__all__ = [
    "relu", "relu_", "relu6", "elu", "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "gelu",
    "silu", "mish", "softplus", "softsign", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish", "logsigmoid",
    "tanhshrink", "sigmoid", "tanh",
]


def sigmoid(input):
    """torch.nn.functional.sigmoid: Tensor.sigmoid."""
    return input.sigmoid()


def tanh(input):
    """torch.nn.functional.tanh: Tensor.tanh."""
    return input.tanh()


def relu(input, inplace=False):
    return relu_(input) if inplace else activation.relu(input)


def selu(input, inplace=False):
    return selu_(input) if inplace else activation.selu(input)


def celu(input, alpha=1.0, inplace=False):
    return celu_(input, alpha) if inplace else activation.celu(input, alpha)

# The layer, loss, normalisation, convolution and pooling functions: each op module lists its FUNCTIONAL names.
from ndgrad.ops import (  # noqa: E402
    attention,
    classification_losses,
    convolutions,
    ctc,
    dropout,
    embedding_bag,
    layers,
    margin_losses,
    max_pooling,
    more_activations,
    normalization,
    pooling,
    regression_losses,
    resampling,
    softmaxes,
)

# Where torch.nn.functional's function is Python around torch's own (another argument order, an implicit dim,
# return_indices), the op module has both: torch's as ``name``, torch.nn.functional's as ``functional_name``.
for _module in (softmaxes, regression_losses, classification_losses, margin_losses, ctc, attention, layers, dropout,
                embedding_bag, more_activations, normalization, convolutions, max_pooling, pooling, resampling):
    globals().update({name: getattr(_module, f"functional_{name}", None) or getattr(_module, name)
                      for name in _module.FUNCTIONAL})
    __all__ += _module.FUNCTIONAL
