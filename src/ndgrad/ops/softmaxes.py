"""Softmax, log_softmax and softmin along a dim: primitives for numerical stability."""

import warnings

from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.shape import wrap_dim

__all__ = ["softmax", "log_softmax"]  # the names torch has at top level (torch.X)
FUNCTIONAL = ["softmax", "log_softmax", "softmin"]  # the names torch.nn.functional has


def _shifted(xp, x, dim):
    """x minus its max along ``dim`` (0 where the max is infinite), so exp cannot overflow."""
    largest = xp.max(x, axis=dim, keepdims=True) if x.size else xp.zeros_like(x)
    return x - xp.where(xp.isinf(largest), 0, largest)


class Softmax(Op):
    """torch.softmax: exp(x) / sum(exp(x)) along ``dim``."""

    name, family = "softmax", UNARY
    saves = ("result",)

    @staticmethod
    def forward(xp, x, dim):
        if x.ndim == 0:
            return xp.exp(x - x)
        e = xp.exp(_shifted(xp, x, dim))
        return e / xp.sum(e, axis=dim, keepdims=True)

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        dim = ctx.dim if result.ndim else ()
        return (result * (grad - (grad * result).sum(dim, keepdim=True)),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        dim = ctx.dim if result.ndim else ()
        return result * (x_t - (x_t * result).sum(dim, keepdim=True))


class LogSoftmax(Op):
    """torch.log_softmax: x - logsumexp(x) along ``dim``."""

    name, family = "log_softmax", UNARY
    saves = ("result",)

    @staticmethod
    def forward(xp, x, dim):
        if x.ndim == 0:
            return x - x
        shifted = _shifted(xp, x, dim)
        return shifted - xp.log(xp.sum(xp.exp(shifted), axis=dim, keepdims=True))

    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        dim = ctx.dim if result.ndim else ()
        return (grad - result.exp() * grad.sum(dim, keepdim=True),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        dim = ctx.dim if result.ndim else ()
        return x_t - (x_t * result.exp()).sum(dim, keepdim=True)


# ---- the functions users call ------------------------------------------------------------------------------
def _implicit_dim(name, ndim, stacklevel):
    """F.softmax without a dim: PyTorch's legacy choice, with its warning."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _run(op, kernel, input, dim, dtype):
    if dtype is not None:
        input = input.to(dtype)  # as PyTorch: cast first (ToCopyBackward0), then the op in that dtype
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")
    return op.apply(input, dim=wrap_dim(dim, max(input.ndim, 1)))


def _check_dim(function, dim):
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{function}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(input) / sum(exp(input)) along ``dim`` (see torch.softmax and torch.nn.functional.softmax)."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    _check_dim("softmax", dim)
    return _run(Softmax, "softmax_lastdim_kernel_impl", input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """input - logsumexp(input) along ``dim`` (see torch.log_softmax and torch.nn.functional.log_softmax)."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    _check_dim("log_softmax", dim)
    return _run(LogSoftmax, "log_softmax_lastdim_kernel_impl", input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input) along ``dim`` (see torch.nn.functional.softmin); recorded as SoftmaxBackward0."""
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    _check_dim("softmax", dim)
    if dtype is not None:
        input = input.to(dtype)
    return _run(Softmax, "softmax_lastdim_kernel_impl", -input, dim, None)


class SoftmaxMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def softmax(self, dim, dtype=None):
        return softmax(self, dim, dtype=dtype)
    def log_softmax(self, dim, dtype=None):
        return log_softmax(self, dim, dtype=dtype)
