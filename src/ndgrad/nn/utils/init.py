"""Building a module without running its initialisation (see torch.nn.utils.init.skip_init)."""

import inspect

from ndgrad.nn.modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialised, as torch.empty leaves them
    (see torch.nn.utils.skip_init).

    torch builds the module on the meta device, where initialisation costs nothing; ndgrad has no meta device, so
    the module is built on its final device and its tensors then replaced by empty ones (the same result, only
    slower)."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    return module_cls(*args, **kwargs).to_empty(device=final_device)
