"""Gradient clipping (see torch.nn.utils.clip_grad): rescale or clamp the parameters' .grad in place.
``foreach`` is accepted and ignored: NumPy has no fused multi-tensor kernels to choose."""

import types

from ndgrad._creation import tensor
from ndgrad._tensor import Tensor
from ndgrad._warnings import warn
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.linalg import vector_norm
from ndgrad.ops import clamp, stack

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]  # and, public in nn.utils only:
# get_total_norm and clip_grads_with_norm_, whose names here are torch's: _get_total_norm, _clip_grads_with_norm_


def _grads(parameters):
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return parameters, [p.grad for p in parameters if p.grad is not None]


@no_grad()
def _get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The joint ``norm_type``-norm of ``tensors``, as if they were one vector (see torch.nn.utils.get_total_norm,
    the public name of this function in torch too)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    first_device = tensors[0].device
    norms = [vector_norm(t, norm_type).to(first_device) for t in tensors]
    total_norm = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and (total_norm.isnan() | total_norm.isinf()).item():
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total_norm


@no_grad()
def _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by ``max_norm / total_norm`` when that is below 1 (see
    torch.nn.utils.clip_grads_with_norm_)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    # NOTE: multiply even when the coefficient is 1, as PyTorch does: the grads' versions move the same way.
    clip_coef = clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for grad in grads:
        grad.mul_(clip_coef.to(grad.device))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients so that their joint ``norm_type``-norm is at most ``max_norm``; returns the norm
    before clipping (see torch.nn.utils.clip_grad_norm_)."""
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _grads(parameters)[0]
    if is_generator and not parameters:
        warn("`parameters` is an empty generator, no gradient clipping will occur.")
    total_norm = _get_total_norm([p.grad for p in parameters if p.grad is not None], norm_type, error_if_nonfinite)
    _clip_grads_with_norm_(parameters, max_norm, total_norm)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated name of clip_grad_norm_."""
    warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element into [-clip_value, clip_value] (see torch.nn.utils.clip_grad_value_)."""
    clip_value = float(clip_value)
    grads = _grads(parameters)[1]
    if not grads:  # torch's foreach kernel refuses an empty list of gradients
        raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    for grad in grads:
        grad.clamp_(min=-clip_value, max=clip_value)
