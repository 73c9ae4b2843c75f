"""Adadelta: steps sized by the ratio of running RMS of past updates to running RMS of gradients
(see torch.optim.Adadelta)."""

from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    as_real,
    check_lr,
    invalid,
    namespace,
    number,
    operand,
    scalar_state_tensor,
    to_scalar,
    zeros_state,
)

__all__ = ["Adadelta"]


class Adadelta(ElementwiseOptimizer):
    """v <- rho v + (1 - rho) g^2, d = sqrt(u + eps) / sqrt(v + eps) g, u <- rho u + (1 - rho) d^2, p <- p - lr d
    (see torch.optim.Adadelta)."""

    capturable_devices = ["cuda", "xpu", "hpu", "privateuseone"]

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise invalid("rho value", rho)
        if not 0.0 <= eps:
            raise invalid("epsilon value", eps)
        if not 0.0 <= weight_decay:
            raise invalid("weight_decay value", weight_decay)
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "capturable": capturable, "foreach": foreach, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor()
        state["square_avg"] = zeros_state(p)
        state["acc_delta"] = zeros_state(p)

    def step(self, closure=None):
        """One Adadelta update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, rho, eps = to_scalar(group["lr"]), group["rho"], group["eps"]
        for param, grad, state in entries:
            xp = namespace(param)
            advance(state)
            square_avg, acc_delta = as_real(state["square_avg"]._data), as_real(state["acc_delta"]._data)
            square_avg *= operand(rho, "mul_", square_avg)
            square_avg += number(1 - rho, "addcmul_", "value", square_avg) * grad * grad
            std = xp.sqrt(square_avg + operand(eps, "add", square_avg))
            delta = xp.sqrt(acc_delta + operand(eps, "add", acc_delta))
            delta /= std
            delta *= grad
            acc_delta *= operand(rho, "mul_", acc_delta)
            acc_delta += number(1 - rho, "addcmul_", "value", acc_delta) * delta * delta
            param += number(-lr, "add_", "alpha", param) * delta
