"""SGD: stochastic gradient descent with momentum, dampening and Nesterov momentum (see torch.optim.SGD)."""

from ndgrad._tensor import Tensor
from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    check_fused,
    invalid,
    namespace,
    number,
    operand,
    to_scalar,
)

__all__ = ["SGD"]


class SGD(ElementwiseOptimizer):
    """p <- p - lr * g, where g is the gradient (plus weight decay) or its momentum buffer (see torch.optim.SGD)."""

    scalar_state = ()  # no step counter
    real_views = False  # the update is linear in the gradient: complex numbers need no special care

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise invalid("learning rate", lr)
        if momentum < 0.0:
            raise invalid("momentum value", momentum)
        if weight_decay < 0.0:
            raise invalid("weight_decay value", weight_decay)
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
            "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {"nesterov": False, "maximize": False, "foreach": None, "differentiable": False, "fused": False}

    def _has_state(self, group):
        return group["momentum"] != 0

    def step(self, closure=None):
        """One SGD update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, momentum, dampening = to_scalar(group["lr"]), group["momentum"], group["dampening"]
        nesterov = group["nesterov"]
        for param, grad, state in entries:
            if momentum != 0:
                buffer = state.get("momentum_buffer")
                if buffer is None:  # the first step takes the gradient itself, undamped
                    buffer = Tensor._wrap(namespace(param).array(grad))  # an array even for 0-d (grad may be a scalar)
                    state["momentum_buffer"] = buffer
                else:
                    velocity = buffer._data
                    velocity *= operand(momentum, "mul_", velocity)
                    velocity += number(1 - dampening, "add_", "alpha", velocity) * grad
                grad = grad + number(momentum, "add", "alpha", grad) * buffer._data if nesterov else buffer._data
            param += number(-lr, "add_", "alpha", param) * grad
