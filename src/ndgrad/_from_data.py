"""Python data (numbers, nested sequences, tensors and NumPy values in them) to a host array, read as torch.tensor
reads it: the shape from the first element at each level, the dtype from every element, then each element
converted with PyTorch's checks, so a ragged list or an int too large raises PyTorch's error, never NumPy's."""

import operator
import types

import numpy as np

from ndgrad._argument_parser import check_fits, type_name
from ndgrad._dtype import (
    bool_,
    complex128,
    from_numpy_dtype,
    get_default_dtype,
    int64,
    integer_range,
    promote,
    real_scalar,
)
from ndgrad._tensor import Tensor
from ndgrad._warnings import warn

__all__ = ["array_from_data", "infer_dtype", "is_sequence"]

_MAX_DIMS = 128
_NUMBERS = (bool, int, float, complex)
_NOT_SEQUENCES = (dict, np.generic, types.MappingProxyType)  # indexable, but not sequences to PyTorch
_WARNED = []  # the list-of-arrays warning: PyTorch gives it once


def array_from_data(data, dtype=None):
    """``data`` as a NumPy array of ``dtype`` (None: the dtype torch.tensor infers), with PyTorch's errors."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type_name(data)}'")
    sizes = _shape(data)
    dtype = dtype or infer_dtype(data)
    if 0 in sizes:  # nothing to store, and PyTorch looks no further: [[], [1]] is an empty 2 x 0 tensor
        return np.empty(sizes, dtype.numpy)
    leaves = []
    if sizes:
        _store(data, sizes, 0, leaves, dtype)
    else:
        leaves.append(data)
    return _converted(leaves, dtype).reshape(sizes)


def is_sequence(value):
    """Python's PySequence_Check as PyTorch's Tensor sees it: a tensor is no sequence (it is one number here)."""
    if type(value) in (list, tuple):
        return True
    return hasattr(type(value), "__getitem__") and not isinstance(value, (*_NOT_SEQUENCES, Tensor))


def _shape(data):
    """The sizes along the first elements, as PyTorch finds a nested sequence's shape."""
    sizes = []
    while is_sequence(data):
        sizes.append(len(data))
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type_name(data)}'")
        if not sizes[-1]:
            break
        try:
            data = data[0]
        except Exception:  # noqa: BLE001 - whatever the object's indexing raises, PyTorch reports it so
            raise ValueError(f"could not determine the shape of object type '{type_name(data)}'") from None
    return sizes


# ---- the dtype: every element counts, promoted as PyTorch promotes (bool < int64 < default float < complex) ---------
def infer_dtype(data):
    """The dtype torch.tensor() gives ``data`` when it is given none."""
    if isinstance(data, (np.ndarray, np.generic)):
        return from_numpy_dtype(data.dtype)
    if isinstance(data, float):
        return get_default_dtype()
    if isinstance(data, bool):
        return bool_
    if isinstance(data, int):
        return int64
    if isinstance(data, complex):
        return get_default_dtype().to_complex()
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type_name(data)}'")
    if not is_sequence(data):
        raise RuntimeError(f"Could not infer dtype of {type_name(data)}")
    if not len(data):
        return get_default_dtype()
    kinds = set(map(type, data)) if type(data) in (list, tuple) else None
    if kinds is not None and kinds.issubset(_NUMBERS):  # the common case: Python numbers only
        return _number_dtype(kinds)
    found = None
    for item in data:
        if item is data:
            raise TypeError("new(): self-referential lists are incompatible")
        found = infer_dtype(item) if found is None else promote(found, infer_dtype(item))
        if found is complex128:  # nothing promotes further
            break
    return found


def _number_dtype(kinds):
    if complex in kinds:
        return get_default_dtype().to_complex()
    if float in kinds:
        return get_default_dtype()
    return int64 if int in kinds else bool_


# ---- the elements: each level must have the length the shape says; each element converts as PyTorch stores it ---
def _store(sequence, sizes, dim, leaves, dtype):
    """Append the elements of ``sequence`` (at ``dim``) to ``leaves``, depth first as PyTorch walks them; an element
    before a wrong one that does not convert is reported first, as PyTorch converts them as it goes."""
    try:
        items = sequence if type(sequence) in (list, tuple) else list(sequence)
    except TypeError:
        _converted(leaves, dtype)
        raise TypeError("not a sequence") from None
    if len(items) != sizes[dim]:
        _converted(leaves, dtype)
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(items)})")
    if dim + 1 == len(sizes):
        leaves.extend(items)
        return
    for item in items:
        if isinstance(item, np.ndarray) and not _WARNED:
            _WARNED.append(True)
            warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the "
                 "list to a single numpy.ndarray with numpy.array() before converting to a tensor.")
        _store(item, sizes, dim + 1, leaves, dtype)


def _converted(leaves, dtype):
    """The elements as a flat array of ``dtype``: Python floats and ints at NumPy's speed, anything else one by one."""
    kinds = set(map(type, leaves))
    target = dtype.numpy
    if dtype is bool_:
        return np.array([_as_bool(value) for value in leaves] if kinds - {bool, int, float, complex} else
                        list(map(bool, leaves)), dtype=target)
    if dtype.is_floating_point or dtype.is_complex:
        convert = _as_complex if dtype.is_complex else _as_double
        fast = kinds.issubset(_NUMBERS if dtype.is_complex else (bool, int, float))
        values = _fast_or_each(leaves, np.complex128 if dtype.is_complex else np.float64, fast, convert)
        with np.errstate(over="ignore"):  # beyond the dtype's range is inf, as in PyTorch
            return values.astype(target)
    if kinds.issubset((bool, int)) or kinds == {float}:
        values = _fast_or_each(leaves, np.float64 if float in kinds else np.int64, True, None)
        if values is not None and _fits(values, dtype, float in kinds):
            with np.errstate(invalid="ignore"):
                return values.astype(target)
    values = [_as_integer(value, dtype) for value in leaves]  # the first element that does not fit raises
    return np.array(values, dtype=np.int64).astype(target)


def _fast_or_each(leaves, kind, fast, convert):
    """NumPy's conversion of Python numbers where it equals PyTorch's, else ``convert`` of each (which raises
    PyTorch's error for an element that does not convert); None where only ``convert`` could tell."""
    if fast:
        try:
            return np.array(leaves, dtype=kind)
        except OverflowError:  # an int NumPy cannot hold: converted one by one, it raises PyTorch's error
            if convert is None:
                return None
    return np.array([convert(value) for value in leaves], dtype=kind)


def _fits(values, dtype, from_float):
    low, high = integer_range(dtype, from_float)
    with np.errstate(invalid="ignore"):
        return not values.size or bool(((values >= low) & (values <= high)).all())


def _as_double(value):
    """PyTorch's reading of an element as a double: a float, or anything with __float__ or __index__."""
    if isinstance(value, float):
        return float(value)
    kind = type(value)
    if hasattr(kind, "__float__"):
        return kind.__float__(value)
    if hasattr(kind, "__index__"):
        return float(kind.__index__(value))
    raise TypeError(f"must be real number, not {type_name(value)}")


def _as_complex(value):
    if isinstance(value, complex):
        return complex(value)
    kind = type(value)
    return kind.__complex__(value) if hasattr(kind, "__complex__") else complex(_as_double(value))


def _as_bool(value):
    return bool(value) if isinstance(value, (float, complex, np.bool_)) else bool(operator.index(value))


def _as_integer(value, dtype):
    """A float truncated, anything else by __index__; PyTorch's error where it does not fit ``dtype``."""
    if not isinstance(value, float):
        value = operator.index(value)
        check_fits("int", value)
    return real_scalar(value, dtype, dtype.name)
