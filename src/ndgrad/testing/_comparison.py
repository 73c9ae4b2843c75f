"""assert_close (see torch.testing.assert_close): tensors, numbers, None, bools and nested sequences or mappings of
them compared with torch's default tolerances per dtype, failing with torch's AssertionError texts."""

import cmath
import collections.abc

import numpy as np

from ndgrad import _dtype
from ndgrad._creation import as_tensor
from ndgrad._tensor import Tensor
from ndgrad._warnings import warn
from ndgrad.ops.comparison import isclose

__all__ = ["assert_close", "assert_allclose"]

# (rtol, atol) per dtype, torch's (ndgrad has no bfloat16); other dtypes (integers, bool) compare exactly
_DTYPE_PRECISIONS = {
    _dtype.float16: (0.001, 1e-5), _dtype.float32: (1.3e-6, 1e-5),
    _dtype.float64: (1e-7, 1e-7), _dtype.complex64: (1.3e-6, 1e-5), _dtype.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: _dtype.int64, float: _dtype.float64, complex: _dtype.complex128}


class _Mismatch(Exception):
    """A failed comparison: the exception class to raise, its message, and where in a nested input it was."""

    def __init__(self, kind, message, path=()):
        super().__init__(message)
        self.kind, self.message, self.path = kind, message, path

    def to_error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.path:
            text += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.path)}"
        return self.kind(msg(text) if callable(msg) else text)


def _tolerances(dtypes, rtol, atol):
    if (rtol is None) ^ (atol is None):
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                    f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*(_DTYPE_PRECISIONS.get(dtype, (0.0, 0.0)) for dtype in dtypes))
    return max(rtols), max(atols)


def _mismatch_message(identifier, equality, extra, differences):
    """torch's text: a header, ``extra``, then the absolute and relative difference lines."""
    lines = [f"{identifier} are not {'equal' if equality else 'close'}!", "", *([extra] if extra else [])]
    for kind, diff, index, tol in differences:
        if index is None:
            line = f"{kind.title()} difference: {diff}"
        else:
            line = f"Greatest {kind} difference: {diff} at index {index}"
        lines.append(line if equality else f"{line} (up to {tol} allowed)")
    return "\n".join(lines).strip()


def _scalar_message(actual, expected, rtol, atol, identifier="Scalars"):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message(identifier, rtol == 0 and atol == 0, f"Expected {expected} but got {actual}.",
                             [("absolute", abs_diff, None, atol), ("relative", rel_diff, None, rtol)])


def _unravel(flat_index, shape):
    index = []
    for size in reversed(shape):
        flat_index, position = divmod(flat_index, size)
        index.append(position)
    return tuple(reversed(index))


def _tensor_message(actual, expected, matches, rtol, atol):
    shape, total = tuple(matches.shape), matches.numel()
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    actual, expected, matches = actual.flatten(), expected.flatten(), matches.flatten()
    if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
        actual, expected = actual.long(), expected.long()
    abs_diff = (actual - expected).abs()
    abs_diff[matches] = 0
    rel_diff = abs_diff / expected.abs()
    rel_diff[matches] = 0
    differences = []
    for kind, diff, tol in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        value, index = diff.max(0)
        differences.append((kind, value.item(), _unravel(int(index), shape), tol))
    return _mismatch_message("Tensor-likes", rtol == 0 and atol == 0, extra, differences)


def _compare_tensors(actual, expected, options):
    for name, first, second, wanted in (
        ("shape", actual.shape, expected.shape, True),
        ("layout", actual.layout, expected.layout, options["check_layout"]),
        ("stride()", actual.stride(), expected.stride(), options["check_stride"]),
        ("device", actual.device, expected.device, options["check_device"]),
        ("dtype", actual.dtype, expected.dtype, options["check_dtype"]),
    ):
        if wanted and first != second:
            raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {first} != {second}.")
    rtol, atol = _tolerances((actual.dtype, expected.dtype), options["rtol"], options["atol"])
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        dtype = _dtype.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(dtype), expected.to(dtype)
    matches = isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
    if bool(matches.all()):
        return
    if actual.shape == ():
        raise _Mismatch(AssertionError, _scalar_message(actual.item(), expected.item(), rtol, atol))
    raise _Mismatch(AssertionError, _tensor_message(actual, expected, matches, rtol, atol))


def _compare_numbers(actual, expected, options):
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(x)] for x in (actual, expected)], options["rtol"], options["atol"])
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    if actual == expected or (options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected)):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_message(actual, expected, rtol, atol))


def _as_tensors(actual, expected, allow_subclasses):
    """Both as Tensors, if this pair is one torch compares as tensor-likes (else None)."""
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        return None
    if not allow_subclasses and type(actual) is not type(expected):
        return None
    try:
        return tuple(x if isinstance(x, Tensor) else as_tensor(x) for x in (actual, expected))
    except Exception:  # noqa: BLE001 - not tensor-like: the next kind of pair is tried, as torch does
        return None


def _compare_leaves(actual, expected, options):
    if actual is None or expected is None:
        if not (actual is None and expected is None):
            raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}")
        return
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        if bool(actual) is not bool(expected):
            raise _Mismatch(AssertionError, f"Booleans mismatch: {bool(actual)} is not {bool(expected)}")
        return
    number_types = (int, float, complex, np.number)
    if isinstance(actual, number_types) and isinstance(expected, number_types):
        return _compare_numbers(actual, expected, options)
    tensors = _as_tensors(actual, expected, options["allow_subclasses"])
    if tensors is None:
        raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                                   f"{type(expected)}.")
    return _compare_tensors(*tensors, options)


def _pairs(actual, expected, path=()):
    """(actual, expected, path) for each leaf of two nested sequences or mappings, checked to have one shape."""
    def is_sequence(x):
        return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)

    if is_sequence(actual) and is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                            path)
        for index, (a, e) in enumerate(zip(actual, expected)):
            yield from _pairs(a, e, (*path, index))
    elif isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {sorted(set(expected) - set(actual))}\n"
                            f"Additional keys in the actual mapping: {sorted(set(actual) - set(expected))}", path)
        keys = list(actual)
        try:
            keys = sorted(keys)
        except TypeError:
            pass
        for key in keys:
            yield from _pairs(actual[key], expected[key], (*path, key))
    else:
        yield actual, expected, path


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False, check_device=True,
                 check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise torch's AssertionError unless ``actual`` and ``expected`` are close (see torch.testing.assert_close)."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = list(_pairs(actual, expected))
    except _Mismatch as mismatch:
        raise mismatch.to_error() from None
    for a, e, path in pairs:
        try:
            _compare_leaves(a, e, options)
        except _Mismatch as mismatch:
            mismatch.path = mismatch.path or path
            raise mismatch.to_error(msg) from None


_ALLCLOSE_PRECISIONS = {_dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5), _dtype.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated: assert_close with looser tolerances and no dtype check (see torch.testing.assert_allclose)."""
    warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. Please "
         "use `torch.testing.assert_close()` instead. You can find detailed upgrade instructions in "
         "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning)
    actual = actual if isinstance(actual, Tensor) else as_tensor(actual)
    expected = expected if isinstance(expected, Tensor) else as_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtols, atols = zip(*(_ALLCLOSE_PRECISIONS.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)))
        rtol, atol = max(rtols), max(atols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
