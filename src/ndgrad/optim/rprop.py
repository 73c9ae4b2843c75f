"""Rprop: per-element step sizes that grow while the gradient keeps its sign and shrink when it flips; only the
gradient's sign moves the parameter (see torch.optim.Rprop)."""

from ndgrad.optim._elementwise import (
    ElementwiseOptimizer,
    advance,
    as_real,
    check_lr,
    checked_int,
    namespace,
    number,
    scalar_state_tensor,
    to_scalar,
    zeros_state,
)

__all__ = ["Rprop"]


class Rprop(ElementwiseOptimizer):
    """step_size <- clamp(step_size * (etaplus | etaminus | 1), *step_sizes) as sign(g * prev) is +, - or 0;
    after a sign flip the gradient counts as 0; p <- p - sign(g) step_size (see torch.optim.Rprop)."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    # options that state dicts saved before they existed lack (filled in by Optimizer.__setstate__)
    group_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def _entries(self, group):
        return super()._entries({**group, "weight_decay": 0})  # Rprop has no weight decay

    def _init_state(self, p, state, group):
        state["step"] = scalar_state_tensor()
        state["prev"] = zeros_state(p)
        step_size = zeros_state(p)
        steps = as_real(step_size._data)  # complex: lr for the real and the imaginary part
        steps[...] = number(to_scalar(group["lr"]), "full_like", "fill_value", steps, position=2)
        state["step_size"] = step_size

    def step(self, closure=None):
        """One Rprop update of every parameter with a gradient; returns ``closure()``'s loss, if given."""
        return self._step(closure)

    def _update_group(self, group, entries):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = (checked_int(size) for size in group["step_sizes"])  # clamp_'s Scalars
        for param, grad, state in entries:
            xp = namespace(param)
            advance(state)
            prev, step_size = as_real(state["prev"]._data), as_real(state["step_size"]._data)
            sign = xp.sign(grad * prev)
            factor = xp.where(sign > 0, etaplus, xp.where(sign < 0, etaminus, xp.where(sign == 0, 1.0, sign)))
            step_size *= factor
            xp.clip(step_size, step_size_min, step_size_max, out=step_size)
            grad = xp.where(factor == etaminus, 0, grad)
            param -= xp.sign(grad) * step_size
            prev[...] = grad
