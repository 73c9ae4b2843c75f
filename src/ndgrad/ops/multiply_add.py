"""Fused multiply-adds: addcmul and addcdiv (input + value * tensor1 * or / tensor2, elementwise) and addr
(beta * input + alpha * the outer product of two vectors), with their in-place forms."""

from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad._dtype import bool_, real_scalar, result_type
from ndgrad.ops._checks import check_castable, checked_alpha
from ndgrad.ops._op import MATMUL, TERNARY, Op
from ndgrad.ops.complex_numbers import conjugate
from ndgrad.ops.shape import expanded_shape

__all__ = ["addcmul", "addcdiv", "addr"]


def _times_conj(tensor, number):
    """tensor * conj(number): the gradient of a product with the number ``number``."""
    return tensor if number == 1 else tensor * conjugate(number)


class Addcmul(Op):
    """torch.addcmul: input + value * tensor1 * tensor2."""

    name, family = "addcmul", TERNARY
    saves = ("tensor1", "tensor2")
    saved_for = {"tensor1": "tensor2", "tensor2": "tensor1"}

    @staticmethod
    def forward(xp, input, tensor1, tensor2, value):
        product = tensor1 * tensor2
        return input + (product if value == 1 else product * value)

    formula = "grad_self = grad; grad_tensor1 = grad * conj(tensor2 * value); grad_tensor2 = ... (tensor1 * value)"
    @staticmethod
    def vjp(ctx, grad):
        tensor1, tensor2 = ctx.saved_tensors
        _, need_1, need_2 = ctx.needs_input_grad
        return (grad,
                _times_conj(grad * tensor2.conj(), ctx.value) if need_1 else None,
                _times_conj(grad * tensor1.conj(), ctx.value) if need_2 else None)

    @staticmethod
    def jvp(ctx, input_t, tensor1_t, tensor2_t):
        tensor1, tensor2 = ctx.saved_tensors
        return input_t + (tensor1_t * tensor2 + tensor1 * tensor2_t) * ctx.value


class Addcdiv(Op):
    """torch.addcdiv: input + value * tensor1 / tensor2."""

    name, family = "addcdiv", TERNARY
    saves = ("tensor1", "tensor2")

    @staticmethod
    def forward(xp, input, tensor1, tensor2, value):
        quotient = tensor1 / tensor2
        return input + (quotient if value == 1 else quotient * value)

    formula = ("grad_self = grad; grad_tensor1 = grad * conj(value / tensor2); "
               "grad_tensor2 = -grad * conj(value * tensor1 / tensor2^2)")
    @staticmethod
    def vjp(ctx, grad):
        tensor1, tensor2 = ctx.saved_tensors
        _, need_1, need_2 = ctx.needs_input_grad
        # NOTE: derivatives.yaml's forms, term by term: others differ at zeros and infinities (nan for inf)
        return (grad,
                grad * (ctx.value / tensor2).conj() if need_1 else None,
                -grad * (ctx.value * tensor1 / (tensor2 * tensor2)).conj() if need_2 else None)

    @staticmethod
    def jvp(ctx, input_t, tensor1_t, tensor2_t):
        tensor1, tensor2 = ctx.saved_tensors
        return input_t + (tensor1_t / tensor2 - tensor1 * tensor2_t / (tensor2 * tensor2)) * ctx.value  # torch's form


class Addr(Op):
    """torch.addr: beta * input + alpha * outer(vec1, vec2)."""

    name, family = "addr", MATMUL
    saves = ("vec1", "vec2")
    saved_for = {"vec1": "vec2", "vec2": "vec1"}

    @staticmethod
    def forward(xp, input, vec1, vec2, beta, alpha):
        if input.dtype.kind == "b":  # a bool result: "or" of the terms that are on, "and" within the product
            product = xp.logical_and(vec1[:, None], vec2[None, :])
            return xp.logical_or(product & bool(alpha), input & bool(beta))
        product = xp.multiply.outer(vec1, vec2)
        product = product if alpha == 1 else product * alpha
        return product + input * beta if beta != 0 else product + xp.zeros_like(input)  # beta = 0 ignores NaN

    formula = "grad_self = grad * conj(beta); grad_vec1 = grad @ conj(vec2) * conj(alpha); grad_vec2 = grad^T @ ..."
    @staticmethod
    def vjp(ctx, grad):
        vec1, vec2 = ctx.saved_tensors
        need_input, need_1, need_2 = ctx.needs_input_grad
        return (_times_conj(grad, ctx.beta) if need_input else None,
                _times_conj(grad.mv(vec2.conj()), ctx.alpha) if need_1 else None,
                _times_conj(grad.t().mv(vec1.conj()), ctx.alpha) if need_2 else None)

    @staticmethod
    def jvp(ctx, input_t, vec1_t, vec2_t):
        vec1, vec2 = ctx.saved_tensors
        return input_t * ctx.beta + (vec1_t.outer(vec2) + vec1.outer(vec2_t)) * ctx.alpha


# ---- the functions users call ---------------------------------------------------------------------------------------
def _value(input, tensor1, tensor2, value, name):
    """``value`` as the kernel computes with it: in the result's dtype (an integer result truncates 2.5 to 2)."""
    dtype = result_type((input, tensor1, tensor2))
    if dtype is bool_:
        raise NotImplementedError(f'"{name}_cpu_out" not implemented for \'Bool\'')
    if name == "addcdiv" and tensor1.dtype._category < 2 and tensor2.dtype._category < 2:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value "
            "* ndgrad.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value "
            "* tensor1 / tensor2), for all dtypes."
        )
    value = real_scalar(value, dtype)
    return int(value) if dtype._category == 1 else value


@parses("addcmul(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor out=None)",
        "addcmul(Tensor input, Scalar value, Tensor tensor1, Tensor tensor2, *, Tensor out=None)|deprecated")
def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2, elementwise (see torch.addcmul)."""
    return Addcmul.apply(input, tensor1, tensor2, value=_value(input, tensor1, tensor2, value, "addcmul"))


@parses("addcdiv(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor out=None)",
        "addcdiv(Tensor input, Scalar value, Tensor tensor1, Tensor tensor2, *, Tensor out=None)|deprecated")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2, elementwise (see torch.addcdiv)."""
    return Addcdiv.apply(input, tensor1, tensor2, value=_value(input, tensor1, tensor2, value, "addcdiv"))


def _checked_addr(input, vec1, vec2, beta, alpha):
    """PyTorch's checks of addr's arguments; beta and alpha as the result's dtype takes them."""
    for label, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {label}, but got {vec.ndim}-D")
    dtype = result_type((input, vec1, vec2))
    if dtype is not bool_:
        for number in (beta, alpha):
            real_scalar(number, dtype)  # a complex number for a real result fails its conversion first
        beta, alpha = (checked_alpha(input, vec1, number) for number in (beta, alpha))
    expanded_shape(input, (vec1.shape[0], vec2.shape[0]))
    return beta, alpha


@parses("addr(Tensor input, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1, Tensor out=None)",
        "addr(Scalar beta, Tensor input, Scalar alpha, Tensor vec1, Tensor vec2, *, Tensor out=None)|deprecated",
        "addr(Scalar beta, Tensor input, Tensor vec1, Tensor vec2, *, Tensor out=None)|deprecated")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2) (see torch.addr)."""
    beta, alpha = _checked_addr(input, vec1, vec2, beta, alpha)
    return Addr.apply(input, vec1, vec2, beta=beta, alpha=alpha)


class MultiplyAddMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()

    addcmul = tensor_method(addcmul)
    addcdiv = tensor_method(addcdiv)
    addr = tensor_method(addr)

    @parses_method("addcmul_(Tensor tensor1, Tensor tensor2, *, Scalar value=1)",
                   "addcmul_(Scalar value, Tensor tensor1, Tensor tensor2)|deprecated")
    def addcmul_(self, tensor1, tensor2, *, value=1):
        check_castable(self, tensor1, tensor2)
        return Addcmul.apply_(self, tensor1, tensor2, value=_value(self, tensor1, tensor2, value, "addcmul"))

    @parses_method("addcdiv_(Tensor tensor1, Tensor tensor2, *, Scalar value=1)",
                   "addcdiv_(Scalar value, Tensor tensor1, Tensor tensor2)|deprecated")
    def addcdiv_(self, tensor1, tensor2, *, value=1):
        check_castable(self, tensor1, tensor2)
        return Addcdiv.apply_(self, tensor1, tensor2, value=_value(self, tensor1, tensor2, value, "addcdiv"))

    @parses_method("addr_(Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1)",
                   "addr_(Scalar beta, Scalar alpha, Tensor vec1, Tensor vec2)|deprecated",
                   "addr_(Scalar beta, Tensor vec1, Tensor vec2)|deprecated")
    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        if self.ndim != 2:
            raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
        beta, alpha = _checked_addr(self, vec1, vec2, beta, alpha)
        return Addr.apply_(self, vec1, vec2, beta=beta, alpha=alpha)
