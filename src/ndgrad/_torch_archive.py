"""The containers torch.save writes, read and written record by record: its zip archive (the default since
PyTorch 1.6) and its legacy format (a run of pickles followed by the storages' bytes).

The zip archive, every entry stored uncompressed under one folder named after the file::

    <name>/data.pkl              the object, pickled (protocol 2); each storage is a persistent id
                                 ("storage", <storage type>, "<key>", "<location>", <numel>)
    <name>/.format_version       "1"
    <name>/.storage_alignment    "64": every data record starts at a multiple of 64 bytes into the archive
    <name>/byteorder             "little" or "big"
    <name>/data/<key>            a storage's raw bytes
    <name>/version               "3\\n"

The legacy file: pickles of a magic number, the protocol version (1001) and the machine's byte order and type
sizes; the object's pickle (persistent ids carry a sixth field, a view of another storage or None); the list of
storage keys; then, for each key in that order, an 8-byte little-endian element count and the bytes."""

import pickle
import reprlib
import struct
import sys
import zipfile
from collections import Counter

import numpy as np

from ndgrad._torch_objects import LoadedStorage, StorageType

__all__ = ["ZIP_MAGIC", "ZipReader", "write_zip", "write_legacy", "read_legacy_storages", "invalid_file"]

ALIGNMENT = 64
ZIP_MAGIC = b"PK\x03\x04"  # how a zip archive (its first local header) begins
LEGACY_MAGIC, LEGACY_PROTOCOL = 0x1950A86A20F9469CFC6C, 1001
_LEGACY_SYSTEM = {"protocol_version": LEGACY_PROTOCOL, "little_endian": sys.byteorder == "little",
                  "type_sizes": {"short": 2, "int": 4, "long": 4}}
_PADDING_FIELD = 0x4246  # the zip extra field that pads a record's local header to the alignment
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # a zip local file header: 30 bytes, then name and extra field

def invalid_file(problem):
    return RuntimeError(f"ndgrad.load: invalid file: {problem}")


# ---- the zip archive -----------------------------------------------------------------------------------------
def write_zip(stream, name, pickled, storages, *, byteorder_record=True):
    """Writes torch's zip archive of ``pickled`` (the object's pickle) and ``storages`` (contiguous arrays, their
    index their key) to the binary ``stream``."""
    start = stream.tell()
    with zipfile.ZipFile(stream, "w") as archive:
        records = [("data.pkl", pickled), (".format_version", b"1"), (".storage_alignment", str(ALIGNMENT).encode())]
        if byteorder_record:
            records.append(("byteorder", sys.byteorder.encode()))
        for record, data in records:
            _write_record(archive, f"{name}/{record}", data, start)
        for key, array in enumerate(storages):
            _write_record(archive, f"{name}/data/{key}", memory_bytes(array), start)
        _write_record(archive, f"{name}/version", b"3\n", start)


def _write_record(archive, name, data, start):
    """One stored entry whose bytes begin at a multiple of ALIGNMENT into the archive, padded in the extra field
    of its local header (what lets torch map a storage straight from the file with mmap=True)."""
    entry = zipfile.ZipInfo(name)  # dated 1980-01-01: one object always gives the same bytes
    size = memoryview(data).nbytes
    entry.file_size = size  # lets zipfile choose zip64 for records past 2 GiB, which adds 20 bytes to the header
    zip64 = 20 if size * 1.05 > zipfile.ZIP64_LIMIT else 0
    header_end = archive.fp.tell() - start + _LOCAL_HEADER.size + len(name.encode()) + 4 + zip64
    entry.extra = struct.pack("<HH", _PADDING_FIELD, -header_end % ALIGNMENT) + b"Z" * (-header_end % ALIGNMENT)
    with archive.open(entry, "w") as out:
        out.write(data)


class ZipReader:
    """The records of a torch zip archive, each checked before use; any problem raises the invalid-file error."""

    def __init__(self, stream, length, mmap_path=None):
        try:
            self.archive = zipfile.ZipFile(stream)
            entries = self.archive.infolist()
        except Exception as error:  # noqa: BLE001 - zipfile reports damage with many types (NotImplementedError too)
            raise invalid_file(f"not a zip archive, or a damaged or truncated one ({error})") from None
        names = [entry.filename for entry in entries]
        if not names:
            raise invalid_file("an empty zip archive")
        self.prefix = names[0].split("/")[0] + "/"
        outside = next((n for n in names if not n.startswith(self.prefix)), None)
        if outside is not None:
            raise invalid_file(f"the record {outside!r} is outside the archive's folder {self.prefix!r}")
        repeated = next((n for n, count in Counter(names).items() if count > 1), None)
        if repeated is not None:
            raise invalid_file(f"the zip archive holds {repeated!r} twice")
        # every byte of a record lies in the file once: records that overlap could claim more memory than it has
        if sum(entry.file_size for entry in entries) > length:
            raise invalid_file("the zip's records claim more bytes than the file holds")
        self.entries = {entry.filename[len(self.prefix):]: entry for entry in entries}
        self.stream, self.mmap_path, self.length = stream, mmap_path, length
        if "data.pkl" not in self.entries:
            hint = " (a manifest.json: a file of an earlier ndgrad's own format)" if "manifest.json" in names else ""
            raise invalid_file(f"no data.pkl in the zip archive{hint}")
        byteorder = self.entries.get("byteorder")
        if byteorder is not None and self.read("byteorder") != sys.byteorder.encode():
            raise invalid_file(f"saved in another byte order than this machine's ({sys.byteorder}-endian)")

    def read(self, record):
        try:
            return self.archive.read(self.entries[record])
        except Exception as error:  # noqa: BLE001 - zipfile reports damage with many types (CRC, zlib, struct)
            raise invalid_file(f"the record {record!r} is damaged ({type(error).__name__}: {error})") from None

    def storage(self, key, nbytes):
        """A storage's bytes as a writable 1-D uint8 array: a copy-on-write map of the file with mmap."""
        entry = self.entries.get(f"data/{key}") if type(key) is str else None
        if entry is None:
            raise invalid_file(f"no record data/{key} for a storage the pickle refers to")
        if entry.file_size != nbytes:
            raise invalid_file(f"the record data/{key} holds {entry.file_size} bytes, its storage {nbytes}")
        if entry.compress_type != zipfile.ZIP_STORED:
            raise invalid_file(f"the record data/{key} is compressed; torch.save stores storages uncompressed")
        if self.mmap_path is not None and nbytes:
            offset = self._data_offset(entry)
            if offset + nbytes > self.length:
                raise invalid_file(f"the record data/{key} reaches past the end of the file")
            mapped = np.memmap(self.mmap_path, np.uint8, "c", offset, (nbytes,))
            return mapped.view(np.ndarray)  # a plain array over the mapping, as ndgrad's tensors hold
        array = np.empty(nbytes, np.uint8)
        try:
            with self.archive.open(entry) as source:
                filled = source.readinto(memoryview(array))
        except Exception as error:  # noqa: BLE001 - as in read()
            raise invalid_file(f"the record data/{key} is damaged ({type(error).__name__}: {error})") from None
        if filled != nbytes:
            raise invalid_file(f"the record data/{key} is truncated")
        return array

    def _data_offset(self, entry):
        self.stream.seek(entry.header_offset)
        header = self.stream.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != ZIP_MAGIC:
            raise invalid_file(f"the local header of {entry.filename!r} is damaged")
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        return entry.header_offset + _LOCAL_HEADER.size + name_length + extra_length


# ---- the legacy format ---------------------------------------------------------------------------------------
def write_legacy(stream, pickled, storages):
    """Writes torch's legacy format (``_use_new_zipfile_serialization=False``): ``pickled`` is the object's pickle
    whose persistent ids name the ``storages`` (ndgrad._torch_pickler.Storages) by their index."""
    for header in (LEGACY_MAGIC, LEGACY_PROTOCOL, _LEGACY_SYSTEM):
        stream.write(pickle.dumps(header, protocol=2))
    stream.write(pickled)
    stream.write(pickle.dumps([str(key) for key in range(len(storages.arrays))], protocol=2))
    for key, array in enumerate(storages.arrays):
        stream.write(struct.pack("<q", storages.numel(key)))
        stream.write(memory_bytes(array))


def memory_bytes(array):
    """A contiguous array's bytes in memory order (C or Fortran), copied to the host for a CUDA array."""
    flat = array.reshape(-1, order="A").view(np.uint8)
    return memoryview(flat if isinstance(flat, np.ndarray) else flat.get())


def read_legacy_storages(stream, unpickle):
    """(position of the object's pickle, {key: 1-D uint8 array}) of a legacy file in ``stream`` (an io.BytesIO
    of the whole file). ``unpickle(persistent_load)`` reads one pickle at the stream's position. The object's
    pickle is read once here to learn each storage's size (its element count and type), before the bytes that
    follow it, and again by the caller once the storages have their bytes and their places."""
    if unpickle(_no_storages) != LEGACY_MAGIC:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol = unpickle(_no_storages)
    if protocol != LEGACY_PROTOCOL:
        raise RuntimeError(f"Invalid protocol version: {protocol}")
    system = unpickle(_no_storages)
    if type(system) is not dict or system.get("little_endian") is not (sys.byteorder == "little"):
        raise invalid_file(f"saved in another byte order than this machine's ({sys.byteorder}-endian)")
    start, storages, claims, file_size = stream.tell(), {}, {}, len(stream.getbuffer())
    claimed = 0  # bytes, of all the storages allocated so far

    def allocate(pid):
        nonlocal claimed
        key, itemsize, numel = legacy_storage_id(pid)
        if key not in storages:
            claimed += numel * itemsize
            if claimed > file_size:
                raise invalid_file("its storages claim more bytes than the file holds")
            storages[key], claims[key] = np.zeros(numel * itemsize, np.uint8), (numel, pid[1].dtype)
        elif claims[key][0] != numel:
            raise invalid_file(f"storage {key!r} is given two sizes")
        elif claims[key][1] is not pid[1].dtype:
            raise pickle.UnpicklingError(f"the storage {key!r} is used as two different types")
        return LoadedStorage(storages[key], pid[1].dtype, pid[3])

    unpickle(allocate)
    keys = unpickle(_no_storages)
    if type(keys) is not list or not all(type(key) is str for key in keys) or sorted(keys) != sorted(storages) \
            or len(set(keys)) != len(keys):
        raise invalid_file("the list of storage keys does not match the storages the object refers to")
    for key in keys:
        array = storages[key]
        count = struct.unpack("<q", _exactly(stream, 8))[0]
        if count != claims[key][0]:
            raise invalid_file(f"storage {key!r} holds {count} elements, the object says {claims[key][0]}")
        array[:] = np.frombuffer(_exactly(stream, array.nbytes), np.uint8)
    return start, storages


def legacy_storage_id(pid):
    """(key, element size, element count) of a legacy persistent id, checked."""
    if type(pid) is not tuple or len(pid) != 6 or pid[0] != "storage" or type(pid[1]) is not StorageType:
        raise pickle.UnpicklingError(f"unsupported persistent id {reprlib.repr(pid)}")
    _, storage_type, key, location, numel, view = pid
    if storage_type.dtype is None or type(key) is not str or type(location) is not str:
        raise pickle.UnpicklingError(f"unsupported persistent id {reprlib.repr(pid)}")
    if type(numel) is not int or numel < 0 or view is not None:
        raise pickle.UnpicklingError(f"unsupported persistent id {reprlib.repr(pid)} (views of storages are not read)")
    return key, storage_type.dtype.itemsize, numel


def _no_storages(pid):
    raise pickle.UnpicklingError("a legacy file's header pickles cannot refer to storages")


def _exactly(stream, count):
    data = stream.read(count)
    if len(data) != count:
        raise invalid_file("the storages' bytes are truncated")
    return data

