"""Norms put to use: dist (the p-norm of a difference) and renorm (sub-tensors scaled down to a largest norm), as
primitives whose gradients are PyTorch's, built on reduction.norm_backward."""

from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad._dtype import result_type
from ndgrad.ops._linalg_base import check_floating, scalar_text
from ndgrad.ops._op import BINARY, SHAPE, Op
from ndgrad.ops.comparison import where
from ndgrad.ops.complex_numbers import real
from ndgrad.ops.reduction import LinalgVectorNorm, norm_backward, ones_like, vector_norm
from ndgrad.ops.shape import wrap_dim

__all__ = ["dist", "renorm"]


class Dist(Op):
    """torch.dist: the p-norm of input - other, broadcast together."""

    name, family = "dist", BINARY
    saves = ("x", "y", "result")

    @staticmethod
    def forward(xp, x, y, p):
        return LinalgVectorNorm.forward(xp, x - y, None, False, ord=p)

    formula = "grad_self = norm_backward(grad, self - other, p, result); grad_other = -grad_self"
    @staticmethod
    def vjp(ctx, grad):
        x, y, result = ctx.saved_tensors
        difference = x - y
        grad_self = norm_backward(grad, difference, ctx.p, result, tuple(range(difference.ndim)))
        return (None, None) if grad_self is None else (grad_self, -grad_self)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y, result = ctx.saved_tensors
        difference = x - y
        weights = norm_backward(ones_like(result), difference, ctx.p, result, tuple(range(difference.ndim)))
        if weights is None:
            return None  # no tangent for p = 0, as PyTorch
        difference_t = x_t if y_t is None else -y_t if x_t is None else x_t - y_t
        return real((weights.conj() * difference_t).sum())


class Renorm(Op):
    """torch.renorm: each sub-tensor along ``dim`` (input.select(dim, i)) whose p-norm exceeds maxnorm scaled to
    norm maxnorm (PyTorch divides by norm + 1e-7), the others unchanged."""

    name, family = "renorm", SHAPE
    saves = ("x",)

    @staticmethod
    def forward(xp, x, p, dim, maxnorm):
        norm = LinalgVectorNorm.forward(xp, x, _other_dims(x.ndim, dim), True, ord=p)
        factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(norm.dtype, copy=False)
        return x * factor

    formula = ("grad_self = where(norm > maxnorm, factor * grad - factor / (norm + 1e-7) * norm_backward(sum(self^H "
               "grad), self, p, norm), grad), factor = maxnorm / (norm + 1e-7)")
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        dims = _other_dims(x.ndim, ctx.dim)
        norm = vector_norm(x, ctx.p, dims, True)
        projected = real(x.conj() * grad).sum(dims, keepdim=True)  # grad along x: what changes the norm
        return (_renorm_linearized(x, grad, projected, norm, ctx),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        dims = _other_dims(x.ndim, ctx.dim)
        norm = vector_norm(x, ctx.p, dims, True)
        norm_t = real((norm_backward(ones_like(norm), x, ctx.p, norm, dims).conj() * x_t).sum(dims, keepdim=True))
        return _renorm_linearized(x, x_t, norm_t, norm, ctx, tangent=True)


def _other_dims(ndim, dim):
    return tuple(d for d in range(ndim) if d != dim)


def _renorm_linearized(x, change, norm_change, norm, ctx, tangent=False):
    """renorm's derivative applied to ``change``: factor * change minus the change of the factor, where the norm is
    above maxnorm; ``change`` itself elsewhere. Backward, the factor's part goes through norm_backward; forward,
    it is x times the norm's tangent ``norm_change``."""
    inverse = 1 / (norm + 1e-7)
    factor = inverse * ctx.maxnorm
    moved = x * norm_change if tangent else norm_backward(norm_change, x, ctx.p, norm, _other_dims(x.ndim, ctx.dim))
    return where(norm > ctx.maxnorm, factor * change - factor * inverse * moved, change)


# ---- the functions users call ----------------------------------------------------------------------------------------
@parses("dist(Tensor input, Tensor other, Scalar p=2)")
def dist(input, other, p=2):
    """The p-norm of input - other (see torch.dist)."""
    dtype = result_type((input, other))
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {dtype.title} "
                           "instead.")
    return Dist.apply(input, other, p=float(p))


def _checked_renorm(input, p, dim, maxnorm):
    """PyTorch's checks, in its order; the dim wrapped."""
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {scalar_text(float(maxnorm))}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    dim = wrap_dim(dim, input.ndim)
    check_floating("linalg.vector_norm", input)
    return dict(p=float(p), dim=dim, maxnorm=float(maxnorm))


@parses("renorm(Tensor input, Scalar p, int dim, Scalar maxnorm, *, Tensor out=None)")
def renorm(input, p, dim, maxnorm):
    """input with each sub-tensor along dim of p-norm above maxnorm scaled to norm maxnorm (see torch.renorm)."""
    return Renorm.apply(input, **_checked_renorm(input, p, dim, maxnorm))


class NormBasedMethods:
    """The Tensor methods of this module's functions (Tensor inherits them)."""

    __slots__ = ()

    dist = tensor_method(dist)
    renorm = tensor_method(renorm)

    @parses_method("renorm_(Scalar p, int dim, Scalar maxnorm)")
    def renorm_(self, p, dim, maxnorm):
        return Renorm.apply_(self, **_checked_renorm(self, p, dim, maxnorm))

