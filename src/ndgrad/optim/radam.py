"""RAdam: Adam whose adaptive step is switched on only once the variance of its estimate is tractable
(see torch.optim.RAdam)."""

from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    as_real,
    check_betas,
    check_lr,
    factor,
    invalid,
    lerp_,
    namespace,
    number,
    operand,
    scalar_state_tensor,
    to_scalar,
    zeros_state,
)

__all__ = ["RAdam"]


class RAdam(ElementwiseOptimizer):
    """Adam with the rectification term r_t while the SMA length rho_t exceeds 5, plain momentum SGD before
    (see torch.optim.RAdam)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise invalid("epsilon value", eps)
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise invalid("weight_decay value", weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {
        "foreach": None, "maximize": False, "differentiable": False, "decoupled_weight_decay": False,
        "capturable": False,
    }

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor()
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)

    def step(self, closure=None):
        """One RAdam update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, eps = to_scalar(group["lr"]), group["eps"]
        beta1, beta2 = group["betas"]
        rho_inf = 2 / (1 - beta2) - 1  # the longest the approximated simple moving average gets
        for param, grad, state in entries:
            xp = namespace(param)
            step = advance(state)
            exp_avg, exp_avg_sq = as_real(state["exp_avg"]._data), as_real(state["exp_avg_sq"]._data)
            lerp_(exp_avg, grad, 1 - beta1)
            exp_avg_sq *= operand(beta2, "mul_", exp_avg_sq)
            exp_avg_sq += number(1 - beta2, "addcmul_", "value", exp_avg_sq) * grad * grad
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
            scaled = bias_corrected_exp_avg * factor(lr, bias_corrected_exp_avg)
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = (bias_correction2**0.5) / (xp.sqrt(exp_avg_sq) + operand(eps, "add_", exp_avg_sq))
                param -= scaled * adaptive_lr * rect
            else:
                param -= scaled
