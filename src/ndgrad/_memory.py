"""A tensor's memory as PyTorch exposes it: the storage behind a tensor (untyped_storage, is_set_to), resizing it
in place (resize_, resize_as_), tensors of given strides (empty_strided), and pinned memory, which ndgrad has not.
A tensor's storage is the NumPy (or CuPy) array that owns its memory."""

import math

from ndgrad._argument_parser import parses, parses_method
from ndgrad._device import namespace_of
from ndgrad._metadata import _address, _owner
from ndgrad.ops.views import empty_laid_out

__all__ = ["empty_strided", "resize_as_"]


class UntypedStorage:
    """The memory a tensor views, in bytes (see torch.UntypedStorage): its size, address and device."""

    def __init__(self, array):
        self._array = array

    def nbytes(self):
        return int(self._array.nbytes)

    size = nbytes

    def __len__(self):
        return self.nbytes()

    def data_ptr(self):
        return _address(self._array)

    @property
    def device(self):
        from ndgrad._device import device_of_array

        return device_of_array(self._array)

    def __repr__(self):
        return f"[ndgrad.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"


def _storage_from_offset(tensor):
    """The elements of tensor's storage from its first element on, as one flat array sharing that memory, when the
    storage is one contiguous block (as every array ndgrad allocates is); else None."""
    owner = _owner(tensor._data)
    if not owner.flags.c_contiguous:
        return None
    flat = owner.reshape(-1).view(tensor._data.dtype) if owner.dtype == tensor._data.dtype else None
    return None if flat is None else flat[tensor.storage_offset():]


def _checked_size(size):
    if any(dim < 0 for dim in size):
        raise RuntimeError("numel: integer multiplication overflow")  # PyTorch's words for a negative size
    return tuple(size)


@parses("empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of ``size`` whose memory has these strides, gaps included (see torch.empty_strided)."""
    from ndgrad._dtype import get_default_dtype
    from ndgrad._factory import build, made  # the factories import Tensor, whose base this module's mixin is

    dtype = dtype or get_default_dtype()
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    array = build(device, lambda xp: empty_laid_out(xp, _checked_size(size), dtype.numpy, tuple(stride)))
    return made(array, requires_grad)


@parses("resize_as_(Tensor input, Tensor the_template, *, MemoryFormat? memory_format=None)")
def resize_as_(input, the_template):
    """Resize ``input`` in place to the template's size (see torch.resize_as_)."""
    return input.resize_(the_template.shape)


class MemoryMethods:
    """The Tensor methods about a tensor's memory (Tensor inherits them)."""

    __slots__ = ()

    def untyped_storage(self):
        return UntypedStorage(_owner(self._data))

    @parses_method("is_set_to(Tensor tensor)")
    def is_set_to(self, tensor):
        """True if both tensors view the same storage from the same element with the same sizes and strides."""
        mine, theirs = self._data, tensor._data
        return (_owner(mine) is _owner(theirs) and _address(mine) == _address(theirs) and mine.shape == theirs.shape
                and mine.strides == theirs.strides)

    @parses_method("resize_(SymInt[] size, *, MemoryFormat? memory_format=None)")
    def resize_(self, size):
        """Give this tensor ``size``, contiguous over its storage from its first element: the values stay in memory
        order, and a larger size adds uninitialised elements (see torch.Tensor.resize_)."""
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        size = _checked_size(size)
        count = math.prod(size)
        storage = _storage_from_offset(self)
        if storage is not None and storage.size >= count:
            self._data = storage[:count].reshape(size)
        else:  # new memory, beginning with the old values in memory order
            old = storage if storage is not None else self._data.reshape(-1)
            array = namespace_of(self._data).empty(count, dtype=self._data.dtype)
            array[:min(old.size, count)] = old[:count]
            self._data = array.reshape(size)
        self._bump_version()
        return self

    @parses_method("resize_as_(Tensor the_template, *, MemoryFormat? memory_format=None)")
    def resize_as_(self, the_template):
        return self.resize_(the_template.shape)

    @parses_method("new_empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, "
                   "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
        return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                             requires_grad=requires_grad)

    @parses_method("pin_memory(Device? device=None)")
    def pin_memory(self, device=None):
        """A copy in page-locked host memory, for fast copies to a GPU; PyTorch refuses it without one."""
        from ndgrad import cuda

        if not cuda.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return self.clone()

    def new(self, *args, **kwargs):
        """The legacy constructor with this tensor's dtype: ``x.new([1, 2])``, ``x.new(2, 3)`` (see Tensor.new)."""
        from ndgrad._creation import legacy_new

        kwargs.setdefault("device", self.device)
        return legacy_new(self.dtype, args, kwargs)
