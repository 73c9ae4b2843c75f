"""ndgrad.save and ndgrad.load: tensors and containers of them in a zip of JSON and raw bytes. No pickle, so
loading a file can never run code (docs/serialization.md walks through an example file).

Format version 1. The zip's entries are stored (not compressed) and dated 1980-01-01, so one object always
gives the same bytes::

    manifest.json   UTF-8 JSON: {"format": "ndgrad", "version": 1, "byteorder": "little",
                                 "object": <value>, "tensors": [...], "storages": [...]}
    storages/<i>    the raw bytes of storage i, in the manifest's byte order (no header, no padding)

A storage is one block of memory. Every tensor that looks into it (views, detached aliases, ``.data``) is saved as
a window onto it, so after loading those tensors share memory again:

    storages[i] = {"nbytes": int, "device": "cpu" | "cuda:0" | ...}
    tensors[j]  = {"storage": i, "dtype": "float32", "shape": [2, 3], "byte_offset": int,
                   "byte_strides": [12, 4], "requires_grad": bool, "parameter": bool}

``parameter`` marks an ``ndgrad.nn.Parameter``. A value is JSON null, true/false, an integer, a finite float, a
string, a list (a JSON array), or an object tagged with "kind":

    {"kind": "tensor", "index": j}                   tensors[j]; the same Tensor object wherever it occurs
    {"kind": "tuple", "items": [value, ...]}
    {"kind": "dict", "items": [[key, value], ...]}   keys are values too: strings, ints, tuples, ...
    {"kind": "ordered_dict", "items": [...], "metadata": value}   metadata (optional): a state dict's _metadata
    {"kind": "float", "value": "nan" | "inf" | "-inf"}
    {"kind": "complex", "real": value, "imag": value}
    {"kind": "dtype", "name": "float32"}   {"kind": "device", "name": "cuda:0"}   {"kind": "size", "items": [...]}

Tensors are numbered in the order the object first refers to them, storages in the order tensors first use them.
load accepts only what save can write; ndgrad._serialization_format checks every entry, record and value.
"""

import contextlib
import json
import math
import os
import sys
import zipfile
from collections import OrderedDict

import numpy as np

from ndgrad import cuda
from ndgrad._device import device, device_of_array
from ndgrad._dtype import dtype
from ndgrad._serialization_format import (
    FORMAT,
    MANIFEST,
    MAX_DEPTH,
    VERSION,
    byte_range,
    decode,
    invalid_file,
    read_archive,
)
from ndgrad._tensor import Size, Tensor

__all__ = ["save", "load"]

_PICKLE_PROTOCOL_MARK = b"\x80"  # the first byte of every pickle since protocol 2 (and of legacy torch files)
_SCALARS = (bool, int, str)  # exact types: a subclass (an IntEnum, NumPy's float64) would not come back as itself


# ---- save ---------------------------------------------------------------------------------------------------
def save(obj, f):
    """Write ``obj`` (tensors, numbers, strings, None and containers of them) to a path or binary file object
    (see torch.save). The format is this module's, not PyTorch's, and holds no pickle."""
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    writer = _Writer()
    manifest = {"format": FORMAT, "version": VERSION, "byteorder": sys.byteorder, "object": writer.value(obj)}
    manifest["tensors"] = writer.tensors
    manifest["storages"] = [{"nbytes": int(s.nbytes), "device": str(device_of_array(s))} for s in writer.storages]
    with _opened(f, "wb") as stream, zipfile.ZipFile(stream, "w") as archive:
        archive.writestr(zipfile.ZipInfo(MANIFEST), json.dumps(manifest, allow_nan=False))
        for index, storage in enumerate(writer.storages):
            entry = zipfile.ZipInfo(f"storages/{index}")
            entry.file_size = int(storage.nbytes)  # lets zipfile pick zip64 for storages past 2 GiB
            with archive.open(entry, "w") as out:
                out.write(_memory_bytes(storage))


class _Writer:
    """Turns an object tree into manifest values, collecting the tensors and the storages they look into."""

    def __init__(self):
        self.tensors, self.storages = [], []
        self._tensor_index, self._storage_index = {}, {}  # by id()
        self._kept = []  # the tensors seen, alive until the end so that their id()s stay unique
        self._open_containers = set()

    def value(self, obj):
        kind = type(obj)
        if obj is None or kind in _SCALARS:
            return obj
        if kind is float:
            return obj if math.isfinite(obj) else {"kind": "float", "value": repr(obj)}
        if isinstance(obj, Tensor):
            return {"kind": "tensor", "index": self._tensor(obj)}
        if kind is complex:
            return {"kind": "complex", "real": self.value(obj.real), "imag": self.value(obj.imag)}
        if kind is Size:
            return {"kind": "size", "items": list(obj)}
        if kind is dtype:
            return {"kind": "dtype", "name": obj.name}
        if kind is device:
            return {"kind": "device", "name": str(obj)}
        if kind in (list, tuple, dict, OrderedDict):
            return self._container(obj)
        raise TypeError(
            f"ndgrad.save cannot store an object of type '{kind.__module__}.{kind.__qualname__}': it stores "
            "tensors, None, bool, int, float, complex, str, dtypes, devices, and lists, tuples, dicts and "
            "OrderedDicts of these"
        )

    def _container(self, obj):
        if id(obj) in self._open_containers:
            raise ValueError("ndgrad.save cannot store a container that contains itself")
        if len(self._open_containers) >= MAX_DEPTH:  # load reads no deeper
            raise ValueError(f"ndgrad.save cannot store containers nested more than {MAX_DEPTH} deep")
        self._open_containers.add(id(obj))
        try:
            if type(obj) is list:
                return [self.value(item) for item in obj]
            if type(obj) is tuple:
                return {"kind": "tuple", "items": [self.value(item) for item in obj]}
            node = {"kind": "dict" if type(obj) is dict else "ordered_dict"}
            node["items"] = [[self.value(key), self.value(item)] for key, item in obj.items()]
            if hasattr(obj, "_metadata"):  # Module.state_dict() records per-module versions there
                node["metadata"] = self.value(obj._metadata)
            return node
        finally:
            self._open_containers.discard(id(obj))

    def _tensor(self, tensor):
        index = self._tensor_index.get(id(tensor))
        if index is None:
            self._kept.append(tensor)
            index = self._tensor_index[id(tensor)] = len(self.tensors)
            array = tensor._data
            owner, array = _memory_owner(array)
            self.tensors.append({
                "storage": self._storage(owner), "dtype": tensor.dtype.name, "shape": list(array.shape),
                "byte_offset": _address(array) - _address(owner) if array.size else 0,
                "byte_strides": list(array.strides), "requires_grad": tensor.requires_grad,
                "parameter": _is_parameter(tensor),
            })
        return index

    def _storage(self, owner):
        index = self._storage_index.get(id(owner))
        if index is None:
            index = self._storage_index[id(owner)] = len(self.storages)
            self.storages.append(owner)
        return index


def _memory_owner(array):
    """(owner, array): ``owner`` is the outermost contiguous array whose memory holds all of ``array``'s, at a whole
    number of elements before it, found along the ``.base`` links of views (and of the wrappers NumPy's stride
    tricks put between them). Without one, the owner is a contiguous copy, and the copy stands in for ``array``; an
    empty array gets an empty owner."""
    itemsize = array.itemsize
    if any(stride % itemsize for stride in array.strides):  # a file counts strides in whole elements, as torch does
        array = array.copy()
    if not array.size:
        return array.copy(), array
    first = _address(array)
    low, high = byte_range(array.shape, array.strides, itemsize, first)
    owner, link = None, array
    while link is not None:
        if isinstance(link, type(array)) and (link.flags.c_contiguous or link.flags.f_contiguous):
            start = _address(link)
            if start <= low and high <= start + link.nbytes and (first - start) % itemsize == 0:
                owner = link
        link = getattr(link, "base", None)
    if owner is None:
        owner = array = array.copy()
    return owner, array


def _address(array):
    return array.__array_interface__["data"][0] if type(array) is np.ndarray else array.data.ptr


def _memory_bytes(storage):
    """A contiguous array's bytes in memory order (C or Fortran), copied to the host for a CUDA array."""
    flat = storage.reshape(-1, order="A").view(np.uint8)
    return memoryview(flat if type(flat) is np.ndarray else flat.get())


def _is_parameter(tensor):
    from ndgrad import nn

    parameter = getattr(nn, "Parameter", None)
    return parameter is not None and isinstance(tensor, parameter)


@contextlib.contextmanager
def _opened(f, mode):
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as stream:
            yield stream
    else:
        yield f


# ---- load ---------------------------------------------------------------------------------------------------
def load(f, map_location=None, *, weights_only=True):
    """Read what ndgrad.save wrote (see torch.load). ``map_location`` moves tensors: a device or its name, a dict
    from saved to new location names, or ``fn(storage, location)`` given each storage as a uint8 CPU tensor and
    returning it moved, or None to keep the saved location. The file cannot run code, whatever ``weights_only``
    says, so both values load the same; any file that ndgrad.save could not have written raises
    RuntimeError("ndgrad.load: invalid file: ...")."""
    place = _placement(map_location)
    if not isinstance(f, (str, os.PathLike)):
        missing = next((name for name in ("seek", "read") if not hasattr(f, name)), None)
        if missing is not None:
            raise AttributeError(
                f"'{type(f).__name__}' object has no attribute '{missing}'. You can only ndgrad.load from a file "
                "that is seekable. Please pre-load the data into a buffer like io.BytesIO and try to load from it "
                "instead."
            )
    with _opened(f, "rb") as stream:
        start = stream.tell()
        head = stream.read(1)
        length = stream.seek(0, os.SEEK_END) - start
        stream.seek(start)
        if head == _PICKLE_PROTOCOL_MARK:
            raise invalid_file("it holds a pickle (torch.save's legacy format), which ndgrad.load never unpickles")
        contents = read_archive(stream, length)
    storages = [place(storage, saved) for storage, saved in zip(contents.storages, contents.devices)]
    return decode(contents.object, [_build_tensor(record, storages) for record in contents.tensors])


def _placement(map_location):
    """``map_location`` as one function: (host storage, saved device name) -> the storage array where it should
    live, as torch.load reads it."""
    if map_location is None:
        return lambda storage, saved: _moved(storage, device(saved))
    if isinstance(map_location, (str, device)):
        target = device(map_location)
        return lambda storage, saved: _moved(storage, target)
    if isinstance(map_location, dict):
        renames = {str(saved): new for saved, new in map_location.items()}  # torch matches the names as strings
        return lambda storage, saved: _moved(storage, device(renames.get(saved, saved)))
    if not callable(map_location):
        raise TypeError(f"'{type(map_location).__name__}' object is not callable")

    def place(storage, saved):
        result = map_location(Tensor._wrap(storage), saved)
        if result is None:
            return _moved(storage, device(saved))
        if not isinstance(result, Tensor) or result.dtype.name != "uint8" or tuple(result.shape) != storage.shape:
            raise TypeError(
                f"map_location must return None or the storage it was given (a uint8 tensor of {storage.size} "
                f"bytes), possibly moved to another device; it returned {type(result).__name__}"
            )
        return result._data

    return place


def _moved(storage, target):
    if target.type == "cpu":
        return storage
    _check_gpu(target)
    return Tensor._wrap(storage).to(target)._data


def _check_gpu(target):
    """torch.load's checks before it restores a storage on a GPU, with its messages in ndgrad's names."""
    if not cuda.is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but ndgrad.cuda.is_available() is False. If you are "
            "running on a CPU-only machine, please use ndgrad.load with map_location=ndgrad.device('cpu') to map "
            "your storages to the CPU."
        )
    index, count = (cuda.current_device() if target.index is None else target.index), cuda.device_count()
    if index >= count:
        raise RuntimeError(
            f"Attempting to deserialize object on CUDA device {index} but ndgrad.cuda.device_count() is {count}. "
            "Please use ndgrad.load with map_location to map your storages to an existing device."
        )


def _build_tensor(record, storages):
    """The checked record's window onto its (placed) storage, as a Tensor or Parameter; a view, never a copy, so
    that a window that reads its storage many times (an expanded tensor) costs no more memory than when saved."""
    storage, shape, strides = storages[record.storage], record.shape, record.byte_strides
    if type(storage) is np.ndarray:
        array = np.ndarray(shape, record.dtype.numpy, buffer=storage, offset=record.byte_offset, strides=strides)
        # NOTE: a broadcast window (stride 0) reads one element many times; ndgrad keeps such arrays read-only.
        array.flags.writeable = not any(stride == 0 and size > 1 for size, stride in zip(shape, strides))
    else:  # a CuPy storage
        array = type(storage)(shape, record.dtype.numpy, memptr=storage.data + record.byte_offset, strides=strides)
    tensor = Tensor._from_parts(array, record.requires_grad, None, 0, None)
    if record.parameter:
        from ndgrad.nn import Parameter

        tensor = Parameter(tensor, requires_grad=record.requires_grad)
    return tensor
