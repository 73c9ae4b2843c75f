"""record_modules: tag each backward node with the module call that created it, through the public forward
hooks of nn.Module, so that draw(collapse_modules=True) can draw one box per call."""

import contextlib
from collections import namedtuple

from ndgrad.viz.labels import sequence_nr

__all__ = ["MODULE_KEY", "ModuleCall", "record_modules"]

MODULE_KEY = "ndgrad.viz.module"  # the key in node.metadata; its value is a ModuleCall


class ModuleCall(namedtuple("ModuleCall", ("name", "type_name", "call"))):
    """One call of a named submodule: ``call`` counts calls of the same module, from 1."""

    __slots__ = ()

    @property
    def label(self):
        label = f"{self.name} ({self.type_name})"
        return label if self.call == 1 else f"{label} #{self.call}"


def _current_sequence_nr():
    """The sequence number the next node will get, read off a throwaway node (there is no public counter)."""
    import ndgrad

    with ndgrad.enable_grad():
        node = ndgrad.zeros((), requires_grad=True).neg().grad_fn
    return sequence_nr(node)


def _tensors_in(value):
    """Every tensor in a forward's output, looking inside tuples, lists and dicts."""
    from ndgrad import Tensor

    pending, found = [value], []
    while pending:
        item = pending.pop()
        if isinstance(item, Tensor):
            found.append(item)
        elif isinstance(item, (tuple, list)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
    return found


def _tag(outputs, start, call):
    """Tag the nodes made after ``start`` that the outputs reach; an inner module tagged them first and keeps them."""
    pending = [tensor.grad_fn for tensor in _tensors_in(outputs) if tensor.grad_fn is not None]
    seen = set()
    while pending:
        node = pending.pop()
        if id(node) in seen or hasattr(node, "variable") or sequence_nr(node) <= start:
            continue  # leaves' AccumulateGrad belongs to no call; earlier nodes belong to the caller
        seen.add(id(node))
        node.metadata.setdefault(MODULE_KEY, call)
        pending.extend(next_node for next_node, _ in node.next_functions if next_node is not None)


class _Recorder:
    """The hooks of one record_modules block: a stack of start numbers per module (a module may call itself)."""

    def __init__(self):
        self.starts, self.calls = {}, {}

    def before(self, module, args):
        from ndgrad import is_grad_enabled

        start = _current_sequence_nr() if is_grad_enabled() else None
        self.starts.setdefault(id(module), []).append(start)

    def after(self, name, module, args, output):
        start = self.starts[id(module)].pop()
        if start is None:  # forward ran without recording a graph
            return
        self.calls[name] = self.calls.get(name, 0) + 1
        _tag(output, start, ModuleCall(name, type(module).__name__, self.calls[name]))


@contextlib.contextmanager
def record_modules(model):
    """Within this block, every backward node a named submodule of ``model`` creates is tagged with that call in
    ``node.metadata``, innermost module first; ndgrad.viz.draw(..., collapse_modules=True) groups by it.

    The model's own ops (those outside any named submodule) stay ungrouped.
    """
    recorder = _Recorder()
    handles = []
    try:
        for name, module in model.named_modules():
            if not name:
                continue
            handles.append(module.register_forward_pre_hook(recorder.before))
            handles.append(module.register_forward_hook(
                lambda module, args, output, name=name: recorder.after(name, module, args, output)
            ))
        yield model
    finally:
        for handle in handles:
            handle.remove()
