"""Tensor creation: tensor(), zeros(), arange(), random tensors, and the legacy typed constructors."""

import numbers

import numpy as np

from ndgrad import _printing
from ndgrad._argument_parser import parses
from ndgrad._device import CPU, cuda_backend, placement, to_device
from ndgrad._device import device as as_device
from ndgrad._dtype import (
    bool_,
    float16,
    float32,
    float64,
    from_numpy_dtype,
    get_default_dtype,
    int32,
    int64,
    real_scalar,
    uint8,
)
from ndgrad._fpstate import silenced
from ndgrad._tensor import Size, Tensor
from ndgrad._warnings import warn

__all__ = [
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "eye", "arange", "linspace",
    "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like", "rand", "randn", "randint",
    "randperm", "normal", "manual_seed", "seed", "initial_seed", "FloatTensor", "DoubleTensor", "LongTensor",
    "IntTensor", "BoolTensor", "HalfTensor", "ByteTensor", "Generator", "default_generator",
]


class _Default:
    device = None  # set_default_device's device; None: the cpu


def set_default_device(device):
    """The device factories use when given none (see torch.set_default_device); None means the cpu."""
    _Default.device = None if device is None or as_device(device).type == "cpu" else as_device(device)
    _printing._DEFAULT_DEVICE_TYPE = get_default_device().type  # tensors elsewhere name their device


def get_default_device():
    return _Default.device or CPU


@silenced  # values that overflow the dtype become inf, as in PyTorch (see Note [floating-point error state])
def _build(device, make):
    """``make(xp)`` with the array library of ``device`` (None: the default device), allocating there."""
    if device is None:
        device = _Default.device
        if device is None:
            return make(np)
    device = as_device(device)
    if device.type == "cpu":
        return make(np)
    with placement(device):
        return make(cuda_backend())


def _placed(array, device):
    """A host array (random draws are made on the host) on ``device`` (None: the default device)."""
    device = _Default.device if device is None else as_device(device)
    return array if device is None else to_device(array, device)


def _make(array, requires_grad=False):
    t = Tensor._wrap(array)
    if requires_grad:
        if array.dtype.kind not in "fc":  # factories word it with a capital, unlike the setter
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    return t


def _infer_dtype(data):
    """The dtype torch.tensor() picks for nested Python data: bool < int64 < default float < complex."""
    kinds = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor):
            kinds.add(item.dtype)
        elif isinstance(item, np.generic):  # a NumPy scalar keeps its own dtype, as in PyTorch
            kinds.add(from_numpy_dtype(item.dtype))
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, bool):
            kinds.add(bool_)
        elif isinstance(item, numbers.Integral):
            kinds.add(int64)
        elif isinstance(item, numbers.Real):
            kinds.add(get_default_dtype())
        elif isinstance(item, numbers.Complex):
            kinds.add(get_default_dtype().to_complex())
        else:
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
    if not kinds:
        return get_default_dtype()
    return max(kinds, key=lambda d: (d._category, d.itemsize))


def _to_array(data, dtype, device):
    """A fresh array on ``device`` from Python data, a NumPy array or Tensors (copied)."""
    if isinstance(data, Tensor):  # it stays on its device unless told otherwise, as in PyTorch
        device = data.device if device is None else device
        data = to_device(data._data, as_device(device))
    elif isinstance(data, (list, tuple)):
        data = _unwrap_nested(data)
    is_array = hasattr(data, "shape") and not isinstance(data, np.generic)
    if is_array and dtype is None:
        dtype = from_numpy_dtype(data.dtype)
    elif dtype is None:
        dtype = _infer_dtype(data)
    if is_array and data.dtype.kind == "c" and dtype.numpy.kind in "fiu":
        from ndgrad.ops.shape import warn_complex_to_real  # the ops import this module

        warn_complex_to_real()
        data = data.real
    try:
        return _build(device, lambda xp: xp.array(data, dtype=dtype.numpy))
    except TypeError:  # complex Python numbers where the dtype is real: PyTorch's words
        if dtype.is_floating_point:
            raise TypeError("must be real number, not complex") from None
        raise TypeError("'complex' object cannot be interpreted as an integer") from None


def _unwrap_nested(data):
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(item) for item in data]
    if isinstance(data, Tensor):
        return data.item() if data.ndim == 0 else data.tolist()
    return data


@parses("tensor(object data, *, ScalarType dtype=None, Device? device=None, bool pin_memory=False, "
        "bool requires_grad=False)")
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (see torch.tensor)."""
    if isinstance(data, Tensor):
        warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than ndgrad.tensor(sourceTensor).",
            UserWarning,
        )
    if dtype is None and isinstance(data, (list, tuple, bool, numbers.Number)):
        dtype = _infer_dtype(data)
    return _make(_to_array(data, dtype, device), requires_grad)


@parses("as_tensor(object data, *, ScalarType dtype=None, Device? device=None)")
def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory with a NumPy array or Tensor when dtype and device allow."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)  # itself when both already fit
    on_host = (_Default.device if device is None else as_device(device)) in (None, CPU)
    if isinstance(data, np.ndarray) and on_host and (dtype is None or dtype.numpy == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray`` (see torch.from_numpy)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    from_numpy_dtype(ndarray.dtype)  # raises PyTorch's error for unsupported dtypes
    if any(stride < 0 for stride in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) "
        )
    return Tensor._wrap(ndarray)


def _filled(fill, size, dtype, device, requires_grad):
    dtype = dtype or get_default_dtype()
    size = tuple(size)
    return _make(_build(device, lambda xp: fill(xp, size, dtype.numpy)), requires_grad)


@parses("zeros(SymInt[] size, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=False, bool? requires_grad=False)")
def zeros(size, *, dtype=None, device=None, requires_grad=False):
    return _filled(lambda xp, s, d: xp.zeros(s, d), size, dtype, device, requires_grad)


@parses("ones(SymInt[] size, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=False, bool? requires_grad=False)")
def ones(size, *, dtype=None, device=None, requires_grad=False):
    return _filled(lambda xp, s, d: xp.ones(s, d), size, dtype, device, requires_grad)


@parses("empty(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def empty(size, *, dtype=None, device=None, requires_grad=False):
    return _filled(lambda xp, s, d: xp.empty(s, d), size, dtype, device, requires_grad)


@parses("full(SymInt[] size, Scalar fill_value, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    if isinstance(fill_value, np.generic):
        fill_value = fill_value.item()  # a NumPy scalar fills like a Python number here, unlike in tensor()
    dtype = dtype or _infer_dtype(fill_value)
    fill_value = real_scalar(fill_value, dtype)
    return _filled(lambda xp, s, d: xp.full(s, fill_value, d), size, dtype, device, requires_grad)


@parses("eye(SymInt n, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=False, bool? requires_grad=False)",
        "eye(SymInt n, SymInt m, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    return _filled(lambda xp, s, d: xp.eye(n, m, dtype=d), (), dtype, device, requires_grad)


@parses("arange(Scalar end, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=False, bool? requires_grad=False)",
        "arange(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=False, bool? requires_grad=False)",
        "arange(Scalar start, Scalar end, Scalar step=1, *, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """See torch.arange: integer arguments give int64, any float argument the default float dtype."""
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = int64 if all(isinstance(v, numbers.Integral) for v in values) else get_default_dtype()
    if values[2] == 0:
        raise RuntimeError("step must be nonzero")
    return _make(_build(device, lambda xp: xp.arange(*values, dtype=dtype.numpy)), requires_grad)


@parses("linspace(Tensor start, Tensor end, int steps, *, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "linspace(Scalar start, Tensor end, int steps, *, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "linspace(Tensor start, Scalar end, int steps, *, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "linspace(Scalar start, Scalar end, int steps, *, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    dtype = dtype or get_default_dtype()
    array = _build(device, lambda xp: xp.linspace(start, end, steps, dtype=np.float64).astype(dtype.numpy))
    return _make(array, requires_grad)


@parses("zeros_like(Tensor input, *, MemoryFormat? memory_format=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def zeros_like(input, *, dtype=None, device=None, requires_grad=False):
    return zeros(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@parses("ones_like(Tensor input, *, MemoryFormat? memory_format=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def ones_like(input, *, dtype=None, device=None, requires_grad=False):
    return ones(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@parses("empty_like(Tensor input, *, MemoryFormat? memory_format=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def empty_like(input, *, dtype=None, device=None, requires_grad=False):
    return empty(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@parses("full_like(Tensor input, Scalar fill_value, *, MemoryFormat? memory_format=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(input.shape, fill_value, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)


@parses("rand_like(Tensor input, *, Generator? generator, MemoryFormat? memory_format=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "rand_like(Tensor input, *, MemoryFormat? memory_format=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    return rand(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@parses("randn_like(Tensor input, *, Generator? generator, MemoryFormat? memory_format=None, "
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
        "bool? requires_grad=False)",
        "randn_like(Tensor input, *, MemoryFormat? memory_format=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    return randn(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


# ---- random numbers: one NumPy Generator, reseeded by manual_seed ------------------------------------------
class _RandomState:
    seed = 0
    generator = np.random.default_rng(0)


_SEED_RANGE = (-(2**63), 2**64)  # what torch accepts; negative seeds wrap around modulo 2**64
_NEW_GENERATOR_SEED = 67280421310721  # the seed a new torch.Generator starts from
# get_state's layout: PCG64's 128-bit state and increment, its cached half-word (flag, value), the initial seed.
_STATE_LAYOUT = ((16, "state"), (16, "inc"), (1, "has_uint32"), (4, "uinteger"), (8, "seed"))
_STATE_SIZE = sum(width for width, _ in _STATE_LAYOUT)


class Generator:
    """A random-number stream with torch.Generator's API (see torch.Generator); NumPy's PCG64 draws the numbers,
    so a seed gives other values than in PyTorch, but the same values on every run."""

    __module__ = "ndgrad"

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self.manual_seed(_NEW_GENERATOR_SEED)

    def manual_seed(self, seed):
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not _SEED_RANGE[0] <= seed < _SEED_RANGE[1]:
            raise ValueError("Overflow when unpacking long long")
        self._seed = int(seed) % 2**64
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        """Reseed from the operating system's entropy and return the new seed."""
        self.manual_seed(int(np.random.SeedSequence().entropy % 2**63))
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The stream's position as a uint8 tensor that set_state restores (its layout is ndgrad's own)."""
        pcg = self._rng.bit_generator.state
        fields = {**pcg["state"], "has_uint32": pcg["has_uint32"], "uinteger": pcg["uinteger"], "seed": self._seed}
        raw = b"".join(int(fields[name]).to_bytes(width, "little") for width, name in _STATE_LAYOUT)
        return Tensor._wrap(np.frombuffer(raw, np.uint8).copy())

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a ndgrad.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not uint8:
            raise TypeError("RNG state must be a ndgrad.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a PCG64 state of size {_STATE_SIZE} but found the input RNG state size to be "
                f"{new_state.numel()}"
            )
        raw, fields, start = new_state.cpu()._data.tobytes(), {}, 0
        for width, name in _STATE_LAYOUT:
            fields[name], start = int.from_bytes(raw[start:start + width], "little"), start + width
        rng = np.random.default_rng()
        rng.bit_generator.state = {
            "bit_generator": "PCG64", "state": {"state": fields["state"], "inc": fields["inc"]},
            "has_uint32": fields["has_uint32"], "uinteger": fields["uinteger"],
        }
        self._seed, self._rng = fields["seed"], rng
        return self


class _DefaultGenerator(Generator):
    """The global generator (torch.default_generator): its stream is the one rand/randn/randint draw from."""

    def __init__(self):
        self.device = CPU

    @property
    def _seed(self):
        return _RandomState.seed

    @_seed.setter
    def _seed(self, value):
        _RandomState.seed = value

    @property
    def _rng(self):
        return _RandomState.generator

    @_rng.setter
    def _rng(self, value):
        _RandomState.generator = value


default_generator = _DefaultGenerator()


def manual_seed(seed):
    """Reseed the generator behind rand/randn/randint/normal (values differ from PyTorch's generator)."""
    return default_generator.manual_seed(int(seed))


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def _stream(generator):
    """The NumPy generator to draw from: the given ndgrad Generator's, else the global one."""
    return _RandomState.generator if generator is None else generator._rng


@silenced
def _random(sample, size, dtype, device, requires_grad, kernel="check_uniform_bounds", complex_scale=1.0,
            generator=None):
    dtype = dtype or get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):  # ``kernel``: PyTorch's name, uniform or normal
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype.title}\'')
    generator, shape = _stream(generator), tuple(size)
    array = sample(generator, shape)
    if dtype.is_complex:  # the real and imaginary parts are drawn apart, scaled as PyTorch scales them
        array = np.asarray((array + 1j * sample(generator, shape)) * complex_scale)
    array = array.astype(dtype.numpy)
    return _make(_placed(array, device), requires_grad)


@parses("rand(SymInt[] size, *, Generator? generator, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "rand(SymInt[] size, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=False, bool? requires_grad=False)")
def rand(size, *, dtype=None, device=None, requires_grad=False, generator=None):
    return _random(lambda g, s: g.random(s), size, dtype, device, requires_grad, generator=generator)


@parses("randn(SymInt[] size, *, Generator? generator, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "randn(SymInt[] size, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=False, bool? requires_grad=False)")
def randn(size, *, dtype=None, device=None, requires_grad=False, generator=None):
    # a complex sample has variance 1 in all: 1/2 for each part
    return _random(lambda g, s: g.standard_normal(s), size, dtype, device, requires_grad, "normal_kernel_cpu",
                   complex_scale=0.5**0.5, generator=generator)


@parses("normal(Tensor mean, Tensor std, *, Generator? generator=None, Tensor out=None)",
        "normal(Tensor mean, float std=1, *, Generator? generator=None, Tensor out=None)",
        "normal(float mean, Tensor std, *, Generator? generator=None, Tensor out=None)",
        "normal(float mean, float std, SymInt[] size, *, Generator? generator=None, Tensor out=None, "
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
        "bool? requires_grad=False)")
def normal(mean, std, size=None, *, dtype=None, device=None, requires_grad=False, generator=None):
    """Samples N(mean, std^2); mean and std are numbers or tensors that broadcast (see torch.normal)."""
    mean_array = mean.cpu()._data if isinstance(mean, Tensor) else mean  # drawn on the host, like every sample
    std_array = std.cpu()._data if isinstance(std, Tensor) else std
    if device is None:
        device = next((t.device for t in (mean, std) if isinstance(t, Tensor)), None)
    if size is None:
        size = np.broadcast_shapes(np.shape(mean_array), np.shape(std_array))
        dtype = dtype or next((t.dtype for t in (mean, std) if isinstance(t, Tensor)), None)
    return _random(
        lambda g, s: g.normal(mean_array, std_array, s), size, dtype, device, requires_grad,
        "normal_kernel_cpu", generator=generator,
    )


@parses("randint(SymInt high, SymInt[] size, *, Generator? generator, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "randint(SymInt high, SymInt[] size, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "randint(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, Tensor out=None, "
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
        "bool? requires_grad=False)",
        "randint(SymInt low, SymInt high, SymInt[] size, *, Tensor out=None, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
def randint(low=0, high=None, size=None, *, dtype=None, device=None, requires_grad=False, generator=None):
    if size is None:
        low, high, size = 0, low, high
    dtype = dtype or int64
    array = _stream(generator).integers(low, high, size=tuple(size)).astype(dtype.numpy)
    return _make(_placed(array, device), requires_grad)


@parses("randperm(SymInt n, *, Generator? generator, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
        "randperm(SymInt n, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=False, bool? requires_grad=False)")
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0 .. n-1 (see torch.randperm)."""
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    array = _stream(generator).permutation(n).astype((dtype or int64).numpy)
    return _make(_placed(array, device), requires_grad)


# ---- legacy constructors -----------------------------------------------------------------------------------
def legacy_new(dtype, args, device, cls=Tensor):
    """``Tensor(data)`` copies data; ``Tensor(2, 3)`` or ``Tensor(size)`` is uninitialised; no args is empty."""
    dtype = dtype or get_default_dtype()
    if len(args) == 1 and not isinstance(args[0], numbers.Integral) and not _is_size(args[0]):
        array = _to_array(args[0], dtype, device)
    else:
        size = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args  # Tensor(Size([2, 3]))
        array = _build(device, lambda xp: xp.zeros(tuple(int(s) for s in size) if args else (0,), dtype.numpy))
    result = Tensor._wrap(array)
    if cls is not Tensor:
        result.__class__ = cls
    return result


def _is_size(value):
    return isinstance(value, Size)


class _LegacyTensorType:
    """``ndgrad.FloatTensor([1, 2])`` builds a float32 tensor; ``isinstance(t, FloatTensor)`` checks the dtype."""

    def __init__(self, name, dtype):
        self.__name__, self.dtype = name, dtype

    def __call__(self, *args, device=None):
        return legacy_new(self.dtype, args, device)

    def __instancecheck__(self, instance):
        return isinstance(instance, Tensor) and instance.dtype is self.dtype

    def __repr__(self):
        return f"<class 'ndgrad.{self.__name__}'>"


FloatTensor = _LegacyTensorType("FloatTensor", float32)
DoubleTensor = _LegacyTensorType("DoubleTensor", float64)
HalfTensor = _LegacyTensorType("HalfTensor", float16)
LongTensor = _LegacyTensorType("LongTensor", int64)
IntTensor = _LegacyTensorType("IntTensor", int32)
ByteTensor = _LegacyTensorType("ByteTensor", uint8)
BoolTensor = _LegacyTensorType("BoolTensor", bool_)
