"""Softmax, log_softmax and softmin along a dim: primitives for numerical stability."""

from ndgrad.ops._op import Op  # noqa: F401

__all__ = []  # the names torch has at top level (torch.X)
FUNCTIONAL = []  # the names torch.nn.functional has (ndgrad.nn.functional re-exports them)


class SoftmaxMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
