"""Adafactor: Adam-like steps whose second moment of a matrix is kept as row and column factors, with a relative
step size and update clipping (see torch.optim.Adafactor)."""

import numpy as np

from ndgrad._tensor import Tensor
from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    lerp_,
    namespace,
    operand,
    scalar_state_tensor,
    to_scalar,
    zeros_state,
)

__all__ = ["Adafactor"]


class Adafactor(ElementwiseOptimizer):
    """beta2_t = 1 - t^beta2_decay; v (or its row/column factors) <- lerp(v, g^2, 1 - beta2_t);
    p <- p - max(eps2, rms(p)) min(lr, 1/sqrt(t)) u / max(1, rms(u)/d) with u = g / sqrt(v)
    (see torch.optim.Adafactor; weight decay is decoupled)."""

    real_views = False

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        checks = (
            (0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
            (0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}"),
            (eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}"),
            (0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}"),
            (1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}"),
            (0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}"),
        )
        for passed, message in checks:
            if not passed:
                raise ValueError(message)
        defaults = {
            "lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
            "foreach": foreach, "maximize": maximize,
        }
        super().__init__(params, defaults)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {"foreach": None}

    def _entries(self, group):
        for p in group["params"]:
            if p._grad is not None and p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
        return super()._entries({**group, "weight_decay": 0})  # decayed in _update_group, after rms(p) is taken

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor()
        grad = p._grad._data
        if grad.ndim > 1:
            xp = namespace(grad)
            state["row_var"] = Tensor._wrap(xp.zeros(grad.shape[:-1] + (1,), dtype=grad.dtype))
            state["col_var"] = Tensor._wrap(xp.zeros(grad.shape[:-2] + (1,) + grad.shape[-1:], dtype=grad.dtype))
        else:
            state["variance"] = zeros_state(p)

    def step(self, closure=None):
        """One Adafactor update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        lr, beta2_decay, d = to_scalar(group["lr"]), group["beta2_decay"], group["d"]
        weight_decay = group["weight_decay"]
        eps1, eps2 = group["eps"]
        for param, grad, state in entries:
            xp = namespace(param)
            step = advance(state)
            floor = np.finfo(param.dtype).eps if eps1 is None else eps1
            one_minus_beta2 = step**beta2_decay
            relative_step = min(lr, 1 / step**0.5)
            alpha = max(eps2, float(xp.sqrt(xp.sum(param * param))) / param.size**0.5) * relative_step
            if weight_decay != 0:  # torch's param.mul_(1 - lr * weight_decay)
                param *= operand(1 - lr * weight_decay, "mul_", param)
            squared = grad * grad
            if grad.ndim > 1:
                row_var, col_var = state["row_var"]._data, state["col_var"]._data
                lerp_(row_var, squared.mean(axis=-1, keepdims=True), one_minus_beta2)
                lerp_(col_var, squared.mean(axis=-2, keepdims=True), one_minus_beta2)
                estimate = (row_var @ col_var) / xp.maximum(row_var.mean(axis=-2, keepdims=True), floor)
            else:
                variance = state["variance"]._data
                lerp_(variance, squared, one_minus_beta2)
                estimate = variance
            update = grad / xp.sqrt(xp.maximum(estimate, floor * floor))
            rms = float(xp.sqrt(xp.sum(update * update))) / (update.size**0.5 * d)
            param -= alpha / max(1.0, rms) * update
