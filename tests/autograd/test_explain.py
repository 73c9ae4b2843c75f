"""explain() and graph.path() on real mistakes. Each program runs with torch too, and torch confirms what the
explanation claims (the tensor is not a leaf, gets no .grad from backward, ...); the text must name the test's own
lines, found in this file's source, never copied from ndgrad's output."""

import inspect
import warnings
from collections import deque

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ndgrad
from ndgrad.autograd import provenance
from ndgrad.autograd.graph import path
from ndgrad.autograd.hints import set_hint_language


@pytest.fixture(autouse=True)
def _default_hints():
    provenance._CUTS.recent.clear()
    yield
    set_hint_language("en")


def line_number(program, text):
    """The number of the line of ``program`` (a function in this file) that reads ``text``."""
    lines, first = inspect.getsourcelines(program)
    return next(first + i for i, line in enumerate(lines) if line.strip() == text)


def where(program, text):
    """``test_explain.py:N (`text`)``, as explanations name a line."""
    return f"test_explain.py:{line_number(program, text)} (`{text}`)"


def torch_grad_after_backward(program):
    """Run ``program`` with torch, call backward on its loss: the tensor's .grad (None for a non-leaf, quietly)."""
    tensor, loss = program(torch)
    loss.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensor.grad


def rebound(lib):
    x = lib.ones(3, requires_grad=True)
    x = x + 1
    loss = (x * 2).sum()
    return x, loss


def scaled_at_creation(lib):
    w = lib.ones(3, requires_grad=True) * 0.01
    return w, (w * 3).sum()


def unused(lib):
    w = lib.ones(3, requires_grad=True)
    u = lib.ones(3, requires_grad=True)
    loss = (w * 2).sum()
    return u, loss


def used(lib):
    w = lib.ones(3, requires_grad=True)
    loss = (w.exp() * 2).sum()
    return w, loss


def renamed(lib):
    w = lib.ones(3, requires_grad=True)
    first = w
    w = lib.zeros(3, requires_grad=True)
    loss = (w * 2).sum()
    return first, loss


def test_non_leaf_rebound_names_the_rebinding_and_the_leaf():
    x, _ = rebound(ndgrad)
    answer = ndgrad.explain(x)
    assert answer.reasons == ("non_leaf", "rebound")
    assert torch_grad_after_backward(rebound) is None and not rebound(torch)[0].is_leaf
    lines = str(answer).splitlines()
    assert lines[0] == f"x: float32 [3], made by AddBackward0 at {where(rebound, 'x = x + 1')}"
    assert lines[1].startswith("- it is the result of an op, not a leaf") and "x.retain_grad()" in lines[1]
    assert lines[2] == (
        f"- `x = x + 1` gave the name `x` to a new tensor; the name belonged to the leaf made at "
        f"{where(rebound, 'x = lib.ones(3, requires_grad=True)')}, and that leaf, not this tensor, receives the "
        "gradient. Keep the leaf under its own name, or apply the change before requires_grad_()."
    )


def test_leaf_scaled_on_its_creation_line():
    w, _ = scaled_at_creation(ndgrad)
    assert ndgrad.explain(w).reasons == ("non_leaf", "same_line_leaf")
    assert torch_grad_after_backward(scaled_at_creation) is None


def test_retain_grad_then_backward_has_grad():
    x, loss = rebound(ndgrad)
    x.retain_grad()
    assert ndgrad.explain(x, loss).reasons == ("reachable",)
    loss.backward()
    assert ndgrad.explain(x).reasons == ("has_grad",)


def test_unreachable_leaf_lists_the_leaves_the_loss_reaches():
    u, loss = unused(ndgrad)
    answer = ndgrad.explain(u, loss)
    assert answer.reasons == ("unreachable",)
    assert torch_grad_after_backward(unused) is None
    lines = str(answer).splitlines()
    assert lines[1].startswith("- the loss does not depend on it") and lines[1].endswith("reaches these leaves:")
    assert lines[2] == f"    w: float32 [3], {where(unused, 'w = lib.ones(3, requires_grad=True)')}"
    assert len(lines) == 3


def test_unreachable_leaf_whose_name_the_loss_uses_for_another_tensor():
    first, loss = renamed(ndgrad)
    answer = ndgrad.explain(first, loss)
    assert answer.reasons == ("unreachable",)
    assert torch_grad_after_backward(renamed) is None
    assert str(answer).splitlines()[-1] == (
        f"  The loss uses another tensor named `w`, made at {where(renamed, 'w = lib.zeros(3, requires_grad=True)')}: "
        "the loss was computed from that one, not from this one."
    )


def test_reachable_leaf_before_and_after_backward():
    w, loss = used(ndgrad)
    assert ndgrad.explain(w).reasons == ("no_backward_yet",)
    answer = ndgrad.explain(w, loss)
    assert answer.reasons == ("reachable",) and "through 4 nodes" in str(answer)  # Sum, Mul, Exp, AccumulateGrad
    assert torch_grad_after_backward(used) is not None
    loss.backward()
    assert ndgrad.explain(w, loss).reasons == ("has_grad",)


def cut_loss(lib):
    w = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        loss = (w * 2).sum()
    return w, loss


def test_loss_without_graph_says_where_the_loss_was_cut():
    answer = ndgrad.explain(*cut_loss(ndgrad))
    assert answer.reasons == ("loss_without_graph",) and not cut_loss(torch)[1].requires_grad
    assert answer.lines[1].startswith("- the loss itself does not require grad")
    # the loss is the sum of the cut tensor: the cut is the line where grad mode was off
    assert answer.lines[-1] == f"    under no_grad(): {where(cut_loss, 'loss = (w * 2).sum()')}"


def _cut_by(lib, how):
    x = lib.ones(2, requires_grad=True)
    if how == "no_grad":
        with lib.no_grad():
            cut = x * 2
    elif how == "inference_mode":
        with lib.inference_mode():
            cut = x * 3
    elif how == "detach":
        cut = x.detach()
    elif how == "data":
        cut = x.data
    elif how == "cast":
        cut = x.long()
    else:
        cut = lib.ones(2)
    return cut


@pytest.mark.parametrize(
    "how, reason, line, words",
    [
        ("no_grad", "no_grad", "cut = x * 2", "this tensor was computed with gradient recording off (inside no_grad"),
        ("inference_mode", "inference_mode", "cut = x * 3", "(inside inference_mode())"),
        ("detach", "detached", "cut = x.detach()", "this tensor was cut out of the graph by detach()"),
        ("data", "detached", "cut = x.data", "this tensor is the .data of a tensor that requires grad"),
        ("cast", "integer_dtype", "cut = x.long()", "this tensor was converted to ndgrad.int64"),
        ("never", "never_required", None, "it is a leaf created without requires_grad=True"),
    ],
)
def test_why_a_tensor_does_not_require_grad(how, reason, line, words):
    answer = ndgrad.explain(_cut_by(ndgrad, how))
    assert not _cut_by(torch, how).requires_grad
    assert answer.reasons == (reason,)
    assert words in answer.lines[1] and answer.lines[0].endswith("a leaf that does not require grad")
    if line is not None:
        assert f" at {where(_cut_by, line)}" in answer.lines[1]


def test_integer_tensor_made_as_such():
    answer = ndgrad.explain(ndgrad.arange(3))
    assert answer.reasons == ("integer_dtype",) and not torch.arange(3).is_floating_point()
    assert answer.lines[1] == "- its dtype is ndgrad.int64: only floating-point and complex tensors can require grad."


def test_explanation_prints_as_its_text_and_in_chinese():
    x, _ = rebound(ndgrad)
    answer = ndgrad.explain(x)
    assert repr(answer) == str(answer) == "\n".join(answer.lines)
    set_hint_language("zh")
    lines = str(ndgrad.explain(x)).splitlines()
    assert lines[0] == f"x：float32 [3]，由 AddBackward0 创建于 {where(rebound, 'x = x + 1')}"
    assert lines[1].startswith("- 它是运算的结果，不是叶子节点")
    assert lines[2].startswith("- `x = x + 1` 把名字 `x` 给了一个新张量")


# ---- graph.path -------------------------------------------------------------------------------------------------
def torch_shortest_chain(root, leaf):
    """Breadth-first over torch's next_functions: the node names from ``root``'s grad_fn to ``leaf``'s node."""
    target = leaf.grad_fn
    parents, queue = {root.grad_fn: None}, deque([root.grad_fn])
    while queue:
        node = queue.popleft()
        if node is target or (target is None and getattr(node, "variable", None) is leaf):
            names = []
            while node is not None:
                names.append(type(node).__name__)
                node = parents[node]
            return names[::-1]
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node not in parents:
                parents[next_node] = node
                queue.append(next_node)
    return None


UNARY = ["exp", "sin", "tanh", "sigmoid", "neg", "square"]


def chain_program(lib, ops):
    x = lib.ones(2, requires_grad=True)
    h = x
    for op in ops:
        h = getattr(h, op)()
    loss = (h * x).sum()
    return x, loss


@settings(max_examples=10, deadline=None)
@given(ops=st.lists(st.sampled_from(UNARY), min_size=0, max_size=5))
def test_path_is_torch_s_shortest_chain(ops):
    x, loss = chain_program(ndgrad, ops)
    with_torch = torch_shortest_chain(*reversed(chain_program(torch, ops)))
    nodes = path(loss, x)
    assert [type(node).__name__ for node in nodes] == with_torch


def test_path_prints_one_line_per_node_with_its_site(capsys):
    w, loss = used(ndgrad)
    nodes = path(loss, w)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "loss -> w: 4 nodes"
    assert [line.split()[0] for line in printed[1:]] == [type(node).__name__ for node in nodes]
    assert [type(node).__name__ for node in nodes] == torch_shortest_chain(*reversed(used(torch)))
    leaf, made_loss = "w = lib.ones(3, requires_grad=True)", "loss = (w.exp() * 2).sum()"
    assert printed[1].split(None, 2) == ["SumBackward0", f"test_explain.py:{line_number(used, made_loss)}", made_loss]
    assert printed[-1].split(None, 2) == ["AccumulateGrad", f"test_explain.py:{line_number(used, leaf)}", leaf]


def test_all_paths_of_a_diamond(capsys):
    x = ndgrad.ones(2, requires_grad=True)
    y = x * 2
    z = y.exp() + y.sin()
    chains = path(z, x, all_paths=True)
    names = sorted(tuple(type(node).__name__ for node in chain) for chain in chains)
    assert names == [
        ("AddBackward0", "ExpBackward0", "MulBackward0", "AccumulateGrad"),
        ("AddBackward0", "SinBackward0", "MulBackward0", "AccumulateGrad"),
    ]
    printed = capsys.readouterr().out
    assert "path 1 of 2: 4 nodes" in printed and "path 2 of 2: 4 nodes" in printed


def test_no_path_is_said_plainly(capsys):
    u, loss = unused(ndgrad)
    assert path(loss, u) == []
    assert path(loss, ndgrad.ones(2)) == []
    assert capsys.readouterr().out.splitlines() == [
        "no path from loss to u: backward from loss never reaches u.",
        "no path: tensor does not require grad, so it is in no graph.",
    ]


def test_explain_takes_tensors_only():
    with pytest.raises(TypeError, match=r"^explain\(\): argument 'tensor' must be Tensor, not int$"):
        ndgrad.explain(3)
    with pytest.raises(TypeError, match=r"^explain\(\): argument 'loss' must be Tensor, not float$"):
        ndgrad.explain(ndgrad.ones(1), 2.0)
