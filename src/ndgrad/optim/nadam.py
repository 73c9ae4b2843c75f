"""NAdam: Adam with Nesterov momentum and a warming momentum schedule (see torch.optim.NAdam)."""

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

__all__ = ["NAdam"]


class NAdam(ElementwiseOptimizer):
    """Adam whose step mixes the current gradient and the momentum, each weighted by the momentum schedule
    mu_t = beta1 (1 - 0.96^(t psi) / 2) (see torch.optim.NAdam)."""

    scalar_state = ("step", "mu_product")
    capturable_names = "params, mu_products and state_steps"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise invalid("epsilon value", eps)
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise invalid("weight_decay value", weight_decay)
        if not 0.0 <= momentum_decay:
            raise invalid("momentum_decay value", momentum_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {
        "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
        "decoupled_weight_decay": False,
    }

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor()
        state["mu_product"] = scalar_state_tensor(1.0)
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)

    def step(self, closure=None):
        """One NAdam update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, eps, momentum_decay = to_scalar(group["lr"]), group["eps"], group["momentum_decay"]
        beta1, beta2 = group["betas"]
        for param, grad, state in entries:
            xp = namespace(param)
            step = advance(state)
            bias_correction2 = 1 - beta2**step
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            # NOTE: the running product lives in the step counter's dtype (float32 by default), rounding included.
            mu_product_array = state["mu_product"]._data
            mu_product_array *= operand(mu, "mul_", mu_product_array)
            mu_product = state["mu_product"].item()
            exp_avg, exp_avg_sq = as_real(state["exp_avg"]._data), as_real(state["exp_avg_sq"]._data)
            lerp_(exp_avg, grad, 1 - beta1)
            exp_avg_sq *= operand(beta2, "mul_", exp_avg_sq)
            exp_avg_sq += number(1 - beta2, "addcmul_", "value", exp_avg_sq) * grad * grad
            denom = xp.sqrt(exp_avg_sq / bias_correction2)
            denom += operand(eps, "add_", denom)
            param += number(-lr * (1.0 - mu) / (1.0 - mu_product), "addcdiv_", "value", param) * grad / denom
            step_size = (-lr * mu_next) / (1.0 - mu_product * mu_next)
            param += number(step_size, "addcdiv_", "value", param) * exp_avg / denom


