"""ndgrad.accelerator: the device-neutral questions scripts ask (see torch.accelerator). ndgrad's one accelerator is
cuda, through CuPy: there is one when ndgrad.cuda sees a GPU, and none otherwise (a CPU-only machine)."""

from ndgrad import cuda
from ndgrad._device import device

__all__ = [
    "is_available", "current_accelerator", "device_count", "current_device_index", "set_device_index",
    "synchronize",
]

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available():
    return cuda.is_available()


def current_accelerator(check_available=False):
    """``device('cuda')`` where CuPy sees a GPU, else None (see torch.accelerator.current_accelerator); ndgrad
    names cuda only when it is available, so ``check_available`` changes nothing."""
    return device("cuda") if cuda.is_available() else None


def device_count():
    return cuda.device_count()


def _check_available():
    if not cuda.is_available():
        raise RuntimeError(_NONE_AVAILABLE)


def current_device_index():
    _check_available()
    return cuda.current_device()


def set_device_index(device):
    _check_available()
    cuda.set_device(device)


def synchronize(device=None):
    """Wait for the accelerator's queued work (see torch.accelerator.synchronize)."""
    _check_available()
    cuda.synchronize(device)
