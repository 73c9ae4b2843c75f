"""The objects a torch.save pickle names, and how ndgrad builds each: PyTorch's names for dtypes, storage types,
Size, device and its tensor-rebuilding functions, mapped to ndgrad's own. ndgrad.load's unpickler resolves a file's
globals through this table and nothing else (with the user's allow-list); ndgrad.save writes the same names, so
that real PyTorch reads the file with weights_only=True.

A torch file stores each tensor as a call ``_rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
hooks)`` whose storage is a persistent reference to an archive entry of raw bytes; offsets and strides count
elements of the storage's dtype."""

import math
from collections import Counter, OrderedDict, namedtuple

import numpy as np

from ndgrad._device import device
from ndgrad._dtype import ALL_DTYPES
from ndgrad._metadata import sparse_coo, strided
from ndgrad._tensor import Size, Tensor
from ndgrad._weights_unpickler import UnpicklingError

__all__ = [
    "LoadedStorage", "StorageType", "storage_type_of", "torch_callables", "torch_values", "TORCH_NAMES",
    "layout_from_name", "size_from_items",
]

# A storage as read from a file: its bytes (a 1-D uint8 array, on its device), the dtype a typed storage holds
# (None for an UntypedStorage, whose tensors name their dtype) and the device name it was saved from.
LoadedStorage = namedtuple("LoadedStorage", "array dtype location")


class StorageType:
    """What a file's ``torch.FloatStorage`` (or ``torch.storage.UntypedStorage``) stands for: the element type of
    the storage it tags. Only passed along, never called."""

    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"<storage type {self.name}>"


_TYPED_STORAGES = {d: StorageType(f"torch.{d.title}Storage", d) for d in ALL_DTYPES}
_UNTYPED_STORAGE = StorageType("torch.storage.UntypedStorage", None)


class MissingDtype:
    """A dtype of torch's that ndgrad does not have: a file may name it, and a tensor of it cannot be built."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


_MISSING_DTYPES = [
    "uint16", "uint32", "uint64", "complex32", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e8m0fnu", "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "bits8", "bits16",
]


def storage_type_of(dtype):
    """The storage type torch.save writes for a tensor of ``dtype`` (a typed storage for every ndgrad dtype)."""
    return _TYPED_STORAGES[dtype]


# ---- rebuilding tensors --------------------------------------------------------------------------------------
def _window(storage, dtype, offset, size, stride):
    """The array of ``dtype`` that (offset, size, stride), in elements, cut from ``storage``, after checking that
    it lies inside it: a view, so tensors saved as views of one storage share memory again."""
    if type(storage) is not LoadedStorage:
        raise UnpicklingError(f"a tensor's storage must be a storage of the file, not {type(storage).__name__}")
    if storage.dtype is not None and storage.dtype is not dtype:
        raise UnpicklingError(f"a tensor of {dtype} cannot view a storage of {storage.dtype}")
    size, stride = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    if len(size) != len(stride):
        raise UnpicklingError(f"a tensor's size {size} and stride {stride} differ in length")
    if type(offset) is not int or offset < 0:
        raise UnpicklingError(f"a tensor's storage offset must be a non-negative int, not {offset!r}")
    itemsize, nbytes = dtype.itemsize, storage.array.nbytes
    end = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else offset
    if end * itemsize > nbytes:
        raise UnpicklingError(
            f"a tensor of size {list(size)}, stride {list(stride)} and storage offset {offset} reaches outside its "
            f"storage of {nbytes // itemsize} elements"
        )
    strides = tuple(s * itemsize for s in stride)
    if isinstance(storage.array, np.ndarray):
        array = np.ndarray(size, dtype.numpy, buffer=storage.array, offset=offset * itemsize, strides=strides)
        # NOTE: a broadcast window (stride 0) reads one element many times; ndgrad keeps such arrays read-only.
        array.flags.writeable = storage.array.flags.writeable and not any(
            s == 0 and n > 1 for n, s in zip(size, stride))
        return array
    return type(storage.array)(size, dtype.numpy, memptr=storage.array.data + offset * itemsize, strides=strides)


def _int_tuple(values, what):
    if type(values) not in (tuple, list, Size) or not all(type(v) is int and v >= 0 for v in values):
        raise UnpicklingError(f"a tensor's {what} must be a tuple of non-negative ints, not {values!r}")
    if len(values) > 64 or math.prod(values) > 2**63 - 1:
        raise UnpicklingError(f"a tensor's {what} {values!r} is larger than a tensor can be")
    return tuple(values)


def _check_flags(array, requires_grad, backward_hooks, metadata=None):
    if type(requires_grad) is not bool:
        raise UnpicklingError(f"requires_grad must be a bool, not {requires_grad!r}")
    if backward_hooks or metadata:  # hooks are functions, which a weights-only file cannot hold
        raise UnpicklingError("ndgrad.load cannot restore a tensor's backward hooks or metadata")
    if requires_grad and array.dtype.kind not in "fcV":
        raise UnpicklingError("Only Tensors of floating point and complex dtype can require gradients")


def _tensor(array, requires_grad, backward_hooks, metadata=None):
    _check_flags(array, requires_grad, backward_hooks, metadata)
    return Tensor._from_parts(array, requires_grad, None, 0, None)


def rebuild_tensor(storage, storage_offset, size, stride):
    """torch._utils._rebuild_tensor: the oldest form, without requires_grad."""
    return _tensor(_window(storage, _typed(storage), storage_offset, size, stride), False, None)


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    """torch._utils._rebuild_tensor_v2: a tensor viewing a typed storage."""
    array = _window(storage, _typed(storage), storage_offset, size, stride)
    return _tensor(array, requires_grad, backward_hooks, metadata)


def rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    """torch._utils._rebuild_tensor_v3: a tensor of ``dtype`` viewing an untyped storage (torch writes it for the
    dtypes without a legacy storage class)."""
    if type(dtype) is MissingDtype:
        raise UnpicklingError(f"ndgrad has no dtype {dtype!r}, so it cannot load a tensor of it")
    if not any(dtype is d for d in ALL_DTYPES):
        raise UnpicklingError(f"expected a dtype, not {dtype!r}")
    array = _window(storage, dtype, storage_offset, size, stride)
    return _tensor(array, requires_grad, backward_hooks, metadata)


def _typed(storage):
    if type(storage) is LoadedStorage and storage.dtype is None:
        raise UnpicklingError("_rebuild_tensor_v2 needs a typed storage, not an UntypedStorage")
    return getattr(storage, "dtype", None)


def rebuild_parameter(data, requires_grad, backward_hooks):
    """torch._utils._rebuild_parameter: an nn.Parameter around a rebuilt tensor."""
    from ndgrad.nn import Parameter

    if type(data) is not Tensor:
        raise UnpicklingError(f"a Parameter's data must be a tensor, not {type(data).__name__}")
    _check_flags(data._data, requires_grad, backward_hooks)
    return Parameter(data, requires_grad=requires_grad)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """torch._utils._rebuild_parameter_with_state: a Parameter with Python attributes of its own."""
    return _with_state(rebuild_parameter(data, requires_grad, backward_hooks), state)


def rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: a tensor rebuilt by ``func`` and given Python attributes (or made an
    allow-listed Tensor subclass)."""
    if func not in (rebuild_tensor_v2, rebuild_tensor_v3, rebuild_parameter, rebuild_parameter_with_state):
        raise UnpicklingError(f"_rebuild_from_type_v2 cannot call {func!r}")
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)) or type(args) is not tuple:
        raise UnpicklingError("_rebuild_from_type_v2 needs a Tensor class and a tuple of arguments")
    tensor = func(*args)
    if type(tensor) is not new_type:
        tensor = tensor.as_subclass(new_type)
    return _with_state(tensor, state)


def _with_state(tensor, state):
    slots = None
    if type(state) is tuple and len(state) == 2:
        state, slots = state
    for attributes in (state, slots):
        if attributes is None:
            continue
        if type(attributes) not in (dict, OrderedDict) or not all(type(key) is str for key in attributes):
            raise UnpicklingError("a tensor's Python attributes must be a dict of names")
        for name, value in attributes.items():
            setattr(tensor, name, value)
    return tensor


def rebuild_sparse_tensor(layout, data):
    """torch._utils._rebuild_sparse_tensor: a sparse COO tensor from (indices, values, size, is_coalesced)."""
    from ndgrad.ops.sparse import sparse_coo_tensor

    if layout is not sparse_coo or type(data) is not tuple or len(data) not in (3, 4):
        raise UnpicklingError(f"ndgrad.load reads sparse COO tensors only, not layout {layout!r}")
    indices, values, size, *coalesced = data
    return sparse_coo_tensor(indices, values, size, is_coalesced=coalesced[0] if coalesced else None)


def layout_from_name(name):
    """torch.serialization._get_layout: a layout from its printed name."""
    layouts = {"torch.strided": strided, "torch.sparse_coo": sparse_coo}
    if name not in layouts:
        raise UnpicklingError(f"ndgrad has no layout {name!r}")
    return layouts[name]


def _bytes(text, encoding):
    """_codecs.encode as protocol 2 pickles bytes: ``encode(str, "latin1")``, and nothing else."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise UnpicklingError("_codecs.encode is allowed only as pickle writes bytes: encode(str, 'latin1')")
    return text.encode("latin1")


def _bytearray(data=b""):
    if type(data) not in (bytes, list):  # bytearray(n) would allocate n bytes that the file does not hold
        raise UnpicklingError("bytearray is allowed only from bytes or a list")
    return bytearray(data)


def _set(items=()):
    return set(items)


def size_from_items(items=()):
    return Size(items)


# ---- the table -----------------------------------------------------------------------------------------------
def torch_callables():
    """PyTorch's names for what REDUCE may call, each mapped to what ndgrad calls instead."""
    return {
        "collections.OrderedDict": OrderedDict, "collections.Counter": Counter, "builtins.set": _set,
        "builtins.complex": complex, "builtins.bytearray": _bytearray, "_codecs.encode": _bytes,
        "torch.Size": size_from_items, "torch.device": device, "torch.serialization._get_layout": layout_from_name,
        "torch._utils._rebuild_tensor": rebuild_tensor, "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3, "torch._utils._rebuild_parameter": rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": rebuild_parameter_with_state,
        "torch._utils._rebuild_sparse_tensor": rebuild_sparse_tensor,
        "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
    }


def torch_values():
    """PyTorch's names for objects a file only passes along: dtypes, storage types, the tensor classes."""
    from ndgrad.nn import Parameter

    values = {f"torch.{d.name}": d for d in ALL_DTYPES}
    values.update({f"torch.{name}": MissingDtype(f"torch.{name}") for name in _MISSING_DTYPES})
    for storage_type in _TYPED_STORAGES.values():
        values[storage_type.name] = storage_type
        values[storage_type.name.replace("torch.", "torch.cuda.")] = storage_type  # old files of GPU tensors
    values[_UNTYPED_STORAGE.name] = _UNTYPED_STORAGE
    values.update({"torch.Tensor": Tensor, "torch.nn.parameter.Parameter": Parameter})
    return values


# the way back, for ndgrad.save: the names under which a torch file calls ndgrad's own functions and classes
TORCH_NAMES = {obj: name for name, obj in torch_callables().items() if name.startswith("torch.")}
