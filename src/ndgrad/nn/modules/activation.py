"""Activation modules (see torch.nn.modules.activation): each holds its settings and calls nn.functional."""


from ndgrad._creation import empty
from ndgrad._warnings import warn
from ndgrad.nn import functional as F
from ndgrad.nn import init
from ndgrad.nn.modules.module import Module
from ndgrad.nn.parameter import Parameter
from ndgrad.ops.transcendental import sigmoid
from ndgrad.ops.trigonometric import tanh

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish", "Hardswish",
    "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "PReLU",
    "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax",
]


class _Activation(Module):
    """Shared printing: the settings named in ``_shown`` as name=value, then 'inplace=True' when it is set."""

    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py

    _shown = ()
    _shows_inplace = True

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        parts = [f"{name}={getattr(self, name)}" for name in self._shown]
        if self._shows_inplace and self.inplace:
            parts.append("inplace=True")
        return ", ".join(parts)


class Threshold(_Activation):
    """y = x if x > threshold else value (see torch.nn.Threshold)."""

    _shown = ("threshold", "value")

    def __init__(self, threshold, value, inplace=False):
        super().__init__(inplace)
        self.threshold, self.value = threshold, value

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)


class ReLU(_Activation):
    """max(0, x) (see torch.nn.ReLU)."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(_Activation):
    """Leaky ReLU with a random slope in [lower, upper] while training, their mean in eval (see torch.nn.RReLU)."""

    _shown = ("lower", "upper")

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__(inplace)
        self.lower, self.upper = lower, upper

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class Hardtanh(_Activation):
    """x clamped to [min_val, max_val] (see torch.nn.Hardtanh)."""

    _shown = ("min_val", "max_val")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__(inplace)
        if min_value is not None:
            warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning)
            min_val = min_value
        if max_value is not None:
            warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning)
            max_val = max_value
        self.min_val, self.max_val = min_val, max_val
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)


class ReLU6(Hardtanh):
    """min(max(0, x), 6) (see torch.nn.ReLU6)."""

    _shown = ()

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)


class Sigmoid(Module):
    """1 / (1 + exp(-x)) (see torch.nn.Sigmoid)."""

    def forward(self, input):
        return sigmoid(input)


class Hardsigmoid(_Activation):
    """Piecewise-linear sigmoid (see torch.nn.Hardsigmoid); PyTorch does not print its ``inplace``."""

    _shows_inplace = False

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """Hyperbolic tangent (see torch.nn.Tanh)."""

    def forward(self, input):
        return tanh(input)


class SiLU(_Activation):
    """x * sigmoid(x) (see torch.nn.SiLU)."""

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_Activation):
    """x * tanh(softplus(x)) (see torch.nn.Mish)."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(_Activation):
    """x * hardsigmoid(x) (see torch.nn.Hardswish); PyTorch does not print its ``inplace``."""

    _shows_inplace = False

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class _AlphaActivation(_Activation):
    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py
    _shown = ("alpha",)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(inplace)
        self.alpha = alpha


class ELU(_AlphaActivation):
    """x if x > 0 else alpha * (exp(x) - 1) (see torch.nn.ELU)."""

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)


class CELU(_AlphaActivation):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (see torch.nn.CELU)."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_Activation):
    """Scaled ELU with the self-normalising constants (see torch.nn.SELU)."""

    def forward(self, input):
        return F.selu(input, self.inplace)


class GLU(Module):
    """First half of ``dim`` times the sigmoid of the second half (see torch.nn.GLU)."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """x * Phi(x), exactly or with the tanh approximation (see torch.nn.GELU)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class _Shrink(Module):
    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """x where |x| > lambd, else 0 (see torch.nn.Hardshrink)."""

    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    """x - lambd * sign(x) where |x| > lambd, else 0 (see torch.nn.Softshrink)."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class LeakyReLU(_Activation):
    """x if x >= 0 else negative_slope * x (see torch.nn.LeakyReLU)."""

    _shown = ("negative_slope",)

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__(inplace)
        self.negative_slope = negative_slope

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)


class LogSigmoid(Module):
    """log(sigmoid(x)) (see torch.nn.LogSigmoid)."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold`` (see torch.nn.Softplus)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """Leaky ReLU whose negative slope is learnt, one per channel or shared (see torch.nn.PReLU)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """x / (1 + |x|) (see torch.nn.Softsign)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x) (see torch.nn.Tanhshrink)."""

    def forward(self, input):
        return F.tanhshrink(input)


class _SoftmaxFamily(Module):
    """Softmax, Softmin and LogSoftmax: a ``dim`` (None lets PyTorch's deprecated implicit choice pick one)."""

    _torch_subclasses_define = ("__init__",)  # see Note [method names] in module.py

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(_SoftmaxFamily):
    """softmax(-x) along ``dim`` (see torch.nn.Softmin)."""

    def forward(self, input):
        return F.softmin(input, self.dim)


class Softmax(_SoftmaxFamily):
    """exp(x) / sum(exp(x)) along ``dim`` (see torch.nn.Softmax)."""

    def forward(self, input):
        return F.softmax(input, self.dim)


class LogSoftmax(_SoftmaxFamily):
    """log(softmax(x)) along ``dim`` (see torch.nn.LogSoftmax)."""

    def forward(self, input):
        return F.log_softmax(input, self.dim)


class Softmax2d(Module):
    """Softmax over the channels of each spatial location (see torch.nn.Softmax2d)."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)
