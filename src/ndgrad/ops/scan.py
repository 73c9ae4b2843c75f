"""Scans along a dim: cumsum, cumprod, cummax, cummin, logcumsumexp."""

from ndgrad.ops._op import Op  # noqa: F401

__all__ = []


class ScanMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
