"""ndgrad.cpu.amp: torch's older names of ndgrad.amp for 'cpu', which warn that they are deprecated (see
torch.cpu.amp)."""

from ndgrad import _autocast, amp
from ndgrad._warnings import warn

__all__ = ["autocast", "GradScaler"]


def _deprecated(old, new):
    warn(f"`ndgrad.cpu.amp.{old}(args...)` is deprecated. Please use `ndgrad.amp.{new}('cpu', args...)` instead.",
         FutureWarning)


class autocast(amp.autocast):  # noqa: N801 - torch's name
    """ndgrad.amp.autocast('cpu', ...) (see torch.cpu.amp.autocast). Its default dtype is bfloat16, as torch's:
    without ml_dtypes ndgrad has none, and the default says so when used."""

    def __init__(self, enabled=True, dtype=_autocast.BFLOAT16, cache_enabled=True):
        _deprecated("autocast", "autocast")
        super().__init__("cpu", enabled=enabled, dtype=_autocast.resolved(dtype), cache_enabled=cache_enabled)


class GradScaler(amp.GradScaler):
    """ndgrad.amp.GradScaler('cpu', ...) (see torch.cpu.amp.GradScaler)."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _deprecated("GradScaler", "GradScaler")
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
