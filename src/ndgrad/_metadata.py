"""What a tensor says about itself: shape, strides, dtype, device, memory and layout, and the flags PyTorch answers
for kinds of tensor ndgrad does not have (sparse, quantized, meta, ...), as Tensor's methods and properties."""

import numpy as np

from ndgrad._argument_parser import parses_method, type_name
from ndgrad._device import device_of_array
from ndgrad._dtype import _BY_NUMPY, legacy_type_name
from ndgrad._shared_memory import is_shared, storage_address
from ndgrad._sparse_storage import SparseCOO

__all__ = [
    "Size", "MetadataMethods", "layout", "strided", "memory_format", "contiguous_format", "channels_last",
    "channels_last_3d", "preserve_format", "sparse_coo",
]


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as ``ndgrad.Size([2, 3])`` (see torch.Size); sums and repeats
    of a Size are Sizes (its items are read as a tuple's, at a tuple's speed: a slice is a tuple)."""

    __module__ = "ndgrad"

    def __new__(cls, sizes=(), /):
        return _new_tuple(cls, _size_items(tuple(sizes)))

    def __repr__(self):
        return f"ndgrad.Size([{', '.join(map(str, self))}])"

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to ndgrad.Size")
        return _new_tuple(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        return _new_tuple(Size, tuple.__add__(other, self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, times):
        return _new_tuple(Size, tuple.__mul__(self, times))

    __rmul__ = __mul__

    def numel(self):
        return int(np.prod(self, dtype=np.int64))


_new_tuple = tuple.__new__  # _new_tuple(Size, shape): a Size of ints already checked, at a tuple's speed


def _size_items(items):
    """PyTorch's check of a Size's items: ints (NumPy's kept as they are, a bool as its int) or one-element integer
    tensors (as their int)."""
    values = []
    for index, item in enumerate(items):
        if isinstance(item, (int, np.integer)):
            values.append(int(item) if isinstance(item, bool) else item)
        elif hasattr(item, "_data") and item._data.size == 1 and item._data.dtype.kind in "iu":
            values.append(int(item._data.item()))
        else:
            raise TypeError(f"ndgrad.Size() takes an iterable of 'int' (item {index} is '{type_name(item)}')")
    return tuple(values)


class layout:
    """How a tensor's elements are laid out in memory (see torch.layout): ``strided`` (dense) or ``sparse_coo``."""

    __slots__ = ("name",)
    __module__ = "ndgrad"

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"ndgrad.{self.name}"

    def __reduce__(self):
        return self.name  # the module attribute of that name


strided = layout("strided")
sparse_coo = layout("sparse_coo")


class memory_format:
    """The order of a tensor's dims in memory that an op should produce (see torch.memory_format). ndgrad takes
    ``contiguous_format`` and ``preserve_format`` wherever torch takes a memory format, as the default they are;
    ``channels_last`` is refused where ndgrad cannot lay a result out that way."""

    __slots__ = ("name",)
    __module__ = "ndgrad"

    def __new__(cls, *args, **kwargs):  # the four below are all there are, as in PyTorch
        raise TypeError("cannot create 'ndgrad.memory_format' instances")

    @classmethod
    def _make(cls, name):
        self = object.__new__(cls)
        self.name = name
        return self

    def __repr__(self):
        return f"ndgrad.{self.name}"

    def __reduce__(self):
        return self.name  # the module attribute of that name


contiguous_format, channels_last, channels_last_3d, preserve_format = (
    memory_format._make(name) for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")
)
DEFAULT_FORMATS = (contiguous_format, preserve_format)  # a memory format that asks for nothing ndgrad does not do


def _dim_of_shape(dim, ndim):
    """size(dim) and stride(dim) index the shape: a 0-d tensor has no dimension to index, unlike for reductions."""
    from ndgrad.ops.shape import wrap_dim

    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim)


def _address(array):
    """The memory address of an array's first element (a NumPy array, or a subclass such as a memmap, or CuPy's)."""
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr


def _owner(array):
    """The array that owns ``array``'s memory (itself, or the base its views lead to). A base that is no array (the
    memoryview under a frombuffer tensor, bytes) ends the walk: the array over it is the owner."""
    while getattr(array, "base", None) is not None and hasattr(array.base, "dtype"):
        array = array.base
    return array


class MetadataMethods:
    """The metadata methods and properties of Tensor (Tensor inherits them)."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    @property
    def shape(self):
        return _new_tuple(Size, self._data.shape)

    @parses_method("size(int? dim=None)")
    def size(self, dim=None):
        if dim is None:
            return _new_tuple(Size, self._data.shape)
        return self._data.shape[_dim_of_shape(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

    def nelement(self):
        return int(self._data.size)

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return int(self._data.size) * self._data.itemsize

    @property
    def dtype(self):
        return _BY_NUMPY[self._data.dtype]

    @property
    def device(self):
        return device_of_array(self._data)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def is_cpu(self):
        return self.device.type == "cpu"

    @property
    def layout(self):
        return sparse_coo if type(self._data) is SparseCOO else strided

    @property
    def is_sparse(self):
        return type(self._data) is SparseCOO

    # Kinds of tensor PyTorch has and ndgrad does not: the answer is always no.
    is_sparse_csr = is_quantized = is_meta = is_mkldnn = is_nested = is_xpu = is_mps = property(lambda self: False)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    @parses_method("is_contiguous(*, MemoryFormat memory_format=contiguous_format)")
    def is_contiguous(self):
        return bool(self._data.flags.c_contiguous)

    @parses_method("stride(int? dim=None)")
    def stride(self, dim=None):
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_dim_of_shape(dim, self._data.ndim)]

    def data_ptr(self):
        """The address of the first element (see torch.Tensor.data_ptr)."""
        return _address(self._data)

    def storage_offset(self):
        """Where the first element lies in the memory the tensor views, counted in elements (see
        torch.Tensor.storage_offset)."""
        start = storage_address(self._data)  # a shared storage is a mapping, which no array owns
        start = _address(_owner(self._data)) if start is None else start
        return (_address(self._data) - start) // self._data.itemsize

    def get_device(self):
        """The GPU's number, or -1 for a tensor on the CPU (see torch.Tensor.get_device)."""
        index = self.device.index
        return -1 if index is None else index

    @parses_method("is_pinned(Device? device=None)")
    def is_pinned(self, device=None):
        return False  # ndgrad has no pinned host memory

    def is_shared(self):
        """Whether the memory is shared with other processes, by share_memory_ (see torch.Tensor.is_shared)."""
        return is_shared(self._data)

    @parses_method("type(object dtype=None, bool non_blocking=False, *, MemoryFormat? memory_format=None)",
                   "type(object dtype=None, bool async=False, *, MemoryFormat? memory_format=None)|deprecated")
    def type(self, dtype=None, non_blocking=False):
        """The legacy type name (``'ndgrad.FloatTensor'``), or a copy converted to a dtype or a legacy type given by
        name or class (see torch.Tensor.type)."""
        if dtype is None:
            return legacy_type_name(self.dtype, self.device.type)
        return self.to(*_type_target(dtype))


def _type_target(value):
    """What Tensor.type converts to, as arguments of Tensor.to: a dtype, or the dtype (and device) of a legacy type,
    by name (``'ndgrad.cuda.FloatTensor'``, or torch's spelling) or by class (``ndgrad.FloatTensor``; ``Tensor``
    stands for the default dtype)."""
    from ndgrad._dtype import ALL_DTYPES, dtype, get_default_dtype

    if isinstance(value, dtype):
        return (value,)
    if isinstance(value, str):
        name = value
    elif isinstance(getattr(value, "dtype", None), dtype) and hasattr(value, "__instancecheck__"):
        return (value.dtype,)  # ndgrad.FloatTensor and the other legacy types
    elif isinstance(value, type):
        name = value.__name__ if value.__module__ == "builtins" else f"{value.__module__}.{value.__name__}"
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    library, _, rest = name.partition(".")
    device, _, title = rest.rpartition(".")
    if library in ("ndgrad", "torch") and device in ("", "cuda"):
        if title == "Tensor":
            return (device or "cpu", get_default_dtype())
        for candidate in ALL_DTYPES:
            if title == f"{candidate.title}Tensor":
                return (device or "cpu", candidate)
    raise ValueError(f"invalid type: '{name}'")
