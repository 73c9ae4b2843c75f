"""ndgrad.cuda.amp: torch's older names of ndgrad.amp for 'cuda', which warn that they are deprecated (see
torch.cuda.amp)."""

import functools

from ndgrad import amp
from ndgrad._dtype import float16
from ndgrad._warnings import warn

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "GradScaler"]


def amp_definitely_not_available():
    from ndgrad import cuda

    return not cuda.is_available()


def _deprecated(old, new):
    warn(f"`ndgrad.cuda.amp.{old}(args...)` is deprecated. Please use `ndgrad.amp.{new}` instead.", FutureWarning)


class autocast(amp.autocast):  # noqa: N801 - torch's name
    """ndgrad.amp.autocast('cuda', ...) (see torch.cuda.amp.autocast)."""

    def __init__(self, enabled=True, dtype=float16, cache_enabled=True):
        _deprecated("autocast", "autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    _deprecated("custom_fwd", "custom_fwd(args..., device_type='cuda')")
    return functools.partial(amp.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    _deprecated("custom_bwd", "custom_bwd(args..., device_type='cuda')")
    return functools.partial(amp.custom_bwd, device_type="cuda")(bwd)


class GradScaler(amp.GradScaler):
    """ndgrad.amp.GradScaler('cuda', ...) (see torch.cuda.amp.GradScaler)."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _deprecated("GradScaler", "GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
