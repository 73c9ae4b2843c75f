"""ndgrad.save's file format as ndgrad.load reads it: the zip's entries, the manifest's records and the object tree,
each checked before use, so that load accepts exactly the files save can write and refuses every other one with
RuntimeError("ndgrad.load: invalid file: <problem>") (docs/serialization.md lists the rules)."""

import json
import math
import re
import reprlib
import sys
import zipfile
from collections import Counter, OrderedDict, namedtuple

import numpy as np

from ndgrad._device import device
from ndgrad._dtype import ALL_DTYPES
from ndgrad._tensor import Size

FORMAT, VERSION, MANIFEST = "ndgrad", 1, "manifest.json"
MAX_DEPTH = 100  # containers inside containers; save refuses deeper objects, so everything it writes loads
MAX_DIMS = 64  # NumPy's limit
MAX_BYTES = 2**63 - 1  # the largest size or offset in bytes that NumPy's intp (and torch's int64) can hold
NON_FINITE = ("nan", "inf", "-inf")  # repr() of each non-finite float, as saved
DTYPES = {d.name: d for d in ALL_DTYPES}
_STORAGE_DEVICE = re.compile(r"cpu|cuda:(0|[1-9][0-9]{0,3})")  # as str(device) names a storage's device
_MANIFEST_FIELDS = frozenset({"format", "version", "byteorder", "object", "tensors", "storages"})
_STORAGE_FIELDS = frozenset({"nbytes", "device"})
_TENSOR_FIELDS = frozenset({"storage", "dtype", "shape", "byte_offset", "byte_strides", "requires_grad", "parameter"})

Contents = namedtuple("Contents", "object tensors devices storages")  # checked, and storages as host uint8 arrays
TensorRecord = namedtuple("TensorRecord", "storage dtype shape byte_offset byte_strides requires_grad parameter")


class _Problem(Exception):
    """What is wrong with the file; the two entry points below turn it into the contract's RuntimeError."""


def invalid_file(problem):
    return RuntimeError(f"ndgrad.load: invalid file: {problem}")


def _expect(condition, problem, *shown):
    """Raise ``problem`` unless ``condition``, with the file's values ``shown`` after it (formatted only then)."""
    if not condition:
        raise _Problem(" ".join([problem, *map(_shown, shown)]))


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxlong = 3, 4, 4, 40, 40


def _shown(value):
    """A file's value in a message, cut short (and not recursing deep): the value may be as large as the file."""
    text = _SHORT.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ---- the archive and the manifest's records ------------------------------------------------------------------
def read_archive(stream, length):
    """The checked Contents of the zip archive in ``stream`` (``length`` bytes long), or the contract's error."""
    # NOTE: zipfile and json report damage with many exception types (BadZipFile, struct errors, its own
    # RuntimeError for encrypted entries, UnicodeDecodeError, RecursionError, ...): each one becomes ours here.
    try:
        with zipfile.ZipFile(stream) as archive:
            return _read(archive, length)
    except _Problem as problem:
        raise invalid_file(problem) from None
    except zipfile.BadZipFile as error:
        raise invalid_file(f"not a zip archive, or a damaged or truncated one ({error})") from error
    except Exception as error:  # noqa: BLE001 - see the NOTE above
        raise invalid_file(f"damaged zip archive or manifest ({type(error).__name__}: {error})") from error


def _read(archive, length):
    entries = archive.infolist()
    names = [entry.filename for entry in entries]
    if MANIFEST not in names:
        hint = " (a torch.save file, which holds a pickle)" if any(n.endswith("data.pkl") for n in names) else ""
        raise _Problem(f"no {MANIFEST} in the zip archive: not written by ndgrad.save{hint}")
    repeated = next((name for name, count in Counter(names).items() if count > 1), None)
    _expect(repeated is None, f"the zip archive holds {_shown(repeated)} twice")
    expected = {MANIFEST, *(f"storages/{index}" for index in range(len(names) - 1))}
    unexpected = next((name for name in names if name not in expected), None)
    _expect(unexpected is None, f"an entry ndgrad.save does not write: {_shown(unexpected)}")
    for entry in entries:
        stored = entry.compress_type == zipfile.ZIP_STORED and entry.compress_size == entry.file_size
        _expect(stored, f"{entry.filename} is not stored as ndgrad.save stores it")
    # every byte of an entry lies in the file once: entries that overlap could claim far more memory than the file
    _expect(sum(entry.file_size for entry in entries) <= length, "the zip's entries claim more bytes than the file")
    manifest = json.loads(
        archive.read(MANIFEST).decode("utf-8"),
        parse_constant=_no_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys,
    )
    sizes = [archive.getinfo(f"storages/{index}").file_size for index in range(len(names) - 1)]
    tensors, devices = _check_manifest(manifest, sizes)
    storages = [np.frombuffer(archive.read(f"storages/{i}"), np.uint8).copy() for i in range(len(sizes))]
    return Contents(manifest["object"], tensors, devices, storages)


def _no_constant(name):
    raise _Problem(f"{MANIFEST} is not strict JSON ({name})")


def _finite_float(text):
    number = float(text)
    _expect(math.isfinite(number), f"{MANIFEST} is not strict JSON: a number too large for a float,", text)
    return number


def _unique_keys(pairs):
    record = dict(pairs)
    _expect(len(record) == len(pairs), f"a JSON object in {MANIFEST} repeats a key")
    return record


def _expect_fields(record, fields, where):
    _expect(type(record) is dict, f"{where} is not an object")
    missing, unknown = sorted(fields - record.keys()), sorted(record.keys() - fields)
    _expect(not missing, f"{where} lacks", missing)
    _expect(not unknown, f"{where} has unknown fields", unknown)


def _check_manifest(manifest, sizes):
    """(tensor records, storage device names): the manifest's records checked one by one, then together."""
    _expect(type(manifest) is dict and manifest.get("format") == FORMAT, f"{MANIFEST} is not an ndgrad manifest")
    version = manifest.get("version")
    _expect(type(version) is int and version == VERSION, f"format version {_shown(version)}; this ndgrad reads 1")
    byteorder = manifest.get("byteorder")
    _expect(byteorder == sys.byteorder,
            f"saved with byte order {_shown(byteorder)}, this machine is {sys.byteorder}-endian")
    _expect_fields(manifest, _MANIFEST_FIELDS, MANIFEST)
    storages, tensors = manifest["storages"], manifest["tensors"]
    _expect(type(storages) is list and type(tensors) is list, "the storages or the tensors are not a list")
    _expect(len(storages) == len(sizes), f"the manifest lists {len(storages)} storages, the zip holds {len(sizes)}")
    for index, (record, size) in enumerate(zip(storages, sizes)):
        _expect_fields(record, _STORAGE_FIELDS, f"storage {index}")
        nbytes, name = record["nbytes"], record["device"]
        _expect(type(nbytes) is int and nbytes == size, f"storages/{index} holds {size} bytes, the manifest says",
                nbytes)
        _expect(type(name) is str and _STORAGE_DEVICE.fullmatch(name), f"storage {index}: invalid device", name)
    records = [_check_tensor(record, sizes, f"tensor {index}") for index, record in enumerate(tensors)]
    _check_storage_use(records, sizes)
    return records, [record["device"] for record in storages]


def _check_tensor(record, sizes, where):
    """The record as a TensorRecord, after checking that it describes a window inside its storage."""
    _expect_fields(record, _TENSOR_FIELDS, where)
    name, shape, strides, offset = record["dtype"], record["shape"], record["byte_strides"], record["byte_offset"]
    dtype = DTYPES.get(name) if type(name) is str else None
    _expect(dtype is not None, f"{where}: unknown dtype", name)
    _expect(_is_int_list(shape, 0, math.inf) and len(shape) <= MAX_DIMS, f"{where}: invalid shape", shape)
    _expect(_is_int_list(strides, -MAX_BYTES, MAX_BYTES) and len(strides) == len(shape), f"{where}: invalid strides",
            strides)
    _expect(type(offset) is int and 0 <= offset <= MAX_BYTES, f"{where}: invalid byte offset", offset)
    storage = record["storage"]
    _expect(type(storage) is int and 0 <= storage < len(sizes), f"{where}: no storage", storage)
    flags = record["requires_grad"], record["parameter"]
    _expect(all(type(flag) is bool for flag in flags), f"{where}: invalid flags")
    _expect(not flags[0] or dtype._category >= 2, f"{where}: an integer tensor cannot require grad")
    itemsize = dtype.itemsize
    _expect(offset % itemsize == 0 and all(s % itemsize == 0 for s in strides),
            f"{where}: its byte offset and strides must be multiples of its element size, {itemsize}")
    _expect(max(shape, default=0) <= MAX_BYTES and math.prod(shape) * itemsize <= MAX_BYTES,
            f"{where}: larger than a tensor of {itemsize}-byte elements can be (2**63 - 1 bytes, and as many "
            "elements along a dim): shape", shape)
    if all(shape):  # the bytes its elements reach, as safetensors checks them
        low, high = byte_range(shape, strides, itemsize, offset)
        _expect(0 <= low and high <= sizes[storage], f"{where} reaches outside its storage")
    else:
        _expect(offset == 0 and sizes[storage] == 0, f"{where}: an empty tensor is saved with an empty storage")
    return TensorRecord(storage, dtype, tuple(shape), offset, tuple(strides), *flags)


def byte_range(shape, strides, itemsize, start):
    """[low, high): the bytes a non-empty array whose first element is at ``start`` reaches (a negative stride
    reaches below it). Python's ints do not overflow, so a file's numbers cannot wrap around."""
    reach = [(size - 1) * stride for size, stride in zip(shape, strides)]
    return start + sum(r for r in reach if r < 0), start + sum(r for r in reach if r > 0) + itemsize


def _is_int_list(values, low, high):
    return type(values) is list and all(type(v) is int and low <= v <= high for v in values)


def _check_storage_use(records, sizes):
    """As save numbers them: storages in the order tensors first use them, each one used, an empty one by one
    tensor only."""
    users, used = [0] * len(sizes), 0
    for index, record in enumerate(records):
        _expect(record.storage <= used, f"tensor {index} uses storage {record.storage} before storage {used}")
        if record.storage == used:
            used += 1
        users[record.storage] += 1
    _expect(used == len(sizes), f"storage {used} is not used by any tensor")
    shared = next((i for i, record in enumerate(records) if users[record.storage] > 1 and not sizes[record.storage]),
                  None)
    _expect(shared is None, f"tensor {shared}: an empty tensor's storage is its own")


# ---- the object tree ------------------------------------------------------------------------------------------
def decode(node, tensors):
    """The object the manifest's tree describes, with ``tensors`` for its tensor records; each node is checked."""
    reader = _Reader(tensors)
    try:
        result = reader.value(node, 0)
        _expect(reader.used == len(tensors), f"tensor {reader.used} is not used by the object")
    except _Problem as problem:
        raise invalid_file(f"a malformed value in {MANIFEST} ({problem})") from None
    return result


class _Reader:
    """Manifest values back to objects, checked as save writes them: tensors are numbered in the order the walk
    (the same as save's) first meets them, so the same index is the same object and every tensor is used."""

    def __init__(self, tensors):
        self.tensors, self.used = tensors, 0
        self._kinds = {  # kind: (its other fields, how to read it at a depth)
            "tensor": ({"index"}, self._tensor),
            "tuple": ({"items"}, lambda node, depth: tuple(self._items(node["items"], depth))),
            "dict": ({"items"}, lambda node, depth: self._mapping(dict, node, depth)),
            "ordered_dict": ({"items"}, lambda node, depth: self._mapping(OrderedDict, node, depth)),
            "float": ({"value"}, self._non_finite),
            "complex": ({"real", "imag"}, self._complex),
            "dtype": ({"name"}, self._dtype),
            "device": ({"name"}, self._device),
            "size": ({"items"}, self._size),
        }

    def value(self, node, depth):
        """``depth``: how many containers hold the node."""
        if node is None or type(node) in (bool, int, float, str):  # a float is finite: the parser refused others
            return node
        if type(node) is list:
            return self._items(node, depth)
        kind = node.get("kind") if type(node) is dict else None
        _expect(type(kind) is str and kind in self._kinds, "unknown value", node)
        fields, read = self._kinds[kind]
        optional = {"metadata"} if kind == "ordered_dict" else set()
        _expect(fields <= node.keys() - {"kind"} <= fields | optional, "unknown value", node)
        return read(node, depth)

    def _items(self, items, depth):
        return [self.value(item, depth + 1) for item in _contained(items, depth)]

    def _tensor(self, node, depth):
        index = node["index"]
        _expect(type(index) is int and 0 <= index < len(self.tensors), "no tensor", index)
        _expect(index <= self.used, f"tensor {index} comes before tensor {self.used}")
        if index == self.used:
            self.used += 1
        return self.tensors[index]

    def _mapping(self, kind, node, depth):
        pairs = []
        for pair in _contained(node["items"], depth):
            _expect(type(pair) is list and len(pair) == 2, "dict items must be [key, value] pairs")
            key = self.value(pair[0], depth + 1)
            _expect(_hashable(key), "an unhashable dict key", pair[0])
            pairs.append((key, self.value(pair[1], depth + 1)))
        result = kind(pairs)
        _expect(len(result) == len(pairs), "a dict with a repeated key")
        if "metadata" in node:  # Module.state_dict()'s per-module versions
            result._metadata = self.value(node["metadata"], depth + 1)
        return result

    def _non_finite(self, node, depth):
        _expect(node["value"] in NON_FINITE, "not a non-finite float:", node["value"])
        return float(node["value"])  # a new object each time, as each nan was

    def _complex(self, node, depth):
        return complex(self._float(node["real"]), self._float(node["imag"]))

    def _float(self, node):
        """A complex number's part: a float, or a non-finite one as save writes it."""
        if type(node) is float:
            return node
        _expect(type(node) is dict and node.keys() == {"kind", "value"} and node["kind"] == "float",
                "complex parts must be floats")
        return self._non_finite(node, None)

    def _dtype(self, node, depth):
        name = node["name"]
        _expect(type(name) is str and name in DTYPES, "unknown dtype", name)
        return DTYPES[name]

    def _device(self, node, depth):
        name = node["name"]
        try:
            found = device(name) if type(name) is str else None
        except (RuntimeError, ValueError):  # ValueError: an index of more digits than int() reads
            found = None
        _expect(found is not None and str(found) == name, "invalid device", name)
        return found

    def _size(self, node, depth):
        items = node["items"]
        _expect(type(items) is list and all(type(item) is int and -(2**63) <= item < 2**63 for item in items),
                "a size holds int64s")
        return Size(items)


def _contained(items, depth):
    """The items of a container at ``depth``, checked."""
    _expect(depth < MAX_DEPTH, f"containers nested more than {MAX_DEPTH} deep")
    _expect(type(items) is list, "items must be a list")
    return items


def _hashable(key):
    try:
        hash(key)
    except TypeError:
        return False
    return True
