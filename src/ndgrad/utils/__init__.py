"""ndgrad.utils: helpers built on the public autograd API (checkpoint), data loading (data), and .safetensors files
(safetensors)."""

from ndgrad.utils import checkpoint, data, safetensors

__all__ = ["checkpoint", "data", "safetensors"]
