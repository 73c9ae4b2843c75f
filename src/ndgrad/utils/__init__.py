"""ndgrad.utils: helpers built on the public autograd API (checkpoint)."""

from ndgrad.utils import checkpoint

__all__ = ["checkpoint"]
