"""ndgrad.utils: helpers built on the public autograd API (checkpoint) and data loading (data)."""

from ndgrad.utils import checkpoint, data

__all__ = ["checkpoint", "data"]
