"""Normalisation ops: layer_norm, batch_norm, group_norm, instance_norm, normalize."""

from ndgrad.ops._op import Op  # noqa: F401

__all__ = []  # the names torch has at top level (torch.X)
FUNCTIONAL = []  # the names torch.nn.functional has (ndgrad.nn.functional re-exports them)


class NormalizationMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
