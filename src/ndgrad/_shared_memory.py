"""Host memory that other processes can map: the storage of tensors after ``share_memory_()``.

A shared storage is an anonymous file (``memfd_create``, else an unlinked file in /dev/shm) mapped with ``mmap``.
Forked children inherit the mapping; other processes get the file's descriptor (ndgrad.multiprocessing sends it,
as torch's ``file_descriptor`` strategy does) and map the same pages, so a write anywhere is seen everywhere.
"""

import mmap
import os
import tempfile
import weakref

import numpy as np

__all__ = ["share", "is_shared", "storage_address", "handle", "attach", "rebuild"]

_STORAGES = weakref.WeakKeyDictionary()  # each shared mapping -> its Storage; an array reaches its mapping by .base


class Storage:
    """A shared mapping's file descriptor (kept open so the storage can be sent on) and its first byte's address."""

    __slots__ = ("descriptor", "address", "__weakref__")

    def __init__(self, descriptor, address):
        self.descriptor, self.address = descriptor, address


def _new_file(nbytes):
    """A descriptor of a new file of ``nbytes`` bytes that lives in memory and has no name to clean up."""
    if hasattr(os, "memfd_create"):
        descriptor = os.memfd_create("ndgrad-shared")
    else:
        directory = "/dev/shm" if os.path.isdir("/dev/shm") else None
        handle, path = tempfile.mkstemp(prefix="ndgrad-shared-", dir=directory)
        os.unlink(path)
        descriptor = handle
    os.ftruncate(descriptor, nbytes)
    return descriptor


def attach(descriptor, nbytes):
    """Map the shared file ``descriptor`` (which the mapping then owns) of ``nbytes`` bytes."""
    mapping = mmap.mmap(descriptor, nbytes)
    first = np.ndarray((1,), np.uint8, buffer=mapping)
    _STORAGES[mapping] = Storage(descriptor, _address(first))
    weakref.finalize(mapping, os.close, descriptor)
    return mapping


def _mapping_of(array):
    """The shared mapping an array looks into, or None."""
    while isinstance(getattr(array, "base", None), np.ndarray):
        array = array.base
    base = getattr(array, "base", None)
    return base if isinstance(base, mmap.mmap) and base in _STORAGES else None


def is_shared(array):
    return _mapping_of(array) is not None


def storage_address(array):
    """The address of the first byte of the shared storage ``array`` looks into, or None for unshared memory."""
    mapping = _mapping_of(array)
    return None if mapping is None else _STORAGES[mapping].address


def _address(array):
    return array.__array_interface__["data"][0]


def _owner(array):
    """The array whose memory ``array`` views (itself, or the base its views lead to)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def share(arrays):
    """The host arrays ``arrays`` (views of one owner's memory), rebuilt over a new shared copy of that memory.

    The whole owner is copied, as torch moves a whole storage, so that a view and its base still overlap. Memory
    that is not one block (an ``as_strided`` window) is copied compactly, for the first array only.
    """
    owner = _owner(arrays[0])
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        arrays = [np.ascontiguousarray(arrays[0])]
        owner = arrays[0]
    size = max(owner.nbytes, 1)  # mmap refuses zero bytes: an empty tensor's file has one
    mapping = attach(_new_file(size), size)
    np.ndarray((owner.nbytes,), np.uint8, buffer=mapping)[:] = np.ndarray((owner.nbytes,), np.uint8, buffer=owner)
    return [rebuild(mapping, _address(array) - _address(owner), array.shape, array.dtype, array.strides)
            for array in arrays]


def handle(array):
    """What another process needs to map ``array`` (shared): (descriptor, nbytes, byte offset, shape, dtype,
    byte strides)."""
    mapping = _mapping_of(array)
    storage = _STORAGES[mapping]
    return (storage.descriptor, len(mapping), _address(array) - storage.address, array.shape, array.dtype.str,
            array.strides)


def rebuild(mapping, offset, shape, dtype, strides):
    """The array ``handle`` described, over ``mapping`` (from ``attach``)."""
    return np.ndarray(shape, np.dtype(dtype), buffer=mapping, offset=offset, strides=strides)
