"""Devices, and the one place that maps a device to its array library (NumPy on cpu, CuPy on cuda).

The library behind "cuda" is CuPy, imported on first use; tests install a stand-in with ``use_cuda_backend``.
"""

import contextlib
import re

import numpy as np

from ndgrad._argument_parser import parses_method
from ndgrad._sparse_storage import SparseCOO

__all__ = [
    "device", "array_namespace", "device_of_array", "namespace_of", "cuda_backend", "use_cuda_backend", "placement",
    "to_device", "to_host", "resolve", "parse_to",
]

# PyTorch's device types, in the order its error lists them (ndgrad keeps data on the first two only)
DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla", "lazy",
    "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")  # ASCII letters and digits only, as in C++
_NO_INDEX = object()  # device(type) without an index, told apart from device(type, None)


class device:
    """A place where tensor data lives: ``device('cpu')``, ``device('cuda:1')``, ``device('cuda', 0)`` (see
    torch.device). As in PyTorch, ``device('cuda')`` has no index: it means the current GPU, and a bare number is
    a GPU's."""

    __slots__ = ("type", "index")
    __module__ = "ndgrad"

    def __init__(self, type, index=_NO_INDEX):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, str):
            type, index = _parsed(type, index)  # an index given, even None, clashes with one in the string
        else:  # a number: the current accelerator's device of that number
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            if not has_cuda_backend():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", int(type)
        if index is not None and index >= 2**63:  # a remembered call shape reaches here unchecked
            raise ValueError("Overflow when unpacking long long")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = type, index

    def __eq__(self, other):  # as in PyTorch, a device never equals a string: device('cpu') != 'cpu'
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return device, (self.type, self.index)


def _parsed(text, index):
    """(type, index) of a device string, with PyTorch's errors for a malformed one."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    match = _DEVICE_STRING.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    name, number = match.groups()
    if number is not None and int(number) >= 2**31:
        raise RuntimeError(f"Could not parse device index '{number}' in device string '{text}'")
    if name not in DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: {name}"
        )
    if number is None:
        return name, None if index is _NO_INDEX else index
    if index is not _NO_INDEX:
        raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {text}")
    return name, int(number)


CPU = object.__new__(device)  # made unparsed: the parser's own checks need this module
CPU.type, CPU.index = "cpu", None
device.__init__ = parses_method("device(Device device)", "device(str type, int? index=-1)")(device.__init__)
_CUDA_DEVICES = {}  # GPU number -> its device object: tensors report their device on every op's check


class _Backend:
    """The array library of cuda tensors: None until first needed, then CuPy (or what a test installed)."""

    module = None
    missing = False  # CuPy was looked for and is not installed


def cuda_backend():
    """The array library of cuda tensors; PyTorch's CPU-build error if there is none."""
    module = _Backend.module
    if module is None:
        if not _Backend.missing:
            try:
                import cupy as module
            except ImportError:
                _Backend.missing = True
        if _Backend.missing:
            raise AssertionError("Torch not compiled with CUDA enabled")
        _Backend.module = module
    return module


def has_cuda_backend():
    """Whether cuda tensors can be made at all (an array library is there), without raising."""
    try:
        cuda_backend()
    except AssertionError:
        return False
    return True


class use_cuda_backend:  # noqa: N801 - used like a function: use_cuda_backend(module)
    """Make ``module`` (CuPy's API) the array library of cuda tensors, until ``restore()`` or the end of a ``with``
    block: this is how the tests run ndgrad on a stand-in GPU."""

    def __init__(self, module):
        self._previous, _Backend.module = _Backend.module, module

    def restore(self):
        _Backend.module = self._previous

    def __enter__(self):
        return _Backend.module

    def __exit__(self, *exc_info):
        self.restore()


def array_namespace(dev):
    """The array library for a device: ops call ``xp.exp`` and never name NumPy or CuPy themselves."""
    dev = dev if isinstance(dev, device) else device(dev)
    if dev.type == "cpu":
        return np
    if dev.type != "cuda":
        placement(dev)  # raises PyTorch's error for the device type
    return cuda_backend()


def namespace_of(array):
    """The array library of a raw array (NumPy for host arrays and Python numbers), for helpers that get no xp."""
    if isinstance(array, (np.ndarray, np.generic)) or not hasattr(array, "device"):
        return np
    return cuda_backend()


def device_of_array(array):
    if type(array) is np.ndarray:
        return CPU
    if isinstance(array, (np.ndarray, np.generic)):
        return CPU
    if isinstance(array, SparseCOO):
        return device_of_array(array.values)
    number = array.device.id
    found = _CUDA_DEVICES.get(number)
    if found is None:
        found = _CUDA_DEVICES[number] = device("cuda", number)
    return found


def current_index():
    """The number of the current GPU, which ``device('cuda')`` without an index means."""
    return cuda_backend().cuda.runtime.getDevice()


def placement(dev):
    """A context in which the array library allocates on ``dev`` (nothing to do on the cpu); PyTorch's error for a
    device type ndgrad has no array library for."""
    if dev.type == "cpu":
        return contextlib.nullcontext()
    if dev.type != "cuda":
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    backend = cuda_backend()
    index = backend.cuda.runtime.getDevice() if dev.index is None else dev.index
    count = backend.cuda.runtime.getDeviceCount()
    if not 0 <= index < count:
        raise RuntimeError("CUDA error: invalid device ordinal")
    return backend.cuda.Device(index)


def to_device(array, dev):
    """``array`` on ``dev``: itself if already there, else a copy (host <-> GPU, or GPU to GPU)."""
    if dev.type == "cpu":
        return array if isinstance(array, np.ndarray) else cuda_backend().asnumpy(array)
    if not isinstance(array, np.ndarray):
        if array.device.id == (current_index() if dev.index is None else dev.index):
            return array
    with placement(dev):
        return cuda_backend().array(array, copy=True)


def allocation_error(error):
    """PyTorch's error for memory a device cannot allocate, for NumPy's MemoryError (which knows the bytes asked
    for); None for another MemoryError."""
    requested = getattr(error, "_total_size", None)
    if requested is None:
        return None
    return RuntimeError(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to "
        f"allocate {requested} bytes. Error code 12 (Cannot allocate memory)"
    )


def to_host(array):
    """``array`` as a NumPy array: itself on the host, else a copy (a sync, as PyTorch's reads of GPU values are)."""
    return array if isinstance(array, np.ndarray) else array.get()


def resolve(dev):
    """``dev`` with a number: ``device('cuda')`` is the current GPU, as a tensor placed there reports it."""
    dev = dev if isinstance(dev, device) else device(dev)
    if dev.type == "cuda" and dev.index is None:
        return device("cuda", current_index())
    return dev


def parse_to(args, kwargs):
    """The overloads of Tensor.to and Module.to: ``(device=None, dtype=None, non_blocking=False, copy=False)``,
    ``(dtype, non_blocking=False, copy=False)``, ``(tensor, non_blocking=False, copy=False)``; a Python number
    other than an int stands for a tensor, as PyTorch wraps one (``x.to(1.5)`` is ``x.to(float64)``).

    Returns (device or None, dtype or None, copy); non_blocking changes nothing, as copies here complete at once.
    """
    from ndgrad._dtype import dtype as DType
    from ndgrad._dtype import scalar_tensor_dtype
    from ndgrad._tensor import Tensor

    target, dtype, flags = None, None, []
    for position, arg in enumerate(args):
        if isinstance(arg, bool) and position:
            flags.append(arg)
        elif flags or arg is None:
            if arg is not None:
                raise _invalid_to(args, kwargs)
        elif isinstance(arg, DType) and dtype is None:
            dtype = arg
        elif isinstance(arg, Tensor) and target is None:
            target, dtype = arg.device, arg.dtype
        elif isinstance(arg, (bool, float, complex)) and not position:
            target, dtype = CPU, scalar_tensor_dtype(arg)
        elif isinstance(arg, (str, device, int)) and target is None and dtype is None:
            target = arg
        else:
            raise _invalid_to(args, kwargs)
    if len(flags) > 2 or not set(kwargs) <= {"device", "dtype", "non_blocking", "copy", "memory_format"}:
        raise _invalid_to(args, kwargs)
    target = kwargs.get("device", target)
    dtype = kwargs.get("dtype", dtype)
    copy = kwargs.get("copy", flags[1] if len(flags) == 2 else False)
    return (None if target is None else resolve(target)), dtype, copy


def _invalid_to(args, kwargs):
    given = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    return TypeError(f"to() received an invalid combination of arguments - got ({', '.join(given)}, )")
