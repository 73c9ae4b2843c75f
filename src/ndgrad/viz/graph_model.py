"""Walk an autograd graph into a plain description, boxes and edges with their words, that every renderer
(SVG, DOT, text) draws: the one walk they share. It reads only public attributes: grad_fn, next_functions,
name(), AccumulateGrad.variable, saved values and node.metadata."""

from collections import deque
from dataclasses import dataclass, field

from ndgrad.viz.labels import (
    Options,
    is_tensor,
    op_lines,
    op_summary,
    op_tooltip,
    short_name,
    tensor_lines,
    tensor_summary,
)
from ndgrad.viz.modules import MODULE_KEY

__all__ = [
    "Box", "Edge", "GraphModel", "describe", "describe_nodes", "TENSOR", "OP", "MODULE", "NEXT", "GRAD_FN", "VARIABLE",
]

# Box kinds: a tensor (dashed), a backward node (solid), a module call holding several nodes.
TENSOR, OP, MODULE = "tensor", "op", "module"
# Edge kinds, all pointing the way gradients flow: a node to an input's node (one per next_functions entry), a
# tensor to the node that made it, an AccumulateGrad to the leaf it fills.
NEXT, GRAD_FN, VARIABLE = "next", "grad_fn", "variable"


@dataclass(eq=False)
class Box:
    """One box of the picture: a title over lines; ``summary`` says it on one line (for the text tree).
    ``subject`` is the tensor or node drawn (the nodes, for a module box)."""

    id: str
    kind: str
    title: str
    lines: list
    summary: str
    role: str  # tensors: root, leaf, intermediate; nodes: op, accumulate; module
    subject: object = None
    tooltip: str = ""
    highlighted: bool = False

    @property
    def is_cut(self):
        """A tensor with no history that needs no gradient (detached, or made under no_grad)."""
        return self.kind == TENSOR and self.subject.grad_fn is None and not self.subject.requires_grad


@dataclass(eq=False)
class Edge:
    """An arrow from ``source`` to ``target`` (box ids); ``input_nr`` is its place in the source's next_functions."""

    source: str
    target: str
    kind: str
    input_nr: int | None = None
    highlighted: bool = False


@dataclass
class GraphModel:
    """The description: boxes in the order the walk met them (roots first) and edges between them."""

    boxes: list = field(default_factory=list)
    edges: list = field(default_factory=list)

    def box(self, box_id):
        return next(box for box in self.boxes if box.id == box_id)

    @property
    def roots(self):
        return [box for box in self.boxes if box.role == "root"]


DEFAULT_OPTIONS = Options()


def describe(roots, params=None, *, options=DEFAULT_OPTIONS, highlight=None, collapse_modules=False):
    """The GraphModel of everything reachable from ``roots`` (see ndgrad.viz.draw for the arguments)."""
    walk = _Walk(_named_tensors(params), options)
    named_roots = _named_roots(roots)
    for index, (name, tensor) in enumerate(named_roots):
        walk.add_root(tensor, name or ("output" if len(named_roots) == 1 else f"output {index}"))
    walk.run()
    if highlight is not None:
        _highlight(walk, highlight)
    return _collapse(walk.model) if collapse_modules else walk.model


def describe_nodes(roots, params=None, *, options=DEFAULT_OPTIONS):
    """The GraphModel below ``roots``, (node, output_nr) pairs: where a backward pass starts, when the root tensors
    are not at hand. A root tensor named in ``params`` gets its box; otherwise the picture starts at the node."""
    walk = _Walk(_named_tensors(params), options)
    for node, output_nr in roots:
        tensor = walk.known.get((id(node), output_nr))
        if tensor is not None:
            walk.add_root(tensor, walk.names[id(tensor)])
        else:
            walk._node_box(node)
    walk.run()
    return walk.model


def _named_roots(roots):
    if is_tensor(roots):
        return [(None, roots)]
    if isinstance(roots, dict):
        items = [(str(name), root) for name, root in roots.items()]
    elif isinstance(roots, (list, tuple)):
        items = [(None, root) for root in roots]
    else:
        raise TypeError(f"draw() expects a Tensor, a list of Tensors or a dict of them, but got {type(roots).__name__}")
    for _, root in items:
        if not is_tensor(root):
            raise TypeError(f"draw() expects roots to be Tensors, but got {type(root).__name__}")
    if not items:
        raise ValueError("draw() needs at least one root Tensor")
    return items


def _named_tensors(params):
    """(name, tensor) pairs from ``params``: a dict or pairs; values that are not tensors (``locals()``) are skipped."""
    if params is None:
        return []
    pairs = params.items() if isinstance(params, dict) else params
    return [(str(name), value) for name, value in pairs if is_tensor(value)]


class _Walk:
    """Breadth-first over next_functions from the roots, one box per node and per tensor (no recursion, so a
    chain of any length is fine)."""

    def __init__(self, named, options):
        self.model, self.options = GraphModel(), options
        self.names = {}  # id(tensor) -> the first name given to it
        self.known = {}  # (id(node), output_nr) -> the tensor that node made: a named intermediate or a root
        for name, tensor in named:
            self.names.setdefault(id(tensor), name)
            if tensor.grad_fn is not None:
                self.known.setdefault((id(tensor.grad_fn), tensor.output_nr), tensor)
        self.box_of = {}  # id(tensor or node) -> Box
        self.queue = deque()
        self.named = named  # keeps the tensors whose ids key the tables alive while the walk runs

    def _new_box(self, subject, kind, title, lines, summary, role, tooltip=""):
        box = Box(f"b{len(self.model.boxes)}", kind, title, lines, summary, role, subject, tooltip)
        self.model.boxes.append(box)
        self.box_of[id(subject)] = box  # the box holds the subject, so the id stays its own
        return box

    def _edge(self, source, target, kind, input_nr=None):
        self.model.edges.append(Edge(source.id, target.id, kind, input_nr))

    def add_root(self, tensor, name):
        if tensor.grad_fn is not None:
            self.known.setdefault((id(tensor.grad_fn), tensor.output_nr), tensor)
        box = self.box_of.get(id(tensor))
        if box is not None:  # the same tensor passed twice
            return
        box = self._tensor_box(tensor, "root", name)
        if tensor.grad_fn is not None:
            self._edge(box, self._node_box(tensor.grad_fn), GRAD_FN)

    def run(self):
        while self.queue:
            node = self.queue.popleft()
            box = self.box_of[id(node)]
            if hasattr(node, "variable"):
                self._edge(box, self._tensor_box(node.variable, "leaf"), VARIABLE)
                continue
            for input_nr, (next_node, output_nr) in enumerate(node.next_functions):
                if next_node is not None:
                    self._edge(box, self._input_box(next_node, output_nr), NEXT, input_nr)

    def _input_box(self, node, output_nr):
        """The box an edge into (node, output_nr) ends at: the tensor's box if the user named it, else the node's."""
        tensor = self.known.get((id(node), output_nr))
        if tensor is None:
            return self._node_box(node)
        box = self.box_of.get(id(tensor))
        if box is None:
            box = self._tensor_box(tensor, "intermediate")
            self._edge(box, self._node_box(node), GRAD_FN)
        return box

    def _tensor_box(self, tensor, role, title=None):
        box = self.box_of.get(id(tensor))
        if box is None:
            title = self.names.get(id(tensor)) or title or ("leaf" if role == "leaf" else "tensor")
            lines, summary = tensor_lines(tensor, self.options), tensor_summary(tensor, self.options, title)
            box = self._new_box(tensor, TENSOR, title, lines, summary, role)
        return box

    def _node_box(self, node):
        box = self.box_of.get(id(node))
        if box is None:
            role = "accumulate" if hasattr(node, "variable") else "op"
            title = short_name(node)
            lines, summary = op_lines(node, self.options), op_summary(node, title)
            box = self._new_box(node, OP, title, lines, summary, role, op_tooltip(node))
            self.queue.append(node)
        return box


def _highlight(walk, targets):
    """Mark the boxes and edges on every path from a root to one of ``targets`` (tensors)."""
    model = walk.model
    marked = deque()
    for tensor in [targets] if is_tensor(targets) else list(targets):
        box = walk.box_of.get(id(tensor))
        if box is None and getattr(tensor, "grad_fn", None) is not None:
            box = walk.box_of.get(id(tensor.grad_fn))
        if box is None:
            raise ValueError("highlight: the tensor is not part of the drawn graph")
        marked.append(box.id)
    into = {}
    for edge in model.edges:
        into.setdefault(edge.target, []).append(edge.source)
    on_path = set(marked)
    while marked:  # everything that reaches a target lies on a path from a root to it
        for source in into.get(marked.popleft(), ()):
            if source not in on_path:
                on_path.add(source)
                marked.append(source)
    for box in model.boxes:
        box.highlighted = box.id in on_path
    for edge in model.edges:
        edge.highlighted = edge.source in on_path and edge.target in on_path


def _collapse(model):
    """One box per module call that record_modules tagged: its nodes merge, edges inside it disappear."""
    groups, group_of = {}, {}
    for box in model.boxes:
        call = box.subject.metadata.get(MODULE_KEY) if box.role == "op" else None
        if call is not None:
            groups.setdefault(call, []).append(box)
            group_of[box.id] = call
    if not groups:
        return model
    module_box = {}
    for number, (call, members) in enumerate(groups.items()):
        names = list(dict.fromkeys(member.title for member in members))
        module_box[call] = Box(
            f"m{number}", MODULE, call.label, names, call.label, "module", tuple(m.subject for m in members),
            highlighted=any(member.highlighted for member in members),
        )
    boxes = [module_box[group_of[box.id]] if box.id in group_of else box for box in model.boxes]
    collapsed = GraphModel(list(dict.fromkeys(boxes)))
    merged = {}
    for edge in model.edges:
        source = module_box[group_of[edge.source]].id if edge.source in group_of else edge.source
        target = module_box[group_of[edge.target]].id if edge.target in group_of else edge.target
        if source == target:
            continue
        if source == edge.source and target == edge.target:
            collapsed.edges.append(edge)
            continue
        key = (source, target, edge.kind)
        if key in merged:
            merged[key].highlighted |= edge.highlighted
        else:
            merged[key] = Edge(source, target, edge.kind, highlighted=edge.highlighted)
            collapsed.edges.append(merged[key])
    return collapsed
