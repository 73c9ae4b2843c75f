"""What the array rules (``vjp_arrays``, see Note [array rules] in ndgrad.autograd.engine) share: the conjugate
that leaves real values alone, and the array library of an array."""

import numpy as np

from ndgrad._device import namespace_of

__all__ = ["conj", "xp_of"]

_REAL = np.dtype(np.float64)


def conj(value):
    """The complex conjugate of an array or number; a real one as it is (NumPy's conj would copy it)."""
    if type(value) is complex:
        return value.conjugate()
    return value.conj() if getattr(value, "dtype", _REAL).kind == "c" else value


def xp_of(array):
    """NumPy, or the GPU array library of a device array."""
    return np if type(array) is np.ndarray else namespace_of(array)
