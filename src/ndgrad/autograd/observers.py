"""What the explain and debug tools see of a backward pass: the engine's one interface to them.

``watch_pass`` is asked once per pass and gives None when no tool wants to see the nodes run (the usual case), so
the engine's loop makes no call here. Otherwise each node goes through one ``PassWatch``: autograd.grad's capture,
anomaly mode, autograd.trace. The graph-leak check looks only at the nodes the pass will reach, before it starts.
"""

from operator import attrgetter

from ndgrad.autograd.anomaly_mode import _AnomalyState, check_nan, evaluating, warn_forward_trace
from ndgrad.autograd.graph import tensor_of, tensors_of
from ndgrad.autograd.hints import add_backward_hint
from ndgrad.autograd.leaks import leak_boundary, saved_before_step, warn_graph_leak
from ndgrad.autograd.provenance import BACKWARD
from ndgrad.autograd.provenance import _State as _Provenance
from ndgrad.autograd.provenance import capture as capture_site
from ndgrad.autograd.trace import TRACING, begin_run

__all__ = ["watch_pass", "PassWatch", "freeing_site", "entering", "leaving", "completed", "failed", "leaked_nodes"]


class PassWatch:
    """Sees one pass node by node. ``graph``: the gradients are Tensors (create_graph), else raw arrays."""

    def __init__(self, graph, capture, needed, anomaly, tracer):
        self.graph, self.capture, self.needed = graph, capture, needed
        self.captured = [None] * sum(map(len, capture.values())) if capture else None
        self.anomaly, self.tracer = anomaly, tracer

    def node_starting(self, node, grads):
        """Before the node's pre-hooks: False if the node need not run (autograd.grad: it leads to no input)."""
        if self.anomaly:
            evaluating(node)
        if self.capture is not None:
            for output_nr, slot in self.capture.get(node, {}).items():
                grad = grads[output_nr]
                self.captured[slot] = grad if self.graph or grad is None else tensor_of(grad)
            if node not in self.needed:
                return False
        return True

    def node_ran(self, node, grads, input_grads):
        """After the node and its post-hooks, before its gradients move on."""
        if not self.graph:
            grads, input_grads = tensors_of(grads), tensors_of(input_grads)
        if self.anomaly and _AnomalyState.check_nan:
            check_nan(node, input_grads)
        if self.tracer:
            self.tracer.node_ran(node, grads, input_grads)

    def finished(self):
        if self.anomaly:
            evaluating(None)


def watch_pass(roots, root_grads, retain_graph, graph, capture, needed):
    """The PassWatch for a pass that starts now, or None if nothing needs to see its nodes."""
    anomaly = _AnomalyState.enabled
    # off: () and nothing more than this test (see ndgrad.autograd.trace)
    tracer = TRACING.traces and begin_run(roots, root_grads, retain_graph, graph, capture is not None)
    if capture is None and not anomaly and not tracer:
        return None
    return PassWatch(graph, capture, needed, anomaly, tracer)


def leaked_nodes(dependencies):
    """Whether the pass will run a node that saved values before the last optimizer step (a graph carried across
    steps, see ndgrad.autograd.leaks): looked for once, among the nodes the dependency count found (roots included)."""
    boundary = leak_boundary()
    if boundary is None or min(map(_SEQUENCE_NR, dependencies)) >= boundary:
        return False
    return any(node._sequence_nr < boundary and saved_before_step(node) for node in dependencies)


_SEQUENCE_NR = attrgetter("_sequence_nr")


def freeing_site(retain_graph):
    """The user's line of a backward that frees the graph, which each node it frees remembers (for the hint after a
    second backward), or None."""
    return capture_site(2) if _Provenance.enabled and not retain_graph else None


def entering():
    BACKWARD.depth += 1  # the rules run with grad off on inputs that require grad: provenance marks no cuts


def leaving(watch):
    BACKWARD.depth -= 1
    if watch is not None:
        watch.finished()


def completed(leaked, root_nodes):
    """The pass ran to its end: now the leak warning, if it reached old nodes (an error raised instead says more)."""
    if leaked:
        warn_graph_leak(root_nodes)


def failed(error, node, watch):
    """The pass stopped with ``error`` in ``node``: anomaly mode's forward trace, and the hint that says why."""
    if node is not None and watch is not None and watch.anomaly:
        warn_forward_trace(node)
    add_backward_hint(error, node)

