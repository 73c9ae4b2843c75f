"""The step loop shared by the optimizers whose update is elementwise per parameter (all but LBFGS).

The loop runs on raw arrays: it picks the parameters that have a gradient, applies ``maximize`` and weight decay,
and hands (param, grad, state) triples to the algorithm's ``_update_group``, which writes ``param`` in place.
"""

import numpy as np

from ndgrad._argument_parser import type_name
from ndgrad._device import namespace_of
from ndgrad._dtype import float32, float64, from_numpy_dtype, get_default_dtype, real_scalar
from ndgrad._fpstate import silenced
from ndgrad._tensor import Tensor
from ndgrad.autograd.grad_mode import enable_grad
from ndgrad.optim.optimizer import Optimizer

__all__ = [
    "ElementwiseOptimizer", "invalid", "check_lr", "check_betas", "check_fused", "scalar", "namespace", "as_real",
    "lerp_", "scalar_state_tensor", "advance", "zeros_state", "to_scalar", "number", "operand", "written",
    "checked_int",
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


# Note [hyperparameters as torch's ops read them]: the updates run on raw arrays, but torch's run ops, whose argument
# checks are what a wrong hyperparameter meets: a str where a number goes, a many-element tensor, an int beyond 64
# bits, a complex number. ``to_scalar`` is torch's _to_scalar; ``number`` and ``operand`` read a value as a Scalar
# keyword or the first argument of a Tensor method (naming the method torch calls there), ``factor`` as the
# operand of ``*``, and ``written`` writes as an in-place op does; the updates compute the same expressions as
# torch's, in its order, so a value that breaks Python arithmetic (``-lr`` of a str) fails where torch's does.
_INT64_MIN, _UINT64_END = -(2**63), 2**64


def to_scalar(value):
    """torch's _to_scalar, which squeezes a 1-element tensor to 0-d (here: its number); anything else as it is."""
    return value.item() if isinstance(value, Tensor) and value.numel() == 1 else value


def checked_int(value):
    """torch's conversion of a Python int to a Scalar: 64 bits, signed or unsigned."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < _INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
        if value >= _UINT64_END:
            raise OverflowError("int too big to convert")
    return value


def number(value, op, name, like, position=None):
    """``value`` as ``Tensor.<op>`` reads its Scalar argument ``name`` (a keyword, or at ``position``) for the array
    ``like`` it applies to (see Note [hyperparameters as torch's ops read them]): an add's ``alpha`` may not be a
    bool, nor complex for real arrays; other numbers are converted to like's dtype, which a complex one with an
    imaginary part cannot be."""
    if isinstance(value, Tensor) and value.ndim == 0 and not value.requires_grad:
        value = value.item()
    if not isinstance(value, (int, float, complex)):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{op}(): argument '{name}'{where} must be Number, not {type_name(value)}")
    if name == "alpha" and isinstance(value, bool):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(value, complex) and like.dtype.kind != "c":
        if name == "alpha":
            raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
        return real_scalar(value, from_numpy_dtype(like.dtype))
    return checked_int(value)


def operand(value, op, like):
    """``value`` as ``Tensor.<op>`` (mul_, add_, div_) reads its first argument, written into ``like``: a number,
    or a tensor's array (see Note [hyperparameters as torch's ops read them])."""
    if isinstance(value, Tensor):
        _check_writable(like, value._data)
        return value._data
    if not isinstance(value, (int, float, complex)):
        raise TypeError(f"{op}(): argument 'other' (position 1) must be Tensor, not {type_name(value)}")
    if isinstance(value, complex) and like.dtype.kind != "c":
        real = _DTYPE_TITLES[like.dtype.name]
        raise RuntimeError(f"result type Complex{real} can't be cast to the desired output type {real}")
    return checked_int(value)


def factor(value, like):
    """``value`` as the right operand of the ``*`` operator on ``like``: torch's operator turns the op's TypeError
    into NotImplemented, so Python's own error shows (a str asks the tensor for a repeat count)."""
    if isinstance(value, str):
        raise TypeError("only integer tensors of a single element can be converted to an index")
    if not isinstance(value, (Tensor, int, float, complex)):
        raise TypeError(f"unsupported operand type(s) for *: 'Tensor' and '{type(value).__name__}'")
    return operand(value, "mul", like)


_DTYPE_TITLES = {"float16": "Half", "float32": "Float", "float64": "Double"}


def written(target, values):
    """``target[...] = values`` as copy_ writes: torch's error for values of another shape than the target's, the
    real part of complex values for a real target (with torch's warning)."""
    values = values._data if isinstance(values, Tensor) else values
    _check_writable(target, values)
    if isinstance(values, complex) and target.dtype.kind != "c":
        from ndgrad.ops.shape import warn_complex_to_real

        warn_complex_to_real()
        values = values.real
    target[...] = values


def _check_writable(target, values):
    shape = namespace(target).broadcast_shapes(target.shape, getattr(values, "shape", ()))
    if shape != target.shape:
        raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the broadcast shape {list(shape)}")


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
        weight_decay = group["weight_decay"]  # as the group holds it: torch's add reads a tensor's alpha as an error
        decay = 1 - to_scalar(group["lr"]) * weight_decay if group.get("decoupled_weight_decay") else None
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
            if weight_decay != 0:  # torch's param.mul_(1 - lr * weight_decay), or grad.add(param, alpha=...)
                if decay is not None:
                    param *= operand(decay, "mul_", param)
                else:
                    grad = grad + number(weight_decay, "add", "alpha", grad) * param
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
