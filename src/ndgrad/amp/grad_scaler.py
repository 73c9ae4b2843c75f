"""GradScaler: multiplies the loss by a scale so that small float16 gradients do not flush to zero, divides the
gradients back before the optimizer steps, skips the steps whose gradients hold infs or NaNs and adjusts the scale
(see torch.amp.GradScaler, whose logic this follows line for line)."""

from collections import abc, defaultdict
from enum import Enum

from ndgrad._creation import full
from ndgrad._dtype import float16, float32, int32
from ndgrad._tensor import Tensor
from ndgrad._warnings import warn
from ndgrad.autograd.grad_mode import no_grad

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _non_finite_check_and_unscale_(grads, found_inf, inv_scale):
    """torch._amp_foreach_non_finite_check_and_unscale_: found_inf becomes 1 if any gradient holds an inf or a
    NaN; each gradient is multiplied by inv_scale in place, either way."""
    for grad in grads:
        if not bool(grad.isfinite().all()):
            found_inf.fill_(1.0)
        grad.mul_(inv_scale)


def _update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    """torch._amp_update_scale_: back off after an inf; grow after ``growth_interval`` good steps in a row (unless
    the grown scale would be infinite). The arithmetic is in double, stored in the float32 scale, as torch's."""
    if found_inf.item():
        scale.fill_(scale.item() * backoff_factor)
        growth_tracker.fill_(0)
        return
    successful = growth_tracker.item() + 1
    if successful == growth_interval:
        grown = full((), scale.item() * growth_factor, dtype=float32)
        if bool(grown.isfinite()):
            scale.copy_(grown)
        successful = 0
    growth_tracker.fill_(successful)


class GradScaler:
    """Scale the loss, unscale the gradients, step only when they are finite, update the scale (see
    torch.amp.GradScaler). On 'cuda' without a GPU it warns and does nothing, as torch does."""

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        from ndgrad import cuda

        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and not cuda.is_available():
            warn("ndgrad.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, device):
        self._scale = full((), self._init_scale, dtype=float32, device=device)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=int32, device=device)

    def scale(self, outputs):
        """``outputs`` times the scale: a tensor, or tensors in (nested) lists and tuples (see
        torch.amp.GradScaler.scale)."""
        if not self._enabled:
            return outputs

        def apply_scale(value):
            if isinstance(value, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(value.device)
                return value * self._scale.to(device=value.device)
            if isinstance(value, abc.Iterable):
                scaled = map(apply_scale, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Unscale the optimizer's gradients by device and dtype; the infs found, one flag tensor per device."""
        grads = defaultdict(lambda: defaultdict(list))
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype is float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grads[param.grad.device][param.grad.dtype].append(param.grad)
            found_per_device = {}
            for device, per_dtype in grads.items():
                found_per_device[device] = found_inf.to(device=device, copy=True)
                for same_dtype in per_dtype.values():
                    _non_finite_check_and_unscale_(same_dtype, found_per_device[device], inv_scale.to(device=device))
        return found_per_device

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale, in place, once per step (see
        torch.amp.GradScaler.unscale_)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = full((), 0.0, dtype=float32, device=self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless done) and step, unless a gradient holds an inf or a NaN: then the step is skipped and
        None returned (see torch.amp.GradScaler.step)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(found.item() for found in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Set the scale for the next step: ``new_scale``, or backed off after infs, or grown after
        growth_interval steps without (see torch.amp.GradScaler.update)."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element ndgrad.cuda.FloatTensor or ndgrad.FloatTensor "
                          "with requires_grad=False.")
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=scale.device) for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            _update_scale_(scale, growth_tracker, sum(found_infs[1:], found_infs[0]), self._growth_factor,
                           self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def get_scale(self):
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """The scale and its hyperparameters, torch's keys; empty when disabled."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        """Pickled between iterations only; the scale travels as a number, as torch's."""
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning of an iteration, or "
                                     "at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state
