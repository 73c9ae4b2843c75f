"""torch.testing.make_tensor: a random tensor of a shape and dtype for tests, in torch's default value ranges
(floats and complex parts in [-9, 9), integers in [-9, 10), bools either), clamped to what the dtype holds."""

import collections.abc
import math
import warnings


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` drawn uniformly from [low, high) (see torch.testing.make_tensor); ``noncontiguous``
    gives a strided view of a tensor twice as long in its last dim, ``exclude_zero`` replaces zeros by 1 (or by the
    dtype's smallest normal number)."""
    import ndgrad  # the package imports this module

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"{noncontiguous=} and {memory_format=}")
    integral = dtype is ndgrad.bool or not (dtype.is_floating_point or dtype.is_complex)
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice as many values, so that the view's neighbours differ
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is ndgrad.bool:
        low, high = _bounds(low, high, dtype, 0, 2, 0, 2)
        result = ndgrad.randint(low, high, shape, device=device, dtype=dtype)
    elif integral:
        info = ndgrad.iinfo(dtype)  # randint's bounds are int64s, so int64's largest value cannot be drawn
        low, high = _bounds(low, high, dtype, info.min, info.max + (dtype is not ndgrad.int64), -9, 10)
        result = ndgrad.randint(low, high, shape, device=device, dtype=dtype)
    else:
        info = ndgrad.finfo(dtype)
        low, high = _bounds(low, high, dtype, info.min, info.max, -9, 9)
        result = ndgrad.empty(shape, device=device, dtype=dtype)
        (ndgrad.view_as_real(result) if dtype.is_complex else result).uniform_(low, high)
    if noncontiguous:
        result = result[..., 1::2]  # offset by one, to catch offset bugs too
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else ndgrad.finfo(dtype).tiny
    if not integral:
        result.requires_grad = requires_grad
    return result


def _bounds(low, high, dtype, lowest, highest, default_low, default_high):
    """[low, high) with torch's defaults and checks, clamped to [lowest, highest); integer bounds rounded up, since
    randint's high is exclusive."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    integral = not (dtype.is_floating_point or dtype.is_complex)
    if low == high and not integral:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated "
                      "since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.", FutureWarning,
                      stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (math.ceil(low), math.ceil(high)) if integral else (low, high)
