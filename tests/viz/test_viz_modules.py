"""record_modules tags each node with the module call that made it, and draw(collapse_modules=True) draws one box
per call: the nodes inside a layer's box are those PyTorch's same layer creates."""

import pytest
import torch

import ndgrad
from ndgrad import nn
from ndgrad.viz import draw, record_modules
from ndgrad.viz.graph_model import MODULE, describe
from ndgrad.viz.modules import MODULE_KEY


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.act = nn.Tanh()

    def forward(self, x):
        return self.act(self.fc(x)) * 2 + x


def _torch_node_names(layer, inputs):
    """Names of the nodes PyTorch creates inside ``layer`` alone, for an input that requires grad."""
    out = layer(inputs)
    pending, seen, names = [out.grad_fn], set(), []
    while pending:
        node = pending.pop()
        if node is None or node in seen or node is inputs.grad_fn or hasattr(node, "variable"):
            continue
        seen.add(node)
        names.append(node.name())
        pending.extend(next_node for next_node, _ in node.next_functions)
    return sorted(names)


def _model_and_loss():
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), Block(), nn.Linear(3, 1))
    inputs = ndgrad.ones(2, 4)
    with record_modules(model):
        loss = model(inputs).sum()
    return model, loss


def test_collapsed_boxes_are_the_innermost_named_module_calls():
    model, loss = _model_and_loss()
    collapsed = describe(loss, dict(model.named_parameters()), collapse_modules=True)
    modules = [box for box in collapsed.boxes if box.kind == MODULE]
    names = {box.title: sorted(member.name() for member in box.subject) for box in modules}
    assert set(names) == {"3 (Linear)", "2 (Block)", "2.act (Tanh)", "2.fc (Linear)", "1 (ReLU)", "0 (Linear)"}
    assert names["2 (Block)"] == ["AddBackward0", "MulBackward0"]  # the block's own ops: * 2, + x
    x = torch.ones(2, 3, requires_grad=True) * 1  # an input made by an op, so the walk stops at its node
    assert names["3 (Linear)"] == _torch_node_names(torch.nn.Linear(3, 1), x)
    assert names["2.act (Tanh)"] == _torch_node_names(torch.nn.Tanh(), x)
    assert names["1 (ReLU)"] == _torch_node_names(torch.nn.ReLU(), x)


def test_the_model_own_ops_and_a_blocks_own_ops_are_tagged_by_that_call():
    model, loss = _model_and_loss()
    tags = {}
    pending = [loss.grad_fn]
    while pending:
        node = pending.pop()
        if node is not None and not hasattr(node, "variable"):
            tags[node.name()] = tags.get(node.name(), set()) | {node.metadata.get(MODULE_KEY)}
            pending.extend(next_node for next_node, _ in node.next_functions)
    assert tags["SumBackward0"] == {None}  # made outside any named submodule
    assert {call.name for call in tags["MulBackward0"]} == {"2"} == {call.name for call in tags["AddBackward0"]}
    assert {call.label for call in tags["ReluBackward0"]} == {"1 (ReLU)"}


def test_collapsed_edges_lead_to_the_parameters_and_between_calls():
    model, loss = _model_and_loss()
    collapsed = describe(loss, dict(model.named_parameters()), collapse_modules=True)
    titles = {box.id: box.title for box in collapsed.boxes}
    pairs = {(titles[e.source], titles[e.target]) for e in collapsed.edges}
    assert ("1 (ReLU)", "0 (Linear)") in pairs and ("2.fc (Linear)", "1 (ReLU)") in pairs
    leaves = {titles[e.target] for e in collapsed.edges if e.kind == "variable"}
    assert leaves == {name for name, _ in model.named_parameters()}
    assert len(collapsed.edges) == len({(e.source, e.target, e.kind) for e in collapsed.edges})  # merged


def test_a_module_called_twice_gets_a_box_per_call():
    layer = nn.Linear(2, 2)
    model = nn.Sequential()
    model.add_module("shared", layer)
    inputs = ndgrad.ones(1, 2)
    with record_modules(model):
        out = layer(layer(inputs)).sum()
    titles = [box.title for box in describe(out, collapse_modules=True).boxes if box.kind == MODULE]
    assert titles == ["shared (Linear) #2", "shared (Linear)"]


def test_hooks_are_removed_and_nothing_is_tagged_without_grad():
    model = nn.Sequential(nn.Linear(2, 2))
    with record_modules(model):
        with ndgrad.no_grad():
            model(ndgrad.ones(1, 2))
        x = ndgrad.ones(1, 2, requires_grad=True)
        user = x.exp()
        user.grad_fn.metadata["note"] = "mine"
        out = model(user)
    assert not model[0]._forward_hooks and not model[0]._forward_pre_hooks
    assert out.grad_fn.metadata[MODULE_KEY].label == "0 (Linear)"
    assert user.grad_fn.metadata == {"note": "mine"}  # made before the call: not the layer's
    untagged = model(x)
    assert MODULE_KEY not in untagged.grad_fn.metadata


def test_collapse_without_recorded_modules_changes_nothing():
    x = ndgrad.ones(2, requires_grad=True)
    out = (x * 2).sum()
    assert str(draw(out, collapse_modules=True)) == str(draw(out))


@pytest.mark.parametrize("collapse", [False, True])
def test_highlight_a_parameter_marks_the_calls_on_its_path(collapse):
    model, loss = _model_and_loss()
    weight = model[0].weight
    drawn = describe(loss, dict(model.named_parameters()), collapse_modules=collapse, highlight=weight)
    marked = {box.title for box in drawn.boxes if box.highlighted}
    assert "0.weight" in marked and "0.bias" not in marked and "3.bias" not in marked
    if collapse:
        assert {"3 (Linear)", "2 (Block)", "2.act (Tanh)", "2.fc (Linear)", "1 (ReLU)", "0 (Linear)"} <= marked
