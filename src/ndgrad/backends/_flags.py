"""A backend's switches as module attributes that refuse a non-bool as torch's C setters do, so that
``ndgrad.backends.cudnn.benchmark = True`` is kept, read back, and checked (see torch.backends.ContextProp)."""

import types

__all__ = ["flag", "flags_module"]


def flag(setter_name, default):
    """A bool switch; ``setter_name`` is torch's C setter, which its error names."""
    name = f"_{setter_name}"

    def get(module):
        return module.__dict__.get(name, default)

    def set(module, value):
        if type(value) is not bool:
            raise RuntimeError(f"{setter_name} expects a bool, but got {type(value).__name__}")
        module.__dict__[name] = value

    return property(get, set)


def flags_module(module_name, **switches):
    """Give the module ``module_name`` the properties ``switches`` (a module is an instance of its class, so its
    class is where properties go: a ModuleType subclass of its own)."""
    import sys

    module = sys.modules[module_name]
    module.__class__ = type(f"{module_name.rpartition('.')[2]}_flags", (types.ModuleType,), switches)
