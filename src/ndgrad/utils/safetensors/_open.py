"""Reading .safetensors files: load (bytes), load_file, and safe_open, which maps a file into memory and reads a
tensor, or the part of one that a slice names, when asked. Every tensor comes back in memory of its own."""

import mmap
import os

import numpy as np

from ndgrad._device import device as Device
from ndgrad._tensor import Tensor
from ndgrad.utils.safetensors._errors import SafetensorError, not_instance, path_of
from ndgrad.utils.safetensors._format import CODES, DTYPES, InvalidHeader, little_endian, read

__all__ = ["load", "load_file", "safe_open"]

_FRAMEWORKS = ("pt", "torch")
_BACKENDS = ("mmap", "pread")


def load(data):
    """The tensors of a .safetensors file's bytes, by name in the order of their data (see safetensors.torch.load)."""
    if not isinstance(data, bytes):
        raise not_instance("bytes", data, "bytes")
    stored = _Stored(data, "Error while deserializing")
    return {name: Tensor._wrap(stored.window(name).copy()) for name in stored.contents.entries}


def load_file(filename, device="cpu", *, backend="mmap"):
    """The tensors of a .safetensors file, on ``device``, by name in the order of their data (see
    safetensors.torch.load_file)."""
    with safe_open(filename, "pt", device, backend=backend) as f:
        return f.get_tensors()


class safe_open:
    """A .safetensors file, checked and mapped into memory, whose tensors are read one at a time (see
    safetensors.safe_open). ``framework`` must be "pt" (or "torch"): the tensors are ndgrad's. Both backends map
    the file; ``backend`` is checked as the package checks it."""

    def __init__(self, filename, framework, device="cpu", *, backend="mmap"):
        if framework not in _FRAMEWORKS:
            raise SafetensorError(f"framework {framework} is invalid: ndgrad reads files into ndgrad tensors, with "
                                  "framework 'pt'")
        self._device = _target(device)
        if backend not in _BACKENDS:
            raise SafetensorError(f'backend "{backend}" is invalid (expected one of: "mmap", "pread")')
        with open(path_of(filename), "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            buffer = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self._stored = _Stored(buffer, "Error while deserializing header")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self._stored = None  # the mapping goes with the last slice that still reads it

    def keys(self):
        """The tensors' names, sorted."""
        return sorted(self._open().contents.entries)

    def offset_keys(self):
        """The tensors' names in the order of their data."""
        return list(self._open().contents.entries)

    def metadata(self):
        metadata = self._open().contents.metadata
        return None if metadata is None else dict(metadata)

    def get_tensor(self, name):
        return _placed(Tensor._wrap(self._window(name).copy()), self._device)

    def get_tensors(self):
        return {name: self.get_tensor(name) for name in self.offset_keys()}

    def get_slice(self, name):
        self._open().entry(name)
        return SafeSlice(self._stored, name, self._device)

    def _open(self):
        if self._stored is None:
            raise SafetensorError("File is closed")
        return self._stored

    def _window(self, name):
        return self._open().window(name)


class SafeSlice:
    """One tensor of an open file, indexed as a tensor is (``[:, 2:5]``, ``[0]``, ``[..., None]``); only the part
    that an index names is copied out of the file (see safe_open.get_slice)."""

    def __init__(self, stored, name, device):
        self._stored, self._name, self._device = stored, name, device

    def get_shape(self):
        return list(self._stored.entry(self._name).shape)

    def get_dtype(self):
        return self._stored.entry(self._name).code

    def __getitem__(self, index):
        window = self._stored.window(self._name)
        part = Tensor._wrap(window)[index]._data
        if not part.flags.writeable:  # a view of the file's read-only memory, not an indexed copy
            part = part.copy()
        return _placed(Tensor._wrap(part), self._device)


class _Stored:
    """A checked file held in ``buffer`` (bytes, or a read-only mapping), its tensors seen as arrays over it."""

    def __init__(self, buffer, context):
        try:
            self.contents = read(buffer)
        except InvalidHeader as error:
            raise SafetensorError(f"{context}: {error}") from None
        self._buffer = buffer

    def entry(self, name):
        entry = self.contents.entries.get(name)
        if entry is None:
            raise SafetensorError(f"File does not contain tensor {name}")
        return entry

    def window(self, name):
        """Tensor ``name`` as a read-only array over the buffer, in this machine's byte order."""
        entry = self.entry(name)
        d = DTYPES.get(entry.code)
        if d is None:
            raise TypeError(f"tensor `{name}` has dtype {entry.code}, which ndgrad has no dtype for (it has "
                            f"{', '.join(CODES.values())})")
        count = (entry.end - entry.begin) // d.itemsize
        flat = np.frombuffer(self._buffer, little_endian(d.numpy), count, self.contents.data_start + entry.begin)
        try:
            return flat.astype(d.numpy, copy=False).reshape(entry.shape)
        except ValueError as error:  # an empty tensor whose shape NumPy cannot hold (over 64 dimensions, say)
            shape = list(entry.shape)
            raise ValueError(f"tensor `{name}` of shape {shape} does not fit a NumPy array: {error}") from None


def _target(device):
    """The device tensors go to: the package's names (a GPU's number, "cuda:1"; None for the CPU), or a device."""
    if device is None:
        return Device("cpu")
    if isinstance(device, int):
        return Device(device)  # ndgrad's error where there is no GPU, as torch's comes through the package
    try:
        target = Device(device)
    except (RuntimeError, TypeError):
        target = None
    if target is None or target.type not in ("cpu", "cuda"):
        raise SafetensorError(f"device {device} is invalid")
    return target


def _placed(tensor, device):
    return tensor if device.type == "cpu" else tensor.to(device)
