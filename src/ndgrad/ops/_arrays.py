"""What the array rules (``vjp_arrays``, see Note [array rules] in ndgrad.autograd.engine) and forwards share: the
conjugate that leaves real values alone, the array library of an array, and bfloat16 computed as PyTorch does."""

import numpy as np

from ndgrad._device import namespace_of

__all__ = ["conj", "xp_of", "matmul_in_dtype", "via_float32"]

_REAL = np.dtype(np.float64)
_FLOAT32 = np.dtype(np.float32)


def conj(value):
    """The complex conjugate of an array or number; a real one as it is (NumPy's conj would copy it)."""
    if type(value) is complex:
        return value.conjugate()
    return value.conj() if getattr(value, "dtype", _REAL).kind == "c" else value


def xp_of(array):
    """NumPy, or the GPU array library of a device array."""
    return np if type(array) is np.ndarray else namespace_of(array)


def matmul_in_dtype(xp, x, y):
    """xp.matmul in the inputs' dtype: NumPy multiplies ml_dtypes' bfloat16 in float32 and returns that, where
    PyTorch rounds the product back to bfloat16."""
    product = xp.matmul(x, y)
    return product if product.dtype == x.dtype else product.astype(x.dtype)


def via_float32(forward, xp, *arrays, **params):
    """``forward`` on bfloat16 arrays as PyTorch's CPU kernels compute it: in float32, rounded back to bfloat16 once.
    ml_dtypes' own loops would round every partial sum (softmax's, sum's), or have none (einsum, clip).

    Forwards call it behind ``x.dtype.kind == "V"`` (see Note [bfloat16's kind] in ndgrad._dtype), so other dtypes
    pay one comparison."""
    bfloat16 = next(a.dtype for a in arrays if getattr(a, "dtype", _REAL).kind == "V")
    result = forward(xp, *[a.astype(_FLOAT32) if getattr(a, "dtype", None) == bfloat16 else a for a in arrays],
                     **params)
    if type(result) is tuple:
        return tuple(r.astype(bfloat16) if r.dtype == _FLOAT32 else r for r in result)
    return result.astype(bfloat16) if result.dtype == _FLOAT32 else result
