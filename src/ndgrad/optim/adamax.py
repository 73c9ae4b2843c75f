"""Adamax: Adam with the infinity norm in place of the root mean square (see torch.optim.Adamax)."""

from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    as_real,
    check_betas,
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

__all__ = ["Adamax"]


class Adamax(ElementwiseOptimizer):
    """m <- lerp(m, g, 1 - beta1), u <- max(beta2 u, |g| + eps), p <- p - lr / (1 - beta1^t) m / u
    (see torch.optim.Adamax)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise invalid("epsilon value", eps)
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise invalid("weight_decay value", weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor()
        state["exp_avg"] = zeros_state(p)
        state["exp_inf"] = zeros_state(p)

    def step(self, closure=None):
        """One Adamax update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, eps = to_scalar(group["lr"]), group["eps"]
        beta1, beta2 = group["betas"]
        for param, grad, state in entries:
            xp = namespace(param)
            step = advance(state)
            exp_avg, exp_inf = as_real(state["exp_avg"]._data), as_real(state["exp_inf"]._data)
            lerp_(exp_avg, grad, 1 - beta1)
            exp_inf *= operand(beta2, "mul_", exp_inf)
            xp.maximum(exp_inf, xp.abs(grad) + operand(eps, "add_", grad), out=exp_inf)
            clr = lr / (1 - beta1**step)
            param += number(-clr, "addcdiv_", "value", param) * exp_avg / exp_inf
