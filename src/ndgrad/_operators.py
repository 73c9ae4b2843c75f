"""Python's operators on tensors (``a + b``, ``a @ b``, ``a < b``, ``a += b``): one line each, delegating to ops.

An operand that is neither a Tensor nor a Python number gives NotImplemented, so Python can ask the other side.
"""

from numbers import Number

from ndgrad import ops
from ndgrad.ops._op import operand as _operand

__all__ = ["OperatorMethods"]


class OperatorMethods:
    """The operator methods of Tensor (Tensor inherits them)."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def __add__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.add(self, other)

    def __radd__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.add(self, other)

    def __sub__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.sub(self, other)

    def __rsub__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.rsub(self, other)

    def __mul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.mul(self, other)

    def __rmul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.mul(self, other)

    def __truediv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.div(self, other)

    def __rtruediv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.mul(ops.reciprocal(self), other)

    def __floordiv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.floor_divide(self, other)

    def __rfloordiv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.floor_divide(_as_tensor_like(other, self), self)

    def __mod__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.remainder(self, other)

    def __rmod__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.remainder(_as_tensor_like(other, self), self)

    def __pow__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.pow(self, other)

    def __rpow__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.pow(other, self)

    # A number is no operand of @ (PyTorch: "unsupported operand type(s) for @: 'Tensor' and 'int'").
    def __matmul__(self, other):
        other = _operand(other)
        return ops.matmul(self, other) if hasattr(other, "_data") else NotImplemented

    def __rmatmul__(self, other):
        other = _operand(other)
        return ops.matmul(other, self) if hasattr(other, "_data") else NotImplemented

    def __neg__(self):
        return ops.neg(self)

    def __pos__(self):
        return ops.positive(self)

    def __abs__(self):
        return ops.abs(self)

    def __eq__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.eq(self, other)

    def __ne__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.ne(self, other)

    def __lt__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.lt(self, other)

    def __le__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.le(self, other)

    def __gt__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.gt(self, other)

    def __ge__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.ge(self, other)

    # In place, as PyTorch's: an operand of another type gives NotImplemented, so Python's TypeError names the
    # operator ("unsupported operand type(s) for +=: 'Tensor' and 'str'").
    def __iadd__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.add_(other)

    def __isub__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.sub_(other)

    def __imul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.mul_(other)

    def __itruediv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.div_(other)

    def __ifloordiv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.floor_divide_(other)

    def __imod__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.remainder_(other)

    def __ipow__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.pow_(other)

    def __iand__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.bitwise_and_(other)

    def __ior__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.bitwise_or_(other)

    def __ixor__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.bitwise_xor_(other)

    def __ilshift__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.bitwise_left_shift_(other)

    def __irshift__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.bitwise_right_shift_(other)

    def __contains__(self, element):
        """``element in x``: whether any element equals it (see torch.Tensor.__contains__)."""
        if isinstance(element, Number) or hasattr(element, "_data"):
            return bool((element == self).any().item())
        raise RuntimeError(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
        )


def _as_tensor_like(value, like):
    """A number on the left of an operator, as a tensor of the dtype the pair promotes to (so it stays weak)."""
    from ndgrad._creation import tensor
    from ndgrad._dtype import result_type
    from ndgrad._tensor import Tensor

    if isinstance(value, Tensor):
        return value
    return tensor(value, dtype=result_type((like, value)), device=like.device)
