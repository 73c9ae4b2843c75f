"""Module hooks: the global hook tables, removable handles, running forward hooks around ``forward``, and the
full backward hooks (an identity Function on the inputs and one on the outputs catch their gradients)."""

import weakref
from collections import OrderedDict

from ndgrad._tensor import Tensor
from ndgrad._warnings import warn
from ndgrad.autograd.function import Function
from ndgrad.autograd.grad_mode import STATE
from ndgrad.autograd.graph_api import RemovableHandle

__all__ = [
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
]

# Hooks every Module runs (see torch.nn.modules.module.register_module_forward_hook and friends).
GLOBAL_FORWARD_PRE_HOOKS = OrderedDict()
GLOBAL_FORWARD_HOOKS = OrderedDict()
GLOBAL_FORWARD_HOOKS_WITH_KWARGS = OrderedDict()
GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED = OrderedDict()
GLOBAL_BACKWARD_PRE_HOOKS = OrderedDict()
GLOBAL_BACKWARD_HOOKS = OrderedDict()


class HookHandle(RemovableHandle):
    """A handle whose removal also clears the hook's flags (with_kwargs, always_call) kept in other tables."""

    def __init__(self, hooks_dict, flag_dicts=()):
        super().__init__(hooks_dict)
        self.flag_refs = tuple(weakref.ref(flags) for flags in flag_dicts)

    def remove(self):
        super().remove()
        for ref in self.flag_refs:
            flags = ref()
            if flags is not None:
                flags.pop(self.id, None)


def add_hook(hooks, hook, prepend=False, flag_dicts=()):
    """Store ``hook`` (first if ``prepend``), set its flags, and return the handle that removes all of it."""
    handle = HookHandle(hooks, flag_dicts)
    hooks[handle.id] = hook
    for flags in flag_dicts:
        flags[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook):
    """Run ``hook(module, args)`` before every Module's forward (see torch.nn.modules.module)."""
    return add_hook(GLOBAL_FORWARD_PRE_HOOKS, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Run ``hook(module, args, output)`` after every Module's forward (see torch.nn.modules.module)."""
    flags = [GLOBAL_FORWARD_HOOKS_WITH_KWARGS] * with_kwargs + [GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED] * always_call
    return add_hook(GLOBAL_FORWARD_HOOKS, hook, flag_dicts=flags)


def register_module_full_backward_pre_hook(hook):
    """Run ``hook(module, grad_output)`` for every Module once its output gradients are known."""
    return add_hook(GLOBAL_BACKWARD_PRE_HOOKS, hook)


def register_module_full_backward_hook(hook):
    """Run ``hook(module, grad_input, grad_output)`` for every Module once its input gradients are known."""
    return add_hook(GLOBAL_BACKWARD_HOOKS, hook)


def any_global_hooks():
    return bool(GLOBAL_FORWARD_PRE_HOOKS or GLOBAL_FORWARD_HOOKS or GLOBAL_BACKWARD_PRE_HOOKS or GLOBAL_BACKWARD_HOOKS)


def call_with_hooks(module, args, kwargs):
    """Module.__call__ when some hook is registered: pre-hooks, forward, forward hooks, backward-hook wiring."""
    forward_hooks = (*GLOBAL_FORWARD_HOOKS.items(), *module._forward_hooks.items())
    called = set()
    result = None
    try:
        args, kwargs = _run_forward_pre_hooks(module, args, kwargs)
        backward_hook = None
        if module._backward_hooks or module._backward_pre_hooks or GLOBAL_BACKWARD_HOOKS or GLOBAL_BACKWARD_PRE_HOOKS:
            backward_hook = _BackwardHook(module)
            args = backward_hook.setup_inputs(args)
        result = module.forward(*args, **kwargs)
        for hook_id, hook in forward_hooks:
            called.add(hook_id)
            hook_result = _run_forward_hook(module, hook_id, hook, args, kwargs, result)
            if hook_result is not None:
                result = hook_result
        if backward_hook is not None:
            result = backward_hook.setup_outputs(result)
        return result
    except Exception:
        for hook_id, hook in forward_hooks:
            always = hook_id in module._forward_hooks_always_called or hook_id in GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED
            if always and hook_id not in called:
                try:
                    hook_result = _run_forward_hook(module, hook_id, hook, args, kwargs, result)
                except Exception as error:  # noqa: BLE001 - torch reports it as a warning and re-raises the first
                    where = "global module" if hook_id in GLOBAL_FORWARD_HOOKS else "module"
                    warn(
                        f"{where} forward hook with ``always_call=True`` raised an exception that was silenced as "
                        f"another error was raised in forward: {error}",
                    )
                    continue
                if hook_result is not None:
                    result = hook_result
        raise


def _run_forward_pre_hooks(module, args, kwargs):
    for hook_id, hook in (*GLOBAL_FORWARD_PRE_HOOKS.items(), *module._forward_pre_hooks.items()):
        if hook_id in module._forward_pre_hooks_with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {result}."
                    )
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def _run_forward_hook(module, hook_id, hook, args, kwargs, result):
    if hook_id in module._forward_hooks_with_kwargs or hook_id in GLOBAL_FORWARD_HOOKS_WITH_KWARGS:
        return hook(module, args, kwargs, result)
    return hook(module, args, result)


class BackwardHookFunction(Function):
    """Identity on tensors whose backward hands their gradients to a callback (and returns what it gives back)."""

    @staticmethod
    def forward(ctx, on_backward, *tensors):
        ctx.on_backward = on_backward
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.on_backward(grads))


class _BackwardHook:
    """Wires one forward call for full backward hooks: the outputs' node runs the pre-hooks and keeps
    grad_output; the inputs' node runs the hooks with grad_input (one entry per positional argument)."""

    def __init__(self, module):
        self.module = module
        self.hooks = (*GLOBAL_BACKWARD_HOOKS.values(), *module._backward_hooks.values())
        self.pre_hooks = (*GLOBAL_BACKWARD_PRE_HOOKS.values(), *module._backward_pre_hooks.values())
        self.n_inputs = self.n_outputs = 0
        self.input_positions = None  # positions of the tensor arguments, once they go through the input node
        self.output_positions = ()
        self.grad_outputs = None

    def setup_inputs(self, args):
        self.n_inputs = len(args)
        positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        if not (STATE.grad_enabled and any(args[i].requires_grad for i in positions)):
            return args
        self.input_positions = positions
        wrapped = BackwardHookFunction.apply(self._on_input_grads, *[args[i] for i in positions])
        args = list(args)
        for position, tensor in zip(positions, wrapped):
            args[position] = tensor
        return tuple(args)

    def setup_outputs(self, result):
        is_tuple = isinstance(result, tuple)
        if not (is_tuple or isinstance(result, Tensor)):
            warn(
                "For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but "
                f"received {type(result)}",
            )
            return result
        outputs = result if is_tuple else (result,)
        positions = [i for i, out in enumerate(outputs) if isinstance(out, Tensor)]
        if not (STATE.grad_enabled and any(outputs[i].requires_grad for i in positions)):
            return result
        self.n_outputs = len(outputs)
        self.output_positions = positions
        wrapped = BackwardHookFunction.apply(self._on_output_grads, *[outputs[i] for i in positions])
        outputs = list(outputs)
        for position, tensor in zip(positions, wrapped):
            outputs[position] = tensor
        return tuple(outputs) if is_tuple else outputs[0]

    def _on_output_grads(self, grads):
        grad_outputs = _spread(grads, self.output_positions, self.n_outputs)
        for hook in self.pre_hooks:
            result = hook(self.module, grad_outputs)
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(grad_outputs):
                    raise RuntimeError(
                        f"Backward pre hook returned an invalid number of grad_output, got {len(result)}, but "
                        f"expected {len(grad_outputs)}"
                    )
                grad_outputs = result
        self.grad_outputs = grad_outputs
        if self.input_positions is None:  # no input needs a gradient: the hooks see grad_input of Nones now
            warn(
                "Full backward hook is firing when gradients are computed with respect to module outputs since no "
                "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
            )
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                result = hook(self.module, grad_inputs, grad_outputs)
                if result is not None and not (isinstance(result, tuple) and all(r is None for r in result)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should always return None or None "
                        "for all gradients."
                    )
        return [grad_outputs[i] for i in self.output_positions]

    def _on_input_grads(self, grads):
        grad_inputs = _spread(grads, self.input_positions, self.n_inputs)
        for hook in self.hooks:
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(grad_inputs):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got {len(result)}, but expected "
                        f"{len(grad_inputs)}"
                    )
                grad_inputs = result
        return [grad_inputs[i] for i in self.input_positions]


def _spread(values, positions, length):
    """Values at ``positions`` of a tuple of ``length``, None elsewhere."""
    spread = [None] * length
    for position, value in zip(positions, values):
        spread[position] = value
    return tuple(spread)
