"""The step loop shared by the optimizers whose update is elementwise per parameter (all but LBFGS).

The loop runs on raw arrays: it picks the parameters that have a gradient, applies ``maximize`` and weight decay,
and hands (param, grad, state) triples to the algorithm's ``_update_group``, which writes ``param`` in place.
"""

import numpy as np

from ndgrad._device import namespace_of
from ndgrad._dtype import float32, float64, get_default_dtype
from ndgrad._fpstate import silenced
from ndgrad._tensor import Tensor
from ndgrad.autograd.grad_mode import enable_grad
from ndgrad.optim.optimizer import Optimizer

__all__ = [
    "ElementwiseOptimizer", "invalid", "check_lr", "check_betas", "check_fused", "scalar", "namespace", "as_real",
    "lerp_", "scalar_state_tensor", "advance", "zeros_state",
]

_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
_REAL_OF_COMPLEX = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def invalid(what, value):
    """torch's message for a hyperparameter out of range: ``Invalid learning rate: -1.0``."""
    return ValueError(f"Invalid {what}: {value}")


def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise invalid("learning rate", lr)


def check_betas(betas):
    for index in (0, 1):
        if not 0.0 <= betas[index] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {betas[index]}")


def check_fused(fused, foreach, differentiable):
    """The flag combinations torch refuses; otherwise ``fused`` and ``foreach`` only pick torch's kernels."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def scalar(value):
    """A hyperparameter as a Python number (torch accepts 1-element tensors for lr, betas, weight_decay)."""
    return value.item() if isinstance(value, Tensor) else value


namespace = namespace_of  # the array library of a parameter's array: NumPy on the cpu, CuPy on cuda


def as_real(array):
    """A complex array seen as real pairs (torch.view_as_real), so squares and square roots act per component."""
    real = _REAL_OF_COMPLEX.get(array.dtype)
    return array if real is None else array.view(real)


def lerp_(start, end, weight):
    """start <- start + weight * (end - start), in place, with torch's two formulas (the exact end at weight 1)."""
    if abs(weight) < 0.5:
        start += weight * (end - start)
    else:
        start[...] = end - (end - start) * (1 - weight)


def scalar_state_tensor(value=0.0, fused=False):
    """A per-parameter scalar such as state['step']: a 0-d float tensor on the cpu, float64 only when that is the
    default dtype (as torch keeps them)."""
    dtype = float64 if get_default_dtype() is float64 and not fused else float32
    return Tensor._wrap(np.array(value, dtype=dtype.numpy))


def advance(state):
    """Add one to state['step'] in place and return the new count as a Python float."""
    counter = state["step"]._data
    counter += 1
    return float(counter)


def zeros_state(param):
    """A zero buffer shaped and typed like the parameter (torch.zeros_like with preserve_format)."""
    data = param._data
    return Tensor._wrap(namespace(data).zeros_like(data))


class ElementwiseOptimizer(Optimizer):
    """An optimizer whose ``_update_group(group, entries)`` updates each parameter from its own gradient and state.

    ``entries`` holds (param array, grad array, state dict) for the parameters with a gradient; the grad is
    already negated for ``maximize`` and carries L2 weight decay (or the param was decayed, when decoupled).
    """

    scalar_state = ("step",)  # per-parameter counters kept as 0-d tensors; older state dicts hold Python floats
    real_views = True  # complex parameters reach _update_group as real pairs (False where the math is linear)
    capturable_names = "params and state_steps"  # how torch's capturable error names the tensors it checks
    capturable_devices = _CAPTURABLE_DEVICES

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            fused = group.get("fused") or group.get("capturable")
            for p in group["params"]:
                p_state = self.state.get(p)
                for key in self.scalar_state if p_state else ():
                    if not isinstance(p_state[key], Tensor):
                        p_state[key] = scalar_state_tensor(float(p_state[key]), fused)

    def _step(self, closure):
        """Update every parameter that has a gradient; return what ``closure`` (re-evaluated with grad) returned.

        Each optimizer's ``step`` calls this, so that it is that class's own function (as torch's messages show).
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._update_all()
        return loss

    @silenced  # the updates run on raw arrays (see Note [floating-point error state])
    def _update_all(self):
        for group in self.param_groups:
            entries = self._entries(group)
            if entries:
                self._update_group(group, entries)

    def _entries(self, group):
        maximize = group["maximize"]
        weight_decay = scalar(group["weight_decay"])
        decay = 1 - scalar(group["lr"]) * weight_decay if group.get("decoupled_weight_decay") else None
        checked = group.get("capturable") or group.get("differentiable")
        states, real_views, stateful = self.state, self.real_views, self._has_state(group)
        entries = []
        for p in group["params"]:
            grad_tensor = p._grad
            if grad_tensor is None:
                continue
            state = states[p] if stateful else None
            if stateful and not state:
                self._init_state(p, state, group)
            if checked:
                self._check_flags(p, group)
            param, grad = p._data, grad_tensor._data
            if maximize:
                grad = -grad
            if weight_decay != 0:
                if decay is not None:
                    param *= decay
                else:
                    grad = grad + weight_decay * param
            if real_views and param.dtype.kind == "c":
                param, grad = as_real(param), as_real(grad)
            p._bump_version()  # the in-place write autograd's saved-tensor checks must see
            entries.append((param, grad, state))
        return entries

    def _check_flags(self, p, group):
        """capturable needs an accelerator; differentiable steps run with grad mode on (whatever the caller's), so
        they would record the update in the graph."""
        if group.get("capturable") and p.device.type == "cpu":
            raise AssertionError(
                f"If capturable=True, {self.capturable_names} must be on supported devices: {self.capturable_devices}."
            )
        if group.get("differentiable") and p.requires_grad:
            if p.is_leaf:
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
            raise NotImplementedError(
                "ndgrad's optimizers update parameters outside the graph: differentiable=True steps on tensors that "
                "require grad are not supported"
            )

    def _has_state(self, group):
        """Whether this group's parameters keep state (plain SGD keeps none, and leaves optimizer.state empty)."""
        return True

    def _init_state(self, p, state, group):
        """Fill a parameter's empty state on its first step (torch's _init_group); stateless by default."""

    def _update_group(self, group, entries):
        raise NotImplementedError
