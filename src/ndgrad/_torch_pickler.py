"""The pickler behind ndgrad.save: Python's pickle, writing each ndgrad tensor, dtype, Size and device under the name
torch.save gives it (``torch._utils._rebuild_tensor_v2``, ``torch.float32``, ...), so that real PyTorch loads the
file with weights_only=True, and each tensor's memory as a persistent reference to a storage of raw bytes.

Why pickle's Python implementation (``pickle._Pickler``): a file must name ``torch._utils._rebuild_tensor_v2``
whether or not torch is installed, and only that implementation lets a subclass write a global by name
(``save_global``); the C pickler imports the module to check the name first."""

import io
import pickle
from collections import OrderedDict

from ndgrad._device import device, device_of_array
from ndgrad._dtype import dtype
from ndgrad._metadata import _address, layout, sparse_coo
from ndgrad._tensor import Size, Tensor
from ndgrad._torch_objects import (
    TORCH_NAMES,
    StorageType,
    layout_from_name,
    rebuild_from_type_v2,
    rebuild_parameter,
    rebuild_parameter_with_state,
    rebuild_sparse_tensor,
    rebuild_tensor_v2,
    size_from_items,
    storage_type_of,
)

__all__ = ["dumps", "Storages"]


def dumps(obj, storages, protocol=2):
    """The pickle of ``obj`` (bytes), registering the memory of its tensors in ``storages``."""
    out = io.BytesIO()
    _TorchPickler(out, protocol, storages).dump(obj)
    return out.getvalue()


class _StorageReference:
    """Stands in a pickle for the storage ``key``; persistent_id writes it as torch's reference tuple."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


class Storages:
    """The storages a file holds, in the order tensors first use them: each one the outermost contiguous array
    behind a tensor's memory (found along NumPy's ``.base`` links), so that views saved together load as views of
    one storage again, as after torch.load."""

    def __init__(self, legacy=False):
        self.legacy = legacy  # the legacy format's references have a sixth field: the storage it views, or None
        self.arrays, self.dtypes = [], []  # storage key (its index) -> its array, the dtype it is saved as
        self._keys = {}  # id(array) -> key; ``arrays`` keeps each alive, so that its id() stays its own

    def window(self, tensor):
        """(reference, offset, size, stride) of ``tensor``'s elements in its storage, counted in elements."""
        array = tensor._data
        owner, array = _memory_owner(array)
        key = self._keys.get(id(owner))
        if key is None:
            key = self._keys[id(owner)] = len(self.arrays)
            self.arrays.append(owner)
            self.dtypes.append(tensor.dtype)
        elif self.dtypes[key] is not tensor.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        itemsize, shape = array.itemsize, tuple(array.shape)
        if not array.size:  # no element to place: torch's strides for a new tensor of that shape
            return _StorageReference(key), 0, shape, _contiguous_strides(shape)
        offset = (_address(array) - _address(owner)) // itemsize
        return _StorageReference(key), offset, shape, tuple(s // itemsize for s in array.strides)

    def numel(self, key):
        """Storage ``key``'s element count in its dtype (its array may be of another: a loaded file's bytes)."""
        return self.arrays[key].nbytes // self.dtypes[key].itemsize

    def persistent_id(self, key):
        owner, kind = self.arrays[key], self.dtypes[key]
        reference = "storage", storage_type_of(kind), str(key), str(device_of_array(owner)), self.numel(key)
        return (*reference, None) if self.legacy else reference


def _memory_owner(array):
    """(owner, array): ``owner`` is the outermost contiguous array whose memory holds all of ``array``'s, at a whole
    number of elements before it. Without one (or where ``array``'s strides are not what a torch tensor can have:
    negative, or not whole elements), the owner is a contiguous copy, which stands in for ``array``. An empty
    array gets an empty owner."""
    itemsize = array.itemsize
    if any(stride < 0 or stride % itemsize for stride in array.strides):
        array = array.copy()
        return array, array
    if not array.size:  # an empty storage of its own; the tensor keeps its strides
        return array[:0].reshape(-1).copy(), array
    first = _address(array)
    high = first + sum((n - 1) * s for n, s in zip(array.shape, array.strides)) + itemsize
    owner, link = None, array
    while link is not None:
        if isinstance(link, type(array)) and (link.flags.c_contiguous or link.flags.f_contiguous):
            start = _address(link)
            whole = (first - start) % itemsize == 0 and link.nbytes % itemsize == 0
            if whole and start <= first and high <= start + link.nbytes:
                owner = link
        link = getattr(link, "base", None)
    if owner is None:
        owner = array = array.copy()
    return owner, array


def _contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


class _TorchPickler(pickle._Pickler):
    def __init__(self, file, protocol, storages):
        super().__init__(file, protocol)
        self.storages = storages

    def persistent_id(self, obj):
        return self.storages.persistent_id(obj.key) if type(obj) is _StorageReference else None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        torch_name = _torch_name(obj)
        if torch_name is not None:
            return torch_name  # a name: pickled as that global, through save_global
        kind = type(obj)
        if kind is Size:
            return size_from_items, (tuple(obj),)
        if kind is device:
            return device, (obj.type,) if obj.index is None else (obj.type, obj.index)
        if kind is layout:
            return layout_from_name, (f"torch.{obj.name}",)
        return NotImplemented

    def _tensor(self, tensor):
        """torch's reduction of a tensor: _rebuild_tensor_v2 for a plain one, _rebuild_parameter for an
        nn.Parameter, _rebuild_from_type_v2 for one with Python attributes or of another subclass."""
        from ndgrad.nn import Parameter

        if tensor.layout is sparse_coo:
            coalesced = tensor.is_coalesced()
            return rebuild_sparse_tensor, (tensor.layout, (tensor._indices(), tensor._values(), tensor.shape,
                                                          coalesced))
        state = dict(vars(tensor))
        if isinstance(tensor, Parameter):
            data = Tensor._from_parts(tensor._data, False, None, 0, None)
            args = (data, tensor.requires_grad, OrderedDict())
            if type(tensor) is Parameter:
                return (rebuild_parameter, args) if not state else (rebuild_parameter_with_state, (*args, state))
            return rebuild_from_type_v2, (rebuild_parameter, type(tensor), args, state)
        args = (*self.storages.window(tensor), tensor.requires_grad, OrderedDict())
        if type(tensor) is Tensor and not state:
            return rebuild_tensor_v2, args
        return rebuild_from_type_v2, (rebuild_tensor_v2, type(tensor), args, state)

    def save_global(self, obj, name=None):
        torch_name = _torch_name(obj)
        if torch_name is None:
            return super().save_global(obj, name)
        module, _, qualname = torch_name.rpartition(".")
        self.write(pickle.GLOBAL + module.encode() + b"\n" + qualname.encode() + b"\n")
        self.memoize(obj)


def _torch_name(obj):
    from ndgrad.nn import Parameter

    if obj is Tensor or obj is Parameter:
        return "torch.Tensor" if obj is Tensor else "torch.nn.parameter.Parameter"
    if isinstance(obj, dtype):
        return f"torch.{obj.name}"
    if isinstance(obj, StorageType):
        return obj.name
    try:
        return TORCH_NAMES.get(obj)
    except TypeError:  # an unhashable object is none of torch's
        return None
