"""Backward hooks: removable handles, and running tensor, node and post-accumulate hooks with PyTorch's checks.

Where hooks are stored (nodes, tensors) is graph.py's business; when they run is the engine's.
"""

import itertools
import weakref

from ndgrad._dtype import legacy_type_name

__all__ = ["RemovableHandle", "run_tensor_hooks", "run_pre_hooks", "run_post_hooks", "run_post_accumulate_hooks"]


class RemovableHandle:
    """What registering a hook returns: ``remove()`` unregisters it; also a context manager (see
    torch.utils.hooks.RemovableHandle)."""

    _ids = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._ids)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None:
            hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


def add_hook(hooks_dict, hook):
    """Store ``hook`` in ``hooks_dict`` under a new handle's id and return the handle."""
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = hook
    return handle


def _hook_name(hook):
    return getattr(hook, "__name__", "<unknown>")


def _checked(hook, value, like):
    """A gradient a hook returned in place of ``like``: same shape and dtype, as PyTorch insists."""
    from ndgrad._tensor import Tensor

    if not isinstance(value, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(value).__name__}'")
    if like is not None:
        if value._data.shape != like._data.shape:
            raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
        if value._data.dtype != like._data.dtype:
            raise RuntimeError(
                f"hook '{_hook_name(hook)}' has changed the type of value (was {legacy_type_name(like.dtype)} got "
                f"{legacy_type_name(value.dtype)})"
            )
    return value


def run_tensor_hooks(hooks_dict, grad):
    """Tensor hooks (``Tensor.register_hook``) in registration order; each may return a replacement gradient."""
    for hook in tuple(hooks_dict.values()):
        result = hook(grad)
        if result is not None:
            grad = _checked(hook, result, grad)
    return grad


def _checked_tuple(hook, result, like):
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(like):
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got {len(result)}, but expected "
            f"{len(like)})"
        )
    return [None if value is None else _checked(hook, value, old) for value, old in zip(result, like)]


def run_pre_hooks(hooks_dict, grad_outputs):
    """Node pre-hooks: ``hook(grad_outputs)`` before the node runs; may return a replacement tuple."""
    for hook in tuple(hooks_dict.values()):
        result = hook(tuple(grad_outputs))
        if result is not None:
            grad_outputs = _checked_tuple(hook, result, grad_outputs)
    return grad_outputs


def run_post_hooks(hooks_dict, grad_inputs, grad_outputs):
    """Node hooks: ``hook(grad_inputs, grad_outputs)`` after the node ran; may return replacement grad_inputs."""
    grad_outputs = tuple(grad_outputs)
    for hook in tuple(hooks_dict.values()):
        result = hook(tuple(grad_inputs), grad_outputs)
        if result is not None:
            grad_inputs = _checked_tuple(hook, result, grad_inputs)
    return grad_inputs


def run_post_accumulate_hooks(hooks_dict, tensor):
    """Hooks a leaf registered with register_post_accumulate_grad_hook, called with the leaf once .grad is set."""
    from ndgrad._tensor import Tensor

    for hook in tuple(hooks_dict.values()):
        result = hook(tensor)
        if isinstance(result, Tensor):
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        if result is not None:
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
