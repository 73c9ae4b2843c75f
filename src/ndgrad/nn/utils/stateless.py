"""Calling a module with other tensors in place of its parameters and buffers (see torch.nn.utils.stateless): the
tensors are swapped in by dotted name for one call, then the originals are swapped back."""

import contextlib

from ndgrad._tensor import Tensor
from ndgrad._warnings import warn

__all__ = ["functional_call"]

_MISSING = object()  # an attribute the module did not have before the swap


def _untie_named_tensors_map(module, parameters_and_buffers):
    """``parameters_and_buffers`` with a value for every name of a tensor the module holds under several names
    (tied weights), taken from the one name given; two different values for one tied tensor are an error."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    names_of = {}
    for name, tensor in named.items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    given_tied = [name for name in parameters_and_buffers if name in tied]
    for name in given_tied:
        given = tied[name].intersection(given_tied)
        if len(given) > 1 and len({id(parameters_and_buffers[other]) for other in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied[name])}, which are tied. "
                             "Consider using tie_weights=False")
    untied = dict(parameters_and_buffers)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


def _swap_tensor(module, name, tensor):
    """Put ``tensor`` (or, given _MISSING, nothing) at ``name`` of ``module``; returns what was there. Parameters and
    buffers are swapped in their tables, so a plain tensor may stand in for a Parameter."""
    for table in (module._parameters, module._buffers):
        if name in table:
            original = table[name]
            if tensor is _MISSING:
                del table[name]
            else:
                table[name] = tensor
            return original
    original = getattr(module, name, _MISSING)
    if original is not _MISSING and original is not None and not isinstance(original, Tensor):
        raise TypeError(f"attribute `{name}`: {original} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif original is not _MISSING:
        delattr(module, name)
    return original


def _swap_all(module, named_tensors):
    """Swap every dotted name of ``named_tensors`` in; returns the tensors that were there."""
    originals = {}
    for path, tensor in named_tensors.items():
        prefix, _, name = path.rpartition(".")
        originals[path] = _swap_tensor(module.get_submodule(prefix), name, tensor)
    return originals


def _check_keys(module, names):
    """torch's error for strict=True: every parameter and buffer given, nothing else."""
    expected = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    expected.update(name for name, _ in module.named_buffers(remove_duplicate=False))
    unexpected = sorted(set(names) - expected)
    missing = sorted(expected - set(names))
    messages = []
    if unexpected:
        messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if messages:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(messages))


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    """Within the block, ``module`` holds ``parameters_and_buffers``; afterwards its own tensors again, and the dict
    gets back what the call put there (an in-place update of a buffer is seen by the caller, as in torch)."""
    if tie_weights:
        named = _untie_named_tensors_map(module, parameters_and_buffers)
    else:
        named = parameters_and_buffers
    if strict:
        _check_keys(module, named)
    originals = {}
    try:
        originals = _swap_all(module, named)
        yield
    finally:
        swapped_out = _swap_all(module, originals)
        parameters_and_buffers.update({k: swapped_out[k] for k in parameters_and_buffers if k in swapped_out})


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with ``parameters_and_buffers`` in place of its own (see
    torch.nn.utils.stateless.functional_call, deprecated there for torch.func.functional_call)."""
    warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a future "
         "version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in replacement.",
         FutureWarning)
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
