"""Identity, Linear and Bilinear (see torch.nn.modules.linear), initialised as PyTorch initialises them."""

import math

from ndgrad._creation import empty
from ndgrad.nn import functional as F
from ndgrad.nn import init
from ndgrad.nn.modules.module import Module
from ndgrad.nn.parameter import Parameter

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input; any constructor arguments are ignored (see torch.nn.Identity)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


def fan_in_uniform_(tensor, fan_in):
    """U(-1/sqrt(fan_in), 1/sqrt(fan_in)): PyTorch's default for biases (and for weights it sizes by hand)."""
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    return init.uniform_(tensor, -bound, bound)


def reset_weight_and_bias(weight, bias):
    """PyTorch's default for Linear and convolutions: kaiming_uniform_(a=sqrt(5)) weights, fan-in-bounded bias."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        fan_in_uniform_(bias, fan_in)


class Linear(Module):
    """y = x W^T + b (see torch.nn.Linear)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """y = x1^T A x2 + b, one matrix A per output feature (see torch.nn.Bilinear)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        fan_in_uniform_(self.weight, self.weight.size(1))
        if self.bias is not None:
            fan_in_uniform_(self.bias, self.weight.size(1))

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
