"""Activation functions (relu and friends): elementwise, with PyTorch's gradient at the kinks and its node names.

Most live only in torch.nn.functional; ``__all__`` holds those torch also has at top level (torch.relu, ...), and
ndgrad.nn.functional re-exports the rest. relu6, softsign and tanhshrink are composites, as in PyTorch.
"""

import math

from ndgrad._argument_parser import parses
from ndgrad._dtype import float64, int64, uint8
from ndgrad.ops._arrays import via_float32, xp_of
from ndgrad.ops._checks import kernel_scalars, require_kind
from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.comparison import logical_and, logical_or, where
from ndgrad.ops.special import erfc, special_functions
from ndgrad.ops.transcendental import Sigmoid, exp, sigmoid
from ndgrad.ops.trigonometric import tanh

__all__ = ["relu", "relu_", "selu", "selu_", "celu", "celu_"]
FUNCTIONAL = [
    "relu", "relu_", "relu6", "elu", "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "gelu",
    "silu", "mish", "softplus", "softsign", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish", "logsigmoid",
    "tanhshrink", "sigmoid", "tanh",
]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class Relu(Op):
    """torch.relu: max(x, 0); the gradient at 0 is 0, as PyTorch's."""

    name, family = "relu", UNARY
    saves = ("result",)

    @staticmethod
    def forward(xp, x):
        return xp.maximum(x, 0)

    # NOTE: zeroed where result <= 0, as PyTorch's threshold_backward: relu(nan) = nan passes the gradient on.
    formula = "grad_self = where(result <= 0, 0, grad)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        return (where(result <= 0, 0.0, grad),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (result,) = ctx.saved_arrays
        xp = xp_of(grad)
        dead = result <= 0
        if xp.isfinite(grad).all():  # then a product is exact, and ~10x faster than NumPy's where
            return (grad * xp.logical_not(dead),)
        return (xp.where(dead, 0, grad),)  # inf * 0 would be nan where the rule gives 0

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        return where(result <= 0, 0.0, x_t)


class Hardtanh(Op):
    """F.hardtanh: input clamped to [min_val, max_val]; the gradient is 0 at both ends. F.relu6 is hardtanh(0, 6)."""

    name, family = "hardtanh", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, min_val=-1.0, max_val=1.0):
        return xp.clip(x, min_val, max_val).astype(x.dtype, copy=False)  # integer tensors stay integer

    formula = "grad_self = where(self <= min_val or self >= max_val, 0, grad)"
    @staticmethod
    def vjp(ctx, grad):
        return (Hardtanh.jvp(ctx, grad),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        # NOTE: zeroed at and beyond both ends, as PyTorch's hardtanh_backward: NaN passes the gradient on.
        return where(logical_or(x <= ctx.min_val, x >= ctx.max_val), 0.0, x_t)


class LeakyRelu(Op):
    """F.leaky_relu: x where x > 0, else negative_slope * x; the gradient at 0 is negative_slope."""

    name, family = "leaky_relu", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, negative_slope=0.01):
        return xp.where(x > 0, x, x * negative_slope)

    formula = "grad_self = where(self > 0, grad, grad * negative_slope)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (where(x > 0, grad, grad * ctx.negative_slope),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return where(x > 0, x_t, x_t * ctx.negative_slope)


class LeakyReluInPlace(LeakyRelu):
    """F.leaky_relu_: the input is overwritten, so the rule reads the result (as PyTorch's LeakyReluBackward1)."""

    name = "leaky_relu_"
    node_name = "LeakyReluBackward1"
    saves = ("result",)

    formula = "grad_self = where(result > 0, grad, grad * negative_slope)"
    @staticmethod
    def vjp(ctx, grad):
        if ctx.negative_slope < 0:  # the result's sign no longer tells which side x was on
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
                "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
                "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope"
            )
        (result,) = ctx.saved_tensors
        return (where(result > 0, grad, grad * ctx.negative_slope),)

    @staticmethod
    def jvp(ctx, x_t):
        return LeakyReluInPlace.vjp(ctx, x_t)[0]  # the same checks and formula, on the tangent


class Elu(Op):
    """F.elu, and torch.selu: scale * x where x > 0, else alpha * scale * (exp(input_scale * x) - 1).

    The gradient at 0 is the negative side's, alpha * scale * input_scale, as PyTorch's.
    """

    name, family = "elu", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, alpha=1.0, scale=1.0, input_scale=1.0):
        return xp.where(x > 0, x * scale, xp.expm1(x * input_scale) * (alpha * scale))

    formula = "grad_self = elu_backward(grad, self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (_elu_backward(ctx, grad, x, is_result=False),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return _elu_backward(ctx, x_t, x, is_result=False)


class Celu(Elu):
    """torch.celu: elu with input_scale = 1 / alpha; PyTorch names its node apart."""

    name = "celu"


class EluInPlace(Elu):
    """F.elu_, torch.selu_: the input is overwritten, so the rule reads the result (as PyTorch's EluBackward1)."""

    name = "elu_"
    node_name = "EluBackward1"
    saves = ("result",)

    formula = "grad_self = elu_backward(grad, result)"
    @staticmethod
    def vjp(ctx, grad):
        if ctx.alpha < 0:  # the result's sign no longer tells which side x was on
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which is not supported. This "
                "is caused by calling in-place forward function with a negative slope, please call out-of-place "
                "version instead."
            )
        (result,) = ctx.saved_tensors
        return (_elu_backward(ctx, grad, result, is_result=True),)

    @staticmethod
    def jvp(ctx, x_t):
        return EluInPlace.vjp(ctx, x_t)[0]  # the same checks and formula, on the tangent


class CeluInPlace(EluInPlace):
    """torch.celu_."""

    name = "celu_"
    node_name = "CeluBackward1"


def _elu_backward(ctx, grad, x, is_result):
    return EluBackward.apply(grad, x, alpha=ctx.alpha, scale=ctx.scale, input_scale=ctx.input_scale,
                             is_result=is_result)


class EluBackward(Op):
    """grad times elu's slope in one step, as PyTorch's elu_backward, with PyTorch's own derivatives: the slope
    changes only where x < 0 (not at 0, nor at NaN, which takes the positive side's slope). ``x`` is elu's result
    where ``is_result`` (the in-place forms), else its input."""

    saves = ("grad", "x")

    @staticmethod
    def forward(xp, grad, x, alpha, scale, input_scale, is_result):
        if is_result:  # alpha * scale * e^(input_scale x) = result + alpha * scale
            negative_slope = (x + alpha * scale) * input_scale
        else:  # x clipped at 0: the positive side's exp would overflow, and is not used
            negative_slope = xp.exp(xp.minimum(x, 0) * input_scale) * (alpha * scale * input_scale)
        return xp.where(x <= 0, grad * negative_slope, grad * scale)

    formula = "grad_grad_output = elu_backward(grad, self); grad_self = elu_double_backward(grad, grad_output, self)"
    @staticmethod
    def vjp(ctx, grad_grad):
        grad, x = ctx.saved_tensors
        return _elu_backward(ctx, grad_grad, x, ctx.is_result), _elu_double_backward(ctx, grad_grad, grad, x)

    @staticmethod
    def jvp(ctx, grad_t, x_t):
        grad, x = ctx.saved_tensors
        return _elu_backward(ctx, grad_t, x, ctx.is_result) + _elu_double_backward(ctx, x_t, grad, x)


def _elu_double_backward(ctx, grad_grad, grad, x):
    """The derivative of elu_backward in x, times grad_grad: nonzero only where x < 0."""
    scaled = grad_grad * grad * ctx.input_scale
    return (scaled if ctx.is_result else _elu_backward(ctx, scaled, x, False)) * (x < 0)


class Gelu(Op):
    """F.gelu: x * Phi(x), Phi the standard normal CDF; approximate='tanh' uses PyTorch's tanh formula."""

    name, family = "gelu", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, approximate="none"):
        if approximate == "tanh":
            inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
            return 0.5 * x * (1 + xp.tanh(inner))
        # NOTE: erfc(-x / sqrt 2) rather than 1 + erf(x / sqrt 2), which cancels to 0 for very negative x.
        return 0.5 * x * special_functions(xp).erfc(x * -math.sqrt(0.5)).astype(x.dtype, copy=False)

    formula = "grad_self = grad * (Phi(self) + self * phi(self))  (tanh approximation: its derivative)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            beta, kappa = math.sqrt(2 / math.pi), 0.044715
            t = tanh((x + x * x * x * kappa) * beta)
            return (grad * ((t + 1) * 0.5 + x * (1 - t * t) * (x * x * (3 * kappa) + 1) * (0.5 * beta)),)
        cdf = erfc(x * -math.sqrt(0.5)) * 0.5
        pdf = exp(x * x * -0.5) * (1 / math.sqrt(2 * math.pi))
        return (grad * (cdf + x * pdf),)

    @staticmethod
    def jvp(ctx, x_t):
        return Gelu.vjp(ctx, x_t)[0]  # elementwise: the tangent goes through the gradient's formula


class Silu(Op):
    """F.silu: x * sigmoid(x); it computes on complex tensors, but, as in PyTorch, has no complex gradient."""

    name, family = "silu", UNARY
    saves = ("x",)
    complex_autograd = False

    @staticmethod
    def forward(xp, x):
        return x * Sigmoid.forward(xp, x)

    formula = "grad_self = grad * sigmoid(self) * (1 + self * (1 - sigmoid(self)))"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        s = sigmoid(x)
        return (grad * s * (x * (1 - s) + 1),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        s = sigmoid(x)
        return x_t * s * (x * (1 - s) + 1)


class Mish(Op):
    """F.mish: x * tanh(softplus(x))."""

    name, family = "mish", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        return x * xp.tanh(xp.logaddexp(0, x))  # logaddexp(0, x) is softplus, without overflow

    formula = "grad_self = grad * (t + self * sigmoid(self) * (1 - t^2)), t = tanh(softplus(self))"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        t = tanh(softplus(x))
        return (grad * (t + x * sigmoid(x) * (1 - t * t)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        t = tanh(softplus(x))
        return x_t * (t + x * sigmoid(x) * (1 - t * t))


class Softplus(Op):
    """F.softplus: log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (as PyTorch)."""

    name, family = "softplus", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, beta=1.0, threshold=20.0):
        scaled = x * beta
        return xp.where(scaled > threshold, x, xp.logaddexp(0, scaled) / beta)  # log(1 + e^x), never overflowing

    formula = "grad_self = where(self * beta > threshold, grad, grad * sigmoid(self * beta))"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        scaled = x * ctx.beta
        return (where(scaled > ctx.threshold, grad, grad * sigmoid(scaled)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        scaled = x * ctx.beta
        return where(scaled > ctx.threshold, x_t, x_t * sigmoid(scaled))


class Hardsigmoid(Op):
    """F.hardsigmoid: relu6(x + 3) / 6; the gradient is 0 at -3 and 3."""

    name, family = "hardsigmoid", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        if x.dtype.kind == "V":  # bfloat16, which NumPy clips in float32
            return via_float32(Hardsigmoid.forward, xp, x)
        return xp.clip(x + 3, 0, 6) / 6

    formula = "grad_self = grad * (-3 < self < 3) / 6"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * logical_and(x > -3, x < 3) / 6,)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * logical_and(x > -3, x < 3) / 6


class Hardswish(Op):
    """F.hardswish: x * relu6(x + 3) / 6; at -3 the gradient is the left piece's (0), at 3 the right's, as PyTorch's."""

    name, family = "hardswish", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        if x.dtype.kind == "V":  # bfloat16, which NumPy clips in float32
            return via_float32(Hardswish.forward, xp, x)
        return x * xp.clip(x + 3, 0, 6) / 6

    formula = "grad_self = grad * (0 if self <= -3, self / 3 + 0.5 if self < 3, else 1)"
    @staticmethod
    def vjp(ctx, grad):
        return (Hardswish.jvp(ctx, grad),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        # NOTE: the slope first, then the product: differentiated in grad, no piece left out meets inf * 0
        return x_t * where(x <= -3, 0.0, where(x < 3, x / 3 + 0.5, 1.0))


class LogSigmoid(Op):
    """F.logsigmoid: log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)), which never overflows."""

    name, family = "logsigmoid", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))

    formula = "grad_self = grad * sigmoid(-self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * sigmoid(-x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * sigmoid(-x)


# ---- the functions users call: torch's ops (torch.X, torch._C._nn.X) ----------------------------------------------
def _not_bool(input, message):
    """relu and hardtanh, which PyTorch computes with clamp, refuse bool and complex tensors."""
    kind = input._data.dtype.kind
    if kind == "b":
        raise RuntimeError(message)
    if kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")


@parses("relu(Tensor input)")
def relu(input):
    _not_bool(input, "Boolean inputs not supported for relu")
    return Relu.apply(input)


@parses("relu_(Tensor input)")
def relu_(input):
    _not_bool(input, "Boolean inputs not supported for relu")
    return Relu.apply_(input)


def _hardtanh(input, min_val, max_val, inplace):
    _not_bool(input, "Bool inputs not supported for hardtanh")
    wide = float64 if input.dtype.is_floating_point else int64  # the limits are checked as these first
    min_val, max_val = kernel_scalars(input, min_val, max_val, compute=wide)
    if input.dtype is uint8 and (min_val <= -1 or max_val <= -1):  # negative as int64 (-0.5 is 0)
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    min_val, max_val = kernel_scalars(input, min_val, max_val, compute=input.dtype)
    if inplace:
        return Hardtanh.apply_(input, min_val=min_val, max_val=max_val)
    return Hardtanh.apply(input, min_val=min_val, max_val=max_val)


@parses("hardtanh(Tensor input, Scalar min_val=-1, Scalar max_val=1, *, Tensor out=None)")
def hardtanh(input, min_val=-1, max_val=1):
    return _hardtanh(input, min_val, max_val, inplace=False)


@parses("hardtanh_(Tensor input, Scalar min_val=-1, Scalar max_val=1)")
def hardtanh_(input, min_val=-1, max_val=1):
    return _hardtanh(input, min_val, max_val, inplace=True)


@parses("relu6(Tensor input)")
def relu6(input):
    """min(max(x, 0), 6), recorded as hardtanh (see torch._C._nn.relu6)."""
    return _hardtanh(input, 0.0, 6.0, inplace=False)


@parses("relu6_(Tensor input)")
def relu6_(input):
    return _hardtanh(input, 0.0, 6.0, inplace=True)


def _leaky_relu(input, negative_slope, inplace):
    require_kind(input.dtype, "leaky_relu_cpu", "f")
    (negative_slope,) = kernel_scalars(input, negative_slope)
    if inplace:
        return LeakyReluInPlace.apply_(input, negative_slope=negative_slope)
    return LeakyRelu.apply(input, negative_slope=negative_slope)


@parses("leaky_relu(Tensor input, Scalar negative_slope=0.01, *, Tensor out=None)")
def leaky_relu(input, negative_slope=0.01):
    return _leaky_relu(input, negative_slope, inplace=False)


@parses("leaky_relu_(Tensor input, Scalar negative_slope=0.01)")
def leaky_relu_(input, negative_slope=0.01):
    return _leaky_relu(input, negative_slope, inplace=True)


def _elu(input, alpha, scale, input_scale, inplace, compute=None):
    require_kind(input.dtype, "elu_cpu", "f")
    alpha, scale, input_scale = kernel_scalars(input, alpha, scale, input_scale, compute=compute)
    op = EluInPlace.apply_ if inplace else Elu.apply
    return op(input, alpha=alpha, scale=scale, input_scale=input_scale)


@parses("elu(Tensor input, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor out=None)")
def elu(input, alpha=1, scale=1, input_scale=1):
    return _elu(input, alpha, scale, input_scale, inplace=False)


@parses("elu_(Tensor input, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1)")
def elu_(input, alpha=1, scale=1, input_scale=1):
    return _elu(input, alpha, scale, input_scale, inplace=True)


@parses("selu(Tensor input)")
def selu(input):
    """scale * elu(x, alpha) with the self-normalising constants (see torch.selu)."""
    return _elu(input, SELU_ALPHA, SELU_SCALE, 1.0, inplace=False)


@parses("selu_(Tensor input)")
def selu_(input):
    return _elu(input, SELU_ALPHA, SELU_SCALE, 1.0, inplace=True)


def _celu(input, alpha, inplace):
    (alpha,) = kernel_scalars(input, alpha, compute=float64)  # PyTorch takes 1 / alpha in double
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    require_kind(input.dtype, "elu_cpu", "f")
    op = CeluInPlace.apply_ if inplace else Celu.apply
    return op(input, alpha=alpha, scale=1.0, input_scale=1.0 / alpha)


@parses("celu(Tensor input, Scalar alpha=1.0)")
def celu(input, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (see torch.celu)."""
    return _celu(input, alpha, inplace=False)


@parses("celu_(Tensor input, Scalar alpha=1.0)")
def celu_(input, alpha=1.0):
    return _celu(input, alpha, inplace=True)


@parses('gelu(Tensor input, *, str approximate="none", Tensor out=None)')
def gelu(input, *, approximate="none"):
    """x * Phi(x), or its tanh approximation (see torch.nn.functional.gelu)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    require_kind(input.dtype, "GeluKernelImpl", "f")
    return Gelu.apply(input, approximate=approximate)


def _unary(op, kernel, kinds="f"):
    """The declared op and its in-place form for an activation with no parameters (silu, mish, ...)."""

    @parses(f"{op.name}(Tensor input, *, Tensor out=None)")
    def out_of_place(input):
        require_kind(input.dtype, kernel, kinds)
        return op.apply(input)

    @parses(f"{op.name}_(Tensor input)")
    def in_place(input):
        require_kind(input.dtype, kernel, kinds)
        return op.apply_(input)

    out_of_place.__name__ = out_of_place.__qualname__ = op.name
    in_place.__name__ = in_place.__qualname__ = f"{op.name}_"
    return out_of_place, in_place


silu, silu_ = _unary(Silu, "silu_cpu", "fc")
mish, mish_ = _unary(Mish, "mish_cpu")
hardsigmoid, hardsigmoid_ = _unary(Hardsigmoid, "hardsigmoid_cpu")
hardswish, hardswish_ = _unary(Hardswish, "hardswish_cpu")


@parses("softplus(Tensor input, Scalar beta=1, Scalar threshold=20, *, Tensor out=None)")
def softplus(input, beta=1, threshold=20):
    require_kind(input.dtype, "softplus_cpu", "f")
    beta, threshold = kernel_scalars(input, beta, threshold)
    return Softplus.apply(input, beta=beta, threshold=threshold)


@parses("log_sigmoid(Tensor input, *, Tensor out=None)")
def logsigmoid(input):
    require_kind(input.dtype, "log_sigmoid_cpu", "f")
    return LogSigmoid.apply(input)


# ---- torch.nn.functional's Python functions around them ---------------------------------------------------------
def functional_relu(input, inplace=False):
    return relu_(input) if inplace else relu(input)


def functional_selu(input, inplace=False):
    return selu_(input) if inplace else selu(input)


def functional_celu(input, alpha=1.0, inplace=False):
    return celu_(input, alpha) if inplace else celu(input, alpha)


def functional_hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return hardtanh_(input, min_val, max_val) if inplace else hardtanh(input, min_val, max_val)


def functional_relu6(input, inplace=False):
    return relu6_(input) if inplace else relu6(input)


def functional_leaky_relu(input, negative_slope=0.01, inplace=False):
    return leaky_relu_(input, negative_slope) if inplace else leaky_relu(input, negative_slope)


def functional_elu(input, alpha=1.0, inplace=False):
    return elu_(input, alpha) if inplace else elu(input, alpha)


def functional_silu(input, inplace=False):
    return silu_(input) if inplace else silu(input)


def functional_mish(input, inplace=False):
    return mish_(input) if inplace else mish(input)


def functional_hardsigmoid(input, inplace=False):
    return hardsigmoid_(input) if inplace else hardsigmoid(input)


def functional_hardswish(input, inplace=False):
    return hardswish_(input) if inplace else hardswish(input)


def softsign(input):
    """x / (1 + |x|), a composite as in PyTorch (see torch.nn.functional.softsign)."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x), a composite as in PyTorch (see torch.nn.functional.tanhshrink)."""
    return input - input.tanh()


def functional_sigmoid(input):
    """torch.nn.functional.sigmoid: Tensor.sigmoid."""
    return input.sigmoid()


def functional_tanh(input):
    """torch.nn.functional.tanh: Tensor.tanh."""
    return input.tanh()


class ActivationMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def relu(self):
        return relu.__wrapped__(self)
    def relu_(self):
        return relu_.__wrapped__(self)
