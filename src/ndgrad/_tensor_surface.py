"""Python's own errors about Tensor's attributes and methods, in PyTorch's words, at no cost to a call: read-only
properties refuse assignment as PyTorch's C attributes do, and methods carry PyTorch's qualified names, which
Python's argument errors print (``Tensor.backward() takes from 1 to 5 positional arguments but 6 were given``).

PyTorch's C methods (``TensorBase.exp``) word their argument errors as Python's C functions do ("takes no
arguments (1 given)"); a Python function cannot say that without a wrapper around every call, so those keep
Python's wording after PyTorch's name (``TensorBase.exp() takes 1 positional argument but 2 were given``).
"""

import inspect
import sys
import types

__all__ = ["present_as_torch"]

# torch.Tensor's methods written in Python (torch/_tensor.py); the others belong to its C base, torch._C.TensorBase.
_PYTHON_METHODS = frozenset({
    "__array__", "__array_wrap__", "__contains__", "__deepcopy__", "__dir__", "__dlpack__", "__dlpack_device__",
    "__floordiv__", "__format__", "__ipow__", "__iter__", "__len__", "__pow__", "__rdiv__", "__reduce_ex__",
    "__repr__", "__reversed__", "__rfloordiv__", "__rlshift__", "__rmatmul__", "__rmod__", "__rpow__", "__rrshift__",
    "__rsub__", "__rtruediv__", "__setstate__", "backward", "dim_order", "is_shared", "istft", "lu", "module_load",
    "norm", "register_hook", "register_post_accumulate_grad_hook", "resize", "resize_as", "share_memory_", "split",
    "stft", "storage", "storage_type", "to_sparse_coo", "unflatten", "unique", "unique_consecutive",
})


def present_as_torch(cls):
    """Give Tensor's read-only properties PyTorch's refusal, and its methods PyTorch's names (with a module where
    pickle finds them: ``ndgrad.Tensor`` or ``ndgrad._C.TensorBase``, which is Tensor too)."""
    for name in dir(cls):
        attribute = inspect.getattr_static(cls, name)
        if isinstance(attribute, property) and attribute.fset is None:
            refuse = _refusal(name)
            setattr(cls, name, property(attribute.fget, refuse, refuse, attribute.__doc__))
        elif _own_method(attribute, name):
            python = name in _PYTHON_METHODS
            attribute.__qualname__ = f"{'Tensor' if python else 'TensorBase'}.{name}"
            attribute.__module__ = "ndgrad" if python else "ndgrad._C"


def _own_method(attribute, name):
    """A function Tensor has under its own name, not a private helper, and not a module's function reused as is."""
    if not isinstance(attribute, types.FunctionType) or attribute.__name__ != name:
        return False
    if name.startswith("_") and not name.startswith("__"):
        return False
    module = sys.modules.get(attribute.__module__)
    return getattr(module, name, None) is not attribute


def _refusal(name):
    def refuse(self, *value):
        raise AttributeError(f"attribute '{name}' of 'ndgrad._C.TensorBase' objects is not writable")

    return refuse
