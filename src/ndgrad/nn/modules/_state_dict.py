"""Saving and loading a Module's state (see torch.nn.Module.state_dict / load_state_dict): the parameters and
persistent buffers by dotted name, with PyTorch's metadata, hooks, and error messages on a mismatch."""

from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ndgrad._tensor import Tensor
from ndgrad._warnings import warn
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.nn.modules._hooks import add_hook
from ndgrad.nn.parameter import Parameter

__all__ = ["StateDictMethods"]

_EXTRA_STATE_KEY = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns; prints '<All keys matched successfully>' when both lists are empty."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class StateDictMethods:
    """Module's state_dict side; Module inherits it. It relies on Module's _parameters, _buffers, _modules
    and hook tables."""

    def get_extra_state(self):
        """Extra state to put in state_dict; override together with set_extra_state."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
        )

    def set_extra_state(self, state):
        """Restore what get_extra_state returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
        )

    def register_state_dict_pre_hook(self, hook):
        """Run ``hook(module, prefix, keep_vars)`` before state_dict saves this module."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after state_dict saved this module."""
        return add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors)`` first."""
        return add_hook(self._load_state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook):
        """Run ``hook(module, incompatible_keys)`` after load_state_dict loaded this module and its children."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        if type(self).get_extra_state is not StateDictMethods.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of parameters and persistent buffers by dotted name (see torch.nn.Module.state_dict)."""
        if args:
            warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict for details.",
                FutureWarning,
            )
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            if hook(self, destination, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """Copy this module's own entries of ``state_dict``; record what is missing, unexpected or wrong."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in (*self._parameters.items(), *persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            error = self._load_one(name, key, param, state_dict[key], assign)
            if error is not None:
                error_msgs.append(error)
        extra_state_key = prefix + _EXTRA_STATE_KEY
        if type(self).set_extra_state is not StateDictMethods.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    head, dot, _ = key[len(prefix):].partition(".")
                    if head not in (self._modules if dot else local_state):
                        unexpected_keys.append(key)

    def _load_one(self, name, key, param, value, assign):
        """Copy (or assign) one checkpoint entry into ``param``; returns an error message or None."""
        if not isinstance(value, Tensor):
            return (
                f'While copying the parameter named "{key}", expected ndgrad.Tensor or Tensor-like object from '
                f"checkpoint but received {type(value)}"
            )
        if param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
            value = value[0]  # checkpoints from before 0-d tensors saved scalars as one-element vectors
        if value.shape != param.shape:
            return (
                f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, the shape in "
                f"current model is {param.shape}."
            )
        try:
            with no_grad():
                if not assign:
                    param.copy_(value)
                elif isinstance(param, Parameter):
                    if isinstance(value, Parameter):
                        setattr(self, name, value.requires_grad_(param.requires_grad))
                    else:
                        setattr(self, name, Parameter(value, requires_grad=param.requires_grad))
                else:
                    setattr(self, name, value)
        except Exception as error:  # noqa: BLE001 - reported with the other loading errors, as torch does
            return (
                f'While copying the parameter named "{key}", whose dimensions in the model are {param.size()} and '
                f"whose dimensions in the checkpoint are {value.size()}, an exception occurred : {error.args}."
            )
        return None

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` (see torch.nn.Module.load_state_dict)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return new "
                        "values, if incompatible_keys need to be modified, it should be done inplace."
                    )

        load(self, OrderedDict(state_dict))
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, f"Unexpected key(s) in state_dict: {', '.join(map(_quoted, unexpected_keys))}. ")
            if missing_keys:
                error_msgs.insert(0, f"Missing key(s) in state_dict: {', '.join(map(_quoted, missing_keys))}. ")
        if error_msgs:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(error_msgs)
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)


def _quoted(key):
    return f'"{key}"'
