"""Argument checks and conversions shared by the pointwise families (arithmetic, rounding, comparison).

They run at the public boundary, before NumPy can fail or silently compute, and raise PyTorch's errors.
"""

import math

import numpy as np

from ndgrad._dtype import (
    _SCALAR_TYPE_NAMES,
    bfloat16,
    bool_,
    float32,
    float64,
    real_scalar,
    result_type,
    wrapped_int,
)
from ndgrad.ops._broadcast import broadcast_shape

_LARGEST_STORAGE = 2**63 - 1  # bytes: PyTorch sizes memory in int64


def is_tensor(value):
    return hasattr(value, "_data")


def require_kind(dtype, kernel, kinds):
    """PyTorch's kernels exist for some dtypes only (``kinds``: NumPy kind letters), where NumPy would compute."""
    kind = "f" if dtype is bfloat16 else dtype.numpy.kind  # (see Note [bfloat16's kind])
    if kind not in kinds:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.title}'")


def no_complex(input, message, error=NotImplementedError):
    """PyTorch refuses complex tensors here (where NumPy would compute something); ``input`` may be a number."""
    if is_tensor(input) and input._data.dtype.kind == "c":
        raise error(message)


def no_complex_kernel(kernel, *operands):
    """PyTorch has no complex kernel for these ops: its message names the kernel and the operands' common dtype."""
    if any(x._data.dtype.kind == "c" if is_tensor(x) else isinstance(x, complex) for x in operands):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{result_type(operands).title}'")


def no_bool_kernel(kernel, *operands):
    """PyTorch has no bool kernel for these ops (matrix products, medians, ...), where NumPy would compute one."""
    if any(is_tensor(x) and x._data.dtype.kind == "b" for x in operands):
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def kind_checked(input, kernel, kinds):
    """``input``, after require_kind on its dtype (a non-tensor is left for Op.apply to refuse)."""
    if is_tensor(input):
        require_kind(input.dtype, kernel, kinds)
    return input


def refuse_bool(input, other, kernel):
    """PyTorch has no bool kernel for these ops, where NumPy would silently compute in int8."""
    if result_type((input, other)) is bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def check_zero_division(input, other):
    """Integer division by zero raises in PyTorch, where NumPy warns and gives 0."""
    if result_type((input, other))._category == 1:
        nonzero = bool((other._data != 0).all()) if is_tensor(other) else other != 0
        if not nonzero:
            raise RuntimeError("ZeroDivisionError")


def check_castable(self, *others, cpp_name=False):
    """PyTorch's in-place rule, checked before computing: the result may not be of a higher category than self.

    Some kernels (clamp's) name self's dtype in C++ ("long int") rather than PyTorch's ("Long").
    """
    dtype = result_type((self, *others))
    if dtype._category > self.dtype._category:
        check_written_shape(self, *others)  # PyTorch checks the shapes first
        target = self.dtype.cpp_name if cpp_name else self.dtype.title
        raise RuntimeError(f"result type {dtype.title} can't be cast to the desired output type {target}")


def check_storage_size(shape, itemsize):
    """PyTorch's refusal of a result whose bytes overflow 64 bits, where NumPy says "array is too big"."""
    if math.prod(shape) * itemsize > _LARGEST_STORAGE:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")


def check_written_shape(self, *others):
    """PyTorch's refusal of an in-place write whose operands do not broadcast to self's shape (folded from self's, as
    its TensorIterator does)."""
    shapes = [tuple(self.shape)] + [tuple(x.shape) for x in others if is_tensor(x)]
    broadcast = broadcast_shape(*shapes)
    if broadcast != shapes[0]:
        raise RuntimeError(f"output with shape {list(shapes[0])} doesn't match the broadcast shape {list(broadcast)}")


def as_tensor(value, dtype, like):
    """A Python number as a 0-d tensor of ``dtype`` on ``like``'s device (the host's if ``like`` is a number)."""
    from ndgrad._device import array_namespace
    from ndgrad._tensor import Tensor

    return Tensor._wrap(array_namespace(like.device if is_tensor(like) else "cpu").asarray(value, dtype=dtype.numpy))


def first_as_tensor(input, other):
    """A number on the left (``div(2, x)``, ``add(1, 2)``) as a tensor of the pair's result dtype, so it stays weak,
    as PyTorch binds a number given for a Tensor argument (an int wrapped into an integer dtype: ``-1 << uint8``
    shifts 255)."""
    if is_tensor(input):
        return input
    dtype = result_type((input, other))
    if type(input) is int and dtype._category == 1:
        input = wrapped_int(input, dtype)
    return as_tensor(input, dtype, other)


def checked_alpha(input, other, alpha):
    """PyTorch's checks of add's and sub's ``alpha`` against the dtype they compute in; ``alpha`` as that dtype
    takes it (a bool result adds ``other`` or nothing: any nonzero alpha is True)."""
    dtype = result_type((input, other))
    if isinstance(alpha, bool) and dtype is not bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if dtype._category < 2 and not isinstance(alpha, int):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, complex) and not dtype.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    return bool(alpha) if dtype is bool_ else alpha


def number_operand(number, like):
    """A number parameter as PyTorch computes with it against ``like``: an int wraps into an integer dtype
    (``uint8 % 300`` is ``uint8 % 44``), as Op.apply wraps the numbers it takes as inputs."""
    if type(number) is int and like._data.dtype.kind in "iu":
        return wrapped_int(number, like.dtype)
    return number



def promoted_with(tensor, *numbers):
    """``tensor`` in the dtype that an op with these numbers computes in, for ops that take the numbers as
    parameters rather than inputs (PyTorch gives their nodes no edge for them)."""
    dtype = result_type((tensor, *numbers))
    return tensor if dtype is tensor.dtype else tensor.to(dtype)


def zeros_like_grad(grad):
    """PyTorch's zeros_like(grad): a zero gradient that does not depend on grad, even under create_graph."""
    from ndgrad._device import array_namespace
    from ndgrad._tensor import Tensor

    return Tensor._wrap(array_namespace(grad.device).zeros_like(grad._data))


def constant_like(values, like):
    """A number or a raw array (on the host or on like's device) as a new tensor of like's dtype on like's device:
    the constants that rules and composites compute with (masks, noise, running statistics). It never needs grad."""
    from ndgrad._device import namespace_of, placement
    from ndgrad._tensor import Tensor

    with placement(like.device):  # host values are copied to like's GPU, not to the current one
        return Tensor._wrap(namespace_of(like._data).array(values, dtype=like._data.dtype))


def kernel_scalars(input, *values, compute=None):
    """``values`` (an op's Scalar parameters) as PyTorch's kernel for ``input`` converts them, to the C++ type it
    computes in: ``compute``, by default float for the reduced-precision floats and input's own type otherwise. A
    complex number, or a finite one beyond that type's range, does not convert (PyTorch's "without overflow")."""
    if compute is None:
        compute = float32 if input.dtype.is_floating_point and input.dtype is not float64 else input.dtype
    kind = compute.numpy.kind
    largest = np.finfo(compute.numpy).max if kind == "f" else np.iinfo(compute.numpy).max if kind in "iu" else None
    converted = []
    for value in values:
        value = real_scalar(value, compute)
        if largest is not None and not isinstance(value, complex) and math.isfinite(value) and abs(value) > largest:
            raise RuntimeError(f"value cannot be converted to type {_SCALAR_TYPE_NAMES[compute.name]} without overflow")
        converted.append(value)
    return converted


def int_list(value, n):
    """An ``int[n]`` argument as torch's parser hands it on: one int stands for n copies; a list stays itself."""
    return (value,) * n if isinstance(value, int) else tuple(value)
