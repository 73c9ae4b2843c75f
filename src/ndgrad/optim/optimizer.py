"""Optimizer: parameter groups, per-parameter state, zero_grad, state_dict and hooks (see torch.optim.Optimizer).

The update rules live in one module per algorithm; this module knows none of them.
"""

import copy
import functools
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from itertools import chain

from ndgrad._printing import typename
from ndgrad._tensor import Tensor
from ndgrad._warnings import warn
from ndgrad.autograd.graph_api import RemovableHandle
from ndgrad.autograd.leaks import note_optimizer, note_step

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """The default of a hyperparameter every parameter group must give itself."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks = OrderedDict()
_global_step_post_hooks = OrderedDict()


def _register(hooks, hook, prepend=False):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` before every optimizer's step (see
    torch.optim.optimizer.register_optimizer_step_pre_hook)."""
    return _register(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` after every optimizer's step."""
    return _register(_global_step_post_hooks, hook)


def _with_step_hooks(step):
    """``step`` wrapped so that the global and per-optimizer pre/post hooks run around it."""

    @functools.wraps(step)
    def hooked_step(*args, **kwargs):
        self = args[0]
        pre_hooks = self._optimizer_step_pre_hooks
        if pre_hooks or _global_step_pre_hooks:
            for hook in tuple(chain(_global_step_pre_hooks.values(), pre_hooks.values())):
                result = hook(self, args, kwargs)
                if result is None:
                    continue
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), but got {result}."
                    )
                args, kwargs = result
        out = step(*args, **kwargs)
        note_step(self)  # the boundary of the graph-leak warning (see ndgrad.autograd.leaks)
        post_hooks = self._optimizer_step_post_hooks
        if post_hooks or _global_step_post_hooks:
            for hook in tuple(chain(post_hooks.values(), _global_step_post_hooks.values())):
                hook(self, args, kwargs)
        return out

    hooked_step.hooked = True
    return hooked_step


_HOOK_DICTS = (
    "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
    "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks",
)


class Optimizer:
    """Base class of all optimizers: holds ``param_groups`` and ``state``; subclasses define ``step``
    (see torch.optim.Optimizer)."""

    group_defaults = {}  # per-optimiser options that older state dicts lack (see __setstate__)

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        self._patch_step_function()
        note_optimizer(self)
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + typename(params)
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if not param_groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def _patch_step_function(self):
        # Wrapped once per class, on first construction, as torch does: subclasses written by users get hooks too.
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for name, value in self.group_defaults.items():
                group.setdefault(name, value)

    def __repr__(self):
        text = f"{type(self).__name__} ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            text += "".join(f"    {key}: {group[key]}\n" for key in sorted(group) if key != "params")
        return text + ")"

    # ---- hooks ---------------------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before step and may return new (args, kwargs)."""
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after step."""
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state_dict --------------------------------------------------------------------------------------
    def state_dict(self):
        """``{'state': {index: per-parameter state}, 'param_groups': [group with 'params' as indices]}``; the
        state tensors are this optimizer's own, not copies (see torch.optim.Optimizer.state_dict)."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index_of = {}
        packed_groups = []
        start = 0  # ids count every listed parameter, duplicates included; a duplicate takes its last position
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            index_of.update(
                {id(param): start + offset for offset, param in enumerate(group["params"]) if id(param) not in index_of}
            )
            packed["params"] = [index_of[id(param)] for param in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        packed_state = {
            (index_of[id(key)] if isinstance(key, Tensor) else key): value for key, value in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": packed_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        """Take over the state and hyperparameters of ``state_dict``, matching parameters by position
        (see torch.optim.Optimizer.load_state_dict)."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        saved_ids = chain.from_iterable(saved["params"] for saved in saved_groups)
        param_of = dict(zip(saved_ids, chain.from_iterable(group["params"] for group in groups)))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = _cast_state(param, value, _group_flags(state_dict["param_groups"], key))
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # ---- the step contract -------------------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Drop (or zero) every parameter's .grad (see torch.optim.Optimizer.zero_grad)."""
        for group in self.param_groups:
            for param in group["params"]:
                grad = param._grad
                if grad is None:
                    continue
                if set_to_none:
                    param._grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure=None):
        """Update the parameters once; ``closure`` re-evaluates the loss for optimizers that need it."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        """Add a group of parameters with its own hyperparameters (see torch.optim.Optimizer.add_param_group)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in "
                "sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        names = [param[0] for param in params if isinstance(param, tuple)]
        params = [param[1] if isinstance(param, tuple) else param for param in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(params) != len(set(params)):
            warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
            )
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


def _group_flags(saved_groups, index):
    """(fused, capturable) of the saved group holding parameter ``index``: they decide where 'step' lives."""
    for group in saved_groups:
        if index in group["params"]:
            return group.get("fused", False), group.get("capturable", False)
    return False, False


def _cast_state(param, value, flags, key=None):
    """A loaded state value made to fit ``param``: float tensors take its dtype, 'step' stays as it is."""
    if isinstance(value, Tensor):
        if key == "step":
            if any(flags):
                from ndgrad._dtype import float32

                return value.to(dtype=float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, flags, key=k) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, str):
        return type(value)(_cast_state(param, v, flags) for v in value)
    return value
