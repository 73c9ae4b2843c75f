"""RMSprop: scale the step by a running root mean square of the gradient (see torch.optim.RMSprop)."""

from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    as_real,
    check_lr,
    invalid,
    lerp_,
    namespace,
    number,
    operand,
    scalar_state_tensor,
    to_scalar,
    zeros_state,
)

__all__ = ["RMSprop"]


class RMSprop(ElementwiseOptimizer):
    """v <- alpha v + (1 - alpha) g^2, p <- p - lr g / (sqrt(v) + eps); ``centered`` subtracts the squared mean
    gradient, ``momentum`` keeps a buffer of those steps (see torch.optim.RMSprop)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        for what, value in (("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise invalid(what, value)
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {
        "momentum": 0, "centered": False, "foreach": None, "maximize": False, "differentiable": False,
        "capturable": False,
    }

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor()
        state["square_avg"] = zeros_state(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_state(p)
        if group["centered"]:
            state["grad_avg"] = zeros_state(p)

    def step(self, closure=None):
        """One RMSprop update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, alpha, eps = to_scalar(group["lr"]), group["alpha"], group["eps"]
        momentum, centered = group["momentum"], group["centered"]
        for param, grad, state in entries:
            xp = namespace(param)
            advance(state)
            square_avg = as_real(state["square_avg"]._data)
            square_avg *= operand(alpha, "mul_", square_avg)
            square_avg += number(1 - alpha, "addcmul_", "value", square_avg) * grad * grad
            if centered:
                grad_avg = as_real(state["grad_avg"]._data)
                lerp_(grad_avg, grad, 1 - alpha)
                avg = xp.sqrt(square_avg - grad_avg * grad_avg)
            else:
                avg = xp.sqrt(square_avg)
            avg += operand(eps, "add_", avg)
            if momentum > 0:
                buffer = as_real(state["momentum_buffer"]._data)
                buffer *= operand(momentum, "mul_", buffer)
                buffer += grad / avg
                param += number(-lr, "add_", "alpha", param) * buffer
            else:
                param += number(-lr, "addcdiv_", "value", param) * grad / avg
