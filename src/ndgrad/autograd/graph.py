"""Backward nodes: the grad_fn objects that make up the graph, and AccumulateGrad for leaves.

A node knows its edges (``next_functions``) and how to turn the gradients of its outputs into gradients of its
inputs. It knows nothing about how the engine walks the graph, nor about any particular op.
"""

import itertools

from ndgrad._dtype import from_numpy_dtype
from ndgrad.autograd.saved import FREED_MESSAGE, SavedOutput, check_version

__all__ = ["Node", "OpNode", "AccumulateGrad", "run_hooks"]

_sequence = itertools.count()


class Node:
    """Base of every grad_fn. ``next_functions`` is a tuple of (node or None, input_nr), one per input."""

    _tensor_hooks = None  # output_nr -> hooks registered on that (non-leaf) output tensor
    _retained = None  # output_nr -> weakref of an output tensor that called retain_grad()

    def name(self):
        return type(self).__name__

    def _short_name(self):
        """The name PyTorch's messages use: MulBackward0 -> Mul."""
        name = self.name()
        return name[: name.rfind("Backward")] if "Backward" in name else name

    @property
    def next_functions(self):
        return self._edges

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def _release(self):
        """Free what was saved for backward (the engine calls this unless retain_graph)."""

    def _apply(self, grads):
        raise NotImplementedError

    def _add_tensor_hook(self, output_nr, hook):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        self._tensor_hooks.setdefault(output_nr, []).append(hook)


class OpNode(Node):
    """The node an op records: it is also the ``ctx`` that the op's vjp reads.

    The op's keyword parameters (dim, keepdim, ...) are attributes, so a rule says ``ctx.dim``.
    Subclasses are made per op (``MulBackward0``) by ``Op.__init_subclass__``.
    """

    # The fixed fields are slots, the cheapest to store, as a node is made for every recorded op; the op's
    # keyword parameters become the instance __dict__ itself, so ``ctx.dim`` is a plain attribute read.
    __slots__ = ("_sequence_nr", "_edges", "_output_meta", "_saved", "_saved_versions")
    op = None  # the Op class whose vjp this node runs; Op.apply creates these nodes without calling __init__

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        unpacked = []
        for item, version in zip(saved, self._saved_versions):
            if version is not None:
                counter = item._version_counter  # inlined Tensor._version: this runs for every saved input
                if (counter[0] if counter is not None else 0) != version:
                    check_version(item, version, self)
            elif type(item) is SavedOutput:
                item = item.unpack(self)
            unpacked.append(item)
        return unpacked

    def _rebind_saved_output(self, tensor):
        """An in-place op wrote its result into ``tensor``: version checks must follow that tensor."""
        for item in self._saved or ():
            if type(item) is SavedOutput:
                item.rebind(tensor)

    @property
    def needs_input_grad(self):
        return tuple([node is not None for node, _ in self._edges])

    @property
    def input_shapes(self):
        """The shape of each input that requires grad (None for the others), read off the input's producer."""
        return tuple(node and node._output_meta[nr][0] for node, nr in self._edges)

    @property
    def input_dtypes(self):
        return tuple(node and from_numpy_dtype(node._output_meta[nr][1]) for node, nr in self._edges)

    def _release(self):
        if self._saved:
            self._saved = None

    def _apply(self, grads):
        if len(grads) > 1 and any(g is None for g in grads):  # an output nobody used: its gradient is zero
            from ndgrad._creation import zeros

            grads = [
                zeros(s, dtype=from_numpy_dtype(d)) if g is None else g for g, (s, d) in zip(grads, self._output_meta)
            ]
        return self.op.vjp(self, *grads)


class AccumulateGrad(Node):
    """The node behind a leaf that requires grad: adds the arriving gradient into ``variable.grad``."""

    def name(self):
        return "ndgrad::autograd::AccumulateGrad"  # PyTorch reports its C++ name here

    def __init__(self, variable):
        self.variable = variable
        self._edges = ()
        self._sequence_nr = float("inf")  # leaves accumulate as soon as they are ready, as in PyTorch

    @property
    def _output_meta(self):
        data = self.variable._data
        return ((data.shape, data.dtype),)

    def _apply(self, grads):
        from ndgrad.autograd.grad_mode import STATE

        (grad,) = grads
        variable = self.variable
        if variable._hooks:
            grad = run_hooks(variable._hooks, grad)
        if variable._grad is None:
            # NOTE: always a copy: the arriving array may be shared with another leaf's gradient or the caller's.
            variable.grad = grad.clone() if STATE.grad_enabled else grad._detached_copy()
        elif STATE.grad_enabled:
            variable.grad = variable._grad + grad  # create_graph: out of place, so the sum stays differentiable
        else:
            variable._grad._data += grad._data
        return ()


def run_hooks(hooks, grad):
    """Call tensor hooks in registration order; a hook may return a replacement gradient."""
    for hook in hooks:
        result = hook(grad)
        if result is not None:
            grad = result
    return grad
