"""DLPack: tensors shared with PyTorch, NumPy, CuPy and JAX without a copy (see torch.from_dlpack, torch.utils.dlpack).

Export hands over the array library's own DLPack capsule (NumPy's on the cpu, CuPy's on cuda), after PyTorch's
refusals; import asks the array library of the producer's device to take the capsule.
"""

import enum

import numpy as np

from ndgrad._device import cuda_backend, placement
from ndgrad._device import device as Device

__all__ = ["DLDeviceType", "from_dlpack", "export", "device_of"]


class DLDeviceType(enum.IntEnum):
    """Where DLPack says the memory is (the DLPack standard's numbering)."""

    kDLCPU = 1  # noqa: N815 - the standard's names, as PyTorch spells them
    kDLCUDA = 2  # noqa: N815
    kDLCUDAHost = 3  # noqa: N815


def device_of(tensor):
    """``Tensor.__dlpack_device__``: (device type, device number)."""
    where = tensor.device
    if where.type == "cpu":
        return DLDeviceType.kDLCPU, 0
    return DLDeviceType.kDLCUDA, where.index


def export(tensor, stream, max_version, dl_device, copy):
    """``Tensor.__dlpack__``: a capsule viewing the tensor's memory, refused where PyTorch refuses it."""
    if tensor.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if tensor._conj_bit:
        raise BufferError("Can't export tensors with the conjugate bit set")
    array = tensor._data
    if any(stride < 0 for stride in array.strides):  # a flipped view: DLPack consumers cannot take it (torch aborts)
        raise BufferError("Can't export tensors with negative strides, use tensor.contiguous()")
    options = {"max_version": max_version, "dl_device": dl_device, "copy": copy}
    if isinstance(array, np.ndarray):
        return array.__dlpack__(**{k: v for k, v in options.items() if v is not None})
    return array.__dlpack__(stream=None if stream == -1 else stream, **options)


class _Capsule:
    """A bare DLPack capsule (the legacy protocol) presented as a producer; its memory is taken to be on the cpu."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **_):
        return self._capsule

    def __dlpack_device__(self):
        return DLDeviceType.kDLCPU, 0


def from_dlpack(ext_tensor):
    """A tensor sharing memory with ``ext_tensor``: any object with ``__dlpack__`` (a torch, NumPy, CuPy or JAX
    array, an ndgrad tensor) or a DLPack capsule (see torch.from_dlpack)."""
    from ndgrad._dtype import from_numpy_dtype
    from ndgrad._tensor import Tensor

    if type(ext_tensor).__name__ == "PyCapsule":
        ext_tensor = _Capsule(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise RuntimeError(
            "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so you "
            "might have already constructed a tensor from it once."
        )
    device_type, index = ext_tensor.__dlpack_device__()
    if device_type == DLDeviceType.kDLCPU:
        array = np.from_dlpack(ext_tensor)
    elif device_type == DLDeviceType.kDLCUDA:
        with placement(Device("cuda", index)):
            array = cuda_backend().from_dlpack(ext_tensor)
    else:
        raise RuntimeError(f"Unsupported device_type: {int(device_type)}")
    from_numpy_dtype(array.dtype)  # PyTorch's error for a dtype it has no name for
    return Tensor._wrap(array)
