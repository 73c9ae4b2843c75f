"""ndgrad.autograd.trace against PyTorch: the same program runs in torch with a pre-hook and a hook on every node
(and a post-accumulate hook on every leaf), and the order of the nodes, the gradients each received and sent, and
every accumulation into a leaf's .grad must match the trace."""

import html.parser
import json
import re
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes
from tests.closeness import assert_close

import ndgrad
from ndgrad.autograd.trace import FanIn, Step
from ndgrad.ops._op import OP_TABLE

SVG = "{http://www.w3.org/2000/svg}"


# ---- the torch oracle -----------------------------------------------------------------------------------------


def _short(name):
    return name.rsplit("::", 1)[-1]


def _graph_nodes(roots):
    seen, stack, nodes = set(), [root.grad_fn for root in roots], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        stack += [next_node for next_node, _ in node.next_functions]
    return nodes


def _torch_events(roots, leaves, run):
    """(name, grads received, grads sent) per node in the order torch ran them, and each leaf's .grad after each
    accumulation, in order."""
    received, events, accumulated = {}, [], []
    for node in _graph_nodes(roots):
        node.register_prehook(lambda grads, node=node: received.__setitem__(node, _arrays(grads)))
        node.register_hook(
            lambda sent, grads, node=node: events.append((_short(node.name()), received.pop(node), _arrays(sent)))
        )
    for leaf in leaves:
        leaf.register_post_accumulate_grad_hook(lambda leaf: accumulated.append(leaf.grad.detach().numpy().copy()))
    run()
    return events, accumulated


def _arrays(grads):
    return tuple(None if grad is None else grad.detach().numpy().copy() for grad in grads)


def _traced(program):
    roots, leaves, run = program(ndgrad)
    with ndgrad.autograd.trace() as traced:
        run()
    return traced, leaves


def _numpy(tensor):
    return None if tensor is None else tensor._data


def _assert_same(ours, theirs):
    assert len(ours) == len(theirs)
    for mine, expected in zip(ours, theirs):
        assert (mine is None) == (expected is None)
        if mine is not None:
            assert mine.shape == expected.shape
            assert_close(mine, expected)


def _check_against_torch(program):
    """Run ``program`` (lib -> (roots, leaves, run)) in both libraries and compare node by node."""
    traced, _ = _traced(program)
    roots, leaves, run = program(torch)
    events, accumulated = _torch_events(roots, leaves, run)
    steps = [step for step in traced.steps if isinstance(step, Step)]
    assert [_short(step.name) for step in steps] == [name for name, _, _ in events]
    for step, (_, grads_in, grads_out) in zip(steps, events):
        # torch's nodes have no gradient slot for an integer output (max's indices); ndgrad's hold None there
        floating = [meta[1].kind in "fc" for meta in step.node._output_meta]
        _assert_same([_numpy(grad) for grad, keep in zip(step.grads_in, floating) if keep], grads_in)
        _assert_same([_numpy(flow.grad) for flow in step.grads_out], grads_out)
    accumulations = [step.accumulation for step in steps if step.accumulation is not None]
    _assert_same([_numpy(acc.after) for acc in accumulations], accumulated)
    _check_fan_ins(traced)
    return traced


def _check_fan_ins(traced):
    """Every fan-in adds its two parts, and the last sum a node input receives is what the node then runs with."""
    last_sum = {}
    for step in traced.steps:
        if isinstance(step, FanIn):
            np.testing.assert_allclose(_numpy(step.total), _numpy(step.previous) + _numpy(step.added))
            last_sum[(step.node, step.input_nr)] = step.total
            continue
        for output_nr, grad in enumerate(step.grads_in):
            total = last_sum.pop((step.node, output_nr), None)
            if total is not None:
                assert grad._data.tolist() == total._data.tolist()


# ---- programs: the seeds' examples and the cases the engine treats specially ------------------------------------


def chain_rule(lib):
    x = lib.ones(2, 2, requires_grad=True)
    y = x + 2
    out = (y * y * 3).mean()
    return [out], [x], out.backward


def fan_in(lib):
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * x
    out = (y.sin() + y.exp() + x).sum()
    return [out], [x], out.backward


def vector_jacobian(lib):
    x = lib.tensor([0.5, -1.2, 0.9], requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    v = lib.tensor([0.1, 1.0, 0.0001])
    return [y], [x], lambda: y.backward(v)


def detach(lib):
    x = lib.arange(4.0, requires_grad=True)
    u = (x * x).detach()
    total = (u * x).sum()
    return [total], [x], total.backward


def multi_output(lib):
    x = lib.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], requires_grad=True)
    values, _ = x.max(1)
    first, second = (x * 2).unbind(0)
    out = (values * 3).sum() + first.pow(2).sum()  # second is unused: its gradient is None
    return [out], [x], out.backward


def retain_twice(lib):
    w = lib.tensor([1.5, -0.5], requires_grad=True)
    out = (w * w).sum()

    def run():
        out.backward(retain_graph=True)
        out.backward()

    return [out], [w], run


def two_leaves_matmul(lib):
    a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = lib.tensor([[0.5], [-1.0]], requires_grad=True)
    out = (a @ b).tanh().sum()
    return [out], [a, b], out.backward


@pytest.mark.parametrize(
    "program", [chain_rule, fan_in, vector_jacobian, detach, multi_output, retain_twice, two_leaves_matmul]
)
def test_trace_matches_torch_node_by_node(program):
    _check_against_torch(program)


@settings(max_examples=12, deadline=None)
@given(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3), st.sampled_from(["mul", "add"]))
def test_broadcast_inputs_get_gradients_summed_to_their_shape(shapes, op):
    first, second = shapes.input_shapes

    def program(lib):
        a = lib.tensor(np.linspace(-1, 1, int(np.prod(first))).reshape(first), requires_grad=True)
        b = lib.tensor(np.linspace(0.5, 2, int(np.prod(second))).reshape(second), requires_grad=True)
        out = getattr(lib, op)(a, b).sum()
        return [out], [a, b], out.backward

    traced = _check_against_torch(program)
    node = next(step for step in traced.steps if isinstance(step, Step) and step.name.startswith(op.title()))
    for flow, shape in zip(node.grads_out, (first, second)):
        assert flow.grad.shape == shape
        assert flow.summed_from == (shapes.result_shape if tuple(shape) != shapes.result_shape else None)


def test_create_graph_records_detached_values():
    def program(lib):
        x = lib.tensor([0.3, -0.7], requires_grad=True)
        out = (x.sin() * x).sum()
        return [out], [x], lambda: out.backward(create_graph=True)

    traced = _check_against_torch(program)
    assert traced.runs[0].create_graph
    for step in traced.steps:
        for grad in getattr(step, "grads_in", ()):
            assert grad is None or (grad.grad_fn is None and not grad.requires_grad)


def test_autograd_grad_records_the_nodes_it_runs():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, -1.0], requires_grad=True)
        out = (x * w).exp().sum()
        return [out], [], lambda: lib.autograd.grad(out, [x, w])

    traced = _check_against_torch(program)
    assert [run.kind for run in traced.runs] == ["grad"]
    assert not any(step.accumulation for step in traced.steps if isinstance(step, Step))


def test_autograd_grad_skips_the_nodes_that_lead_elsewhere():
    x, unrelated = ndgrad.tensor([1.0, 2.0], requires_grad=True), ndgrad.tensor([5.0], requires_grad=True)
    out = x.exp().sum() + (unrelated * 2).sum()
    with ndgrad.autograd.trace() as traced:
        ndgrad.autograd.grad(out, [x])
    assert [step.name for step in traced.steps] == ["AddBackward0", "SumBackward0", "ExpBackward0"]


def test_accumulations_show_grad_before_and_after_across_passes():
    traced, (w,) = _traced(retain_twice)
    first, second = [step.accumulation for step in traced.steps if isinstance(step, Step) and step.accumulation]
    assert first.before is None
    assert second.before._data.tolist() == first.after._data.tolist()
    assert second.after._data.tolist() == (2 * first.after._data).tolist()
    assert [run.retain_graph for run in traced.runs] == [True, False]


def test_record_is_a_copy_that_later_in_place_changes_do_not_touch():
    traced, (x,) = _traced(chain_rule)
    x.grad.zero_()
    (accumulation,) = [step.accumulation for step in traced.steps if isinstance(step, Step) and step.accumulation]
    assert accumulation.after._data.tolist() == [[4.5, 4.5], [4.5, 4.5]]


def test_fan_in_is_recorded_where_a_tensor_is_used_twice():
    traced, _ = _traced(chain_rule)
    (fan_in,) = [step for step in traced.steps if isinstance(step, FanIn)]
    assert fan_in.node.name() == "AddBackward0" and fan_in.source.name() == "MulBackward0"
    assert fan_in.total._data.tolist() == [[4.5, 4.5], [4.5, 4.5]]


# ---- switching on and off, nesting ------------------------------------------------------------------------------


def test_outside_a_trace_nothing_is_recorded():
    roots, _, run = chain_rule(ndgrad)
    with ndgrad.autograd.trace() as traced:
        pass
    run()
    assert traced.steps == [] and traced.runs == []
    assert str(traced) == "(no backward pass ran inside the trace)"


def test_nested_traces_each_see_the_passes_inside_them():
    a_roots, _, run_a = chain_rule(ndgrad)
    b_roots, _, run_b = fan_in(ndgrad)
    with ndgrad.autograd.trace() as outer:
        run_a()
        with ndgrad.autograd.trace() as inner:
            run_b()
    assert len(outer.runs) == 2 and len(inner.runs) == 1
    assert [step.index for step in inner.steps] == list(range(len(inner.steps)))
    inner_names = [step.name for step in inner.steps if isinstance(step, Step)]
    assert [step.name for step in outer.steps if isinstance(step, Step) and step.run == 1] == inner_names


def test_trace_is_per_thread():
    import threading

    roots, _, run = chain_rule(ndgrad)
    with ndgrad.autograd.trace() as traced:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    assert traced.runs == []


# ---- formulas ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", OP_TABLE, ids=lambda op: f"{op.__name__}")
def test_every_op_writes_its_rule_out(op):
    assert isinstance(op.formula, str) and op.formula.strip()
    assert re.search(r"\bgrad", op.formula)


def test_accumulate_and_custom_function_rules():
    class Cube(ndgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    x = ndgrad.tensor([2.0], requires_grad=True)
    with ndgrad.autograd.trace() as traced:
        Cube.apply(x).sum().backward()
    formulas = {step.name: step.formula for step in traced.steps}
    assert formulas["CubeBackward"] == "Cube.backward(ctx, grad)"
    assert formulas["ndgrad::autograd::AccumulateGrad"] == "x.grad += grad"
    assert "rule: grad_self = grad expanded to self's shape" in traced.to_text()


def test_text_names_leaves_and_prints_values_as_torch_does():
    roots, (x,), run = chain_rule(ndgrad)
    with ndgrad.autograd.trace() as traced:
        run()
    text = traced.to_text(params={"x": x})
    torch_grad = " ".join(repr(torch.full((2, 2), 4.5)).split())
    assert f"x.grad: None -> {torch_grad}" in text
    assert "fan-in at AddBackward0" in text and "MulBackward0 #2" in text


# ---- the animated picture and the page --------------------------------------------------------------------------


def _start_time(element):
    """When the element's animation first shows it, as a fraction of the loop."""
    animate = element.find(f"{SVG}animate")
    values, times = animate.get("values").split(";"), [float(t) for t in animate.get("keyTimes").split(";")]
    return times[values.index("1")]


def test_svg_plays_one_caption_per_step_in_order():
    roots, (x,), run = chain_rule(ndgrad)
    with ndgrad.autograd.trace() as traced:
        run()
    root = ElementTree.fromstring(traced.to_svg(params={"x": x}))
    captions = [g for g in root.iter(f"{SVG}g") if g.get("class") == "trace-caption"]
    assert [int(g.get("data-step")) for g in captions] == list(range(len(traced.steps)))
    starts = [_start_time(g) for g in captions]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    for caption, step in zip(captions, traced.steps):
        text = "\n".join(t.text for t in caption.iter(f"{SVG}text"))
        if isinstance(step, Step):
            assert step.formula in text if step.accumulation is None else "x.grad += grad" in text
    marks = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "trace-mark"]
    assert {int(r.get("data-step")) for r in marks} == set(range(len(traced.steps)))
    assert not list(root.iter(f"{SVG}script"))


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.buttons, self.scripts, self.external, self.steps, self._in = [], [], [], set(), None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self._in = tag
        if "src" in attrs or "href" in attrs:
            self.external.append(attrs)
        if "data-step" in attrs:
            self.steps.add(int(attrs["data-step"]))

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "button":
            self.buttons.append(data)
        elif self._in == "script":
            self.scripts.append(data)


def test_html_page_steps_through_every_step_without_the_network():
    roots, _, run = fan_in(ndgrad)
    with ndgrad.autograd.trace() as traced:
        run()
    page = _Page()
    page.feed(traced.to_html())
    assert page.buttons == ["Prev", "Next", "Play"]
    assert page.external == []
    assert page.steps == set(range(len(traced.steps)))
    texts = json.loads(re.search(r"const texts = (.*);", page.scripts[0]).group(1))
    assert len(texts) == len(traced.steps)
    for text, step in zip(texts, traced.steps):
        if isinstance(step, Step) and step.accumulation is None:
            assert step.formula in text and step.name in text
