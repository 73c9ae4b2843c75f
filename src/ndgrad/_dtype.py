"""dtype objects, the default dtype, and PyTorch's type-promotion rules (which differ from NumPy's)."""

import math

import numpy as np

from ndgrad._argument_parser import check_fits, parses

__all__ = ["dtype", "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast"]


_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double",
    "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


class dtype:
    """A tensor element type; prints as ``ndgrad.float32`` the way torch prints ``torch.float32``."""

    __slots__ = (
        "name", "title", "cpp_name", "numpy", "is_floating_point", "is_complex", "is_signed", "itemsize", "_category",
    )

    def __new__(cls, *args, **kwargs):  # the dtypes below are all there are, as in PyTorch
        raise TypeError("cannot create 'ndgrad.dtype' instances")

    @classmethod
    def _make(cls, name, title, numpy_dtype, category):
        self = object.__new__(cls)
        self.name = name
        self.title = title  # PyTorch's C++ name, used in messages and legacy type names: Float, Long, ...
        self.cpp_name = _CPP_NAMES[name]  # the C++ type some of PyTorch's messages print: float, long int, ...
        self.numpy = np.dtype(numpy_dtype) if numpy_dtype is not None else _DeferredBFloat16()
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex: promotion goes upward
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = category > 1 or self.numpy.kind == "i"
        self.itemsize = 2 if numpy_dtype is None else self.numpy.itemsize
        return self

    def __repr__(self):
        return f"ndgrad.{self.name}"

    def to_complex(self):
        return {float64: complex128}.get(self, complex64)

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def __lt__(self, other):
        return _unordered("<", self, other)

    def __le__(self, other):
        return _unordered("<=", self, other)

    def __gt__(self, other):
        return _unordered(">", self, other)

    def __ge__(self, other):
        return _unordered(">=", self, other)

    def __reduce__(self):
        return (_from_name, (self.name,))


def _unordered(operator, left, right):
    """Python's error for ordering dtypes, naming the type as PyTorch's C type names itself."""
    if not isinstance(right, dtype):
        return NotImplemented
    raise TypeError(f"'{operator}' not supported between instances of 'ndgrad.dtype' and 'ndgrad.dtype'")


# Note [bfloat16's kind]
# NumPy files the dtypes that packages add under kind "V" (void), ml_dtypes' bfloat16 among them. No other array of
# kind "V" becomes a tensor, so the checks that ask an array whether it is floating read "V" as floating: "fcV" for
# floating or complex, "fV" for floating. A string of one more letter costs the fast path nothing.


class _DeferredBFloat16:
    """bfloat16's NumPy dtype until a bfloat16 array is first made. NumPy has none: the optional ml_dtypes package
    adds one (a dtype of NumPy kind "V", with ufunc loops), imported only then, as it costs a third of a second.

    NumPy reads the ``dtype`` attribute of whatever it is given as a dtype, so every array made with
    ``bfloat16.numpy`` (zeros, astype, array) lands here: it loads ml_dtypes and puts the real dtype in bfloat16's
    place, or raises the error that says to install it. Other attributes (``kind``, ``type``) go the same way.
    """

    @property
    def dtype(self):
        return load_bfloat16()

    def __getattr__(self, name):
        return getattr(load_bfloat16(), name)


BFLOAT16_MISSING = (
    "ndgrad.bfloat16 tensors need the ml_dtypes package, which gives NumPy a bfloat16 type: pip install "
    "ndgrad[bfloat16] (or pip install ml_dtypes)"
)


def load_bfloat16():
    """ml_dtypes' bfloat16, from now on bfloat16's NumPy dtype; a RuntimeError saying to install it if missing."""
    try:
        import ml_dtypes
    except ImportError:
        raise RuntimeError(BFLOAT16_MISSING) from None
    numpy_dtype = np.dtype(ml_dtypes.bfloat16)
    bfloat16.numpy = numpy_dtype
    _BY_NUMPY[numpy_dtype] = bfloat16
    INT_RANGES[numpy_dtype] = INT_RANGES[float32.numpy]
    return numpy_dtype


bool_ = dtype._make("bool", "Bool", np.bool_, 0)
uint8 = dtype._make("uint8", "Byte", np.uint8, 1)
int8 = dtype._make("int8", "Char", np.int8, 1)
int16 = dtype._make("int16", "Short", np.int16, 1)
int32 = dtype._make("int32", "Int", np.int32, 1)
int64 = dtype._make("int64", "Long", np.int64, 1)
float16 = dtype._make("float16", "Half", np.float16, 2)
float32 = dtype._make("float32", "Float", np.float32, 2)
float64 = dtype._make("float64", "Double", np.float64, 2)
bfloat16 = dtype._make("bfloat16", "BFloat16", None, 2)  # NumPy's dtype comes from ml_dtypes, on first use
complex64 = dtype._make("complex64", "ComplexFloat", np.complex64, 3)
complex128 = dtype._make("complex128", "ComplexDouble", np.complex128, 3)

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, bfloat16, complex64, complex128)
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES if d is not bfloat16}  # bfloat16's joins when ml_dtypes is loaded
_BY_NAME = {d.name: d for d in ALL_DTYPES}


def _from_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(numpy_dtype):
    """The ndgrad dtype of an array; a TypeError in PyTorch's words for types a tensor cannot hold."""
    try:
        return _BY_NUMPY[numpy_dtype]
    except KeyError:
        raise unsupported_numpy_dtype(numpy_dtype) from None


def unsupported_numpy_dtype(numpy_dtype):
    """PyTorch's TypeError for a NumPy array it cannot take in (ml_dtypes' bfloat16 too, which only ndgrad's own
    arrays hold)."""
    scalar_type = np.dtype(numpy_dtype).type
    return TypeError(
        f"can't convert np.ndarray of type {scalar_type.__module__}.{scalar_type.__name__}. The only supported types "
        "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
        "uint8, and bool."
    )


class _Defaults:
    float = float32


def get_default_dtype():
    """The floating dtype that Python floats and new float tensors get (see torch.get_default_dtype)."""
    return _Defaults.float


def set_default_dtype(d):
    """See torch.set_default_dtype; only floating-point dtypes are allowed, as in PyTorch."""
    if type(d) is not dtype:
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _Defaults.float = d


@parses("promote_types(ScalarType type1, ScalarType type2)")
def promote_types(type1, type2):
    """The dtype both promote to (see torch.promote_types)."""
    return promote(type1, type2)


def promote(a, b):
    """PyTorch's promote_types: the higher category wins whole; within a category the wider type (bfloat16 and
    float16, as wide but each with a range or precision the other lacks, meet in float32)."""
    if a is b:
        return a
    if a._category != b._category:
        high, low = (a, b) if a._category > b._category else (b, a)
        if high.is_complex and low is float64:
            return complex128
        return high
    if a.is_floating_point:  # by width, not by NumPy, which knows bfloat16 only once ml_dtypes is loaded
        return float32 if a.itemsize == b.itemsize else max(a, b, key=_width)
    return _BY_NUMPY[np.promote_types(a.numpy, b.numpy)]


def _width(d):
    return d.itemsize


@parses("can_cast(ScalarType from_, ScalarType to)")
def can_cast(from_, to):
    """PyTorch's same-kind rule: no cast to a lower category (float to int, int to bool, complex to float)."""
    return from_._category <= to._category


_INT64_MIN, _UINT64_MAX = -(1 << 63), (1 << 64) - 1
# The Python ints a tensor of each dtype computes with as they are; others are wrapped into integer dtypes.
INT_RANGES = {d.numpy: (_INT64_MIN, _UINT64_MAX) for d in ALL_DTYPES if d._category > 1 and d is not bfloat16}
INT_RANGES.update({d.numpy: (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)) for d in ALL_DTYPES
                   if d._category == 1})


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
        check_fits("scalar", value)
        return int64
    if isinstance(value, complex):
        return _Defaults.float.to_complex()
    return _Defaults.float


def scalar_tensor_dtype(value):
    """The dtype of the tensor PyTorch wraps a Python number in where a tensor goes: double, not the default."""
    for kind, d in ((bool, bool_), (int, int64), (complex, complex128)):
        if isinstance(value, kind):
            return d
    return float64


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
        tiers[tier] = d if tiers[tier] is None else promote(tiers[tier], d)
    result = None
    for d in tiers:
        if d is None:
            continue
        if result is None:
            result = d
        elif d._category > result._category:
            result = promote(result, d)
    return result



# The C++ type names in PyTorch's "value cannot be converted" message, as Scalar::to<T> spells them.
_SCALAR_TYPE_NAMES = {
    "bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
    "float16": "c10::Half", "float32": "float", "float64": "double", "bfloat16": "c10::BFloat16",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def fill_scalar(value, d, count):
    """``real_scalar`` for a fill of ``count`` elements: PyTorch writes the one element of a half tensor through
    double, unchecked beyond that (70000 fills it with inf, as it does not fill two)."""
    if count == 1 and d is float16:
        return float(real_scalar(value, float64))
    return real_scalar(value, d)


def real_scalar(value, d, spelled=None):
    """A Python number as PyTorch writes it into a tensor of dtype ``d`` (c10's checked conversion of a Scalar):
    PyTorch's RuntimeError where the number does not fit, else the value NumPy is to store.

    An integer goes into an unsigned type from -max to max (-1 is 255 in uint8), a float into an integer type only
    within its range (not nan or inf), a complex number into a real type only with no imaginary part; floating types
    take inf and nan but no finite value beyond their range; bool takes any number. ``spelled``: the type's name
    in the message (torch.tensor's names it otherwise than Scalar::to<T>, which this is by default).
    """
    check_fits("scalar", value)  # an int a Scalar cannot hold (a call of a remembered shape reaches here unchecked)
    if d is bool_:
        return bool(value)
    spelled = spelled or _SCALAR_TYPE_NAMES[d.name]
    if isinstance(value, complex):
        if not d.is_complex:
            if value.imag:
                raise _overflow(spelled)
            return real_scalar(value.real, d, spelled)
        _check_range(value.real, d, spelled)
        _check_range(value.imag, d, spelled)
        return value
    _check_range(value, d, spelled)
    if d.is_floating_point or d.is_complex or isinstance(value, bool):
        return value
    bits = 8 * d.itemsize  # wraps as C++'s cast does: -1 is 255 in uint8, 2.0**63 is -2**63 in int64
    value = int(value) % 2**bits
    return value - 2**bits if d.is_signed and value >= 2 ** (bits - 1) else value


def integer_range(d, from_float):
    """The numbers c10's checked conversion lets into the integer dtype ``d``: from a float, its range; from an
    integer, an unsigned type's negatives too (they wrap around, as PyTorch lets ``a - b`` do)."""
    return _RANGES[d.name][from_float]


def _range(d):
    if d is bfloat16:  # float32's exponent with 8 significant bits: the largest is (2 - 2**-7) * 2**127
        return (2 - 2**-7) * 2.0**127
    if d.is_floating_point or d.is_complex:
        return float(np.finfo(d.numpy).max)
    info = np.iinfo(d.numpy)
    return ((-int(info.max) if info.min == 0 else int(info.min)), int(info.max)), (float(info.min), float(info.max))


_RANGES = {d.name: _range(d) for d in ALL_DTYPES if d is not bool_}  # floating ones: the largest finite value


def _check_range(value, d, spelled):
    if d.is_floating_point or d.is_complex:  # inf and nan fit; a finite number beyond the largest does not
        fits = not math.isfinite(value) or abs(value) <= _RANGES[d.name]
    else:
        low, high = _RANGES[d.name][isinstance(value, float)]
        fits = low <= value <= high  # nan fails too
    if not fits:
        raise _overflow(spelled)


def _overflow(spelled):
    return RuntimeError(f"value cannot be converted to type {spelled} without overflow")




def legacy_type_name(d, device_type="cpu"):
    """'ndgrad.FloatTensor' and friends, the names PyTorch's messages and Tensor.type() use."""
    prefix = "ndgrad.cuda." if device_type == "cuda" else "ndgrad."
    return f"{prefix}{d.title}Tensor"


def type_string(tensor):
    """PyTorch's Tensor::toString() in its messages: ndgrad.LongTensor for the dtypes with a legacy tensor type,
    CPUBoolType or CPUComplexFloatType for the others."""
    if tensor.dtype.is_complex or tensor.dtype is bool_:
        return f"{tensor.device.type.upper()}{tensor.dtype.title}Type"
    return legacy_type_name(tensor.dtype, tensor.device.type)
