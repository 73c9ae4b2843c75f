"""Devices, and the one place that maps a device to its array library (NumPy on cpu, CuPy on cuda)."""

import numpy as np

__all__ = ["device", "array_namespace", "device_of_array"]


class device:
    """A place where tensor data lives: ``device('cpu')`` or ``device('cuda', 0)`` (see torch.device)."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif ":" in type:
            type, _, number = type.partition(":")
            index = int(number)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {type}")
        if type == "cuda" and index is None:
            index = 0
        self.type, self.index = type, index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")


def _cupy():
    try:
        import cupy
    except ImportError:
        raise RuntimeError("Torch not compiled with CUDA enabled (ndgrad needs CuPy for cuda tensors)") from None
    return cupy


def array_namespace(dev):
    """The array library for a device: ops call ``xp.exp`` and never name NumPy or CuPy themselves."""
    return np if device(dev).type == "cpu" else _cupy()


def device_of_array(array):
    if type(array) is np.ndarray:
        return CPU
    return device("cuda", array.device.id)
