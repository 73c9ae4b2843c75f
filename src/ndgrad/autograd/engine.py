"""The backward engine: walks the graph from the roots to the leaves, calling each node's vjp once.

Note [dependency counting]: before running anything, one iterative walk counts, for every reachable node, how
many edges point at it. A node runs only when its count drops to zero, i.e. when every consumer has added its
share into the node's gradient buffer. No recursion, so graph depth is limited by memory only.
"""

import heapq

from ndgrad._dtype import from_numpy_dtype
from ndgrad.autograd.grad_mode import set_grad_enabled
from ndgrad.autograd.graph import AccumulateGrad, run_hooks
from ndgrad.ops._broadcast import sum_to

__all__ = ["run_backward"]


def run_backward(roots, root_grads, retain_graph, create_graph, capture=None):
    """Propagate ``root_grads`` from ``roots`` (a list of (node, output_nr)) down the graph.

    Leaves accumulate into ``.grad``; when ``capture`` (a dict node -> {output_nr: slot}) is given, the gradient
    arriving at those node outputs is returned in a list instead, and leaves in it do not accumulate.
    """
    dependencies = _count_dependencies([node for node, _ in roots])
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

    with set_grad_enabled(create_graph):
        while ready:
            node = heapq.heappop(ready)[2]
            grads = buffers.pop(node, None)
            if grads is None:  # nothing flowed here: the inputs get nothing either, but are still released
                input_grads = (None,) * len(node._edges)
            else:
                if node._tensor_hooks is not None or node._retained is not None:
                    _run_tensor_hooks(node, grads)
                if capture is not None:
                    for output_nr, slot in capture.get(node, {}).items():
                        captured[slot] = grads[output_nr]
                # autograd.grad returns gradients and never accumulates into any .grad
                input_grads = () if capture is not None and isinstance(node, AccumulateGrad) else node._apply(grads)
                if len(input_grads) != len(node._edges):
                    raise _wrong_count(node, input_grads)
            if not retain_graph:
                node._release()
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


def _wrong_count(node, input_grads):
    return RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients (expected {len(node._edges)}, "
        f"got {len(input_grads)})"
    )


def _run_tensor_hooks(node, grads):
    """Hooks registered on non-leaf tensors run on the gradient of that output before the node uses it."""
    if node._tensor_hooks is not None:
        for output_nr, hooks in node._tensor_hooks.items():
            if grads[output_nr] is not None:
                grads[output_nr] = run_hooks(hooks, grads[output_nr])
    if node._retained is not None:
        for output_nr, tensor_ref in node._retained.items():
            tensor = tensor_ref()
            if tensor is not None and grads[output_nr] is not None:
                tensor._retain(grads[output_nr])


def _conform(grad, shape, dtype):
    """Bring a gradient back to the shape (undo broadcasting) and dtype of the tensor it is the gradient of."""
    if grad._data.shape != shape:
        grad = sum_to(grad, shape)
    if grad._data.dtype != dtype:
        grad = grad.to(from_numpy_dtype(dtype))
    return grad
