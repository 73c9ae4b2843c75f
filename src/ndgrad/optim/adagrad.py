"""Adagrad: divide each step by the root of the summed squared gradients so far (see torch.optim.Adagrad)."""

from ndgrad._tensor import Tensor
from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    as_real,
    check_fused,
    check_lr,
    checked_int,
    invalid,
    namespace,
    number,
    operand,
    scalar_state_tensor,
    to_scalar,
)

__all__ = ["Adagrad"]


class Adagrad(ElementwiseOptimizer):
    """s <- s + g^2, p <- p - lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps) (see torch.optim.Adagrad)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        for what, value in (("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value), ("epsilon value", eps)):
            if not 0.0 <= value:
                raise invalid(what, value)
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)
        # Unlike the other optimizers, Adagrad's state exists from the start, for every parameter.
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "fused": None}

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor(fused=group["fused"])
        # NOTE: torch fills the sum from the optimizer's default, even for a group that sets its own value.
        value = checked_int(self.defaults["initial_accumulator_value"])  # torch's full_like reads it as a Scalar
        data = p._data
        fill = complex(value, value) if data.dtype.kind == "c" else value
        state["sum"] = Tensor._wrap(namespace(data).full_like(data, fill))

    def step(self, closure=None):
        """One Adagrad update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        # torch's expressions, in its order (see Note [hyperparameters as torch's ops read them])
        lr, lr_decay, eps = to_scalar(group["lr"]), group["lr_decay"], group["eps"]
        for param, grad, state in entries:
            xp = namespace(param)
            step = advance(state)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = as_real(state["sum"]._data)
            state_sum += grad * grad
            std = xp.sqrt(state_sum)
            std += operand(eps, "add_", std)
            param += number(-clr, "addcdiv_", "value", param) * grad / std
