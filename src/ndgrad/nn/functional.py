"""torch.nn.functional's mirror: the activation functions (their ops live in ndgrad.ops.activation)."""

from ndgrad.ops.activation import relu

__all__ = ["relu"]
