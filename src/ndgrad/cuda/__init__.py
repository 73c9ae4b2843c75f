"""ndgrad.cuda: which GPUs there are, through the array library behind cuda tensors (CuPy); see torch.cuda.

Random numbers of cuda tensors are drawn by the cpu generator and copied over, so ``manual_seed`` here has nothing
of its own to seed: ``ndgrad.manual_seed`` makes GPU runs repeatable too.
"""

from ndgrad import _device
from ndgrad.cuda import amp
from ndgrad.cuda.memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    reset_max_memory_allocated,
    reset_peak_memory_stats,
)

__all__ = [
    "is_available", "device_count", "current_device", "set_device", "get_device_name", "synchronize", "manual_seed",
    "manual_seed_all", "is_initialized", "init", "empty_cache", "memory_allocated", "memory_reserved",
    "max_memory_allocated", "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated", "amp",
]


def _runtime():
    return _device.cuda_backend().cuda.runtime


def device_count():
    """How many GPUs the array library sees: 0 without CuPy or without a GPU (never raises)."""
    if not _device.has_cuda_backend():
        return 0
    try:
        return _runtime().getDeviceCount()
    except Exception:  # noqa: BLE001 - CuPy without a driver raises its own error types; there is no GPU then
        return 0


def is_available():
    return device_count() > 0


def is_initialized():
    """Whether cuda tensors were asked for, so that the array library is loaded (see torch.cuda.is_initialized)."""
    return _device._Backend.module is not None


def init():
    _device.cuda_backend()


def _index(device):
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    device = _device.device(device)
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return current_device() if device.index is None else device.index


def current_device():
    return _runtime().getDevice()


def set_device(device):
    """Make ``device`` the GPU that ``device('cuda')`` means and new cuda tensors go to (see torch.cuda.set_device)."""
    index = _index(device)
    if index >= 0:
        _device.cuda_backend().cuda.Device(index).use()


def get_device_name(device=None):
    name = _runtime().getDeviceProperties(_index(device))["name"]
    return name.decode() if isinstance(name, bytes) else name


def synchronize(device=None):
    """Wait until the GPU finished all queued work (see torch.cuda.synchronize)."""
    with _device.cuda_backend().cuda.Device(_index(device)) as gpu:
        gpu.synchronize()


def manual_seed(seed):
    """Accepted for PyTorch code; the cpu generator draws the GPU's numbers (see the module docstring)."""
    int(seed)


def manual_seed_all(seed):
    int(seed)
