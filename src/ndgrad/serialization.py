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
"""

import contextlib
import json
import math
import os
import sys
import zipfile
from collections import OrderedDict

import numpy as np

from ndgrad._device import device, device_of_array
from ndgrad._dtype import _BY_NAME, dtype
from ndgrad._tensor import Size, Tensor

__all__ = ["save", "load"]

FORMAT, VERSION = "ndgrad", 1
MANIFEST = "manifest.json"
_PICKLE_PROTOCOL_MARK = b"\x80"  # the first byte of every pickle since protocol 2 (and of legacy torch files)
_NON_FINITE = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}  # repr() of each, as saved
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
    """(owner, array): ``owner`` is the outermost contiguous array whose memory holds all of ``array``'s, found
    along the ``.base`` links of views (and of the wrappers NumPy's stride tricks put between them). Without one,
    the owner is a contiguous copy, and the copy stands in for ``array``; an empty array gets an empty owner."""
    if not array.size:
        return array.copy(), array
    low, high = _byte_range(array.shape, array.strides, array.itemsize, _address(array))
    owner, link = None, array
    while link is not None:
        if isinstance(link, type(array)) and (link.flags.c_contiguous or link.flags.f_contiguous):
            start = _address(link)
            if start <= low and high <= start + link.nbytes:
                owner = link
        link = getattr(link, "base", None)
    if owner is None:
        owner = array = array.copy()
    return owner, array


def _byte_range(shape, strides, itemsize, start):
    """[low, high): the bytes a non-empty array whose first element is at ``start`` reaches (a negative stride
    reaches below it)."""
    reach = [(size - 1) * stride for size, stride in zip(shape, strides)]
    return start + sum(r for r in reach if r < 0), start + sum(r for r in reach if r > 0) + itemsize


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
    says, so both values load the same."""
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
        manifest, storages = _read_archive(stream)
    storages = [place(storage, record["device"]) for storage, record in zip(storages, manifest["storages"])]
    tensors = [_build_tensor(record, storages) for record in manifest["tensors"]]
    try:
        return _Reader(tensors).value(manifest["object"])
    except (KeyError, TypeError, ValueError, IndexError, RecursionError) as error:
        raise _corrupt(f"a malformed value in {MANIFEST} ({type(error).__name__}: {error})") from error


def _corrupt(problem):
    return RuntimeError(f"ndgrad.load: invalid file: {problem}")


def _read_archive(stream):
    """The checked manifest and each storage's bytes as a host uint8 array; RuntimeError for anything else."""
    start = stream.tell()
    head = stream.read(1)
    length = stream.seek(0, os.SEEK_END) - start
    stream.seek(start)
    if head == _PICKLE_PROTOCOL_MARK:
        raise _corrupt("it holds a pickle (torch.save's legacy format), which ndgrad.load never unpickles")
    # NOTE: zipfile and json report damage with many exception types (BadZipFile, struct errors, KeyError for a
    # missing entry, UnicodeDecodeError, ...): at this boundary each one becomes a RuntimeError naming the problem.
    try:
        with zipfile.ZipFile(stream) as archive:
            names = archive.namelist()
            if MANIFEST not in names:
                from_torch = any(name.endswith("data.pkl") for name in names)
                hint = " (a torch.save file, which holds a pickle)" if from_torch else ""
                raise _corrupt(f"no {MANIFEST} in the zip archive: not written by ndgrad.save{hint}")
            manifest = _check_manifest(json.loads(_entry(archive, MANIFEST, length), parse_constant=_no_constant))
            storages = [
                np.frombuffer(_entry(archive, f"storages/{index}", length, record["nbytes"]), np.uint8).copy()
                for index, record in enumerate(manifest["storages"])
            ]
    except (NotImplementedError, RecursionError) as error:  # RuntimeErrors, but zipfile's or json's, not ours
        raise _corrupt(f"damaged zip archive or manifest ({type(error).__name__}: {error})") from error
    except RuntimeError:
        raise
    except zipfile.BadZipFile as error:
        raise _corrupt(f"not a zip archive, or a damaged or truncated one ({error})") from error
    except Exception as error:  # noqa: BLE001 - see the NOTE above
        raise _corrupt(f"damaged zip archive or manifest ({type(error).__name__}: {error})") from error
    return manifest, storages


def _entry(archive, name, length, nbytes=None):
    """An entry's bytes, after checking that it is stored as this module writes it and fits in the file."""
    info = archive.getinfo(name)
    if info.compress_type != zipfile.ZIP_STORED or info.file_size > length or info.file_size != info.compress_size:
        raise _corrupt(f"{name} is not stored as ndgrad.save stores it")
    if nbytes is not None and info.file_size != nbytes:
        raise _corrupt(f"{name} holds {info.file_size} bytes, the manifest says {nbytes}")
    return archive.read(name)


def _no_constant(name):
    raise _corrupt(f"{MANIFEST} is not strict JSON ({name})")


def _check_manifest(manifest):
    _expect(type(manifest) is dict and manifest.get("format") == FORMAT, f"{MANIFEST} is not an ndgrad manifest")
    _expect(manifest.get("version") == VERSION, f"format version {manifest.get('version')!r}; this ndgrad reads 1")
    _expect(
        manifest.get("byteorder") == sys.byteorder,
        f"saved with byte order {manifest.get('byteorder')!r}, this machine is {sys.byteorder}-endian",
    )
    storages, tensors = manifest.get("storages"), manifest.get("tensors")
    _expect(type(storages) is list and type(tensors) is list and "object" in manifest, "incomplete manifest")
    for index, record in enumerate(storages):
        where = f"storage {index}"
        _expect(type(record) is dict and _is_count(record.get("nbytes")), f"{where}: no valid nbytes")
        record["device"] = _device_named(record.get("device"), where)
    for index, record in enumerate(tensors):
        _check_tensor(record, storages, f"tensor {index}")
    return manifest


def _check_tensor(record, storages, where):
    """The record describes a window that lies inside its storage, of a known dtype."""
    _expect(type(record) is dict, f"{where} is not an object")
    dtype_ = _BY_NAME.get(record.get("dtype")) if type(record.get("dtype")) is str else None
    _expect(dtype_ is not None, f"{where}: unknown dtype {record.get('dtype')!r}")
    shape, strides, offset = record.get("shape"), record.get("byte_strides"), record.get("byte_offset")
    _expect(type(shape) is list and all(_is_count(s) for s in shape), f"{where}: invalid shape")
    _expect(type(strides) is list and len(strides) == len(shape), f"{where}: invalid strides")
    _expect(all(type(s) is int for s in strides) and type(offset) is int, f"{where}: invalid strides or offset")
    storage = record.get("storage")
    _expect(type(storage) is int and 0 <= storage < len(storages), f"{where}: no storage {storage!r}")
    _expect(record.get("requires_grad") in (True, False) and record.get("parameter") in (True, False),
            f"{where}: invalid flags")
    _expect(not record["requires_grad"] or dtype_._category >= 2, f"{where}: an integer tensor cannot require grad")
    if all(shape):
        low, high = _byte_range(shape, strides, dtype_.itemsize, offset)
        _expect(0 <= low and high <= storages[storage]["nbytes"], f"{where} reaches outside its storage")
    record["dtype"] = dtype_


def _expect(condition, problem):
    if not condition:
        raise _corrupt(problem)


def _is_count(value):
    return type(value) is int and value >= 0


def _device_named(name, where):
    try:
        return device(name)
    except (TypeError, ValueError, RuntimeError) as error:
        raise _corrupt(f"{where}: invalid device {name!r}") from error


def _placement(map_location):
    """``map_location`` as one function: (host storage, saved device) -> the storage array where it should live."""
    if map_location is None:
        return _moved
    if isinstance(map_location, (str, device)):
        target = device(map_location)
        return lambda storage, saved: _moved(storage, target)
    if isinstance(map_location, dict):
        renames = {str(device(saved)): device(new) for saved, new in map_location.items()}
        return lambda storage, saved: _moved(storage, renames.get(str(saved), saved))
    if not callable(map_location):
        raise TypeError(f"'{type(map_location).__name__}' object is not callable")

    def place(storage, saved):
        result = map_location(Tensor._wrap(storage), str(saved))
        if result is None:
            return _moved(storage, saved)
        if not isinstance(result, Tensor) or result.dtype.name != "uint8" or tuple(result.shape) != storage.shape:
            raise TypeError(
                f"map_location must return None or the storage it was given (a uint8 tensor of {storage.size} "
                f"bytes), possibly moved to another device; it returned {type(result).__name__}"
            )
        return result._data

    return place


def _moved(storage, target):
    return storage if target.type == "cpu" else Tensor._wrap(storage).to(target)._data


def _build_tensor(record, storages):
    """The checked record's window onto its (placed) storage, as a Tensor or Parameter."""
    storage, shape, strides = storages[record["storage"]], tuple(record["shape"]), tuple(record["byte_strides"])
    numpy_dtype, offset = record["dtype"].numpy, record["byte_offset"] if all(shape) else 0
    if type(storage) is np.ndarray:
        array = np.ndarray(shape, numpy_dtype, buffer=storage, offset=offset, strides=strides)
        # NOTE: a broadcast window (stride 0) reads one element many times; ndgrad keeps such arrays read-only.
        array.flags.writeable = not any(stride == 0 and size > 1 for size, stride in zip(shape, strides))
    else:  # a CuPy storage
        array = type(storage)(shape, numpy_dtype, memptr=storage.data + offset, strides=strides)
    tensor = Tensor._from_parts(array, record["requires_grad"], None, 0, None)
    if record["parameter"]:
        from ndgrad.nn import Parameter

        tensor = Parameter(tensor, requires_grad=record["requires_grad"])
    return tensor


class _Reader:
    """Manifest values back to objects; the tensors are already built, so the same index is the same object."""

    def __init__(self, tensors):
        self.tensors = tensors
        self._kinds = {
            "tensor": lambda node: self.tensors[_index(node["index"])],
            "tuple": lambda node: tuple(self._items(node)),
            "dict": lambda node: dict(self._pairs(node)),
            "ordered_dict": self._ordered_dict,
            "float": lambda node: _NON_FINITE[node["value"]],
            "complex": lambda node: complex(self._number(node["real"]), self._number(node["imag"])),
            "dtype": lambda node: _BY_NAME[node["name"]],
            "device": lambda node: device(node["name"]),
            "size": lambda node: Size(_index(item) for item in node["items"]),
        }

    def value(self, node):
        if node is None or type(node) in (bool, int, float, str):
            return node
        if type(node) is list:
            return [self.value(item) for item in node]
        decode = self._kinds.get(node.get("kind")) if type(node) is dict else None
        if decode is None:
            raise ValueError(f"unknown value {str(node)[:80]}")
        return decode(node)

    def _items(self, node):
        if type(node["items"]) is not list:
            raise TypeError("items must be a list")
        return [self.value(item) for item in node["items"]]

    def _pairs(self, node):
        pairs = self._items(node)
        if not all(type(pair) is list and len(pair) == 2 for pair in pairs):
            raise ValueError("dict items must be [key, value] pairs")
        return pairs

    def _ordered_dict(self, node):
        result = OrderedDict(self._pairs(node))
        if "metadata" in node:
            result._metadata = self.value(node["metadata"])
        return result

    def _number(self, node):
        number = self.value(node)
        if type(number) not in (int, float):
            raise TypeError("complex parts must be numbers")
        return number


def _index(value):
    if type(value) is not int or value < 0:
        raise ValueError(f"invalid index {value!r}")
    return value
