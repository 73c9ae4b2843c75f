"""Parameter: the leaf tensor a Module registers when it is assigned as an attribute (see torch.nn.Parameter)."""

from ndgrad._argument_parser import type_name
from ndgrad._creation import empty
from ndgrad._tensor import Tensor
from ndgrad.autograd.grad_mode import INFERENCE_REQUIRES_GRAD, is_inference_mode_enabled

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "UninitializedBuffer", "UninitializedTensorMixin"]


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


class UninitializedTensorMixin:
    """A parameter or buffer of a lazy module whose shape is not known yet; ``materialize`` gives it one and turns it
    into a plain Parameter or Tensor (see torch.nn.parameter.UninitializedTensorMixin).

    torch refuses every op on it through __torch_function__; ndgrad has no such protocol on its fast path, so only
    ``shape`` refuses here (an op on it sees an empty tensor)."""

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor ``shape`` (uninitialised values, as torch.empty) and its class to become."""
        device = self.data.device if device is None else device
        dtype = self.data.dtype if dtype is None else dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call `forward` "
            "to initialize the parameters before accessing their attributes."
        )

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the parameters "
            "before calling `module.share_memory()`."
        )

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Whether ``param`` is an uninitialised parameter or buffer of a lazy module."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter of a lazy module before its first forward (see torch.nn.parameter.UninitializedParameter)."""

    __module__ = "ndgrad.nn.parameter"
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return super().__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module before its first forward (see torch.nn.parameter.UninitializedBuffer)."""

    __module__ = "ndgrad.nn.parameter"
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = empty(0, device=device, dtype=dtype)
        buffer = cls._from_parts(data._data, requires_grad, None, 0, data._shared_counter())
        buffer.persistent = persistent
        buffer._is_buffer = True
        return buffer
