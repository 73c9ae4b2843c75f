"""Tensor creation: tensor() and as_tensor() from data, the filled factories (zeros, ones, full, empty, eye and
their _like forms), and the legacy typed constructors; ranges and random tensors have modules of their own."""

import math

import numpy as np

from ndgrad._argument_parser import Signature, parses, type_name
from ndgrad._device import CPU, to_device
from ndgrad._device import device as as_device
from ndgrad._dtype import (
    bfloat16,
    bool_,
    fill_scalar,
    float16,
    float32,
    float64,
    from_numpy_dtype,
    get_default_dtype,
    int32,
    int64,
    uint8,
    unsupported_numpy_dtype,
)
from ndgrad._factory import (
    FACTORY_KEYWORDS,
    LIKE_KEYWORDS,
    build,
    get_default_device,
    made,
    new_size,
    set_default_device,
)
from ndgrad._from_data import array_from_data, infer_dtype, is_sequence
from ndgrad._tensor import Size, Tensor
from ndgrad._warnings import warn

__all__ = [
    "frombuffer",
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "eye", "zeros_like", "ones_like",
    "full_like", "empty_like", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "HalfTensor",
    "BFloat16Tensor", "ByteTensor", "set_default_device", "get_default_device", "scalar_tensor",
]

_NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative strides are not currently "
    "supported. (You can probably work around this by making a copy of your array  with array.copy().) "
)


def copied(data, dtype, device):
    """A fresh array on ``device`` from Python data, a NumPy array or a Tensor (see torch.tensor); ``dtype``
    None: the one torch.tensor infers."""
    if isinstance(data, Tensor):  # it stays on its device unless told otherwise, as in PyTorch
        array = to_device(data._data, as_device(data.device if device is None else device))
    elif isinstance(data, np.ndarray) or (hasattr(data, "__cuda_array_interface__") and hasattr(data, "shape")):
        array = _checked_numpy(data) if isinstance(data, np.ndarray) else data
    else:
        array = array_from_data(data, dtype)
    dtype = dtype or from_numpy_dtype(array.dtype)
    if array.dtype.kind == "c" and dtype.numpy.kind in "fiubV":
        from ndgrad.ops.shape import warn_complex_to_real  # the ops import this module

        warn_complex_to_real()
        array = array.real
    return build(device, lambda xp: xp.array(array, dtype=dtype.numpy))


def _checked_numpy(array):
    """``array`` after PyTorch's checks of a NumPy array it takes in: its strides, byte order and dtype."""
    if any(stride < 0 for stride in array.strides):
        raise ValueError(_NEGATIVE_STRIDES)
    if not array.dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. Conversion between byte orders "
            "is currently not supported."
        )
    if from_numpy_dtype(array.dtype) is bfloat16:  # PyTorch's error for a dtype a tensor cannot hold (this too)
        raise unsupported_numpy_dtype(array.dtype)
    return array


@parses("tensor(object data, *, ScalarType dtype=None, Device? device=None, bool pin_memory=False, "
        "bool requires_grad=False)")
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (see torch.tensor)."""
    if isinstance(data, Tensor):
        warn_copy_construct("ndgrad.tensor(sourceTensor)")
    return made(copied(data, dtype, device), requires_grad)


def warn_copy_construct(instead):
    warn(
        "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
        f"sourceTensor.detach().clone().requires_grad_(True), rather than {instead}.",
        UserWarning,
    )


@parses("as_tensor(object data, *, ScalarType dtype=None, Device? device=None)")
def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory with a NumPy array or Tensor when dtype and device allow."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)  # itself when both already fit
    on_host = (get_default_device() if device is None else as_device(device)) == CPU
    if isinstance(data, np.ndarray) and on_host and (dtype is None or dtype.numpy == data.dtype):
        return from_numpy(data)
    return made(copied(data, dtype, device))


@parses("frombuffer(object buffer, *, ScalarType dtype, int count=-1, int offset=0, bool requires_grad=False)")
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor over the memory of an object with Python's buffer protocol (a bytearray, an array.array, a
    memoryview), sharing it: ``count`` elements of ``dtype`` from byte ``offset`` (all that fit, if count <= 0), after
    PyTorch's checks (see torch.frombuffer). A read-only buffer (bytes) is copied: PyTorch would share it and let
    writes through to memory Python holds immutable."""
    try:
        length = memoryview(buffer).nbytes
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} "
                         "bytes) minus 1")
    itemsize = dtype.itemsize
    if count < 0:
        if (length - offset) % itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({itemsize})")
        count = (length - offset) // itemsize
    elif offset + count * itemsize > length:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({length} bytes)")
    array = np.frombuffer(buffer, dtype=dtype.numpy, count=count, offset=offset)
    return made(array if array.flags.writeable else array.copy(), requires_grad)


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray`` (see torch.from_numpy)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(ndarray)})")
    return Tensor._wrap(_checked_numpy(ndarray))


# ---- filled factories ------------------------------------------------------------------------------------------
def filled(fill, size, dtype, device, requires_grad, negative=None):
    """A new tensor of ``fill(xp, shape, numpy dtype)`` (``fill_zeros``, ...) after PyTorch's checks of the size
    (``negative``: the message of a function that words a negative size otherwise)."""
    dtype = dtype or get_default_dtype()
    shape = new_size(size, dtype, negative)
    return made(build(device, lambda xp: fill(xp, shape, dtype.numpy)), requires_grad)


def fill_zeros(xp, shape, dtype):
    return xp.zeros(shape, dtype)


def fill_ones(xp, shape, dtype):
    return xp.ones(shape, dtype)


def fill_empty(xp, shape, dtype):
    return xp.empty(shape, dtype)


def filled_with(size, fill_value, dtype, device, requires_grad):
    """A new tensor of ``size`` holding the number ``fill_value`` (see torch.full)."""
    dtype = dtype or infer_dtype(fill_value)
    shape = new_size(size, dtype)
    value = fill_scalar(fill_value, dtype, math.prod(shape))
    return made(build(device, lambda xp: xp.full(shape, value, dtype.numpy)), requires_grad)


@parses(f"zeros(SymInt[] size, *, Tensor out=None, {FACTORY_KEYWORDS})")
def zeros(size, *, dtype=None, device=None, requires_grad=False):
    return filled(fill_zeros, size, dtype, device, requires_grad, "zeros: Dimension size must be non-negative.")


@parses(f"ones(SymInt[] size, *, Tensor out=None, {FACTORY_KEYWORDS})")
def ones(size, *, dtype=None, device=None, requires_grad=False):
    return filled(fill_ones, size, dtype, device, requires_grad)


@parses(f"empty(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor out=None, {FACTORY_KEYWORDS})")
def empty(size, *, dtype=None, device=None, requires_grad=False):
    return filled(fill_empty, size, dtype, device, requires_grad)


@parses(f"full(SymInt[] size, Scalar fill_value, *, Tensor out=None, {FACTORY_KEYWORDS})")
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return filled_with(size, fill_value, dtype, device, requires_grad)


@parses(f"scalar_tensor(Scalar s, *, {FACTORY_KEYWORDS})")
def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding ``s``, in the default float dtype unless ``dtype`` says otherwise (see
    torch.scalar_tensor)."""
    return full((), s, dtype=dtype or get_default_dtype(), device=device, requires_grad=requires_grad)


@parses(f"eye(SymInt n, *, Tensor out=None, {FACTORY_KEYWORDS})",
        f"eye(SymInt n, SymInt m, *, Tensor out=None, {FACTORY_KEYWORDS})")
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    m = n if m is None else m
    for name, count in (("n", n), ("m", m)):
        if count < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {count}")
    if n * m >= 2**63:
        raise RuntimeError("numel: integer multiplication overflow")
    return filled(lambda xp, shape, numpy_dtype: xp.eye(n, m, dtype=numpy_dtype), (n, m), dtype, device,
                  requires_grad)


@parses(f"zeros_like(Tensor input, *, {LIKE_KEYWORDS})")
def zeros_like(input, *, dtype=None, device=None, requires_grad=False):
    return filled(fill_zeros, input.shape, dtype or input.dtype, device or input.device, requires_grad)


@parses(f"ones_like(Tensor input, *, {LIKE_KEYWORDS})")
def ones_like(input, *, dtype=None, device=None, requires_grad=False):
    return filled(fill_ones, input.shape, dtype or input.dtype, device or input.device, requires_grad)


@parses(f"empty_like(Tensor input, *, {LIKE_KEYWORDS})")
def empty_like(input, *, dtype=None, device=None, requires_grad=False):
    return filled(fill_empty, input.shape, dtype or input.dtype, device or input.device, requires_grad)


@parses(f"full_like(Tensor input, Scalar fill_value, *, {LIKE_KEYWORDS})")
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    return filled_with(input.shape, fill_value, dtype or input.dtype, device or input.device, requires_grad)


# ---- legacy constructors -----------------------------------------------------------------------------------
_LEGACY_NEW = Signature((
    "new(*, Device? device=None)", "new(Storage storage)", "new(*, int cdata)|hidden", "new(Tensor other)",
    "new(Tensor other, *, Device? device=None)|hidden", "new(SymInt[] size, *, Device? device=None)",
    "new(object data, *, Device? device=None)",
))
Tensor.new.signature = _LEGACY_NEW  # x.new(...) is checked against these overloads too, in legacy_new


def legacy_new(dtype, args, kwargs, cls=Tensor):
    """``Tensor(data)`` copies data; ``Tensor(2, 3)`` or ``Tensor(size)`` is uninitialised; no args is empty."""
    dtype = dtype or get_default_dtype()
    data = len(args) == 1 and _is_data(args[0])
    if not data or kwargs:  # (PyTorch reads the ints of the data as values, never as sizes)
        sizes, kwargs, _ = _LEGACY_NEW.check(args, kwargs)  # no out= here
    if data or (args and isinstance(args[0], Tensor)):
        if data and not is_sequence(args[0]):
            raise TypeError(f"new(): data must be a sequence (got {type_name(args[0])})")
        array = copied(args[0], dtype, kwargs.get("device"))
    else:
        shape = new_size(sizes[0] if args else (0,), dtype)
        array = build(kwargs.get("device"), lambda xp: xp.zeros(shape, dtype.numpy))
    result = Tensor._wrap(array)
    if cls is not Tensor:
        result.__class__ = cls
    return result


def _is_data(value):
    """Whether the one argument of a legacy constructor is its data: anything but a size (a bool is no size)."""
    return isinstance(value, bool) or not isinstance(value, (int, np.integer, Size, Tensor))


class LegacyTensorType:
    """``ndgrad.FloatTensor([1, 2])`` builds a float32 tensor; ``isinstance(t, FloatTensor)`` checks the dtype."""

    def __init__(self, name, dtype):
        self.__name__, self.dtype = name, dtype

    def __call__(self, *args, **kwargs):
        return legacy_new(self.dtype, args, kwargs)

    def __instancecheck__(self, instance):
        return isinstance(instance, Tensor) and instance.dtype is self.dtype

    def __repr__(self):
        return f"<class 'ndgrad.{self.__name__}'>"


FloatTensor = LegacyTensorType("FloatTensor", float32)
DoubleTensor = LegacyTensorType("DoubleTensor", float64)
HalfTensor = LegacyTensorType("HalfTensor", float16)
BFloat16Tensor = LegacyTensorType("BFloat16Tensor", bfloat16)
LongTensor = LegacyTensorType("LongTensor", int64)
IntTensor = LegacyTensorType("IntTensor", int32)
ByteTensor = LegacyTensorType("ByteTensor", uint8)
BoolTensor = LegacyTensorType("BoolTensor", bool_)
