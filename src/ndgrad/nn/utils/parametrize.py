"""Parametrizations (see torch.nn.utils.parametrize): a module's tensor recomputed on every access from the tensors
it is parametrized by, which live in ``module.parametrizations[name]`` (state_dict keys
``parametrizations.<name>.original``).

Note [the class swap]: a Python property is the only way to compute an attribute on access, and properties live on
the class. So, as torch does, the first parametrization gives the module a class of its own, ``Parametrized<Name>``,
derived from its class, and each parametrized tensor becomes a property of it; removing the last one restores the
class the module had.
"""

import collections.abc
import copy
import copyreg
from contextlib import contextmanager

from ndgrad._tensor import Tensor
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.nn.modules.container import ModuleDict, ModuleList
from ndgrad.nn.parameter import Parameter

__all__ = [
    "cached", "ParametrizationList", "register_parametrization", "is_parametrized", "remove_parametrizations",
    "type_before_parametrizations", "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache = {}  # (id(module), tensor name) -> its value, while cached() is active


@contextmanager
def cached():
    """Compute each parametrized tensor once inside the block, however often it is read (see
    torch.nn.utils.parametrize.cached)."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest, src):
    """Give ``dest`` the values of ``src`` in place, keeping the object (an optimiser may hold it): torch's set_."""
    dest.data = src


def _check_right_inverse_tensors(parametrizations, value):
    """torch's checks on what the parametrizations' right_inverse gave for a list of several originals."""
    if not isinstance(value, collections.abc.Sequence):
        raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
    if len(value) != parametrizations.ntensors:
        raise ValueError(f"'right_inverse' must return a sequence of tensors of length {parametrizations.ntensors}. "
                         f"Got a sequence of length {len(value)}.")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they start from: ``original``, or
    ``original0``, ``original1``, ... when the first one's right_inverse returns several (see
    torch.nn.utils.parametrize.ParametrizationList)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            self._register_original(original, new)
        else:
            self._register_originals(original, new)
        if not self.unsafe:
            self._check_result(original_dtype, original_shape)

    def _register_original(self, original, new):
        if original.dtype != new.dtype:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                             f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
        if original.device != new.device:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                             f"original.device: {original.device}\nright_inverse(original).device: {new.device}")
        with no_grad():
            _maybe_set(original, new)
        _register_parameter_or_buffer(self, "original", original)

    def _register_originals(self, original, new):
        for i, original_i in enumerate(new):
            if not isinstance(original_i, Tensor):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                 f"Got element {i} of the sequence with type {type(original_i).__name__}.")
            if isinstance(original, Parameter):
                original_i = Parameter(original_i, original.requires_grad)
            original_i.requires_grad_(original.requires_grad)
            _register_parameter_or_buffer(self, f"original{i}", original_i)

    def _check_result(self, original_dtype, original_shape):
        result = self()
        if not isinstance(result, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
        if result.dtype != original_dtype:
            raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless `unsafe` "
                             f"flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                             f"parametrized dtype: {result.dtype}")
        if result.shape != original_shape:
            raise ValueError("Registering a parametrization may not change the shape of the tensor, unless `unsafe` "
                             f"flag is enabled.\nunparametrized shape: {original_shape}\n"
                             f"parametrized shape: {result.shape}")

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes ``value`` (what ``module.weight = value``
        does)."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _maybe_set(self.original, value)
                return
            _check_right_inverse_tensors(self, value)
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or reference-type opaques. "
                                     f"Got element {i} of type {type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                                     f"`original{i}` has dtype {original_i.dtype}")
                _maybe_set(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _default_deepcopy(self, memo):
    """A copy of a parametrized module: its __dict__ deep-copied into a new object of the same (injected) class."""
    replica = memo.get(id(self))
    if replica is not None:
        return replica
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _inject_new_class(module):
    """See Note [the class swap]."""
    cls = module.__class__
    namespace = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    """Make ``module.<tensor_name>`` its parametrizations' result, and assigning to it their right_inverse."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if _cache.get(key) is None:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_added_parametrization(module, tensor_name, parametrization):
    """torch's checks before a second parametrization joins a tensor's list: same dtype and shape, both ways."""
    current = getattr(module, tensor_name)
    result = parametrization(current)
    if not isinstance(result, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
    for field in ("dtype", "shape"):
        if getattr(result, field) != getattr(current, field):
            raise ValueError(
                f"Registering a parametrization may not change the {field} of the tensor, unless the `unsafe` flag is "
                f"enabled.\nmodule.{tensor_name}.{field}: {getattr(current, field)}\n"
                f"parametrization(module.{tensor_name}).{field}: {getattr(result, field)}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        inverse = parametrization.right_inverse(result)
    except NotImplementedError:
        return
    if not isinstance(inverse, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(inverse).__name__}")
    for field in ("dtype", "shape"):
        if getattr(inverse, field) != getattr(current, field):
            raise ValueError(
                f"The tensor returned by parametrization.right_inverse must have the same {field} as "
                f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                f"module.{tensor_name}.{field}: {getattr(current, field)}\nreturned {field}: "
                f"{getattr(inverse, field)}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` be ``parametrization`` of what it was (see
    torch.nn.utils.parametrize.register_parametrization)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_added_parametrization(module, tensor_name, parametrization)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
                         f"'{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has any parametrization, or one on ``tensor_name`` (see
    torch.nn.utils.parametrize.is_parametrized)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo register_parametrization on ``tensor_name``: it becomes a plain parameter or buffer again, holding its
    parametrized value or its original (see torch.nn.utils.parametrize.remove_parametrizations)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                _maybe_set(original, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in "
                         "terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]  # see Note [the class swap]
    return module


def type_before_parametrizations(module):
    """The module's class as it was before any parametrization."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Give ``to_module`` the parametrizations of ``from_module`` (all, or those of ``tensor_name``) and their
    originals (see torch.nn.utils.parametrize.transfer_parametrizations_and_params)."""
    if not is_parametrized(from_module):
        return to_module
    for name in from_module.parametrizations if tensor_name is None else [tensor_name]:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for function in from_module.parametrizations[name]:
            register_parametrization(to_module, name, function)
        source, target = from_module.parametrizations[name], to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            for i in range(source.ntensors):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
    return to_module
