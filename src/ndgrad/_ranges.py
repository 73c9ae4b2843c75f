"""arange, linspace and logspace as PyTorch computes them: its checks of the bounds, its element count, and its
arithmetic (in the dtype's accumulation type, linspace's halves from either end), so nan, inf or complex bounds,
a step of the wrong sign and counts that overflow raise PyTorch's errors, and the values are PyTorch's."""

import math
import numbers

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._dtype import complex128, fill_scalar, float16, float32, float64, get_default_dtype, int64, real_scalar
from ndgrad._factory import FACTORY_KEYWORDS, made, new_array, new_size, placed
from ndgrad._fpstate import silenced
from ndgrad._warnings import warn

__all__ = ["arange", "deprecated_range", "linspace", "logspace", "tril_indices", "triu_indices"]

_LONG_MAX = 2**63 - 1


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype.title}\'')


def _number(value):
    """A bound given as a tensor (0-d, or PyTorch's parser would have refused it) as the Python number it holds."""
    return value.item() if hasattr(value, "_data") else value


def _to(value, dtype):
    """A bound as Scalar::to<dtype> converts it, checked (the ints and floats most calls give pass as they are)."""
    if type(value) in (int, float) and dtype in (int64, float64) and -(2**63) <= value < 2**63:
        if type(value) is int or dtype is float64:
            return value
    return real_scalar(value, dtype)


def _wrapped(value):
    """``value`` as C++'s int64 arithmetic leaves it (modulo 2**64)."""
    return (value + 2**63) % 2**64 - 2**63


@parses(f"arange(Scalar end, *, Tensor out=None, {FACTORY_KEYWORDS})",
        f"arange(Scalar start, Scalar end, *, {FACTORY_KEYWORDS})",
        f"arange(Scalar start, Scalar end, Scalar step=1, *, Tensor out=None, {FACTORY_KEYWORDS})")
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """See torch.arange: integer arguments give int64, any float argument the default float dtype."""
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    if dtype is None:
        integral = all(type(v) is int or isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = int64 if integral else get_default_dtype()
    if not (dtype.is_floating_point or dtype.numpy.kind in "iu"):
        raise _not_implemented("arange_cpu", dtype)
    size = _arange_size(start, end, step, dtype)
    # accumulated in double (float for half, int64 for integers, wrapping as C++ does), then cast to the dtype
    accumulate = {float16: float32, float32: float64}.get(dtype, dtype if dtype.is_floating_point else int64)
    first, delta = (_to(v, accumulate) for v in (start, step))
    return made(new_array((size,), dtype, device, lambda xp: _arange_values(xp, size, first, delta, accumulate,
                                                                            dtype)), requires_grad)


@silenced
def _arange_values(xp, size, first, delta, accumulate, dtype):
    out = xp.empty(size, dtype.numpy)  # first, as PyTorch allocates: a failure names the result's bytes
    out[...] = first + delta * xp.arange(size, dtype=accumulate.numpy)  # Python numbers take the array's dtype
    return out


def _checked_bounds(start, end, step):
    """The bounds in double, after the checks PyTorch's arange and range make of them."""
    double_start, double_end, double_step = (float(_to(v, float64)) for v in (start, end, step))
    if not (double_step > 0 or double_step < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(double_start) and math.isfinite(double_end)):
        raise RuntimeError(f"unsupported range: {double_start:g} -> {double_end:g}")
    if not ((double_step > 0 and double_end >= double_start) or (double_step < 0 and double_end <= double_start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    return double_start, double_end, double_step


def _arange_size(start, end, step, dtype):
    """PyTorch's element count for arange, after its checks of the bounds (done in double)."""
    double_start, double_end, double_step = _checked_bounds(start, end, step)
    if dtype is int64:  # exact in int64 arithmetic, wrapping as C++'s does
        first, last, delta = (_to(v, int64) for v in (start, end, step))
        if not delta:  # a step that truncates to 0
            raise ValueError("step must be nonzero")
        span = _wrapped(last - first + delta - (1 if delta > 0 else -1))
        size = abs(span) // abs(delta) * (1 if (span >= 0) == (delta > 0) else -1)  # C++'s division truncates
    else:
        size = (double_end - double_start) / double_step
        size = math.ceil(size) if math.isfinite(size) else size
    if not 0 <= size <= float(_LONG_MAX):
        raise RuntimeError("invalid size, possible overflow?")
    if size > _LONG_MAX:  # 2**63 passes the check above in double; C++'s cast makes it the one int64 no size is
        raise RuntimeError(f"IntArrayRef contains an int that cannot be represented as a SymInt: {-(2**63)}")
    return int(size)


@parses("range(Scalar start, Scalar end, Scalar step=1, *, Tensor out=None, ScalarType dtype=None, "
        "Layout layout=strided, Device device=None, bool requires_grad=False)")
def deprecated_range(start, end, step=1, *, dtype=None, device=None, requires_grad=False):
    """torch.range, deprecated: [start, end] with ``end`` included, in the default float dtype whatever the bounds
    (see torch.range; ``ndgrad.range`` is this, under the builtin's name)."""
    warn("ndgrad.range is deprecated and will be removed in a future release because its behavior is inconsistent "
         "with Python's range builtin. Instead, use ndgrad.arange, which produces values in [start, end).")
    dtype = dtype or get_default_dtype()
    if not (dtype.is_floating_point or dtype.numpy.kind in "iu"):
        raise _not_implemented("range_cpu", dtype)
    first, last, delta = _checked_bounds(_number(start), _number(end), _number(step))
    size = int(math.floor((last - first) / delta)) + 1
    return made(new_array((size,), dtype, device, lambda xp: (first + xp.arange(size) * delta).astype(dtype.numpy)),
                requires_grad)


# ---- linspace and logspace --------------------------------------------------------------------------------------
def _bounds(name, start, end, steps, dtype):
    """The bounds as numbers (a tensor must be 0-d) and the result's dtype, after PyTorch's checks."""
    tensors = [(which, value.ndim) for which, value in (("start", start), ("end", end)) if hasattr(value, "_data")]
    if any(ndim for _, ndim in tensors):
        got = " and ".join(f"{which} with {ndim} dimension(s)" for which, ndim in tensors)
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {got}.")
    start, end = _number(start), _number(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if isinstance(start, complex) or isinstance(end, complex):
        inferred = get_default_dtype().to_complex()
        if dtype is not None and not dtype.is_complex:
            raise RuntimeError(
                f"ndgrad.{name}(): inferred dtype {inferred.cpp_name} can't be safely cast to passed dtype "
                f"{dtype.title}"
            )
        dtype = dtype or inferred
    dtype = dtype or get_default_dtype()
    if steps > 1 and dtype.numpy.kind == "b":
        raise _not_implemented(f"{name}_cpu", dtype)
    return start, end, dtype


@parses(*(f"linspace({first} start, {second} end, int steps, *, Tensor out=None, {FACTORY_KEYWORDS})"
          for first, second in (("Tensor", "Tensor"), ("Scalar", "Tensor"), ("Tensor", "Scalar"),
                                ("Scalar", "Scalar"))))
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from start to end (see torch.linspace)."""
    start, end, dtype = _bounds("linspace", start, end, steps, dtype)
    return made(placed(_spaced(start, end, steps, dtype), device), requires_grad)


@parses(*(f"logspace({first} start, {second} end, int steps, float base=10.0, *, Tensor out=None, "
          f"{FACTORY_KEYWORDS})"
          for first, second in (("Tensor", "Tensor"), ("Scalar", "Tensor"), ("Tensor", "Scalar"),
                                ("Scalar", "Scalar"))))
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``base`` to the powers linspace(start, end, steps) gives (see torch.logspace)."""
    start, end, dtype = _bounds("logspace", start, end, steps, dtype)
    return made(placed(_powers(start, end, steps, float(base), dtype), device), requires_grad)


@silenced
def _spaced(start, end, steps, dtype):
    """linspace's values on the host: a step in the dtype (in double for integers), the first half counted from
    start and the second from end, each rounded as the dtype's arithmetic rounds."""
    out = np.empty(new_size((steps,), dtype), dtype.numpy)  # first, as PyTorch allocates
    if steps < 2:  # none, or PyTorch fills with start
        out[...] = fill_scalar(start, dtype, 1) if steps else 0
        return out
    kind = np.float64 if dtype.numpy.kind in "iu" else dtype.numpy.type
    first, last = (kind(real_scalar(v, dtype)) for v in (start, end))
    step = _step(first, last, steps, kind)
    out[...] = _cast(_halves(first, last, step, steps, kind), dtype)
    return out


def _step(first, last, steps, kind):
    """(last - first) / (steps - 1) in ``kind``; a complex one divided part by part, as C++ divides by a number."""
    difference, count = last - first, np.dtype(kind).type(steps - 1).real
    if np.dtype(kind).kind != "c":
        return difference / count
    return kind(complex(difference.real / count, difference.imag / count))


def _halves(first, last, step, steps, kind):
    """first + step * i in the first half, last - step * (steps - 1 - i) in the second, in ``kind``'s arithmetic."""
    index = np.arange(steps)
    count, back = (numbers.astype(np.dtype(kind).type(0).real.dtype) for numbers in (index, steps - 1 - index))
    if np.dtype(kind).kind == "c":
        return np.where(index < steps // 2, first + _times(step, count), last - _times(step, back))
    return np.where(index < steps // 2, first + step * count, last - step * back)


def _times(number, factors):
    """A complex number times real ones, part by part as C++ multiplies (inf times 0 spoils that part alone)."""
    factors = np.asarray(factors)
    product = np.empty(factors.shape, np.result_type(number, factors))
    product.real, product.imag = number.real * factors, number.imag * factors
    return product


@silenced
def _powers(start, end, steps, base, dtype):
    """logspace's values: base to exponents spaced as linspace spaces them, in double (complex: in the dtype)."""
    out = np.empty(new_size((steps,), dtype), dtype.numpy)
    if steps < 2:
        exponent = real_scalar(start, complex128 if dtype.is_complex else float64) if steps else 0
        power = np.power(np.complex128(base) if dtype.is_complex else base, exponent)
        out[...] = fill_scalar(complex(power) if dtype.is_complex else float(power), dtype, 1)
        return out
    kind = dtype.numpy.type
    first, last = (kind(real_scalar(v, dtype)) for v in (start, end))
    if dtype.is_complex:
        step, base = _step(first, last, steps, kind), kind(base)
    else:  # the difference in the dtype (C++ promotes small integers to int), the rest in double
        difference = int(last) - int(first) if dtype.numpy.kind in "iu" else last - first
        step, first, last, kind = float(difference) / (steps - 1), float(first), float(last), np.float64
    out[...] = _cast(np.power(base, _halves(first, last, step, steps, kind)), dtype)
    return out


def _cast(values, dtype):
    """Computed values into ``dtype``; to integers by truncation, wrapping as C++'s casts do."""
    if dtype.numpy.kind in "iu":
        values = values.astype(np.int64)
    return values.astype(dtype.numpy)


def _triangle_indices(name, row, col, offset, dtype, device, upper):
    """The (row, column) indices of a row x col matrix's lower (upper) triangle from diagonal ``offset``, row by row:
    a 2 x count tensor."""
    for label, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{label} must be non-negative, got{value}")
    dtype = dtype or int64
    if dtype.numpy.kind not in "iu":
        raise _not_implemented(name, dtype)
    rows, columns = np.indices((row, col))
    inside = columns - rows >= offset if upper else columns - rows <= offset
    return made(placed(np.stack([rows[inside], columns[inside]]).astype(dtype.numpy), device))


@parses(f"tril_indices(int row, int col, int offset=0, *, {FACTORY_KEYWORDS})")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, requires_grad=False):
    """The indices of the lower triangle of a row x col matrix, on and below diagonal ``offset`` (see
    torch.tril_indices)."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, device, upper=False)


@parses(f"triu_indices(int row, int col, int offset=0, *, {FACTORY_KEYWORDS})")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, requires_grad=False):
    """The indices of the upper triangle of a row x col matrix, on and above diagonal ``offset`` (see
    torch.triu_indices)."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, device, upper=True)
