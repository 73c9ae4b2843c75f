"""Where new tensors come from: the default device, PyTorch's checks of a new tensor's size (in its order and
words), allocation on a device, and the requires_grad rule of the factories."""

import numpy as np

from ndgrad import _printing
from ndgrad._device import CPU, cuda_backend, placement, to_device
from ndgrad._device import device as as_device
from ndgrad._fpstate import silenced
from ndgrad._tensor import Tensor

__all__ = ["set_default_device", "get_default_device", "new_size"]

_LONG_MAX = 2**63 - 1
# The keywords every factory's schema ends with, as PyTorch declares them (the _like ones with a memory format first)
FACTORY_KEYWORDS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                    "bool? requires_grad=False")
LIKE_KEYWORDS = f"MemoryFormat? memory_format=None, {FACTORY_KEYWORDS}"


class _Default:
    device = None  # set_default_device's device; None: the cpu


def set_default_device(device):
    """The device factories use when given none (see torch.set_default_device); None means the cpu."""
    _Default.device = None if device is None or as_device(device).type == "cpu" else as_device(device)
    _printing._DEFAULT_DEVICE_TYPE = get_default_device().type  # tensors elsewhere name their device


def get_default_device():
    return _Default.device or CPU


def new_size(size, dtype, negative=None):
    """``size`` as a tuple, after the checks PyTorch makes before it allocates a tensor of ``dtype``, in its order:
    no negative dimension (``negative``: the message of a function that words it otherwise, as zeros does), the
    strides within int64, the bytes within int64 (counted as C++ counts them in uint64, overflow included)."""
    size = tuple(size)
    for dim in size:
        if dim < 0:
            raise RuntimeError(negative or f"Trying to create tensor with negative dimension {dim}: {list(size)}")
    stride = 1
    for dim in size[:0:-1]:
        stride *= max(dim, 1)
        if stride > _LONG_MAX:
            raise RuntimeError("Stride calculation overflowed")
    count, overflowed = 1, False
    for dim in size:
        count *= dim
        overflowed = overflowed or count >= 2**64
    if overflowed or count * dtype.itemsize > _LONG_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)}")
    return size


@silenced  # values that overflow the dtype become inf, as in PyTorch (see Note [floating-point error state])
def build(device, make):
    """``make(xp)`` with the array library of ``device`` (None: the default device), allocating there."""
    if device is None:
        device = _Default.device
        if device is None:
            return make(np)
    device = as_device(device)
    if device.type == "cpu":
        return make(np)
    with placement(device):
        return make(cuda_backend())


def new_array(size, dtype, device, make):
    """``make(xp)``, an array of ``size`` and ``dtype`` on ``device``, once ``size`` passed PyTorch's checks."""
    new_size(size, dtype)
    return build(device, make)


def placed(array, device):
    """A host array (random draws are made on the host) on ``device`` (None: the default device)."""
    device = _Default.device if device is None else as_device(device)
    return array if device is None else to_device(array, device)


def made(array, requires_grad=False):
    """The tensor of a new array, a leaf that requires grad if asked (only floating and complex ones can)."""
    t = Tensor._wrap(array)
    if requires_grad:
        if array.dtype.kind not in "fcV":  # factories word it with a capital, unlike the setter
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    return t
