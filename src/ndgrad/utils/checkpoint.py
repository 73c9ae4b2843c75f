"""Activation checkpointing: run a function keeping nothing that its backward needs but its inputs, and recompute it
when the gradient arrives (see torch.utils.checkpoint). Both of PyTorch's variants: reentrant and non-reentrant."""

import contextlib
import functools
import weakref

from ndgrad._warnings import warn
from ndgrad.autograd.engine import current_backward
from ndgrad.autograd.grad_mode import STATE, enable_grad, no_grad
from ndgrad.autograd.graph import Node, OpNode, _sequence
from ndgrad.autograd.saved import FREED_MESSAGE, SavedOutput, check_version

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved (see torch.utils.checkpoint.CheckpointError)."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, with its intermediate results recomputed in backward instead of kept (see
    torch.utils.checkpoint.checkpoint)."""
    if use_reentrant is None:
        warn(
            "ndgrad.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. "
            "Refer to docs for more details on the differences between the two variants.",
        )
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return _reentrant(function, preserve_rng_state, args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _non_reentrant(function, preserve_rng_state, context_fn, determinism_check == "default", args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a list or nn.Sequential) in order, checkpointing each of ``segments`` - 1 equal runs of them;
    the last run is kept as usual (see torch.utils.checkpoint.checkpoint_sequential)."""
    from ndgrad.nn.modules.container import Sequential  # here: ndgrad.nn is above the autograd this module serves

    if use_reentrant is None:
        warn(
            "ndgrad.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. "
            "Refer to docs for more details on the differences between the two variants.",
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1)(input)


# ---- use_reentrant=True: one node for the whole function, whose backward runs a backward of its own -------------
def _reentrant(function, preserve_rng_state, args):
    from ndgrad._tensor import Tensor

    tensors = [a for a in args if isinstance(a, Tensor)]
    if not any(t.requires_grad for t in tensors):
        warn("None of the inputs have requires_grad=True. Gradients will be None")
    rng_state = _rng_state() if preserve_rng_state else None
    with no_grad():
        outputs = function(*args)
    if not (STATE.grad_enabled and any(t.requires_grad for t in tensors)):
        return outputs
    node = CheckpointFunctionBackward(function, args, tensors, rng_state)
    results = outputs if isinstance(outputs, tuple) else (outputs,)
    marked = []
    for position, result in enumerate(results):
        if isinstance(result, Tensor):
            if any(result is t for t in tensors):  # an input handed back: the output is a new tensor on its data
                result = result.detach()
            if result._data.dtype.kind in "fcV":
                result._requires_grad, result.grad_fn, result._output_nr = True, node, len(node._output_meta)
                node._output_meta.append((result._data.shape, result._data.dtype))
                node._positions.append(position)
        marked.append(result)
    return tuple(marked) if isinstance(outputs, tuple) else marked[0]


class CheckpointFunctionBackward(Node):
    """Saves the tensor inputs; its backward recomputes the function with grad enabled and backpropagates
    through the recomputed graph, accumulating into every leaf it reaches, as PyTorch's reentrant variant does."""

    def __init__(self, function, args, tensors, rng_state):
        self._sequence_nr = next(_sequence)
        self._edges = tuple(t._edge() if t.requires_grad else (None, 0) for t in tensors)
        self._output_meta, self._positions = [], []  # per output: (shape, dtype), its place in the results
        self._function, self._args, self._rng_state = function, args, rng_state
        self._versions = [t._version for t in tensors]

    def _release(self):
        self._args = None

    def _apply(self, grads):
        from ndgrad._creation import zeros
        from ndgrad._dtype import from_numpy_dtype
        from ndgrad._tensor import Tensor
        from ndgrad.autograd import backward

        if current_backward()[0]:
            raise RuntimeError(
                "When use_reentrant=True, ndgrad.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, "
                "or call .backward() without passing the `inputs` argument."
            )
        if self._args is None:
            raise RuntimeError(FREED_MESSAGE)
        tensors = [a for a in self._args if isinstance(a, Tensor)]
        for tensor, version in zip(tensors, self._versions):
            check_version(tensor, version, self)
        detached = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in self._args]
        with _rng_restored(self._rng_state), enable_grad():
            outputs = self._function(*detached)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(outputs[p], g) for p, g in zip(self._positions, grads)]
        pairs = [(o, g) for o, g in pairs if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        # an output that got no gradient still backpropagates a zero one, as PyTorch's Functions materialize it
        backward([o for o, _ in pairs],
                 [zeros(o.shape, dtype=from_numpy_dtype(o._data.dtype)) if g is None else g for o, g in pairs])
        return tuple(d.grad for d in detached if isinstance(d, Tensor))


# ---- use_reentrant=False: the function's own graph, its saved tensors dropped and refilled by recomputation ------
def _non_reentrant(function, preserve_rng_state, context_fn, check, args, kwargs):
    from ndgrad._tensor import Tensor

    if not STATE.grad_enabled:
        return function(*args, **kwargs)
    forward_context, recompute_context = context_fn()
    rng_state = _rng_state() if preserve_rng_state else None
    start = next(_sequence)
    with forward_context:
        outputs = function(*args, **kwargs)
    results = outputs if isinstance(outputs, tuple) else (outputs,)
    roots = [r.grad_fn for r in results if isinstance(r, Tensor) and r.grad_fn is not None]
    nodes = _recorded_since(roots, start)
    if not nodes:
        return outputs
    versions = [a._version for a in args if isinstance(a, Tensor)]
    frame = _Frame(function, args, kwargs, rng_state, recompute_context, versions, nodes, check)
    for node in nodes:
        node._release()  # NOTE: the memory checkpointing saves; the nodes themselves stay, as the graph
    # NOTE: the hooks hold the frame, which holds the nodes weakly: no reference cycle through the graph
    for index, root in enumerate({id(r): r for r in roots}.values()):
        root.register_prehook(functools.partial(frame.recompute, index))
    return outputs


_SLOT = object()  # in a node's template: the place of a saved tensor


class _Frame:
    """What one non-reentrant checkpoint needs in backward: the inputs, and (weakly) the nodes to refill."""

    def __init__(self, function, args, kwargs, rng_state, context, versions, nodes, check):
        self.function, self.args, self.kwargs, self.rng_state, self.context = function, args, kwargs, rng_state, context
        self.versions, self.check, self.ran = versions, check, set()  # ran: roots run since the last recompute
        self.nodes = [weakref.ref(n) for n in nodes]
        # per node, before its saved tensors are dropped: the numbers it saved (_SLOT where it saved a tensor)...
        self.templates = [[_SLOT if _array_of(item) is not None else item for item in n._saved or ()] for n in nodes]
        self.metadata = [m for n in nodes for m in _saved_metadata(n)]  # ... and each saved tensor's metadata

    def recompute(self, root, grad_outputs):
        """Pre-hook of the outputs' nodes: the first of them to run in a backward recomputes the function.

        A root that runs again has started another backward: that one recomputes too (as PyTorch does) if the
        graph was retained; if it was freed, the nodes raise PyTorch's "backward ... a second time" error.
        """
        if root not in self.ran:
            self.ran.add(root)
            if self.ran != {root}:
                return None  # another output of this same backward already recomputed
        elif self.args is None or not any(getattr(ref(), "_saved", None) for ref in self.nodes):
            return None
        self.ran = {root}
        from ndgrad._tensor import Tensor

        for tensor, version in zip([a for a in self.args if isinstance(a, Tensor)], self.versions):
            check_version(tensor, version, None)
        start = next(_sequence)
        with _rng_restored(self.rng_state), enable_grad(), self.context:
            outputs = self.function(*self.args, **self.kwargs)
        if not current_backward()[1]:
            self.args = self.kwargs = None  # the graph is freed as this backward runs: no later recomputation
        results = outputs if isinstance(outputs, tuple) else (outputs,)
        fresh = _recorded_since([r.grad_fn for r in results if isinstance(r, Tensor) and r.grad_fn is not None],
                                start)
        # the recomputed saved tensors, in the order they were saved: they fill the original nodes' slots in order
        recomputed = [(item, version) for node in fresh for item, version in zip(node._saved, node._saved_versions)
                      if _array_of(item) is not None]
        self._check_same([m for node in fresh for m in _saved_metadata(node)])
        position = 0
        for ref, template in zip(self.nodes, self.templates):
            node = ref()
            saved, versions = [], []
            for item in template:
                if item is _SLOT:  # saved outputs are unpacked by the node itself: these become its outputs
                    item, version = recomputed[position]
                    position += 1
                    versions.append(version)
                else:
                    versions.append(None)
                saved.append(item)
            if node is not None:
                node._saved, node._saved_versions = saved, tuple(versions)
        return None

    def _check_same(self, after):
        before = self.metadata
        if len(after) < len(before) or (self.check and len(after) != len(before)):
            raise CheckpointError(
                "ndgrad.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(before)}\nNumber of tensors saved "
                f"during recomputation: {len(after)}.\n" + _TIP
            )
        changed = "".join(
            f"tensor at position {i}:\nsaved metadata: {a}\nrecomputed metadata: {b}\n"
            for i, (a, b) in enumerate(zip(before, after)) if a != b
        )
        if changed and self.check:
            raise CheckpointError(
                "ndgrad.utils.checkpoint: Recomputed values for the following tensors have different metadata than "
                f"during the forward pass.\n{changed}.\n" + _TIP
            )


def _recorded_since(roots, start):
    """The op nodes created by this call (sequence number from ``start`` on) that lead to ``roots``, oldest first."""
    found, stack = {}, [n for n in roots if _sequence_nr(n) >= start]
    while stack:
        node = stack.pop()
        if id(node) in found:
            continue
        found[id(node)] = node
        stack.extend(n for n, _ in node._edges if n is not None and start <= _sequence_nr(n) < float("inf"))
    return sorted((n for n in found.values() if isinstance(n, OpNode)), key=_sequence_nr)


def _sequence_nr(node):
    return getattr(node, "_sequence_nr", -1)


def _saved_metadata(node):
    """Shape, dtype and device of each tensor ``node`` saved, as the determinism check compares them."""
    from ndgrad._dtype import from_numpy_dtype
    from ndgrad._tensor import Tensor

    metadata = []
    for item in node._saved or ():
        data = _array_of(item)
        if data is not None:
            tensor = Tensor._wrap(data)
            metadata.append({"shape": tensor.shape, "dtype": from_numpy_dtype(data.dtype), "device": tensor.device})
    return metadata


def _array_of(saved_item):
    """The array of a saved tensor (an input Tensor or the node's SavedOutput); None for a saved number."""
    from ndgrad._tensor import Tensor

    if isinstance(saved_item, Tensor):
        return saved_item._data
    return saved_item.data if type(saved_item) is SavedOutput else None


# ---- the random state: the recomputation draws the same numbers as the forward did -------------------------------
def _rng_state():
    from ndgrad._random import _RandomState

    return _RandomState.generator.bit_generator.state


@contextlib.contextmanager
def _rng_restored(state):
    """Run with the generator in ``state``, then put back the state it had before."""
    if state is None:
        yield
        return
    from ndgrad._random import _RandomState

    generator = _RandomState.generator
    current, generator.bit_generator.state = generator.bit_generator.state, state
    try:
        yield
    finally:
        generator.bit_generator.state = current


_TIP = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to\n"
    "`ndgrad.utils.checkpoint.checkpoint(...)` or wrap the code block\n"
    "with `with ndgrad.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n"
    "enable checkpoint\u2011debug mode globally.\n\n"
    "If this error occurs under ndgrad.compile with automatic_dynamic_shapes enabled,\n"
    "it may be because the recomputation selected a different compiled graph than the\n"
    "forward pass (e.g., a dynamic graph instead of the original static graph).\n"
    "To fix this, either:\n"
    "  - Use ndgrad._dynamo.mark_dynamic() to explicitly mark varying dimensions as\n"
    "    dynamic upfront, avoiding the static-to-dynamic transition.\n"
    "  - Call ndgrad._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache\n"
    "    reordering, which can change which graph is checked first between forward\n"
    "    and recompute.\n"
    "See https://github.com/pytorch/pytorch/issues/166926 for more details and\n"
    "workaround examples.\n"
)
