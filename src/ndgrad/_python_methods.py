"""The Tensor methods that PyTorch writes in Python (torch/_tensor.py) rather than in C++: backward, the hooks,
printing, pickling, NumPy and DLPack's protocols, the reflected operators, len, iter and ``in``.

They are kept out of the compiled core (see Note [compiled core] in ndgrad._core) for what Python says about a wrong
call: a compiled method words it as Cython does (``backward() takes at most 5 positional arguments (6 given)``),
a Python method as PyTorch's do (``Tensor.backward() takes from 1 to 5 positional arguments but 6 were given``).
ndgrad._tensor_surface names them as PyTorch does, and tests/test_core.py checks that no compiled module defines one.
"""

from copy import deepcopy
from numbers import Number

import numpy as np

from ndgrad import _dlpack, _shared_memory, ops
from ndgrad.autograd.graph import hooks_of
from ndgrad.autograd.graph_api import add_hook
from ndgrad.ops._op import operand as _operand

__all__ = ["PythonMethods"]

_rsub = ops.rsub.__wrapped__  # what _operand lets through fits its overloads (see ndgrad._operators)
_Mul = ops.arithmetic.Mul


class PythonMethods:
    """The methods of Tensor that torch.Tensor defines in Python (Tensor inherits them)."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a replacement (see
        torch.Tensor.register_hook)."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:  # a leaf: the hooks live on the tensor, as its AccumulateGrad is held weakly
            return add_hook(hooks_of(self).tensor_hooks(0), hook)
        return add_hook(hooks_of(self.grad_fn).tensor_hooks(self._output_nr), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a gradient was accumulated into this leaf's .grad (see
        torch.Tensor.register_post_accumulate_grad_hook)."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        return add_hook(hooks_of(self).post_accumulate, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's .grad (see torch.Tensor.backward)."""
        from ndgrad.autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def __repr__(self):
        from ndgrad._printing import tensor_repr

        return tensor_repr(self)

    __str__ = __repr__

    def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this tensor's memory (see torch.Tensor.__dlpack__ and ndgrad.from_dlpack)."""
        return _dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return _dlpack.device_of(self)

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """A NumPy function's result on tensors, as a tensor: ``np.add(x, 1)``; bool results as uint8, as torch's."""
        return self._wrap(array.astype(np.uint8) if array.dtype == np.bool_ else array)

    def __reduce_ex__(self, protocol):
        from ndgrad._tensor import _host, _rebuild  # a pickle names _rebuild where it has always been

        arguments = (_host(self._data).copy(), self._requires_grad, str(self.device))
        return (_rebuild, (*arguments, self.__dict__) if self.__dict__ else arguments)  # the user's attributes too

    def share_memory_(self):
        """Move this tensor's memory (with its base's, if it is a view) into shared memory that child processes
        see and write, and return self; a no-op if already shared, and on a GPU (see torch.Tensor.share_memory_).

        Unlike torch, which moves the storage itself, other tensors that already looked into the old memory (a
        ``detach()`` taken earlier, other views of the base) keep it."""
        if type(self._data) is np.ndarray and not _shared_memory.is_shared(self._data):
            tensors = [self] if self._base is None else [self, self._base]
            for tensor, shared in zip(tensors, _shared_memory.share([t._data for t in tensors])):
                tensor._data = shared
        return self

    def __deepcopy__(self, memo):
        from ndgrad._tensor import Tensor  # a plain Tensor, whatever the class of this one

        copy = Tensor._from_parts(self._data.copy(), self._requires_grad, None, 0, None)
        if self._grad is not None:
            copy._grad = Tensor._wrap(self._grad._data.copy())
        memo[id(self)] = copy
        if self.__dict__:
            copy.__dict__.update(deepcopy(self.__dict__, memo))
        return copy


    # ---- operators and protocols ---------------------------------------------------------------------------
    def __rsub__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else _rsub(self, other)

    def __rtruediv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else _Mul.apply(ops.reciprocal(self), other)

    def __floordiv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.floor_divide(self, other)

    def __rfloordiv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.floor_divide(_as_tensor_like(other, self), self)

    def __rmod__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.remainder(_as_tensor_like(other, self), self)

    def __pow__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.pow(self, other)

    def __rpow__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else ops.pow(other, self)

    def __rmatmul__(self, other):
        other = _operand(other)
        return ops.matmul(other, self) if hasattr(other, "_data") else NotImplemented

    def __ipow__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else self.pow_(other)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return format(repr(self), spec)

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
