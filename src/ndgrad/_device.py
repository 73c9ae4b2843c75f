"""Devices, and the one place that maps a device to its array library (NumPy on cpu, CuPy on cuda).

The library behind "cuda" is CuPy, imported on first use; tests install a stand-in with ``use_cuda_backend``.
"""

import contextlib
import re

import numpy as np

__all__ = [
    "device", "array_namespace", "device_of_array", "namespace_of", "cuda_backend", "use_cuda_backend", "placement",
    "to_device", "to_host", "resolve", "parse_to",
]

_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")
# The device types PyTorch knows, in the order its message lists them; ndgrad has the first two.
_TORCH_DEVICE_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, "
    "privateuseone"
)


class device:
    """A place where tensor data lives: ``device('cpu')``, ``device('cuda:1')``, ``device('cuda', 0)`` (see
    torch.device). As in PyTorch, ``device('cuda')`` has no index: it means the current GPU."""

    __slots__ = ("type", "index")
    __module__ = "ndgrad"

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):  # torch.device(0) is cuda:0
            if type >= 0 and not has_cuda_backend():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        elif isinstance(type, str):
            match = _DEVICE_STRING.fullmatch(type)
            if match is None:
                raise RuntimeError(f"Invalid device string: '{type}'" if type else "Device string must not be empty")
            if match.group(1) not in _TORCH_DEVICE_TYPES.split(", "):
                raise RuntimeError(f"Expected one of {_TORCH_DEVICE_TYPES} device type at start of device string: "
                                   f"{match.group(1)}")
            if match.group(2) is not None and index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed explicitly: {type}"
                )
            type, number = match.groups()
            if number is not None:
                index = int(number)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {type}")
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


CPU = device("cpu")
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
    kind = dev.type if isinstance(dev, device) else device(dev).type
    return np if kind == "cpu" else cuda_backend()


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
    number = array.device.id
    found = _CUDA_DEVICES.get(number)
    if found is None:
        found = _CUDA_DEVICES[number] = device("cuda", number)
    return found


def current_index():
    """The number of the current GPU, which ``device('cuda')`` without an index means."""
    return cuda_backend().cuda.runtime.getDevice()


def placement(dev):
    """A context in which the array library allocates on ``dev`` (nothing to do on the cpu)."""
    if dev.type == "cpu":
        return contextlib.nullcontext()
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
    ``(dtype, non_blocking=False, copy=False)``, ``(tensor, non_blocking=False, copy=False)``.

    Returns (device or None, dtype or None, copy); non_blocking changes nothing, as copies here complete at once.
    """
    from ndgrad._dtype import dtype as DType
    from ndgrad._tensor import Tensor

    target, dtype, flags = None, None, []
    if args and isinstance(args[0], (bool, float, complex)):  # a number stands for a tensor of it: its dtype
        from ndgrad._dtype import wrapped_number_dtype

        dtype, args = wrapped_number_dtype(args[0]), args[1:]
    for arg in args:
        if isinstance(arg, bool):
            flags.append(arg)
        elif flags or arg is None:
            if arg is not None:
                raise _invalid_to(args, kwargs)
        elif isinstance(arg, DType) and dtype is None:
            dtype = arg
        elif isinstance(arg, Tensor) and target is None:
            target, dtype = arg.device, arg.dtype
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
