"""Backward nodes: the grad_fn objects that make up the graph, AccumulateGrad for leaves, and where hooks live.

This module is also ``ndgrad.autograd.graph``, torch.autograd.graph's public API: Node, saved_tensors_hooks,
save_on_cpu, GradientEdge. It knows nothing about how the engine walks the graph.
"""

import itertools
import threading
import weakref
from collections import OrderedDict, namedtuple
from sys import getrefcount

import numpy as np

from ndgrad._device import namespace_of
from ndgrad._dtype import from_numpy_dtype
from ndgrad._fields import NodeFields
from ndgrad.autograd.grad_mode import STATE
from ndgrad.autograd.graph_api import RemovableHandle, add_hook, run_post_accumulate_hooks
from ndgrad.autograd.memory import memory_report
from ndgrad.autograd.paths import path
from ndgrad.autograd.saved import (
    FREED_MESSAGE,
    SavedOutput,
    SavedPacked,
    check_version,
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_attribute,
    saved_tensors_hooks,
)

__all__ = [
    "Node", "OpNode", "AccumulateGrad", "NodeHooks", "hooks_of", "accumulator_of", "accumulate_into", "RETAINING",
    "note_retaining", "follow_retained", "BOOKKEEPING", "GradientEdge", "tensor_of", "tensors_of", "arrays_of",
    "get_gradient_edge", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "RemovableHandle",
    "memory_report", "path",
]

_sequence = itertools.count()  # next() on it is one C call, so threads never draw the same number
# Tensors that called retain_grad(): an in-place op gives such a tensor a new grad_fn, which must retain it too.
# id -> weak reference (tensors compare elementwise, so no WeakSet); a plain dict, not a WeakValueDictionary,
# whose iteration breaks when another thread's tensor dies meanwhile: list(RETAINING.values()) is one atomic step.
RETAINING = {}

# Note [threads]: the graph is shared by every thread that runs backward through it, so whatever two backward
# passes (or a backward and a hook registration) can both write is either written in one step that the GIL never
# splits (a dict assignment, setdefault or copy, next() on a counter, a version counter's `+= 1`: no call between
# the read and the write) or under a lock. Each leaf's AccumulateGrad has its own lock for the read-add-write of
# .grad, as in PyTorch (NumPy lets go of the GIL while it adds); the rare writes (a node's first hook, a leaf's
# AccumulateGrad, retained gradients) share BOOKKEEPING. The engine's loop and Op.apply take no lock.
BOOKKEEPING = threading.RLock()


class NodeHooks:
    """Every hook of one node: its tensors' hooks by output_nr, retain_grad requests, pre-hooks, post-hooks, and
    for a leaf's AccumulateGrad the post-accumulate-grad hooks. A node has one only once a hook is registered."""

    __slots__ = ("tensor", "retains", "pre", "post", "post_accumulate")

    def __init__(self):
        # OrderedDicts (id -> hook), not dicts: the handles hold them weakly
        self.tensor, self.retains, self.pre, self.post = {}, {}, OrderedDict(), OrderedDict()
        self.post_accumulate = OrderedDict()

    def tensor_hooks(self, output_nr):
        return self.tensor.setdefault(output_nr, OrderedDict())  # one atomic step (see Note [threads])


def hooks_of(owner):
    """The NodeHooks of a node or of a leaf tensor, made on first need. Two threads registering the first hooks at
    once must not each make one and lose the other's hook, hence the lock (taken only while there are none)."""
    hooks = owner._hooks
    if hooks is None:
        with BOOKKEEPING:
            hooks = owner._hooks
            if hooks is None:
                hooks = owner._hooks = NodeHooks()
    return hooks


class Node(NodeFields):
    """Base of every grad_fn. ``next_functions`` is a tuple of (node or None, input_nr), one per input (see
    torch.autograd.graph.Node)."""

    _hooks = None  # a NodeHooks once any hook is registered: the one attribute the engine checks per node

    def name(self):
        return type(self).__name__

    def _short_name(self):
        """The name PyTorch's messages use: MulBackward0 -> Mul, RsubBackward1 -> Rsub1; a name that does not end in
        Backward and a number stays whole (ndgrad::autograd::CopyBackwards)."""
        name = self.name()
        head, backward, number = name.rpartition("Backward")
        if not backward or not (number.isdigit() or not number):
            return name
        return head if number == "0" else head + number

    @property
    def next_functions(self):
        return self._edges

    @property
    def metadata(self):
        """A dict for the user's own notes about this node (see torch.autograd.graph.Node.metadata)."""
        metadata = self.__dict__.get("_metadata")
        if metadata is None:
            metadata = self.__dict__["_metadata"] = {}
        return metadata

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs (see torch.autograd.graph.Node.register_hook)."""
        return add_hook(hooks_of(self).post, fn)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this node runs (see torch.autograd.graph.Node.register_prehook)."""
        return add_hook(hooks_of(self).pre, fn)

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def __call__(self, *grads, **kwargs):
        """Run this node's backward on gradients for its outputs, in the current grad mode; the gradients for its
        inputs come back as they are, not summed to the inputs' shapes (a leaf's AccumulateGrad accumulates)."""
        if kwargs:
            raise TypeError("keyword arguments are not supported")
        if len(grads) != len(self._output_meta):
            raise TypeError(f"expected {len(self._output_meta)} arguments, got {len(grads)} instead")
        for position, grad in enumerate(grads):
            if grad is not None and not hasattr(grad, "_data"):
                raise TypeError(f"argument {position} is not a Variable")
        if all(grad is None for grad in grads):  # nothing flows: nothing for the inputs either
            results = (None,) * len(self._edges)
        else:
            results = self._apply(list(grads))
            results = results if isinstance(results, (tuple, list)) else (results,)
        return results[0] if len(results) == 1 else tuple(results)

    def _release(self):
        """Free what was saved for backward (the engine calls this unless retain_graph)."""

    def _apply(self, grads):
        """Gradients for the inputs from gradients for the outputs, all Tensors (create_graph: they record)."""
        raise NotImplementedError

    def _apply_arrays(self, grads):
        """``_apply`` on raw arrays, as the engine runs a pass that builds no graph (see Note [array rules]). A node
        with no rule of its own for arrays runs its Tensor rule on the arrays wrapped."""
        return arrays_of(self._apply(tensors_of(grads)))


class OpNode(Node):
    """The node an op records: it is also the ``ctx`` that the op's vjp reads.

    The op's keyword parameters (dim, keepdim, ...) are attributes, so a rule says ``ctx.dim``.
    Subclasses are made per op (``MulBackward0``) by ``Op.__init_subclass__``.
    """

    # The fixed fields are NodeFields' and a slot, the cheapest to store, as a node is made for every recorded op;
    # the op's keyword parameters become the instance __dict__ itself, so ``ctx.dim`` is a plain attribute read.
    __slots__ = ("_output_meta", "_saved", "_saved_versions")
    op = None  # the Op class whose vjp this node runs; Op.apply creates these nodes without calling __init__

    def __getattr__(self, name):
        # Only reached when normal lookup fails, so ctx.dim and the engine's reads never come here.
        if name.startswith("_saved_"):
            return saved_attribute(self, name[len("_saved_"):])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def saved_tensors(self):
        return self._unpacked(False)

    @property
    def saved_arrays(self):
        """saved_tensors for an array rule: the saved values as raw arrays (Python numbers stay numbers), after the
        same version checks."""
        return self._unpacked(True)

    def _unpacked(self, arrays):
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        unpacked = []
        for item, version in zip(saved, self._saved_versions):
            if version is not None:
                counter = item._version_counter  # inlined Tensor._version: this runs for every saved input
                if (counter[0] if counter is not None else 0) != version:
                    check_version(item, version, self)
                if arrays:
                    item = item._data
            elif type(item) is SavedOutput:
                item = item.unpack_array(self) if arrays else item.unpack(self)
            elif type(item) is SavedPacked:
                item = item.unpack(self)._data if arrays else item.unpack(self)
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

            device = next(g.device for g in grads if g is not None)  # the node runs because one arrived
            grads = [
                zeros(s, dtype=from_numpy_dtype(d), device=device) if g is None else g
                for g, (s, d) in zip(grads, self._output_meta)
            ]
        return self.op.vjp(self, *grads)

    def _apply_arrays(self, grads):
        rule = self.op.vjp_arrays
        if rule is None:
            return Node._apply_arrays(self, grads)
        if len(grads) > 1 and any(g is None for g in grads):  # an output nobody used: its gradient is zero
            xp = namespace_of(next(g for g in grads if g is not None))
            grads = [xp.zeros(s, d) if g is None else g for g, (s, d) in zip(grads, self._output_meta)]
        try:
            results = rule(self, *grads)
        except ValueError:  # NumPy's words (shapes that do not broadcast): the Tensor rule raises PyTorch's
            results = NotImplemented
        if results is NotImplemented:  # also what a rule returns for the cases it leaves to the Tensor rule
            return Node._apply_arrays(self, grads)
        return results


class AccumulateGrad(Node):
    """The node behind a leaf that requires grad: adds the arriving gradient into ``variable.grad``.

    The leaf holds it only weakly, so its hooks live on the leaf (``variable._hooks``) and outlive it. A leaf has
    one at a time (see ``accumulator_of``), whose lock makes concurrent backward passes add up (Note [threads]).
    """

    formula = "x.grad += grad"  # the rule written out, for ndgrad.autograd.trace

    def name(self):
        return "ndgrad::autograd::AccumulateGrad"  # PyTorch reports its C++ name here

    def __init__(self, variable):
        self.variable = variable
        self._edges = ()
        self._sequence_nr = float("inf")  # leaves accumulate as soon as they are ready, as in PyTorch
        self._lock = threading.RLock()  # reentrant: a post-accumulate hook may run a backward into this leaf

    @property
    def _hooks(self):
        return self.variable._hooks

    @_hooks.setter
    def _hooks(self, hooks):
        self.variable._hooks = hooks

    @property
    def _output_meta(self):
        data = self.variable._data
        return ((data.shape, data.dtype),)

    def _apply(self, grads):
        (grad,) = grads
        variable = self.variable
        with self._lock:  # NumPy lets go of the GIL while it adds: another thread's addition must wait
            if variable._grad is None:
                # NOTE: always a copy: the arriving array may be shared with another leaf's gradient or the caller's.
                variable.grad = grad.clone() if STATE.grad_enabled else grad._detached_copy()
            elif STATE.grad_enabled:
                variable.grad = variable._grad + grad  # create_graph: out of place, so the sum stays differentiable
            else:
                variable._grad._data += grad._data
            hooks = variable._hooks
            if hooks is not None and hooks.post_accumulate:  # under the lock, as PyTorch runs them
                run_post_accumulate_hooks(hooks.post_accumulate, variable)
        return ()

    def _apply_arrays(self, grads):
        """Accumulate a raw gradient array; the first one is adopted as .grad when nothing else holds it."""
        variable = self.variable
        with self._lock:
            if variable._grad is None:
                grad = grads[0]
                if isinstance(grad, np.generic):  # NumPy computes 0-d results as scalars
                    grads[0] = grad = np.asarray(grad)
                # Held by grads and `grad` here: anyone else is another gradient, the caller's tensor or a hook's,
                # which a later in-place += must not change.
                if getrefcount(grad) > _HELD_HERE or grad.base is not None or grad.strides != variable._data.strides:
                    grad = grad.copy()
                variable._grad = tensor_of(grad)
            else:
                variable._grad._data += grads[0]
            hooks = variable._hooks
            if hooks is not None and hooks.post_accumulate:
                run_post_accumulate_hooks(hooks.post_accumulate, variable)
        return ()


def _references_held_here():
    """What getrefcount says of an array held, as in _apply_arrays, by a list and a local variable only: 3 in
    CPython's interpreter (its argument is one more), 2 in the compiled core (see Note [compiled core] in
    ndgrad._core), which passes the argument without one."""
    grads = [np.empty(0)]
    grad = grads[0]
    return getrefcount(grad)


_HELD_HERE = _references_held_here()


def tensor_of(array):
    """A raw gradient array as a Tensor that records nothing, for the Tensor rules, hooks and results."""
    if isinstance(array, np.generic):  # NumPy computes 0-d results as scalars
        array = np.asarray(array)
    return (_TENSOR or _bind_tensor())._from_parts(array, False, None, 0, None)


def tensors_of(arrays):
    """Raw gradient arrays as Tensors that record nothing (None stays None)."""
    return [None if array is None else tensor_of(array) for array in arrays]


def arrays_of(tensors):
    """The raw arrays of gradients given as Tensors (None stays None)."""
    return [None if tensor is None else tensor._data for tensor in tensors]


_TENSOR = None  # ndgrad._tensor.Tensor, bound on first use (the tensor module imports this one)


def _bind_tensor():
    global _TENSOR
    from ndgrad._tensor import Tensor

    _TENSOR = Tensor
    return Tensor


def accumulator_of(leaf):
    """The leaf's AccumulateGrad when it has no live one (Tensor._edge looks for that first): a graph that still
    holds one made meanwhile by another thread gets it, else a new one. Made under the lock, so that two threads
    building graphs on one leaf get the same node, and so the same accumulation lock. The leaf holds it weakly: the
    graph keeps it alive, and the leaf never cycles."""
    with BOOKKEEPING:
        ref = leaf._accumulator_ref
        accumulator = ref() if ref is not None else None
        if accumulator is None:
            accumulator = AccumulateGrad(leaf)
            leaf._accumulator_ref = weakref.ref(accumulator)
    return accumulator


def accumulate_into(tensor, grad):
    """backward(inputs=...): add ``grad`` into an input's .grad, leaf or not, under the lock that every other
    writer of that .grad takes (the leaf's own AccumulateGrad; for a non-leaf, the one retain_grad takes)."""
    if tensor.grad_fn is None:
        tensor._edge()[0]._apply([grad])
    else:
        with BOOKKEEPING:
            AccumulateGrad(tensor)._apply([grad])


def note_retaining(tensor):
    """``tensor`` called retain_grad(): backward must follow it to its newer grad_fn after an in-place op. Its
    entry goes as it dies, before its id can be anyone else's."""
    key = id(tensor)
    RETAINING[key] = weakref.ref(tensor, lambda _, key=key: RETAINING.pop(key, None))


def follow_retained():
    """Point each retaining tensor's current grad_fn at it (the engine calls this before a backward, if any)."""
    for tensor_ref in list(RETAINING.values()):
        tensor = tensor_ref()
        node = tensor.grad_fn if tensor is not None else None
        if node is not None and tensor._retains_grad:
            hooks_of(node).retains.setdefault(tensor._output_nr, weakref.ref(tensor))


GradientEdge = namedtuple("GradientEdge", ("node", "output_nr", "ownership_token"), defaults=(None,))
GradientEdge.__doc__ = "The gradient edge of a tensor: its node and which output of it (see torch.autograd.graph)."
GradientEdge.__module__ = __name__


def get_gradient_edge(tensor):
    """The GradientEdge that a new node would point at for ``tensor`` (see torch.autograd.graph.get_gradient_edge)."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require gradients"
        )
    node, output_nr = tensor._edge()
    return GradientEdge(node, output_nr)

