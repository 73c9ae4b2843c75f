"""autocast, the region where the listed ops run in lower precision (see torch.amp.autocast_mode), and the
decorators that let a custom autograd Function take part in it."""

import collections.abc
import functools

import numpy as np

from ndgrad import _autocast
from ndgrad._autocast import device_type_of, is_autocast_available
from ndgrad._dtype import float16, float64
from ndgrad._tensor import Tensor
from ndgrad._warnings import warn

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


class autocast:  # noqa: N801 - torch's name
    """Inside, the ops torch lists run in ``dtype`` (torch's default: bfloat16 on cpu, float16 on cuda), those it
    lists as float32 ops in float32, the others as they are (see torch.autocast). A context manager and a decorator;
    the state it sets is the thread's own, and leaving restores what was there."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device_type(device_type)
        self.fast_dtype = _autocast.autocast_dtype(device_type) if dtype is None else dtype
        if self.fast_dtype is None and enabled:  # the default, bfloat16, which ndgrad lacks without ml_dtypes
            raise RuntimeError(_autocast.NO_BFLOAT16)
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self._cache_enabled = _autocast.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        self._enabled = self._supported() if enabled else enabled

    def _supported(self):
        """Whether this region can autocast: torch warns and turns it off where it cannot."""
        from ndgrad import cuda

        if self.device == "cuda":
            if not cuda.is_available():
                warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
                return False
            if self.fast_dtype is not float16:  # CuPy has no bfloat16: no GPU of ndgrad's supports it
                raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
            return True
        supported = [dtype for dtype in (_autocast.resolved(_autocast.BFLOAT16), float16) if dtype is not None]
        if self.fast_dtype not in supported:
            name = self.device.upper()
            warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n{name} Autocast "
                 "only supports dtypes of ndgrad.bfloat16, ndgrad.float16 currently.")
            return False
        return True

    def __enter__(self):
        self.prev_cache_enabled = _autocast.is_autocast_cache_enabled()
        self.prev = _autocast.is_autocast_enabled(self.device)
        self.prev_fastdtype = _autocast.STATE.dtypes.get(device_type_of(self.device))  # None: the default
        _autocast.set_autocast_enabled(self.device, self._enabled)
        if self.fast_dtype is not None:
            _autocast.set_autocast_dtype(self.device, self.fast_dtype)
        _autocast.autocast_increment_nesting()
        _autocast.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if _autocast.autocast_decrement_nesting() == 0:
            _autocast.clear_autocast_cache()
        _autocast.set_autocast_enabled(self.device, self.prev)
        if self.prev_fastdtype is None:
            _autocast.STATE.dtypes.pop(device_type_of(self.device), None)
        else:
            _autocast.set_autocast_dtype(self.device, self.prev_fastdtype)
        _autocast.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you mean to use autocast "
                "as a context manager? For example:\n    with ndgrad.autocast(device_type=...):\n        output = "
                "model(input)"
            )
        return autocast_decorator(self, func)


def _cast(value, device_type, dtype):
    """``value`` with its floating tensors on ``device_type`` (not float64) cast to ``dtype``, through lists,
    tuples and dicts, as custom_fwd's cast_inputs does."""
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorate a custom Function's ``forward``: with ``cast_inputs``, inside an autocast region its floating
    tensors are cast to that dtype and it runs with autocast off (see torch.amp.custom_fwd)."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = _autocast.autocast_dtype(device_type)
        autocasting = _autocast.is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = autocasting and cast_inputs is None
        if cast_inputs is None or not autocasting:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorate a custom Function's ``backward``: it runs with the autocast state its forward ran with (see
    torch.amp.custom_bwd)."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
