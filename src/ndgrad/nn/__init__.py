"""ndgrad.nn: neural-network building blocks. For now, ``ndgrad.nn.functional``."""

from ndgrad.nn import functional

__all__ = ["functional"]
