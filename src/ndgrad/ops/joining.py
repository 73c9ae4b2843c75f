"""Ops that copy rather than view: joining (cat, stack), splitting copies, flips, rolls, repeats, triangles."""

from ndgrad.ops._op import Op  # noqa: F401

__all__ = []


class JoiningMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
