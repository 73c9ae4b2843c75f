"""Python's operators on tensors (``a + b``, ``a @ b``, ``a < b``, ``a += b``): one line each, delegating to ops.

An operand that is neither a Tensor nor a Python number gives NotImplemented, so Python can ask the other side.
"""

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

    def __matmul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.matmul(self, other)

    def __rmatmul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.matmul(_as_tensor_like(other, self), self)

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

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)


def _as_tensor_like(value, like):
    """A number on the left of an operator, as a tensor of the dtype the pair promotes to (so it stays weak)."""
    from ndgrad._creation import tensor
    from ndgrad._dtype import result_type
    from ndgrad._tensor import Tensor

    if isinstance(value, Tensor):
        return value
    return tensor(value, dtype=result_type((like, value)), device=like.device)
