"""ndgrad.cpu: of torch.cpu, only its amp module so far (torch's older names of ndgrad.amp for 'cpu')."""

from ndgrad.cpu import amp

__all__ = ["amp"]
