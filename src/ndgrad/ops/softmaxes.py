"""Softmax, log_softmax and softmin along a dim: primitives for numerical stability; gumbel_softmax, a composite."""


from ndgrad._argument_parser import parses, tensor_method
from ndgrad._warnings import warn
from ndgrad.ops._arrays import via_float32, xp_of
from ndgrad.ops._checks import constant_like
from ndgrad.ops._op import UNARY, Op
from ndgrad.ops.shape import wrap_dim

__all__ = ["softmax", "log_softmax"]  # the names torch has at top level (torch.X)
FUNCTIONAL = ["softmax", "log_softmax", "softmin", "gumbel_softmax"]  # the names torch.nn.functional has


def _shifted(xp, x, dim):
    """x minus its max along ``dim``, so exp cannot overflow. As in PyTorch's kernels, an infinite max is not
    special-cased: a slice holding +inf (or only -inf) becomes NaN."""
    return x - xp.max(x, axis=dim, keepdims=True) if x.size else x


class Softmax(Op):
    """torch.softmax: exp(x) / sum(exp(x)) along ``dim``."""

    name, family = "softmax", UNARY
    saves = ("result",)

    @staticmethod
    def forward(xp, x, dim):
        if x.dtype.kind == "V":  # bfloat16: in float32, as PyTorch's kernel
            return via_float32(Softmax.forward, xp, x, dim=dim)
        if x.ndim == 0:
            return xp.exp(x - x)
        e = xp.exp(_shifted(xp, x, dim))
        return e / xp.sum(e, axis=dim, keepdims=True)

    formula = "grad_self = result * (grad - (grad * result).sum(dim, keepdim=True))"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        dim = ctx.dim if result.ndim else ()
        return (result * (grad - (grad * result).sum(dim, keepdim=True)),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (result,) = ctx.saved_arrays
        return (result * (grad - (grad * result).sum(ctx.dim, keepdims=True)),)

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
        if x.dtype.kind == "V":  # bfloat16: in float32, as PyTorch's kernel
            return via_float32(LogSoftmax.forward, xp, x, dim=dim)
        if x.ndim == 0:
            return x - x
        shifted = _shifted(xp, x, dim)
        return shifted - xp.log(xp.sum(xp.exp(shifted), axis=dim, keepdims=True))

    formula = "grad_self = grad - exp(result) * grad.sum(dim, keepdim=True)"
    @staticmethod
    def vjp(ctx, grad):
        (result,) = ctx.saved_tensors
        dim = ctx.dim if result.ndim else ()
        return (grad - result.exp() * grad.sum(dim, keepdim=True),)

    @staticmethod
    def vjp_arrays(ctx, grad):
        (result,) = ctx.saved_arrays
        return (grad - xp_of(result).exp(result) * grad.sum(ctx.dim, keepdims=True),)

    @staticmethod
    def jvp(ctx, x_t):
        (result,) = ctx.saved_tensors
        dim = ctx.dim if result.ndim else ()
        return x_t - (x_t * result.exp()).sum(dim, keepdim=True)


class SafeSoftmax(Softmax):
    """torch._safe_softmax: softmax, but 0 (not NaN) along a slice that is all -inf, as attention's fully masked
    rows need. The rules are softmax's: a zero result passes no gradient."""

    name = "_safe_softmax"

    @staticmethod
    def forward(xp, x, dim):
        masked = xp.all(xp.isneginf(x), axis=dim, keepdims=True) if x.ndim else xp.isneginf(x)
        return xp.where(masked, 0, Softmax.forward(xp, x, dim))


# ---- the functions users call ------------------------------------------------------------------------------
def _implicit_dim(name, ndim):
    """F.softmax without a dim: PyTorch's legacy choice, with its warning."""
    warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _run(op, kernel, input, dim, dtype):
    if dtype is not None:
        input = input.to(dtype)  # as PyTorch: cast first (ToCopyBackward0), then the op in that dtype
    if not input.dtype.is_floating_point:
        if wrap_dim(dim, max(input.ndim, 1)) != max(input.ndim, 1) - 1:
            kernel = kernel.replace("_lastdim", "")  # torch's kernel for other dims than the last
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.title}'")
    return op.apply(input, dim=wrap_dim(dim, max(input.ndim, 1)))


@parses("softmax(Tensor input, int dim, ScalarType? dtype=None, *, Tensor out=None)")
def softmax(input, dim, dtype=None):
    """exp(input) / sum(exp(input)) along ``dim`` (see torch.softmax)."""
    return _run(Softmax, "softmax_lastdim_kernel_impl", input, dim, dtype)


@parses("log_softmax(Tensor input, int dim, ScalarType? dtype=None, *, Tensor out=None)")
def log_softmax(input, dim, dtype=None):
    """input - logsumexp(input) along ``dim`` (see torch.log_softmax)."""
    return _run(LogSoftmax, "log_softmax_lastdim_kernel_impl", input, dim, dtype)


def functional_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """torch.nn.functional.softmax: Tensor.softmax, along the legacy implicit dim (with a warning) if none.
    ``_stacklevel`` is taken and unused: ndgrad points its warnings at the user's line by itself."""
    if dim is None:
        dim = _implicit_dim("softmax", input.dim())
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def functional_log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """torch.nn.functional.log_softmax: Tensor.log_softmax, along the legacy implicit dim if none."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim())
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def safe_softmax(input, dim, dtype=None):
    """softmax along ``dim``, 0 where every input along it is -inf (see torch._safe_softmax)."""
    return _run(SafeSoftmax, "softmax_lastdim_kernel_impl", input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input) along ``dim`` (see torch.nn.functional.softmin); recorded as SoftmaxBackward0."""
    if dim is None:
        dim = _implicit_dim("softmin", input.dim())
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + Gumbel noise) / tau), a differentiable sample of a categorical; ``hard``: the one-hot of its
    largest entry, with the soft sample's gradient (see torch.nn.functional.gumbel_softmax)."""
    from ndgrad._creation import empty_like, zeros_like
    from ndgrad._random import _RandomState

    if eps != 1e-10:
        warn("`eps` parameter is deprecated and has no effect.")
    empty_like(logits)  # as torch's: the noise's tensor comes first (and torch's error for a non-tensor)
    if not logits.dtype.is_floating_point:  # torch draws the noise in logits' dtype
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {logits.dtype.title}")
    # Gumbel(0, 1) noise: drawn by ndgrad's generator on the host, moved to logits' device
    noise = -constant_like(_RandomState.generator.exponential(size=tuple(logits.shape)), logits).log()
    soft = ((logits + noise) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft


class SoftmaxMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    softmax = tensor_method(softmax)
    log_softmax = tensor_method(log_softmax)
