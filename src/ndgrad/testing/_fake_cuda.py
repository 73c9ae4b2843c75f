"""Test support: a stand-in GPU. A CuPy-like array library over NumPy whose arrays refuse NumPy.

Installed as ndgrad's "cuda" backend (``ndgrad.testing.fake_cuda()``), it computes exactly what NumPy computes, but
any code that hands device data to NumPy (``np.exp(x)``, ``np.asarray(x)``) or mixes host arrays into device calls
fails with a TypeError, as it would on a real GPU. Nothing outside the tests uses it.
"""

import operator
import types
import weakref

import numpy as np

from ndgrad.ops import _numpy_special

DEVICE_COUNT = 2  # two stand-in GPUs, so that cuda:0 and cuda:1 can be mixed in tests
_IMPLICIT_CONVERSION = (
    "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array explicitly."
)


class Device:
    """One stand-in GPU, and a context manager that makes it current (see cupy.cuda.Device)."""

    __slots__ = ("id", "_previous")
    current = 0

    def __init__(self, device=None):
        self.id = Device.current if device is None else int(device)
        if not 0 <= self.id < DEVICE_COUNT:
            raise ValueError(f"invalid device ordinal {self.id}")

    def __enter__(self):
        self._previous, Device.current = Device.current, self.id
        return self

    def __exit__(self, *exc_info):
        Device.current = self._previous

    def use(self):
        Device.current = self.id

    def synchronize(self):
        """Work on the stand-in is synchronous: there is nothing to wait for."""

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return self.id

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


class _MemoryPointer:
    """``array.data``: a place in device memory (``ptr``); adding bytes moves it, as CuPy's MemoryPointer."""

    __slots__ = ("_owner", "_offset", "device_id")

    def __init__(self, owner, offset, device_id):
        self._owner, self._offset, self.device_id = owner, offset, device_id

    @property
    def ptr(self):
        return self._owner.__array_interface__["data"][0] + self._offset

    def __add__(self, nbytes):
        return _MemoryPointer(self._owner, self._offset + nbytes, self.device_id)


class ndarray:  # noqa: N801 - cupy.ndarray's name
    """An array on a stand-in GPU: a NumPy array held out of NumPy's reach."""

    __slots__ = ("_host", "device", "__weakref__")
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        """CuPy's constructor: new memory, or a window of ``shape`` and ``strides`` onto ``memptr``'s memory."""
        if memptr is None:
            self._host, self.device = np.empty(shape, dtype, order=order), Device()
        else:
            buffer, offset = memptr._owner, memptr._offset
            self._host = np.ndarray(shape, dtype, buffer=buffer, offset=offset, strides=strides, order=order)
            self.device = Device(memptr.device_id)

    # NumPy may not see the values: implicit conversion and NumPy's functions on device arrays fail.
    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT_CONVERSION)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return NotImplemented

    def __array_function__(self, func, types, args, kwargs):
        return NotImplemented

    def get(self):
        """A copy on the host (see cupy.ndarray.get)."""
        return self._host.copy()

    @property
    def data(self):
        return _MemoryPointer(self._host, 0, self.device.id)

    @property
    def base(self):
        base = self._host.base
        if not isinstance(base, np.ndarray):
            return None
        owner = _OWNERS.get(id(base))
        return owner if owner is not None and owner._host is base else _on_device(base, self.device.id)

    @property
    def T(self):  # noqa: N802 - NumPy's name
        return _on_device(self._host.T, self.device.id)

    @property
    def real(self):
        return _on_device(self._host.real, self.device.id)

    @property
    def imag(self):
        return _on_device(self._host.imag, self.device.id)

    def __getattr__(self, name):
        if name in _HOST_ONLY:
            raise AttributeError(f"'ndarray' object has no attribute '{name}' (it lives on the stand-in GPU)")
        if name == "_host":  # not yet set (copy, pickle): no host array to ask
            raise AttributeError(name)
        attribute = getattr(self._host, name)
        if callable(attribute):
            return _Wrapped(attribute, self.device.id)
        return attribute  # metadata: shape, dtype, ndim, size, strides, itemsize, flags, ...

    def __getitem__(self, index):
        host_index, device_id = _unwrap(index, self.device.id, allow_host=True)  # CuPy accepts host indices too
        return _wrap(self._host[host_index], device_id)

    def __setitem__(self, index, value):
        host_index, device_id = _unwrap(index, self.device.id, allow_host=True)
        host_value, _ = _unwrap(value, device_id)
        self._host[host_index] = host_value

    def __len__(self):
        return len(self._host)

    def __iter__(self):
        return (_on_device(row, self.device.id) for row in self._host)

    def __bool__(self):
        return bool(self._host)

    def __int__(self):
        return int(self._host)

    def __float__(self):
        return float(self._host)

    def __complex__(self):
        return complex(self._host)

    def __index__(self):
        return operator.index(self._host)

    def __repr__(self):
        return f"{self._host!r} on {self.device!r}"

    def __dlpack__(self, *args, **kwargs):
        raise BufferError("the stand-in GPU's memory cannot be exported")

    def __dlpack_device__(self):
        raise BufferError("the stand-in GPU's memory cannot be exported")


def _on_device(host, device_id=None):
    """A host array wrapped as a device array on GPU ``device_id`` (None: the current one), sharing its memory."""
    array = object.__new__(ndarray)
    array._host, array.device = host, Device(device_id)
    if host.base is None:  # owns its memory: views find this same object as their ``base``, as in CuPy
        _OWNERS[id(host)] = array
    return array


_OWNERS = weakref.WeakValueDictionary()  # id(host array) -> the device array that wraps it


_HOST_ONLY = frozenset({"__array_interface__", "__array_struct__", "ctypes"})


def _operator(function, in_place=False):
    """An operator of ndarray: the same operator on the host arrays, refusing host operands as CuPy does."""

    def apply(self, *others):
        if any(not isinstance(o, (ndarray, np.ndarray, np.generic, int, float, complex, bool)) for o in others):
            return NotImplemented  # e.g. an ndgrad Tensor on the other side: its reflected operator decides
        host_others, device_id = _unwrap(others, self.device.id)
        with np.errstate(all="ignore"):  # a GPU computes inf and nan without a word
            result = function(self._host, *host_others)
        return self if in_place else _wrap(result, device_id)

    return apply


_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift")
for _name in _BINARY:
    _function = getattr(operator, f"{_name}_" if _name in ("and", "or") else _name)
    setattr(ndarray, f"__{_name}__", _operator(_function))
    setattr(ndarray, f"__r{_name}__", _operator(lambda x, y, f=_function: f(y, x)))
    setattr(ndarray, f"__i{_name}__", _operator(getattr(operator, f"i{_name}"), in_place=True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(ndarray, f"__{_name}__", _operator(getattr(operator, _name)))
for _name in ("neg", "pos", "abs", "invert"):
    setattr(ndarray, f"__{_name}__", _operator(getattr(operator, _name)))
ndarray.__divmod__ = _operator(divmod)


def _unwrap(value, device_id=None, allow_host=False):
    """``value`` with stand-in arrays replaced by their host arrays, and the device they are on.

    Host arrays are refused (CuPy's TypeError), except as indices where ``allow_host``.
    """
    if isinstance(value, ndarray):
        if device_id is not None and value.device.id != device_id:
            raise ValueError(
                f"Array device must be same as the current device: array device = {value.device.id} while "
                f"current = {device_id}"
            )
        return value._host, value.device.id
    if isinstance(value, np.ndarray):
        if not allow_host:
            raise TypeError(f"Unsupported type {type(value)}")
        return value, device_id
    if isinstance(value, (list, tuple)):
        items = []
        for item in value:
            host, device_id = _unwrap(item, device_id, allow_host)
            items.append(host)
        return type(value)(items), device_id
    if isinstance(value, dict):
        items = {}
        for key, item in value.items():
            items[key], device_id = _unwrap(item, device_id, allow_host)
        return items, device_id
    return value, device_id


def _wrap(result, device_id=None):
    """Host results as stand-in arrays on ``device_id`` (the current device if None); NumPy scalars become 0-d
    arrays, as CuPy never returns scalars."""
    if isinstance(result, (np.ndarray, np.generic)):
        return _on_device(np.asarray(result), device_id)
    if isinstance(result, tuple) and hasattr(type(result), "_fields"):  # a named tuple: EighResult, ...
        return type(result)(*(_wrap(item, device_id) for item in result))
    if isinstance(result, (list, tuple)):
        return type(result)(_wrap(item, device_id) for item in result)
    if isinstance(result, np.random.Generator):
        return _Wrapped(result)
    return result


class _Wrapped:
    """A NumPy function, ufunc, module or object seen from the device: device arrays in, device arrays out."""

    __slots__ = ("_target", "_device_id")

    def __init__(self, target, device_id=None):
        self._target, self._device_id = target, device_id  # device_id: an array's method computes on its device

    def __call__(self, *args, **kwargs):
        (host_args, host_kwargs), device_id = _unwrap((args, kwargs), self._device_id)
        with np.errstate(all="ignore"):
            return _wrap(self._target(*host_args, **host_kwargs), device_id)

    def __getattr__(self, name):
        return _attribute(getattr(self._target, name))

    def __repr__(self):
        return f"<stand-in GPU version of {self._target!r}>"


def _attribute(value):
    """What the device namespace offers for a NumPy attribute: types and constants as they are (cupy.float32 is
    numpy.float32), the array type as ``ndarray``, functions and submodules wrapped."""
    if value is np.ndarray:
        return ndarray
    if isinstance(value, type) or not (callable(value) or isinstance(value, types.ModuleType)):
        return value
    return _Wrapped(value)


def asarray(a, dtype=None, order=None):
    """Host data copied to the current device; device arrays as they are (converted if ``dtype`` says so)."""
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == dtype else _on_device(a._host.astype(dtype), a.device.id)
    return _on_device(np.array(_to_host(a), dtype=dtype, order=order))


def array(obj, dtype=None, copy=True, order="K", ndmin=0):
    """A copy on the current device (from the host, or from another GPU)."""
    return _on_device(np.array(_to_host(obj), dtype=dtype, copy=copy, order=order, ndmin=ndmin))


def _to_host(value):
    """Nested data that may hold device arrays (cupy.asarray accepts lists of them), on the host."""
    if isinstance(value, ndarray):
        return value._host
    if isinstance(value, (list, tuple)):
        return [_to_host(item) for item in value]
    return value


def asnumpy(a, stream=None, order="C", out=None):
    """A host copy (see cupy.asnumpy)."""
    return a.get() if isinstance(a, ndarray) else np.asarray(a)


def get_array_module(*args):
    return namespace if any(isinstance(a, ndarray) for a in args) else np


def _device_properties(device_id):
    Device(device_id)  # checks the ordinal
    return {"name": b"ndgrad stand-in GPU", "totalGlobalMem": 2**34, "major": 8, "minor": 0,
            "multiProcessorCount": 1}


def _set_device(device_id):
    Device(device_id).use()


class Stream:
    """The stand-in runs everything at once: streams are there only to be synchronised."""

    def __init__(self, null=False, non_blocking=False, ptds=False):
        pass

    def synchronize(self):
        pass


Stream.null = Stream(null=True)

cuda = types.SimpleNamespace(
    Device=Device,
    Stream=Stream,
    is_available=lambda: True,
    runtime=types.SimpleNamespace(
        getDeviceCount=lambda: DEVICE_COUNT,
        getDevice=lambda: Device.current,
        setDevice=_set_device,
        getDeviceProperties=_device_properties,
        deviceSynchronize=lambda: None,
    ),
)


class _Namespace(_Wrapped):
    """The stand-in's ``cupy``: NumPy's names, wrapped, plus CuPy's own (asnumpy, cuda, special, ...)."""

    __slots__ = ("_own",)

    def __init__(self, own):
        super().__init__(np)
        self._own = own

    def __getattr__(self, name):
        if name in self._own:
            return self._own[name]
        return _attribute(getattr(np, name))

    def __repr__(self):
        return "<module 'ndgrad stand-in GPU'>"


namespace = _Namespace({
    "__name__": "ndgrad.testing.fake_cupy",
    "ndarray": ndarray,
    "asarray": asarray,
    "array": array,
    "asnumpy": asnumpy,
    "get_array_module": get_array_module,
    "cuda": cuda,
    # the special functions, as cupyx.scipy.special offers them to CuPy arrays
    "special": _Wrapped(_numpy_special),
})
