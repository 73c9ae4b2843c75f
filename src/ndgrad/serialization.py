"""ndgrad.save and ndgrad.load in PyTorch's own file formats (see torch.serialization), so that checkpoints move
between ndgrad and torch both ways; docs/serialization.md walks through a file.

save writes torch's zip archive (or, asked, its legacy format): the object as a pickle whose tensors are calls of
torch's rebuilding functions on storages of raw bytes. load reads both, and never runs code from the file: the
pickle is read by ndgrad._weights_unpickler, which builds only what an allow-list names (as torch.load does with
weights_only=True, its default). Classes the user trusts join the list through add_safe_globals or safe_globals."""

import contextlib
import io
import os
import pickle
import reprlib

from ndgrad import cuda
from ndgrad._device import device
from ndgrad._tensor import Tensor
from ndgrad._torch_archive import (
    ZIP_MAGIC,
    ZipReader,
    invalid_file,
    legacy_storage_id,
    read_legacy_storages,
    write_legacy,
    write_zip,
)
from ndgrad._torch_objects import LoadedStorage, StorageType, torch_callables, torch_values
from ndgrad._torch_pickler import Storages, dumps
from ndgrad._weights_unpickler import UnpicklingError, global_name, load_pickle

__all__ = [
    "save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals",
    "get_unsafe_globals_in_checkpoint",
]

TRUST_PICKLES = "NDGRAD_TRUST_PICKLES"  # the environment variable that lets weights_only=False run a file's pickle


# ---- save ----------------------------------------------------------------------------------------------------
def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write ``obj`` to a path or binary file object in torch.save's format (see torch.save): its zip archive,
    or with ``_use_new_zipfile_serialization=False`` its legacy format. Tensors that share memory are saved as
    views of one storage and load sharing it again; a view keeps its whole storage in the file, as in torch."""
    if pickle_module is not pickle:
        raise ValueError("ndgrad.save pickles with Python's pickle module only")
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    storages = Storages(legacy=not _use_new_zipfile_serialization)
    pickled = dumps(obj, storages, pickle_protocol)
    with _opened(f, "wb") as stream:
        if not _use_new_zipfile_serialization:
            write_legacy(stream, pickled, storages)
            return
        name = os.path.splitext(os.path.basename(os.fspath(f)))[0] if isinstance(f, (str, os.PathLike)) else "archive"
        write_zip(stream, name or "archive", pickled, storages.arrays, byteorder_record=not _disable_byteorder_record)


@contextlib.contextmanager
def _opened(f, mode):
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as stream:
            yield stream
    else:
        yield f


# ---- the user's allow-list -----------------------------------------------------------------------------------
_SAFE_GLOBALS = []  # what add_safe_globals was given: objects, or (object, "module.name") pairs


def add_safe_globals(safe_globals):
    """Trust these functions and classes in the files ndgrad.load reads (see torch.serialization.add_safe_globals):
    each is an object, found in a file by its ``__module__`` and ``__qualname__``, or an (object, name) pair."""
    if not isinstance(safe_globals, list):
        raise TypeError(f"safe_globals must be a list, not {type(safe_globals).__name__}")
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals():
    return list(_SAFE_GLOBALS)


def clear_safe_globals():
    _SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """add_safe_globals for the ``with`` block only."""
    kept = list(_SAFE_GLOBALS)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _SAFE_GLOBALS[:] = kept


def _user_globals():
    """{name in a file: object} of the allow-list. A class of ndgrad's is also found under torch's name for it
    (``torch.nn.modules.linear.Linear``), so that a whole model saved by torch loads once its classes are listed."""
    names = {}
    for entry in _SAFE_GLOBALS:
        obj, name = entry if isinstance(entry, tuple) else (entry, f"{entry.__module__}.{entry.__qualname__}")
        names[name] = obj
        if name.startswith("ndgrad."):
            names["torch." + name[len("ndgrad."):]] = obj
    return names


def get_unsafe_globals_in_checkpoint(f):
    """The globals a checkpoint names that neither ndgrad's allow-list nor the user's holds (see torch's), found
    by reading its pickle's opcodes without running any."""
    import pickletools

    allowed = {**torch_callables(), **torch_values(), **_user_globals()}
    with _opened(f, "rb") as stream:
        data = io.BytesIO(ZipReader(stream, _length(stream)).read("data.pkl"))
    found = []
    for opcode, argument, _ in pickletools.genops(data):
        if opcode.name == "GLOBAL":
            found.append(global_name(*argument.split(" ", 1)))
    return sorted({name for name in found if name not in allowed})


# ---- load ----------------------------------------------------------------------------------------------------
def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Read a file torch.save or ndgrad.save wrote (see torch.load), without running code from it.
    ``map_location`` moves storages as torch's does: a device or its name, a dict renaming saved locations, or
    ``fn(storage, location)`` given each storage as a uint8 CPU tensor of its bytes, returning it moved (or None
    for the saved location). ``mmap=True`` maps the storages from the file (copy on write) instead of reading
    them. ``weights_only=False`` would run the file's pickle as it stands, so ndgrad refuses it unless the
    environment variable NDGRAD_TRUST_PICKLES=1 says the file's source is trusted."""
    if weights_only is None or weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    elif os.environ.get(TRUST_PICKLES) != "1":
        raise UnpicklingError(
            "ndgrad.load(weights_only=False) would run whatever code the file's pickle names, which ndgrad does only "
            f"when the environment variable {TRUST_PICKLES}=1 says that you trust the file's source. Without it, "
            "load with weights_only=True (the default) and list the classes the file needs with "
            "ndgrad.serialization.add_safe_globals."
        )
    unknown = sorted(set(pickle_load_args) - {"encoding"})
    if unknown:
        raise TypeError(f"load() got an unexpected keyword argument '{unknown[0]}'")
    encoding = pickle_load_args.get("encoding", "utf-8")
    place = _placement(map_location)
    if not isinstance(f, (str, os.PathLike)):
        if mmap:
            raise ValueError("f must be a file path in order to use the mmap argument")
        missing = next((name for name in ("seek", "read") if not hasattr(f, name)), None)
        if missing is not None:
            raise AttributeError(
                f"'{type(f).__name__}' object has no attribute '{missing}'. You can only ndgrad.load from a file "
                "that is seekable. Please pre-load the data into a buffer like io.BytesIO and try to load from it "
                "instead."
            )
    unpickle = _unpickler(weights_only is not False, encoding)
    with _opened(f, "rb") as stream:
        head = stream.read(4)
        stream.seek(-len(head), os.SEEK_CUR)
        if head == ZIP_MAGIC:
            reader = ZipReader(stream, _length(stream), os.fspath(f) if mmap else None)
            return _load_zip(reader, unpickle, place)
        if mmap:
            shown = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError(
                "mmap can only be used with files saved with "
                f"`ndgrad.save({shown}_use_new_zipfile_serialization=True), please ndgrad.save your checkpoint with "
                "this option in order to use mmap."
            )
        if not head:
            raise EOFError("Ran out of input")
        return _load_legacy(io.BytesIO(stream.read()), unpickle, place)


def _length(stream):
    start = stream.tell()
    length = stream.seek(0, os.SEEK_END) - start
    stream.seek(start)
    return length


def _load_zip(reader, unpickle, place):
    storages = {}

    def storage(pid):
        if type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage" or type(pid[1]) is not StorageType:
            raise UnpicklingError(f"unsupported persistent id {reprlib.repr(pid)}")
        _, storage_type, key, location, numel = pid
        if type(key) is not str or type(location) is not str or type(numel) is not int or numel < 0:
            raise UnpicklingError(f"unsupported persistent id {reprlib.repr(pid)}")
        if key not in storages:
            nbytes = numel * (1 if storage_type.dtype is None else storage_type.dtype.itemsize)
            storages[key] = LoadedStorage(place(reader.storage(key, nbytes), location), storage_type.dtype, location)
        elif storages[key].dtype is not storage_type.dtype:
            raise UnpicklingError(f"the storage {key!r} is used as two different types")
        return storages[key]

    return unpickle(io.BytesIO(reader.read("data.pkl")), storage)


def _load_legacy(stream, unpickle, place):
    def header_pickle(persistent_load):
        return unpickle(stream, persistent_load)

    start, arrays = read_legacy_storages(stream, header_pickle)
    storages = {}

    def storage(pid):
        key, _, _ = legacy_storage_id(pid)
        if key not in storages:
            storages[key] = LoadedStorage(place(arrays[key], pid[3]), pid[1].dtype, pid[3])
        return storages[key]

    stream.seek(start)
    return unpickle(stream, storage)


def _unpickler(weights_only, encoding):
    """unpickle(stream, persistent_load): ndgrad's restricted unpickler, with torch's message around its refusals;
    or, only for weights_only=False with NDGRAD_TRUST_PICKLES=1, Python's own."""
    callables, values, user = torch_callables(), torch_values(), _user_globals()
    if not weights_only:
        return lambda stream, persistent_load: _TrustingUnpickler(stream, persistent_load, encoding).load()
    callables.update(user)
    buildable = [obj for obj in user.values() if isinstance(obj, type)]

    def unpickle(stream, persistent_load):
        try:
            return load_pickle(stream, callables=callables, values=values, buildable=buildable,
                               persistent_load=persistent_load, encoding=encoding)
        except UnpicklingError as error:
            raise UnpicklingError(_weights_only_message(str(error))) from None

    return unpickle


def _weights_only_message(problem):
    return (
        "Weights only load failed. ndgrad.load never runs code from a file: it builds only the tensors, containers "
        "and classes on its allow-list. If this file names a class or function you trust, allowlist it "
        "\033[1monly if you trust the source of the checkpoint\033[0m, as the following error message says.\n\t"
        f"WeightsUnpickler error: {problem}\n\nCheck docs/serialization.md to learn more about types accepted by "
        "default with weights_only"
    )


class _TrustingUnpickler(pickle.Unpickler):
    """Python's unpickler, for files whose source the user trusts: torch's names resolve to ndgrad's objects (a
    class ``torch.nn.modules.linear.Linear`` to ``ndgrad.nn.modules.linear.Linear``)."""

    def __init__(self, stream, persistent_load, encoding):
        super().__init__(stream, encoding=encoding)
        self._storage, self._torch = persistent_load, {**torch_callables(), **torch_values()}

    def persistent_load(self, pid):
        return self._storage(pid)

    def find_class(self, module, name):
        found = self._torch.get(f"{module}.{name}")
        if found is not None:
            return found
        if module == "torch" or module.startswith("torch."):  # torch's classes are ndgrad's of the same path
            module = "ndgrad" + module[len("torch"):]
        return super().find_class(module, name)


def _placement(map_location):
    """``map_location`` as one function: (host storage bytes, saved location name) -> the array where they
    should live, as torch.load reads it."""
    if map_location is None:
        return lambda storage, saved: _moved(storage, saved)
    if isinstance(map_location, (str, device)):
        target = str(map_location)
        return lambda storage, saved: _moved(storage, target)
    if isinstance(map_location, dict):
        return lambda storage, saved: _moved(storage, map_location.get(saved, saved))
    if not callable(map_location):
        raise TypeError(f"'{type(map_location).__name__}' object is not callable")

    def place(storage, saved):
        result = map_location(Tensor._wrap(storage), saved)
        if result is None:
            return _moved(storage, saved)
        if not isinstance(result, Tensor) or result.dtype.name != "uint8" or tuple(result.shape) != storage.shape:
            raise TypeError(
                f"map_location must return None or the storage it was given (a uint8 tensor of {storage.size} "
                f"bytes), possibly moved to another device; it returned {type(result).__name__}"
            )
        return result._data

    return place


def _moved(storage, location):
    try:
        target = device(location)
    except (RuntimeError, TypeError, ValueError):
        raise invalid_file(f"unknown storage location {location!r}") from None
    if target.type == "cpu":
        return storage
    _check_gpu(target)
    return Tensor._wrap(storage).to(target)._data


def _check_gpu(target):
    """torch.load's checks before it restores a storage on a GPU, with its messages in ndgrad's names."""
    if target.type != "cuda":
        raise RuntimeError(f"don't know how to restore data location of storage on {target}")
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

