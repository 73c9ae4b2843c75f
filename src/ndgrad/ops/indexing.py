"""Indexing: advanced getitem and setitem, gather/scatter and index_* ops, masks, sorting and searching."""

from ndgrad.ops._op import Op  # noqa: F401

__all__ = []


class IndexingMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
