"""Autocast's state, per thread as in PyTorch: which device types autocast and to which dtype, the nesting depth
and the cache of cast weights; with the functions torch defines in C to read and set it (torch.is_autocast_enabled
and its siblings). Which ops cast is ndgrad.ops._autocast's business; the context manager is ndgrad.amp's."""

import threading

from ndgrad._argument_parser import parses, takes_no_arguments, takes_one_argument, type_name
from ndgrad._device import device
from ndgrad._dtype import dtype, float16, float32
from ndgrad._warnings import warn

__all__ = [
    "is_autocast_available", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
    "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
    "autocast_increment_nesting", "autocast_decrement_nesting", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled",
    "get_autocast_cpu_dtype", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
]

BFLOAT16 = "bfloat16"  # torch's default where it is one: resolved when read, as ndgrad may lack the dtype
# The device types torch can autocast on, with each one's default dtype (ndgrad keeps tensors on cpu and cuda only)
DEFAULT_DTYPES = {
    "cpu": BFLOAT16, "cuda": float16, "xpu": float16, "mps": float16, "hpu": BFLOAT16, "xla": BFLOAT16,
    "ipu": float16, "mtia": float16, "maia": BFLOAT16, "privateuseone": float16,
}
NO_BFLOAT16 = (
    "ndgrad has no bfloat16 dtype here, which is CPU autocast's default: bfloat16 needs the optional ml_dtypes "
    "package (pip install ml_dtypes). Without it, pass dtype=ndgrad.float16 to autocast('cpu', ...)."
)


class _State(threading.local):
    """Each thread starts with autocast off everywhere, the default dtypes, the cache on and empty."""

    def __init__(self):
        self.active = False  # whether any device type autocasts: the one flag the listed ops read
        self.enabled = set()  # the device types that autocast
        self.dtypes = {}  # device type -> the dtype set for it (else its default)
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}  # (id(weight), dtype) -> (weight, its cast): the weight is held so that its id stays its own


STATE = _State()


def device_type_of(device_type):
    """The device type a device string names ('cuda:0' names cuda), with torch's error for an unknown one."""
    return device(device_type).type


def _autocast_type(device_type):
    device_type = device_type_of(device_type)
    if device_type not in DEFAULT_DTYPES:
        raise RuntimeError("unknown device type for autocast in get_autocast_dispatch_key_from_device_type")
    return device_type


def resolved(dtype):
    """A dtype of DEFAULT_DTYPES as a dtype: None for bfloat16 where ndgrad has none."""
    if dtype is not BFLOAT16:
        return dtype
    import ndgrad  # the package root: bfloat16 is there when ml_dtypes is

    return getattr(ndgrad, "bfloat16", None)


def dtype_of(device_type):
    """The dtype that ``device_type``'s autocast casts to (None: bfloat16, which ndgrad lacks)."""
    return resolved(STATE.dtypes.get(device_type, DEFAULT_DTYPES[device_type]))


def is_autocast_available(device_type):
    """Whether torch can autocast on ``device_type`` (see torch.amp.is_autocast_available)."""
    return device_type_of(device_type) in DEFAULT_DTYPES


@parses("is_autocast_enabled(str device_type)", "is_autocast_enabled()")
def is_autocast_enabled(device_type="cuda"):
    """Whether autocast is on for ``device_type``; without one, for cuda (see torch.is_autocast_enabled)."""
    return _autocast_type(device_type) in STATE.enabled


@parses("set_autocast_enabled(str device_type, bool enabled)", "set_autocast_enabled(bool enabled)")
def set_autocast_enabled(device_type, enabled=None):
    """Turn autocast on or off for ``device_type``; given only a bool, for cuda (see torch.set_autocast_enabled)."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    device_type = _autocast_type(device_type)
    if enabled:
        STATE.enabled.add(device_type)
    else:
        STATE.enabled.discard(device_type)
    STATE.active = bool(STATE.enabled)


def autocast_dtype(device_type):
    """get_autocast_dtype, but None where that is bfloat16 and ndgrad lacks it (a disabled region needs none)."""
    device_type = device_type_of(device_type)
    if device_type not in DEFAULT_DTYPES:
        raise RuntimeError("unsupported scalarType")
    return dtype_of(device_type)


@parses("get_autocast_dtype(str device_type)")
def get_autocast_dtype(device_type):
    """The dtype ``device_type``'s autocast casts to (see torch.get_autocast_dtype)."""
    dtype = autocast_dtype(device_type)
    if dtype is None:
        raise RuntimeError(NO_BFLOAT16)
    return dtype


@parses("set_autocast_dtype(str device_type, ScalarType dtype)")
def set_autocast_dtype(device_type, dtype):
    STATE.dtypes[_autocast_type(device_type)] = dtype


@takes_no_arguments
def is_autocast_cache_enabled():
    return STATE.cache_enabled


@takes_one_argument
def set_autocast_cache_enabled(enabled):
    STATE.cache_enabled = _bool_argument(enabled)


def _bool_argument(value):
    if not isinstance(value, bool):
        raise TypeError(f"enabled must be a bool (got {type_name(value)})")
    return value


def _dtype_argument(value):
    if not isinstance(value, dtype):
        raise TypeError(f"dtype must be a ndgrad.dtype (got {type_name(value)})")
    return value


@takes_no_arguments
def clear_autocast_cache():
    """Forget the weights cast so far: autocast does so when its outermost region ends."""
    STATE.cache.clear()


@takes_no_arguments
def autocast_increment_nesting():
    STATE.nesting += 1
    return STATE.nesting


@takes_no_arguments
def autocast_decrement_nesting():
    STATE.nesting -= 1
    return STATE.nesting


def cast(tensor, dtype):
    """``tensor.to(dtype)``, recorded as any cast is (its gradient comes back in the tensor's dtype). Inside an
    autocast region a float32 leaf weight is cast once, as torch's cache does; the cache keys on the dtype too,
    where torch's hands a nested region of another dtype the first region's cast."""
    if not (STATE.cache_enabled and tensor.requires_grad and tensor.is_leaf and tensor._base is None
            and tensor.dtype is float32):
        return tensor.to(dtype)
    key = (id(tensor), dtype)
    cached = STATE.cache.get(key)
    if cached is None:
        cached = STATE.cache[key] = (tensor, tensor.to(dtype))
    return cached[1]


# ---- torch's older names of these functions, deprecated in favour of the ones taking a device type -------------
def _deprecated(old, new):
    warn(f"ndgrad.{old} is deprecated. Please use ndgrad.{new} instead.", DeprecationWarning)


@takes_no_arguments
def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


@takes_one_argument
def set_autocast_cpu_enabled(enabled):
    enabled = _bool_argument(enabled)
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


@takes_no_arguments
def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


@takes_one_argument
def set_autocast_cpu_dtype(dtype):
    dtype = _dtype_argument(dtype)
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


@takes_no_arguments
def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


@takes_one_argument
def set_autocast_gpu_dtype(dtype):
    dtype = _dtype_argument(dtype)
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)
