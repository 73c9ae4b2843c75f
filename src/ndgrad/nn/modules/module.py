"""Module: the base of every layer. It registers parameters, buffers and submodules as they are assigned, walks
them, converts them, saves and loads them (state_dict), prints the tree, and runs hooks around forward."""

import types
from collections import OrderedDict

from ndgrad._creation import empty_like
from ndgrad._device import parse_to
from ndgrad._printing import typename
from ndgrad._tensor import Tensor
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.nn.modules import _hooks
from ndgrad.nn.modules._hooks import (
    add_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)
from ndgrad.nn.modules._state_dict import StateDictMethods
from ndgrad.nn.parameter import Parameter

__all__ = [
    "Module",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
]

_HOOK_TABLES = (
    "_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks",
    "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
)


# Note [method names]: Python's errors for a wrong call name the function by its __qualname__ ("Conv2d.__init__()
# got an unexpected keyword argument"), so a layer's __init__ and forward must carry the names torch's do. A base
# class lists in ``_torch_subclasses_define`` the methods that, in torch, each class derived from it defines
# itself; a class that inherits such a method from ndgrad gets a copy of it named after that class.
_NAMED_METHODS = ("__init__", "forward")


def _name_inherited_methods(cls):
    for method in _NAMED_METHODS:
        if method in cls.__dict__:
            continue
        for below, base in zip(cls.__mro__, cls.__mro__[1:]):
            if method in base.__dict__.get("_torch_subclasses_define", ()):
                if below is cls:
                    setattr(cls, method, _renamed(getattr(cls, method), f"{cls.__name__}.{method}"))
                break
            if method in base.__dict__:
                break


def _renamed(function, qualname):
    """A copy of ``function`` under another __qualname__ (the same code, defaults and closure)."""
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__, function.__defaults__,
                              function.__closure__)
    copy.__kwdefaults__, copy.__doc__, copy.__module__ = function.__kwdefaults__, function.__doc__, function.__module__
    copy.__dict__.update(function.__dict__)
    copy.__qualname__ = qualname
    return copy


def _addindent(text, spaces):
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line for line in rest])


class Module(StateDictMethods):
    """Base class for all neural-network modules (see torch.nn.Module)."""

    dump_patches = False
    _version = 1  # saved in state_dict metadata; layers whose saved format changed raise it
    call_super_init = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _name_inherited_methods(cls)  # see Note [method names]

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
            )
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        # Written into __dict__ directly: Module.__setattr__ itself looks these tables up.
        self.__dict__.update(
            training=True, _parameters={}, _buffers={}, _non_persistent_buffers_set=set(), _modules={},
            _is_full_backward_hook=None, **{table: OrderedDict() for table in _HOOK_TABLES},
        )

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    forward.__qualname__ = "_forward_unimplemented"  # torch's name for it

    def __call__(self, *args, **kwargs):
        if not (
            self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks
            or _hooks.any_global_hooks()
        ):
            return self.forward(*args, **kwargs)
        return _hooks.call_with_hooks(self, args, kwargs)

    # ---- registration --------------------------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (see torch.nn.Module.register_buffer)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter, or None (see torch.nn.Module.register_parameter)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(ndgrad.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method."
            )
        self._parameters[name] = param

    def _check_new_name(self, name, kind, table):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\"")
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def add_module(self, name, module):
        """Add a child module, or None (see torch.nn.Module.add_module)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for add_module."""
        self.add_module(name, module)

    def __setattr__(self, name, value):
        fields = self.__dict__
        params = fields.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, fields, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' (ndgrad.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            modules = fields.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, fields, self._parameters, self._buffers)
            modules[name] = value
        elif name in fields.get("_modules", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' (ndgrad.nn.Module or None expected)"
                )
            self._modules[name] = value
        elif name in fields.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(ndgrad.nn.Buffer, ndgrad.Tensor or None expected)"
                )
            self._buffers[name] = value
        else:
            super().__setattr__(name, value)

    def _forget(self, name, *tables):
        """Drop ``name`` from the other places an attribute can live, before it is registered anew."""
        for table in tables:
            table.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name):
        # Only reached when normal lookup failed: parameters, buffers and submodules live in their tables.
        fields = self.__dict__
        if "_parameters" in fields:
            if name in fields["_parameters"]:
                return fields["_parameters"][name]
            if name in fields["_buffers"]:
                return fields["_buffers"][name]
            if name in fields["_modules"]:
                return fields["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        return sorted(key for key in keys if not key[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ---- lookup by dotted name -----------------------------------------------------------------------
    def get_submodule(self, target):
        """The module at a dotted path such as 'net.0' (see torch.nn.Module.get_submodule)."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def set_submodule(self, target, module, strict=False):
        """Replace (or, unless strict, add) the module at a dotted path (see torch.nn.Module.set_submodule)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter at a dotted path such as 'net.0.weight' (see torch.nn.Module.get_parameter)."""
        module, name, value = self._get_member(target)
        if not isinstance(value, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return value

    def get_buffer(self, target):
        """The buffer at a dotted path (see torch.nn.Module.get_buffer)."""
        module, name, value = self._get_member(target)
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return value

    def _get_member(self, target):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        return module, name, getattr(module, name)

    # ---- traversal -----------------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every descendant, depth first (see torch.nn.Module.named_modules)."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, members_of, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members_of(module):
                if value is None or value in memo:
                    continue
                if remove_duplicate:
                    memo.add(value)
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, parameter) pairs, each parameter once (see torch.nn.Module.named_parameters)."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    # ---- modes and gradients -------------------------------------------------------------------------
    def train(self, mode=True):
        """Set training mode here and below; dropout and batch norm read it (see torch.nn.Module.train)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the parameters' gradients: to None, or to zeros in place (see torch.nn.Module.zero_grad)."""
        for param in self.parameters():
            grad = param.grad
            if grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn):
        """Call ``fn`` on every submodule, then on self (see torch.nn.Module.apply)."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- conversion ----------------------------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Replace every parameter, gradient and buffer by ``fn`` of it. Parameters and gradients keep their
        identity, their data swapped in, also across devices (as PyTorch does): an optimiser made before
        ``model.cuda()`` still holds the model's parameters."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            param.data = applied
            grad = param.grad
            if grad is not None:
                with no_grad():
                    grad.data = fn(grad)
        for key, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[key] = fn(buffer)
        return self

    def share_memory(self):
        """Move parameters, gradients and buffers into shared memory, for processes that train one model (see
        torch.nn.Module.share_memory and ndgrad.multiprocessing)."""
        return self._apply(lambda tensor: tensor.share_memory_())

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers; only floating ones change dtype (see torch.nn.Module.to)."""
        device, dtype = _parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
            )

        def convert(tensor):
            floating = tensor.is_floating_point() or tensor.is_complex()
            return tensor.to(
                device=tensor.device if device is None else device,
                dtype=dtype if dtype is not None and floating else tensor.dtype,
            )

        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Move to ``device`` without copying values: parameters and buffers become uninitialised."""
        return self._apply(lambda t: empty_like(t, device=device), recurse)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    # ---- hooks ---------------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Run ``hook(module, args)`` (or ``hook(module, args, kwargs)``) before forward; it may replace them."""
        flags = [self._forward_pre_hooks_with_kwargs] if with_kwargs else []
        return add_hook(self._forward_pre_hooks, hook, prepend, flags)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Run ``hook(module, args, output)`` after forward; it may replace the output."""
        flags = [self._forward_hooks_with_kwargs] * with_kwargs + [self._forward_hooks_always_called] * always_call
        return add_hook(self._forward_hooks, hook, prepend, flags)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_output)`` when the output gradients are known; it may replace them."""
        return add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_input, grad_output)`` when the input gradients are known; it may replace them."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only "
                "one of them."
            )
        self._is_full_backward_hook = True
        return add_hook(self._backward_hooks, hook, prepend)

    # ---- printing ------------------------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The layer's own settings, shown inside its parentheses; layers override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): {_addindent(repr(module), 2)}" for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def _parse_to(args, kwargs):
    """Module.to's overloads (Tensor.to's); returns (device, dtype)."""
    device, dtype, _ = parse_to(args, kwargs)
    return device, dtype
