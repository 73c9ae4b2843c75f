"""ASGD: SGD with a decaying step size and a running (Polyak) average of the iterates (see torch.optim.ASGD)."""

from ndgrad._creation import as_tensor
from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    as_real,
    check_lr,
    invalid,
    number,
    operand,
    scalar_state_tensor,
    to_scalar,
    written,
    zeros_state,
)

__all__ = ["ASGD"]


class ASGD(ElementwiseOptimizer):
    """p <- p (1 - lambd eta) - eta g, ax <- ax + mu (p - ax); eta = lr / (1 + lambd lr t)^alpha and
    mu = 1 / max(1, t - t0) after step t (see torch.optim.ASGD)."""

    scalar_state = ("step", "eta", "mu")  # eta and mu are 0-d tensors too, rounded to the scalar dtype
    capturable_names = "params, mus, etas, and state_steps"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise invalid("weight_decay value", weight_decay)
        defaults = {
            "lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor()
        counter = state["step"]  # torch's as_tensor of lr, in the counters' dtype
        state["eta"] = as_tensor(group["lr"], dtype=counter.dtype, device=counter.device).clone().detach()
        state["mu"] = scalar_state_tensor(1.0)
        state["ax"] = zeros_state(p)

    def step(self, closure=None):
        """One ASGD update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, lambd, alpha, t0 = to_scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        for param, grad, state in entries:
            step = advance(state)
            eta, mu = state["eta"]._data, state["mu"]._data
            eta_value, mu_value = state["eta"].item(), state["mu"].item()
            param *= operand(1 - lambd * eta_value, "mul_", param)
            param += number(-eta_value, "add_", "alpha", param) * grad
            ax = as_real(state["ax"]._data)
            if mu_value != 1:
                ax += (param - ax) * mu_value
            else:
                ax[...] = param
            written(eta, lr / ((1 + lambd * lr * step) ** alpha))
            written(mu, 1 / max(1, step - t0))
