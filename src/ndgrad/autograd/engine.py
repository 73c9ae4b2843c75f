"""The backward engine: walks the graph from the roots to the leaves, calling each node's vjp once.

Note [dependency counting]: before running anything, one iterative walk counts, for every reachable node, how
many edges point at it. A node runs only when its count drops to zero, i.e. when every consumer has added its
share into the node's gradient buffer. No recursion, so graph depth is limited by memory only.

Note [array rules]: a pass that builds no graph (create_graph=False, nearly every backward) carries raw arrays,
not Tensors: each node's ``_apply_arrays`` runs its op's array rule where it has one (the rule written for Tensors
otherwise, on the arrays wrapped), fan-in sums are array sums, and a leaf adopts the array it receives. Only
hooks, and the tools watching the pass, see Tensors. With create_graph=True the gradients are Tensors that record,
and every node runs its Tensor rule, so the gradients are differentiable again.

Note [collector]: a pass frees the graph as it goes, by reference counts: the graph has no cycles. Python's cyclic
collector, triggered by the gradients the pass allocates, would walk every node still alive (full collections of
a deep graph cost about as much as the pass itself), so it is paused while any pass runs in the process.

Note [hook order]: for each node, as PyTorch: its tensors' hooks, then retain_grad, then (autograd.grad) the
capture, then the node's pre-hooks, the node, its post-hooks. autograd.grad runs only the nodes that lead to an
input; the others, and the nodes behind them, never run.
"""

import gc
import threading
from heapq import heapify, heappop, heappush

from ndgrad._dtype import from_numpy_dtype
from ndgrad._fpstate import restore, silence
from ndgrad.autograd import observers
from ndgrad.autograd.grad_mode import set_grad_enabled
from ndgrad.autograd.graph import RETAINING, arrays_of, follow_retained, tensor_of, tensors_of
from ndgrad.autograd.graph_api import run_post_hooks, run_pre_hooks, run_tensor_hooks
from ndgrad.ops._broadcast import sum_array_to, sum_to

__all__ = ["run_backward", "current_backward"]


class _Running(threading.local):
    stack = ()  # (capturing, retain_graph) of each backward running in this thread, innermost last


_RUNNING = _Running()


def current_backward():
    """(capturing, retain_graph) of the innermost backward running in this thread, or None: what a node that
    re-enters the engine (a reentrant checkpoint) needs to know about the pass that runs it."""
    return _RUNNING.stack[-1] if _RUNNING.stack else None


def run_backward(roots, root_grads, retain_graph, create_graph, capture=None):
    """Propagate ``root_grads`` from ``roots`` (a list of (node, output_nr)) down the graph.

    Leaves accumulate into ``.grad``; when ``capture`` (a dict node -> {output_nr: slot}) is given, the gradient
    arriving at those node outputs is returned in a list instead, and only nodes that lead to them run.
    """
    if RETAINING:
        follow_retained()
    graph = bool(create_graph)  # the gradients are Tensors that record; else raw arrays (Note [array rules])
    root_nodes = [node for node, _ in roots]
    dependencies = _count_dependencies(root_nodes)
    needed = None if capture is None else _needed(dependencies, capture)
    leaked = observers.leaked_nodes(dependencies)
    watch = observers.watch_pass(roots, root_grads, retain_graph, graph, capture, needed)
    freed_by = observers.freeing_site(retain_graph)
    buffers = {}
    for (node, output_nr), grad in zip(roots, root_grads):
        grad = grad if graph else grad._data
        buffer = buffers.setdefault(node, [None] * len(node._output_meta))
        buffer[output_nr] = grad if buffer[output_nr] is None else buffer[output_nr] + grad
    # The ready queue runs the most recently created node first (leaves first of all), as PyTorch does. A node
    # that is the only one ready (a chain) skips the heap: ``following``.
    ready = []
    tie_breaker = 0
    for node in buffers:
        if not dependencies.get(node):
            ready.append((-node._sequence_nr, tie_breaker, node))
            tie_breaker += 1
    heapify(ready)
    following = node = None

    outer = _RUNNING.stack
    _RUNNING.stack = outer + ((capture is not None, retain_graph),)
    observers.entering()
    with set_grad_enabled(graph), _COLLECTOR_PAUSED:
        fp_state = silence()  # for the whole pass, accumulation included (see Note [floating-point error state])
        try:
            while True:
                if following is not None:
                    node, following = following, None
                elif ready:
                    node = heappop(ready)[2]
                else:
                    break
                grads = buffers.pop(node, None)
                if grads is None:  # nothing flowed here: the inputs get nothing either, but are still released
                    input_grads = (None,) * len(node._edges)
                else:
                    hooks = node._hooks
                    if hooks is not None and (hooks.tensor or hooks.retains):
                        _run_tensor_hooks(node, hooks, grads, graph)
                    if watch is not None and not watch.node_starting(node, grads):
                        continue
                    if hooks is not None and hooks.pre:
                        grads = _hooked(run_pre_hooks, graph, hooks.pre, grads)
                        if _all_none(grads):  # a pre-hook dropped every gradient
                            grads = None
                    if grads is None:
                        input_grads = (None,) * len(node._edges)
                    else:
                        input_grads = node._apply(grads) if graph else node._apply_arrays(grads)
                        if len(input_grads) != len(node._edges):
                            raise _wrong_count(node, input_grads)
                    if hooks is not None and hooks.post:
                        input_grads = _hooked(run_post_hooks, graph, hooks.post, input_grads, grads)
                    if watch is not None:
                        watch.node_ran(node, grads, input_grads)
                if not retain_graph:
                    node._release()
                    node._freed_by = freed_by
                for (next_node, input_nr), grad in zip(node._edges, input_grads):
                    if next_node is None:
                        continue
                    if grad is not None:
                        shape, dtype = next_node._output_meta[input_nr]
                        data = grad._data if graph else grad
                        if data.shape != shape or (data.dtype is not dtype and data.dtype != dtype):
                            grad = _conform(grad, shape, dtype) if graph else _conform_array(grad, shape, dtype)
                        buffer = buffers.get(next_node)
                        if buffer is None:
                            buffer = buffers[next_node] = [None] * len(next_node._output_meta)
                        previous = buffer[input_nr]
                        buffer[input_nr] = grad if previous is None else previous + grad
                    count = dependencies[next_node] - 1
                    dependencies[next_node] = count
                    if count == 0:
                        if following is not None:
                            heappush(ready, (-following._sequence_nr, tie_breaker, following))
                            tie_breaker += 1
                        following = next_node
                if following is not None and ready:  # other nodes wait: the heap says which runs first
                    heappush(ready, (-following._sequence_nr, tie_breaker, following))
                    tie_breaker += 1
                    following = None
                # Let go of this node's gradients, so that a leaf sees which arrays nobody else holds.
                grads = input_grads = grad = data = previous = None
        except Exception as error:
            observers.failed(error, node, watch)
            raise
        finally:
            restore(fp_state)
            _RUNNING.stack = outer
            observers.leaving(watch)
    observers.completed(leaked, root_nodes)
    return watch.captured if watch is not None else None


class _CollectorPause:
    """Pauses the cyclic collector while any backward pass runs in the process (see Note [collector]), and brings
    back the state it found when the last one ends. A counter, as passes nest (a hook's backward) and run in several
    threads at once."""

    def __init__(self):
        self.lock, self.passes, self.resume = threading.Lock(), 0, False

    def __enter__(self):
        with self.lock:
            if not self.passes:
                self.resume = gc.isenabled()
                gc.disable()
            self.passes += 1

    def __exit__(self, *exc_info):
        with self.lock:
            self.passes -= 1
            if not self.passes and self.resume:
                gc.enable()


_COLLECTOR_PAUSED = _CollectorPause()


def _all_none(grads):
    """all(grad is None for grad in grads), as a loop: the compiled core's typed run_backward may hold no
    generator (a closure), and list.count(None) would compare arrays elementwise."""
    for grad in grads:
        if grad is not None:
            return False
    return True


def _count_dependencies(root_nodes):
    """The count of every node the roots reach (a root starts at 0), each node walked once: being counted is
    having been seen."""
    dependencies = dict.fromkeys(root_nodes, 0)
    stack = list(dependencies)
    while stack:
        node = stack.pop()
        for next_node, _ in node._edges:
            if next_node is None:
                continue
            count = dependencies.get(next_node)
            if count is None:
                dependencies[next_node] = 1
                stack.append(next_node)
            else:
                dependencies[next_node] = count + 1
    return dependencies


def _needed(dependencies, capture):
    """The nodes of the counted graph that have a path to a captured node (only those need to run)."""
    consumers = {}
    for node in dependencies:
        for next_node, _ in node._edges:
            if next_node is not None:
                consumers.setdefault(next_node, []).append(node)
    needed = set()
    stack = [node for node in capture if node in dependencies]
    while stack:
        for consumer in consumers.get(stack.pop(), ()):
            if consumer not in needed:
                needed.add(consumer)
                stack.append(consumer)
    return needed


def _wrong_count(node, input_grads):
    return RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients (expected {len(node._edges)}, "
        f"got {len(input_grads)})"
    )


def _run_tensor_hooks(node, hooks, grads, graph):
    """Hooks registered on a node's output tensors run on that output's gradient, then retain_grad keeps it.
    Both dicts are copied before the loop: another thread may register a hook meanwhile (see Note [threads])."""
    for output_nr, tensor_hooks in tuple(hooks.tensor.items()):
        if tensor_hooks:  # called even with None (an output nobody used), as PyTorch does
            grad = grads[output_nr]
            if graph or grad is None:
                grads[output_nr] = run_tensor_hooks(tensor_hooks, grad)
            else:
                grads[output_nr] = run_tensor_hooks(tensor_hooks, tensor_of(grad))._data
    for output_nr, tensor_ref in tuple(hooks.retains.items()):
        tensor = tensor_ref()
        # an in-place op since retain_grad() moved the tensor to a newer node: this gradient is not its own
        if tensor is not None and grads[output_nr] is not None and tensor.grad_fn is node:
            tensor._retain(grads[output_nr] if graph else tensor_of(grads[output_nr]))


def _hooked(run_hooks, graph, hooks, grads, *others):
    """Node pre- or post-hooks, which take and give Tensors, on the pass's gradients."""
    if graph:
        return run_hooks(hooks, grads, *others)
    return arrays_of(run_hooks(hooks, *(tensors_of(group) for group in (grads, *others))))


def _conform_array(grad, shape, dtype):
    """_conform on a raw array."""
    if grad.shape != shape:
        grad = sum_array_to(grad, shape)
    if grad.dtype.kind == "c" and dtype.kind != "c":
        grad = grad.real
    if grad.dtype != dtype:
        grad = grad.astype(dtype)
    return grad


def _conform(grad, shape, dtype):
    """Bring a gradient back to the shape (undo broadcasting) and dtype of the tensor it is the gradient of."""
    if grad._data.shape != shape:
        grad = sum_to(grad, shape)
    if grad._data.dtype.kind == "c" and dtype.kind != "c":
        grad = grad.real  # a real input of a complex op gets the real part (see Note [complex gradients])
    if grad._data.dtype != dtype:
        grad = grad.to(from_numpy_dtype(dtype))
    return grad
