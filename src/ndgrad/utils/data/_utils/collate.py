"""Collate functions: a list of samples -> one batch (see torch.utils.data.default_collate), by the element type
of the first sample, through the same type -> function registry PyTorch exposes (``default_collate_fn_map``)."""

import collections.abc
import copy
import re

import numpy as np

import ndgrad
from ndgrad._tensor import Tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map"]

# NumPy dtypes of strings and Python objects: these arrays do not become tensors.
_STRING_OR_OBJECT_DTYPE = re.compile(r"[SaUO]")
_ERROR_FORMAT = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numpy_value(data):
    """A NumPy array or scalar, except NumPy's string scalars (which collate like str)."""
    kind = type(data)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def default_convert(data):
    """Turn each NumPy array inside ``data`` into a tensor, keeping the containers (see
    torch.utils.data.default_convert); what a DataLoader without batching applies."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        if isinstance(data, np.ndarray) and _STRING_OR_OBJECT_DTYPE.search(data.dtype.str):
            return data
        return ndgrad.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a named tuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # tuples become lists, as in PyTorch
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch``: the function ``collate_fn_map`` holds for the first element's type (or a base of it),
    else recursively through mappings, named tuples and sequences (see torch.utils.data._utils.collate.collate)."""
    elem = batch[0]
    if collate_fn_map is not None:
        if type(elem) in collate_fn_map:
            return collate_fn_map[type(elem)](batch, collate_fn_map=collate_fn_map)
        for collate_type, collate_fn in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return collate_fn(batch, collate_fn_map=collate_fn_map)

    def recurse(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: recurse([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a named tuple
        return type(elem)(*(recurse(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [recurse(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed  # tuples become lists, as in PyTorch
        return _rebuild_sequence(elem, transposed)
    raise TypeError(_ERROR_FORMAT.format(type(elem)))


def default_collate(batch):
    """Stack a list of samples into a batch: tensors, NumPy arrays and numbers gain a leading batch dimension,
    containers are collated field by field (see torch.utils.data.default_collate)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def _rebuild_mapping(template, values):
    """A mapping like ``template`` holding ``values``: a copy when mutable, else its type rebuilt, else a dict."""
    try:
        if isinstance(template, collections.abc.MutableMapping):
            clone = copy.copy(template)
            clone.update(values)
            return clone
        return type(template)(values)
    except TypeError:
        return values


def _rebuild_sequence(template, items):
    """A sequence like ``template`` holding ``items``: a copy when mutable, else its type rebuilt, else a list."""
    try:
        if isinstance(template, collections.abc.MutableSequence):
            clone = copy.copy(template)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(template)(items)
    except TypeError:
        return items


# ---- the registry: element type -> how a batch of it collates -----------------------------------------------
def collate_tensor_fn(batch, *, collate_fn_map=None):
    return ndgrad.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if _STRING_OR_OBJECT_DTYPE.search(batch[0].dtype.str):
        raise TypeError(_ERROR_FORMAT.format(batch[0].dtype))
    return collate([ndgrad.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return ndgrad.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return ndgrad.tensor(batch, dtype=ndgrad.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return ndgrad.tensor(batch)  # int64, or bool for a batch of bools


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}
