"""ndgrad.amp: automatic mixed precision, autocast regions and gradient scaling (see torch.amp)."""

from ndgrad.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from ndgrad.amp.grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
