"""The description draw() makes of a graph: the same boxes, names and edges as for PyTorch's graph of the same
code, edges equal to a walk over next_functions, and saved tensors shown as PyTorch shows them."""

import sys
from collections import Counter

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.viz.programs import PROGRAMS, both, model_of, run, skeleton

import ndgrad
from ndgrad.autograd.provenance import set_provenance_enabled
from ndgrad.viz.graph_model import GRAD_FN, NEXT, OP, TENSOR, VARIABLE, describe
from ndgrad.viz.labels import FREED, MODIFIED, saved_values

# ndgrad's CopySlices lists the in-place op's own node (MulBackward0 -> SliceBackward0 -> ...) as its second input;
# PyTorch's CopySlices hides that node and lists its other inputs directly (here: none, so a None edge).
COPY_SLICES = pytest.mark.xfail(strict=True, reason="CopySlices' next_functions differ from PyTorch's")
MATCHING = [pytest.param(name, marks=COPY_SLICES) if name == "view_in_place" else name for name in PROGRAMS]


@pytest.mark.parametrize("name", MATCHING)
def test_boxes_and_edges_match_the_picture_of_torchs_graph(name):
    theirs, ours = both(name)
    assert skeleton(model_of(ours)) == skeleton(model_of(theirs))


def _roots(value):
    return list(value.values()) if isinstance(value, dict) else list(value) if isinstance(value, list) else [value]


def _walked_edges(roots):
    """(id(node), input_nr, id(next node)) for every next_functions entry reachable from the roots' grad_fns."""
    pending = [root.grad_fn for root in roots if root.grad_fn is not None]
    seen, edges = set(), Counter()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for input_nr, (next_node, _) in enumerate(node.next_functions):
            if next_node is not None:
                edges[(id(node), input_nr, id(next_node))] += 1
                pending.append(next_node)
    return edges


def _drawn_edges(model):
    """The model's node-to-node edges, a named tensor's box replaced by the node that made it."""
    boxes = {box.id: box for box in model.boxes}

    def node_of(box):
        return box.subject.grad_fn if box.kind == TENSOR else box.subject

    return Counter(
        (id(boxes[e.source].subject), e.input_nr, id(node_of(boxes[e.target]))) for e in model.edges if e.kind == NEXT
    )


@pytest.mark.parametrize("name", PROGRAMS)
def test_edges_are_the_next_functions_of_every_reachable_node(name):
    namespace = run(ndgrad, PROGRAMS[name])
    model = model_of(namespace)
    assert _drawn_edges(model) == _walked_edges(_roots(namespace["out"]))
    for box in model.boxes:
        if box.kind == OP:
            assert box.title == box.subject.name().rsplit("::", 1)[-1]
    for edge in model.edges:
        source, target = model.box(edge.source), model.box(edge.target)
        if edge.kind == VARIABLE:
            assert target.subject is source.subject.variable
        if edge.kind == GRAD_FN:
            assert source.subject.grad_fn is target.subject


def test_named_tensors_are_boxes_between_the_nodes():
    namespace = run(ndgrad, PROGRAMS["seed_chain_rule"])
    model = model_of(namespace)
    titles = [box.title for box in model.boxes]
    assert titles == ["out", "MeanBackward0", "z", "MulBackward0", "MulBackward0", "y", "AddBackward0",
                      "AccumulateGrad", "x"]
    y = model.boxes[titles.index("y")]
    assert [e.kind for e in model.edges if e.target == y.id] == [NEXT, NEXT]  # y * y: both inputs of one node
    assert [box.role for box in model.boxes if box.kind == TENSOR] == ["root", "intermediate", "intermediate", "leaf"]


def test_unnamed_tensors_leave_only_nodes():
    namespace = run(ndgrad, PROGRAMS["seed_chain_rule"])
    model = describe(namespace["out"])
    assert [box.title for box in model.boxes] == [
        "output", "MeanBackward0", "MulBackward0", "MulBackward0", "AddBackward0", "AccumulateGrad", "leaf",
    ]


def test_a_detached_or_no_grad_root_is_a_cut_box_without_edges():
    for name in ("seed_detach", "leaf_and_no_grad_roots"):
        namespace = run(ndgrad, PROGRAMS[name])
        model = model_of(namespace)
        cut = [box for box in model.boxes if box.is_cut]
        assert len(cut) == 1 and cut[0].title in ("u", "n")
        assert not [e for e in model.edges if cut[0].id in (e.source, e.target)]
        assert any(line.startswith("cut:") for line in cut[0].lines)
        assert "grad_fn: None" in cut[0].lines and "requires_grad: False" in cut[0].lines


def _saved_lines(namespace):
    return [box.lines for box in model_of(namespace, show_values=True).boxes if box.kind == OP]


SAVED_PROGRAM = """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, -1.0], requires_grad=True)
out = ((x * y).exp() + x.pow(2)).mean()
"""


@pytest.mark.parametrize("backward", [None, "free", "retain"])
def test_saved_tensors_are_listed_as_torch_lists_them(backward):
    namespaces = [run(lib, SAVED_PROGRAM) for lib in (torch, ndgrad)]
    for namespace in namespaces:
        if backward:
            namespace["out"].backward(retain_graph=backward == "retain")
    theirs, ours = map(_saved_lines, namespaces)
    assert ours == theirs
    assert any("version 0" in line for lines in ours for line in lines) == (backward != "free")
    assert any(line.endswith(": freed") for lines in ours for line in lines) == (backward == "free")


def test_saved_tensor_overwritten_in_place_is_marked_as_such():
    values = {}
    for lib in (torch, ndgrad):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x.clone()
        b = a * a
        a.add_(1)
        values[lib] = saved_values(b.grad_fn)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            b.sum().backward()
    assert values[ndgrad] == values[torch] == [("self", MODIFIED), ("other", MODIFIED)]


def test_custom_function_saved_tensors_and_freed_after_backward():
    for lib in (torch, ndgrad):
        namespace = run(lib, PROGRAMS["custom_function"])
        node = namespace["out"].grad_fn.next_functions[0][0]
        ((name, value),) = saved_values(node)
        assert name == "saved_tensors[0]" and value.tolist() == [1.0, 2.0]
        namespace["out"].backward()
        assert saved_values(node) == [("saved_tensors", FREED)]


def test_op_boxes_show_where_the_users_code_made_them():
    x = ndgrad.ones(2, requires_grad=True)
    doubled = x * 2; line = sys._getframe().f_lineno  # noqa: E702
    out = doubled.sum()
    model = describe(out)
    (mul,) = [box for box in model.boxes if box.title == "MulBackward0"]
    assert f"test_viz_structure.py:{line}" in mul.lines
    function = sys._getframe().f_code.co_name
    source = "doubled = x * 2; line = sys._getframe().f_lineno  # noqa: E702"
    assert mul.tooltip == f"{__file__}:{line} in {function}\n{source}"
    set_provenance_enabled(False)
    try:
        unsited = describe((x * 2).sum())
    finally:
        set_provenance_enabled(True)
    assert not any(box.tooltip for box in unsited.boxes if box.role == "op")


# ---- random programs ------------------------------------------------------------------------------------------------
UNARY = ["exp", "sin", "tanh", "neg", "sigmoid", "t", "sum", "clone"]
BINARY = ["add", "mul", "sub", "div", "matmul"]


@st.composite
def programs(draw):
    """A straight-line program over 2x2 tensors: each step applies a unary or binary op to earlier values."""
    lines = ["v0 = torch.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)",
             "v1 = torch.tensor([[0.3, 0.1], [2.0, 1.5]], requires_grad=True)"]
    count = 2
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            op, a = draw(st.sampled_from(UNARY)), draw(st.integers(0, count - 1))
            if op == "sum":
                lines.append(f"v{count} = v{a}.sum(0, keepdim=True).expand(2, 2)")
            else:
                lines.append(f"v{count} = torch.{op}(v{a})")
        else:
            op, a, b = draw(st.sampled_from(BINARY)), draw(st.integers(0, count - 1)), draw(st.integers(0, count - 1))
            lines.append(f"v{count} = torch.{op}(v{a}, v{b})")
        count += 1
    lines.append(f"out = v{count - 1}")
    return "\n".join(lines)


@settings(max_examples=25, deadline=None)
@given(programs(), st.booleans())
def test_random_programs_draw_like_torch(code, named):
    theirs, ours = run(torch, code), run(ndgrad, code)
    if named:
        assert skeleton(model_of(ours)) == skeleton(model_of(theirs))
    else:
        assert skeleton(describe(ours["out"])) == skeleton(describe(theirs["out"]))
    assert _drawn_edges(model_of(ours)) == _walked_edges([ours["out"]])
