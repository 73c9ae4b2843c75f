"""Parameter: the leaf tensor a Module registers when it is assigned as an attribute (see torch.nn.Parameter)."""

from ndgrad._argument_parser import type_name
from ndgrad._creation import empty
from ndgrad._tensor import Tensor
from ndgrad.autograd.grad_mode import INFERENCE_REQUIRES_GRAD, is_inference_mode_enabled

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf Tensor that requires grad by default and that Modules list in parameters() (see torch.nn.Parameter).

    It shares ``data``'s memory and version counter; results of ops on it are plain Tensors.
    """

    __module__ = "ndgrad.nn.parameter"

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):  # torch takes other tensor-likes by detach(): its error for the rest
            data = data.detach()
        if not isinstance(requires_grad, bool):  # torch's Tensor._make_subclass parses it
            raise TypeError(f"_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                            f"{type_name(requires_grad)}")
        if requires_grad and data._data.dtype.kind not in "fcV":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        if requires_grad and data.is_inference() and not is_inference_mode_enabled():
            raise RuntimeError(INFERENCE_REQUIRES_GRAD)
        return cls._from_parts(data._data, requires_grad, None, 0, data._shared_counter())

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.data.clone(), self._requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        return (type(self), (self.data.clone(), self._requires_grad))
