"""dtype objects, the default dtype, and PyTorch's type-promotion rules (which differ from NumPy's)."""

import numpy as np

from ndgrad._argument_parser import parses

__all__ = ["dtype", "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast"]


_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


class dtype:
    """A tensor element type; prints as ``ndgrad.float32`` the way torch prints ``torch.float32``."""

    __slots__ = (
        "name", "title", "cpp_name", "numpy", "is_floating_point", "is_complex", "is_signed", "itemsize", "_category",
    )

    def __init__(self, name, title, numpy_dtype, category):
        self.name = name
        self.title = title  # PyTorch's C++ name, used in messages and legacy type names: Float, Long, ...
        self.cpp_name = _CPP_NAMES[name]  # the C++ type some of PyTorch's messages print: float, long int, ...
        self.numpy = np.dtype(numpy_dtype)
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex: promotion goes upward
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = self.numpy.kind in "fic"
        self.itemsize = self.numpy.itemsize

    def __repr__(self):
        return f"ndgrad.{self.name}"

    def to_complex(self):
        return {float64: complex128}.get(self, complex64)

    def __reduce__(self):
        return (_from_name, (self.name,))


bool_ = dtype("bool", "Bool", np.bool_, 0)
uint8 = dtype("uint8", "Byte", np.uint8, 1)
int8 = dtype("int8", "Char", np.int8, 1)
int16 = dtype("int16", "Short", np.int16, 1)
int32 = dtype("int32", "Int", np.int32, 1)
int64 = dtype("int64", "Long", np.int64, 1)
float16 = dtype("float16", "Half", np.float16, 2)
float32 = dtype("float32", "Float", np.float32, 2)
float64 = dtype("float64", "Double", np.float64, 2)
complex64 = dtype("complex64", "ComplexFloat", np.complex64, 3)
complex128 = dtype("complex128", "ComplexDouble", np.complex128, 3)

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}


def _from_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(numpy_dtype):
    """The ndgrad dtype of an array; a TypeError in PyTorch's words for types a tensor cannot hold."""
    try:
        return _BY_NUMPY[numpy_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(numpy_dtype).name}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."
        ) from None


class _Defaults:
    float = float32


def get_default_dtype():
    """The floating dtype that Python floats and new float tensors get (see torch.get_default_dtype)."""
    return _Defaults.float


def set_default_dtype(d):
    """See torch.set_default_dtype; only floating-point dtypes are allowed, as in PyTorch."""
    if d not in (float16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _Defaults.float = d


@parses("promote_types(ScalarType type1, ScalarType type2)")
def promote_types(a, b):
    """PyTorch's promote_types: the higher category wins whole; within a category the wider type."""
    if a is b:
        return a
    if a._category != b._category:
        high, low = (a, b) if a._category > b._category else (b, a)
        if high.is_complex and low is float64:
            return complex128
        return high
    return _BY_NUMPY[np.promote_types(a.numpy, b.numpy)]


@parses("can_cast(ScalarType from_, ScalarType to)")
def can_cast(from_, to):
    """PyTorch's same-kind rule: no cast to a lower category (float to int, int to bool, complex to float)."""
    return from_._category <= to._category


_INT64_MIN, _UINT64_MAX = -(1 << 63), (1 << 64) - 1
# The Python ints a tensor of each dtype computes with as they are; others are wrapped into integer dtypes.
INT_RANGES = {d.numpy: (_INT64_MIN, _UINT64_MAX) for d in ALL_DTYPES if d._category > 1}
INT_RANGES.update({d.numpy: (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)) for d in ALL_DTYPES
                   if d._category == 1})


def check_int(value):
    """PyTorch reads a Python int as a number into 64 bits (unsigned above 2**63 - 1): beyond, its OverflowError."""
    if value < _INT64_MIN:
        raise OverflowError("can't convert negative int to unsigned")
    if value > _UINT64_MAX:
        raise OverflowError("int too big to convert")


def wrapped_int(value, d):
    """A Python int as a number of integer dtype ``d`` computes (an add, a comparison): modulo 2**bits, as C's cast
    of PyTorch's 64-bit number (``uint8 - 300`` subtracts 212)."""
    bits = d.itemsize * 8
    value %= 1 << bits
    return value - (1 << bits) if d.is_signed and value >> (bits - 1) else value


def scalar_dtype(value):
    """The dtype a Python number takes when it stands alone (PyTorch's 'wrapped number' rule)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        check_int(value)
        return int64
    if isinstance(value, complex):
        return _Defaults.float.to_complex()
    return _Defaults.float


def wrapped_number_dtype(value):
    """The dtype of the 0-d tensor PyTorch makes of a Python number where a Tensor goes (``x.to(1.5)``): 64 bits."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return complex128 if isinstance(value, complex) else float64


def result_type(operands):
    """torch.result_type over tensors and Python scalars.

    NOTE: three tiers, as in PyTorch: tensors with dimensions, then 0-d tensors, then Python scalars. A lower
    tier only changes the result when it is of a higher category (an int32 tensor plus a 0-d int64 tensor is
    int32; plus a Python float it is the default float dtype).
    """
    tiers = [None, None, None]
    for x in operands:
        if x is None:  # an absent optional operand (clamp without a min) takes no part
            continue
        if hasattr(x, "_data"):
            d, tier = x.dtype, (0 if x._data.ndim else 1)
        else:
            d, tier = scalar_dtype(x), 2
        tiers[tier] = d if tiers[tier] is None else promote_types(tiers[tier], d)
    result = None
    for d in tiers:
        if d is None:
            continue
        if result is None:
            result = d
        elif d._category > result._category:
            result = promote_types(result, d)
    return result



# The C++ type names in PyTorch's "value cannot be converted" message (not quite cpp_name's: int64_t, not long).
_SCALAR_TYPE_NAMES = {
    "float16": "c10::Half", "float32": "float", "float64": "double", "int64": "int64_t", "int32": "int",
    "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
}


def real_scalar(value, d):
    """A Python number as PyTorch writes it into a tensor of dtype ``d`` (fill_, full, masked_fill): checked, unlike
    an operand's. A complex number goes into a real dtype only when its imaginary part is 0; an int or float must
    lie within the dtype's range (an unsigned one also takes down to -max, wrapped: uint8 takes -1 as 255); bool
    tensors take any number (nonzero is True). Else PyTorch's error."""
    if d is bool_:
        return value
    if isinstance(value, int):
        check_int(value)
    if isinstance(value, complex) and not d.is_complex:
        if value.imag:
            raise _overflow(d)
        value = value.real
    if d._category == 1 and not isinstance(value, bool):
        low, high = INT_RANGES[d.numpy]
        if not (-high if low == 0 else low) <= value <= high:
            raise _overflow(d)
        return value % (high + 1) if value < 0 and low == 0 and isinstance(value, int) else value
    if d._category == 2 and isinstance(value, (int, float)) and abs(value) != float("inf") and abs(value) > _LARGEST[d]:
        raise _overflow(d)
    return value


def _overflow(d):
    return RuntimeError(f"value cannot be converted to type {_SCALAR_TYPE_NAMES[d.name]} without overflow")


_LARGEST = {d: float(np.finfo(d.numpy).max) for d in (float16, float32, float64)}


def legacy_type_name(d, device_type="cpu"):
    """'ndgrad.FloatTensor' and friends, the names PyTorch's messages and Tensor.type() use."""
    prefix = "ndgrad.cuda." if device_type == "cuda" else "ndgrad."
    return f"{prefix}{d.title}Tensor"
