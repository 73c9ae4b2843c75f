"""``trace()``: watch backward run, node by node: the gradient each node received, its rule written out, what it
sent along each edge, the sums where gradients fan in, and every accumulation into a leaf's ``.grad``.

Tracing is per thread, like grad mode: a trace records the backward passes its own thread runs inside it.
"""

import os
import threading
from dataclasses import dataclass, field

from ndgrad._fpstate import silenced
from ndgrad.autograd.graph import AccumulateGrad
from ndgrad.autograd.provenance import origin_of

__all__ = ["trace", "Trace", "Run", "Step", "Flow", "Accumulation", "FanIn"]

SMALL = 16  # tensors with at most this many elements are printed in full, as torch prints them


class _Tracing(threading.local):
    traces = ()  # the traces open in this thread, outermost first; empty: the engine records nothing


TRACING = _Tracing()


@dataclass(eq=False)  # the records hold tensors, which compare elementwise
class Run:
    """One call into the engine: ``kind`` is "backward", or "grad" when gradients are returned (autograd.grad)."""

    index: int
    kind: str
    roots: list  # (node, output_nr) the gradients start from
    seeds: list  # the gradient each root starts with
    retain_graph: bool
    create_graph: bool


@dataclass(eq=False)
class Flow:
    """The gradient a node sent along one edge. ``summed_from`` is the shape its rule returned when the engine summed
    it down to the input's shape (the input was broadcast in the forward pass); None otherwise."""

    target: object  # the node the edge points at, or None (an input that needs no gradient)
    input_nr: int  # which output of ``target`` the gradient belongs to
    grad: object  # a detached copy, or None when the rule gave none
    summed_from: tuple = None


@dataclass(eq=False)
class Accumulation:
    """What AccumulateGrad did to a leaf: ``leaf.grad`` went from ``before`` (None the first time) to ``after``."""

    leaf: object
    before: object
    added: object
    after: object


@dataclass(eq=False)
class Step:
    """One node that ran: the gradients it received (one per output), its rule, and what it sent (one per edge)."""

    index: int
    run: int
    node: object
    name: str
    formula: str
    site: object  # where the forward pass made the node, when known
    grads_in: tuple
    grads_out: tuple = ()
    accumulation: Accumulation = None


@dataclass(eq=False)
class FanIn:
    """A node's input received a second (third, ...) gradient: the engine adds it to what was already there."""

    index: int
    run: int
    node: object  # the node whose gradient buffer received the sum
    input_nr: int
    source: object  # the node that sent the new gradient
    previous: object
    added: object
    total: object


@dataclass(eq=False)
class Trace:
    """What a ``trace()`` block saw: ``runs`` (each backward pass) and ``steps`` (Step and FanIn records, in the
    order they happened). The records hold detached copies, so later in-place changes do not alter them; they
    also keep the traced graph's nodes alive (not the tensors backward frees) until the trace is dropped."""

    runs: list = field(default_factory=list)
    steps: list = field(default_factory=list)

    def show(self, params=None):
        """Print the trace; ``params`` (a dict name -> tensor, such as ``locals()``) names the leaves."""
        print(self.to_text(params))

    def to_text(self, params=None):
        labels = Labels(self, params)
        lines = []
        for run in self.runs:
            lines.append(_run_header(run, labels))
            lines += [f"  {line}" for step in self.steps if step.run == run.index for line in step_lines(step, labels)]
        return "\n".join(lines) if lines else "(no backward pass ran inside the trace)"

    def __str__(self):
        return self.to_text()

    def to_svg(self, params=None):
        """The traced graph as an SVG that plays the steps in order (SMIL animation, no script)."""
        from ndgrad.viz.animate import animated_svg

        return animated_svg(self, params)

    def to_html(self, params=None):
        """One self-contained HTML page: the diagram, Prev / Next / Play buttons and each step's text."""
        from ndgrad.viz.animate import stepper_html

        return stepper_html(self, params)

    def _repr_html_(self):
        return self.to_html()


class trace:
    """Record every backward pass and autograd.grad call that this thread runs inside the block::

        with ndgrad.autograd.trace() as t:
            loss.backward()
        t.show()

    Traces nest: an outer trace also records what an inner one does. Outside a trace the engine records nothing.
    """

    def __init__(self):
        self.trace = Trace()

    def __enter__(self):
        TRACING.traces = (*TRACING.traces, self.trace)
        return self.trace

    def __exit__(self, *exc_info):
        TRACING.traces = tuple(open_trace for open_trace in TRACING.traces if open_trace is not self.trace)


def begin_run(roots, root_grads, retain_graph, create_graph, capturing):
    """The engine starts a pass inside a trace: returns the recorder it reports each node to."""
    return _Recorder(TRACING.traces, roots, root_grads, retain_graph, create_graph, capturing)


class _Recorder:
    """Records one engine pass into every open trace. It keeps its own running sum of what each node input has
    received, so that a second contribution (fan-in) is recorded with the sum the engine forms."""

    def __init__(self, traces, roots, root_grads, retain_graph, create_graph, capturing):
        self.traces = traces
        self.runs = []
        for open_trace in traces:
            run = Run(len(open_trace.runs), "grad" if capturing else "backward", list(roots),
                      [_copy(grad) for grad in root_grads], retain_graph, create_graph)
            open_trace.runs.append(run)
            self.runs.append(run.index)
        self.received = {}  # (node, input_nr) -> gradient received so far
        for (node, output_nr), grad in zip(roots, root_grads):
            self._receive(None, node, output_nr, _copy(grad))
        self.leaf_grads = _leaf_grads(root for root, _ in roots)  # id(leaf) -> .grad before this pass

    def _add(self, make_record):
        for open_trace, run in zip(self.traces, self.runs):
            open_trace.steps.append(make_record(len(open_trace.steps), run))

    def node_ran(self, node, grads, input_grads):
        """Called by the engine after ``node`` ran (hooks included), before its gradients move on."""
        from ndgrad.autograd.engine import _conform  # the engine imports this module: bind on first use

        grads_in = tuple(_copy(grad) for grad in grads)
        accumulation = None
        if type(node) is AccumulateGrad:
            leaf = node.variable
            after = _copy(leaf._grad)
            accumulation = Accumulation(leaf, self.leaf_grads.get(id(leaf)), grads_in[0], after)
            self.leaf_grads[id(leaf)] = after
        flows = []
        for (target, input_nr), grad in zip(node._edges, input_grads):
            summed_from = None
            if target is not None and grad is not None:
                shape, dtype = target._output_meta[input_nr]
                if grad._data.shape != shape:
                    summed_from = tuple(grad._data.shape)
                if grad._data.shape != shape or grad._data.dtype != dtype:
                    grad = _conform(grad, shape, dtype)
            flows.append(Flow(target, input_nr, _copy(grad) if target is not None else None, summed_from))
        name, formula, site = node.name(), formula_of(node), site_of(node)
        self._add(lambda index, run: Step(index, run, node, name, formula, site, grads_in, tuple(flows),
                                          accumulation))
        for flow in flows:
            if flow.target is not None and flow.grad is not None:
                self._receive(node, flow.target, flow.input_nr, flow.grad)

    def _receive(self, source, node, input_nr, grad):
        key = (node, input_nr)
        previous = self.received.get(key)
        if previous is None:
            self.received[key] = grad
            return
        total = previous + grad  # detached copies: the same sum the engine forms, recording nothing
        self.received[key] = total
        self._add(lambda index, run: FanIn(index, run, node, input_nr, source, previous, grad, total))


def _copy(grad):
    return None if grad is None else grad._detached_copy()


def _leaf_grads(roots):
    """``.grad`` of every leaf the pass can reach, copied: what each AccumulateGrad step starts from."""
    grads, seen, stack = {}, set(), list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is AccumulateGrad:
            grads[id(node.variable)] = _copy(node.variable._grad)
        stack += [next_node for next_node, _ in node._edges if next_node is not None]
    return grads


def formula_of(node):
    """The node's rule as a line of text: ops declare ``formula`` beside their vjp, custom Functions and
    AccumulateGrad on their node class."""
    formula = getattr(node, "formula", None) or getattr(getattr(node, "op", None), "formula", None)
    return formula or f"{node.name()}: rule not written out"


def site_of(node):
    """Where the forward pass made ``node`` (file, line, source), when provenance is recorded; else None."""
    try:
        from ndgrad.autograd.provenance import site_of as provenance_site
    except ImportError:
        return None
    return provenance_site(node)


# ---- text -----------------------------------------------------------------------------------------------------


class Labels:
    """Names for what the trace mentions: a node's name, numbered when several nodes share it
    (``MulBackward0 #2``); a leaf by its name in ``params``, else by shape."""

    def __init__(self, traced, params=None):
        self.names = {}
        for name, value in (params or {}).items():
            if hasattr(value, "grad_fn") and hasattr(value, "_data"):
                self.names.setdefault(id(value), str(name))
        nodes = {}
        for step in traced.steps:
            for node in _nodes_of(step):
                nodes.setdefault(id(node), node)
        counts, self.numbers = {}, {}
        for node_id, node in nodes.items():
            counts[node.name()] = counts.get(node.name(), 0) + 1
            self.numbers[node_id] = counts[node.name()]
        self.shared = {name for name, count in counts.items() if count > 1}

    def node(self, node):
        if node is None:
            return "(no gradient needed)"
        name = node.name().rsplit("::", 1)[-1]
        if type(node) is AccumulateGrad:
            return f"{name}({self.leaf(node.variable)})"
        return f"{name} #{self.numbers.get(id(node), '?')}" if node.name() in self.shared else name

    def leaf(self, tensor):
        """The name given in ``params``, else the variable the leaf was assigned to where it was made."""
        name = self.names.get(id(tensor))
        if name is None:
            origin = origin_of(tensor)
            name = origin[1].variable if origin is not None and origin[1] is not None else None
        return name or f"leaf {list(tensor.shape)}"


def _nodes_of(step):
    if isinstance(step, FanIn):
        return (step.node, step.source) if step.source is not None else (step.node,)
    return (step.node, *(flow.target for flow in step.grads_out if flow.target is not None))


@silenced  # a summary of inf and -inf is nan (see Note [floating-point error state])
def describe_tensor(tensor):
    """A gradient on one line: small tensors as torch prints them, others as shape, dtype and a summary."""
    if tensor is None:
        return "None"
    if tensor.numel() <= SMALL:
        return " ".join(repr(tensor).split())
    data = tensor._data.astype("float64") if tensor._data.dtype.kind != "c" else abs(tensor._data)
    return (f"[{', '.join(map(str, tensor.shape))}] {str(tensor.dtype).rsplit('.', 1)[-1]} "
            f"(min {data.min():.4g}, max {data.max():.4g}, mean {data.mean():.4g})")


def _run_header(run, labels):
    roots = ", ".join(f"{labels.node(node)} ← {describe_tensor(seed)}" for (node, _), seed in zip(run.roots, run.seeds))
    flags = [flag for flag, on in (("retain_graph", run.retain_graph), ("create_graph", run.create_graph)) if on]
    what = "autograd.grad" if run.kind == "grad" else "backward"
    return f"{what} #{run.index + 1}: {roots}" + (f" ({', '.join(flags)})" if flags else "")


def step_lines(step, labels):
    """The lines that tell one step: its title, then what came in, the rule, and what went out."""
    if isinstance(step, FanIn):
        source = labels.node(step.source) if step.source is not None else "another root"
        return [
            f"[{step.index}] fan-in at {labels.node(step.node)} (input {step.input_nr}): gradients add up",
            f"      {describe_tensor(step.previous)} + {describe_tensor(step.added)} (from {source})",
            f"      = {describe_tensor(step.total)}",
        ]
    title = f"[{step.index}] {labels.node(step.node)}"
    if step.site is not None:  # the file's name only: a trace is read beside the code, not on another machine
        title += f"  ({os.path.basename(step.site.filename)}:{step.site.lineno})"
    if step.accumulation is not None:
        acc = step.accumulation
        leaf = labels.leaf(acc.leaf)
        return [
            title,
            f"      in:   grad = {describe_tensor(acc.added)}",
            f"      rule: {leaf}.grad += grad",
            f"      {leaf}.grad: {describe_tensor(acc.before)} -> {describe_tensor(acc.after)}",
        ]
    lines = [title]
    for output_nr, grad in enumerate(step.grads_in):
        which = "grad" if len(step.grads_in) == 1 else f"grad[{output_nr}]"
        lines.append(f"      in:   {which} = {describe_tensor(grad)}")
    lines.append(f"      rule: {step.formula}")
    for flow in step.grads_out:
        if flow.target is None:
            continue
        note = f" (summed from {list(flow.summed_from)}: broadcast in forward)" if flow.summed_from else ""
        lines.append(f"      out:  → {labels.node(flow.target)}: {describe_tensor(flow.grad)}{note}")
    return lines
