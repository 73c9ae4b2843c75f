"""Adam: bias-corrected running averages of the gradient and its square, optionally AMSGrad (see torch.optim.Adam)."""

from ndgrad._tensor import Tensor
from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    as_real,
    check_betas,
    check_fused,
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

__all__ = ["Adam"]


class Adam(ElementwiseOptimizer):
    """m <- lerp(m, g, 1 - beta1), v <- beta2 v + (1 - beta2) g^2, p <- p - lr m_hat / (sqrt(v_hat) + eps)
    (see torch.optim.Adam; ``decoupled_weight_decay=True`` is AdamW)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        check_lr(lr)
        if not 0.0 <= eps:
            raise invalid("epsilon value", eps)
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise invalid("weight_decay value", weight_decay)
        if not all(isinstance(beta, float) for beta in betas) and not all(isinstance(beta, Tensor) for beta in betas):
            raise ValueError("betas must be either both floats or both Tensors")
        for index, beta in enumerate(betas):
            if isinstance(beta, Tensor):
                if not capturable and foreach:
                    raise ValueError(
                        f"betas[{index}] as a Tensor is not supported for capturable=False and foreach=True"
                    )
                if beta.numel() != 1:
                    raise ValueError(f"Tensor betas[{index}] must be 1-element")
        betas = tuple(beta.squeeze() if isinstance(beta, Tensor) and beta.dim() else beta for beta in betas)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
            "maximize": maximize, "foreach": foreach, "capturable": capturable, "differentiable": differentiable,
            "fused": fused, "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {
        "amsgrad": False, "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
        "decoupled_weight_decay": False, "fused": None,
    }

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor(fused=group["fused"] or group["capturable"])
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_state(p)

    def step(self, closure=None):
        """One Adam update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, eps, amsgrad = to_scalar(group["lr"]), group["eps"], group["amsgrad"]
        beta1, beta2 = (to_scalar(beta) for beta in group["betas"])
        for param, grad, state in entries:
            xp = namespace(param)
            step = advance(state)
            exp_avg, exp_avg_sq = as_real(state["exp_avg"]._data), as_real(state["exp_avg_sq"]._data)
            lerp_(exp_avg, grad, 1 - beta1)
            exp_avg_sq *= operand(beta2, "mul_", exp_avg_sq)
            exp_avg_sq += number(1 - beta2, "addcmul_", "value", exp_avg_sq) * grad * grad
            step_size = lr / (1 - beta1**step)
            bias_correction2_sqrt = (1 - beta2**step) ** 0.5
            if amsgrad:
                max_exp_avg_sq = as_real(state["max_exp_avg_sq"]._data)
                xp.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
                denom = xp.sqrt(max_exp_avg_sq) / bias_correction2_sqrt
            else:
                denom = xp.sqrt(exp_avg_sq) / bias_correction2_sqrt
            denom += operand(eps, "add_", denom)
            param += number(-step_size, "addcdiv_", "value", param) * exp_avg / denom
