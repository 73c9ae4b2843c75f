"""Python's operators and protocols on tensors (``a + b``, ``a @ b``, ``a += b``, ``float(a)``): one line each,
delegating to ops. An operand that is neither a Tensor nor a Python number gives NotImplemented, so Python can ask
the other side (and raises its TypeError, as for PyTorch's). Those that PyTorch writes in Python (``b - a`` for a
number ``b``, ``a ** b``, ``len(a)``, ``b in a``) are in ndgrad._python_methods."""

from ndgrad import ops
from ndgrad.ops._op import operand as _operand

__all__ = ["OperatorMethods"]

# The bodies of the arithmetic ops, for the operators: what _operand lets through (a Tensor or a Python number)
# fits their declared overloads, so the argument parser's check, the boundary of a direct call, would only repeat
# itself on the hottest path there is (every a * b of a model, and of the backward rules written with operators).
# For a Tensor on the left, ops.add and ops.mul are their op's apply, which + and * call straight away.
_sub, _div = (op.__wrapped__ for op in (ops.sub, ops.div))
_Add, _Mul = ops.arithmetic.Add, ops.arithmetic.Mul


class OperatorMethods:
    """The operator and protocol methods of Tensor (Tensor inherits them)."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def __add__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else _Add.apply(self, other, alpha=1)

    def __radd__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else _Add.apply(self, other, alpha=1)

    def __sub__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else _sub(self, other)

    def __mul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else _Mul.apply(self, other)

    def __rmul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else _Mul.apply(self, other)

    def __truediv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else _div(self, other)

    def __mod__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.remainder(self, other)

    # A number is no operand of @ (PyTorch: "unsupported operand type(s) for @: 'Tensor' and 'int'").
    def __matmul__(self, other):
        other = _operand(other)
        return ops.matmul(self, other) if hasattr(other, "_data") else NotImplemented

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

    def __bool__(self):
        if self._data.size != 1:
            amount = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self._data)

    def __float__(self):
        return float(_real_scalar(self._scalar(), "double"))

    def __int__(self):
        return int(_real_scalar(self._scalar(), "int64_t"))

    def __complex__(self):
        return complex(self._scalar())

    def __index__(self):
        if self._data.size != 1 or self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.item())

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.item()



def _real_scalar(value, cpp_type):
    """A complex number converts to a real one only when its imaginary part is 0, as in PyTorch."""
    if isinstance(value, complex):
        if value.imag:
            raise RuntimeError(f"value cannot be converted to type {cpp_type} without overflow")
        return value.real
    return value
