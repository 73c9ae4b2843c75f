"""The backward engine: walks the graph from the roots to the leaves, calling each node's vjp once.

Note [dependency counting]: before running anything, one iterative walk counts, for every reachable node, how
many edges point at it. A node runs only when its count drops to zero, i.e. when every consumer has added its
share into the node's gradient buffer. No recursion, so graph depth is limited by memory only.

Note [hook order]: for each node, as PyTorch: its tensors' hooks, then retain_grad, then (autograd.grad) the
capture, then the node's pre-hooks, the node, its post-hooks. autograd.grad runs only the nodes that lead to an
input; the others, and the nodes behind them, never run.
"""

import heapq
import threading

from ndgrad._dtype import from_numpy_dtype
from ndgrad._fpstate import restore, silence
from ndgrad.autograd.anomaly_mode import _AnomalyState, check_nan, evaluating, warn_forward_trace
from ndgrad.autograd.grad_mode import set_grad_enabled
from ndgrad.autograd.graph import RETAINING, follow_retained
from ndgrad.autograd.graph_api import run_post_hooks, run_pre_hooks, run_tensor_hooks
from ndgrad.autograd.hints import add_backward_hint
from ndgrad.autograd.leaks import leak_limit, saved_before_step, warn_graph_leak
from ndgrad.autograd.provenance import BACKWARD
from ndgrad.autograd.provenance import _State as _Provenance
from ndgrad.autograd.provenance import capture as capture_site
from ndgrad.autograd.trace import TRACING, begin_run
from ndgrad.ops._broadcast import sum_to

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
    root_nodes = [node for node, _ in roots]
    if capture is None:
        dependencies, needed = _count_dependencies(root_nodes), None
    else:
        dependencies, needed = _count_dependencies_and_needed(root_nodes, capture)
    buffers = {}
    for (node, output_nr), grad in zip(roots, root_grads):
        buffer = buffers.setdefault(node, [None] * len(node._output_meta))
        buffer[output_nr] = grad if buffer[output_nr] is None else buffer[output_nr] + grad
    # The ready queue runs the most recently created node first (leaves first of all), as PyTorch does.
    ready = []
    tie_breaker = 0
    for node in buffers:
        if not dependencies.get(node):
            ready.append((-node._sequence_nr, tie_breaker, node))
            tie_breaker += 1
    heapq.heapify(ready)
    captured = [None] * sum(map(len, capture.values())) if capture else None
    anomaly = _AnomalyState.enabled
    old = leak_limit()  # a node made before the last optimizer step has a larger key (see ndgrad.autograd.leaks)
    leaked = False
    # the user's line of this backward, which each node it frees remembers (for the hint after a second backward)
    freed_by = capture_site(1) if _Provenance.enabled and not retain_graph else None
    # off: () and nothing more per node than the `if tracer` test (see ndgrad.autograd.trace)
    tracer = TRACING.traces and begin_run(roots, root_grads, retain_graph, create_graph, capture is not None)

    outer = _RUNNING.stack
    _RUNNING.stack = outer + ((capture is not None, retain_graph),)
    BACKWARD.depth += 1  # the rules run with grad off on inputs that require grad: provenance marks no cuts
    with set_grad_enabled(bool(create_graph)):
        fp_state = silence()  # for the whole pass, accumulation included (see Note [floating-point error state])
        try:
            while ready:
                key, _, node = heapq.heappop(ready)
                if key > old and saved_before_step(node):
                    old, leaked = 0, True
                if anomaly:
                    evaluating(node)
                grads = buffers.pop(node, None)
                if grads is None:  # nothing flowed here: the inputs get nothing either, but are still released
                    input_grads = (None,) * len(node._edges)
                else:
                    hooks = node._hooks
                    if hooks is not None and (hooks.tensor or hooks.retains):
                        _run_tensor_hooks(node, hooks, grads)
                    if capture is not None:
                        for output_nr, slot in capture.get(node, {}).items():
                            captured[slot] = grads[output_nr]
                        if node not in needed:
                            continue
                    if hooks is not None and hooks.pre:
                        grads = run_pre_hooks(hooks.pre, grads)
                        if all(grad is None for grad in grads):  # a pre-hook dropped every gradient
                            grads = None
                    if grads is None:
                        input_grads = (None,) * len(node._edges)
                    else:
                        input_grads = node._apply(grads)
                        if len(input_grads) != len(node._edges):
                            raise _wrong_count(node, input_grads)
                    if hooks is not None and hooks.post:
                        input_grads = run_post_hooks(hooks.post, input_grads, grads)
                    if anomaly and _AnomalyState.check_nan:
                        check_nan(node, input_grads)
                    if tracer:
                        tracer.node_ran(node, grads, input_grads)
                if not retain_graph:
                    node._release()
                    node._freed_by = freed_by
                for (next_node, input_nr), grad in zip(node._edges, input_grads):
                    if next_node is None:
                        continue
                    if grad is not None:
                        shape, dtype = next_node._output_meta[input_nr]
                        if grad._data.shape != shape or grad._data.dtype != dtype:
                            grad = _conform(grad, shape, dtype)
                        buffer = buffers.get(next_node)
                        if buffer is None:
                            buffer = buffers[next_node] = [None] * len(next_node._output_meta)
                        previous = buffer[input_nr]
                        buffer[input_nr] = grad if previous is None else previous + grad
                    count = dependencies[next_node] - 1
                    dependencies[next_node] = count
                    if count == 0:
                        heapq.heappush(ready, (-next_node._sequence_nr, tie_breaker, next_node))
                        tie_breaker += 1
        except Exception as error:
            if anomaly:
                warn_forward_trace(node)
            add_backward_hint(error, node)
            raise
        finally:
            restore(fp_state)
            _RUNNING.stack = outer
            BACKWARD.depth -= 1
            if anomaly:
                evaluating(None)
    if leaked:
        warn_graph_leak(root_nodes)
    return captured


def _count_dependencies(root_nodes):
    dependencies = {}
    seen = set(root_nodes)
    stack = list(seen)
    while stack:
        for next_node, _ in stack.pop()._edges:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


def _count_dependencies_and_needed(root_nodes, capture):
    """Dependency counts, and the set of nodes that have a path to a captured node (only those need to run)."""
    dependencies, consumers = {}, {}
    seen = set(root_nodes)
    stack = list(seen)
    while stack:
        node = stack.pop()
        for next_node, _ in node._edges:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            consumers.setdefault(next_node, []).append(node)
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    needed = set()
    stack = [node for node in capture if node in seen]
    while stack:
        for consumer in consumers.get(stack.pop(), ()):
            if consumer not in needed:
                needed.add(consumer)
                stack.append(consumer)
    return dependencies, needed


def _wrong_count(node, input_grads):
    return RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients (expected {len(node._edges)}, "
        f"got {len(input_grads)})"
    )


def _run_tensor_hooks(node, hooks, grads):
    """Hooks registered on a node's output tensors run on that output's gradient, then retain_grad keeps it.
    Both dicts are copied before the loop: another thread may register a hook meanwhile (see Note [threads])."""
    for output_nr, tensor_hooks in tuple(hooks.tensor.items()):
        if tensor_hooks:  # called even with None (an output nobody used), as PyTorch does
            grads[output_nr] = run_tensor_hooks(tensor_hooks, grads[output_nr])
    for output_nr, tensor_ref in tuple(hooks.retains.items()):
        tensor = tensor_ref()
        # an in-place op since retain_grad() moved the tensor to a newer node: this gradient is not its own
        if tensor is not None and grads[output_nr] is not None and tensor.grad_fn is node:
            tensor._retain(grads[output_nr])


def _conform(grad, shape, dtype):
    """Bring a gradient back to the shape (undo broadcasting) and dtype of the tensor it is the gradient of."""
    if grad._data.shape != shape:
        grad = sum_to(grad, shape)
    if grad._data.dtype.kind == "c" and dtype.kind != "c":
        grad = grad.real  # a real input of a complex op gets the real part (see Note [complex gradients])
    if grad._data.dtype != dtype:
        grad = grad.to(from_numpy_dtype(dtype))
    return grad
