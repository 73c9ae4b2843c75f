"""The three outputs draw the same description: SVG (valid XML, one group per box, one path per edge, no box over
another, arrows from box to box), DOT (one statement per box and per edge; Graphviz reads it) and the text tree."""

import math
import re
import shutil
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from tests.viz.programs import PROGRAMS, model_of, run

import ndgrad
from ndgrad.autograd.provenance import set_provenance_enabled
from ndgrad.viz.dot import to_dot
from ndgrad.viz.graph_model import describe
from ndgrad.viz.labels import Options
from ndgrad.viz.svg import to_svg
from ndgrad.viz.text import WORDS_PER_LINE, to_text

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _models():
    for name in PROGRAMS:
        namespace = run(ndgrad, PROGRAMS[name])
        yield name, model_of(namespace)
        x = namespace.get("x")
        if x is not None and x.requires_grad:
            yield f"{name}-highlighted", describe(namespace["out"], namespace, highlight=x)


MODELS = dict(_models())


def _parsed_svg(model):
    root = ElementTree.fromstring(to_svg(model))
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class", "").split()[:1] == ["box"]]
    paths = [p for p in root.iter(f"{SVG}path") if p.get("class", "").split()[:1] == ["edge"]]
    return root, groups, paths


def _rect(group):
    rect = group.find(f"{SVG}rect")
    return tuple(float(rect.get(key)) for key in ("x", "y", "width", "height"))


@pytest.mark.parametrize("name", MODELS)
def test_svg_has_one_group_per_box_and_one_path_per_edge(name):
    model = MODELS[name]
    root, groups, paths = _parsed_svg(model)
    assert [g.get("data-id") for g in groups] == [box.id for box in model.boxes]
    assert [(p.get("data-source"), p.get("data-target")) for p in paths] == [(e.source, e.target) for e in model.edges]
    for group, box in zip(groups, model.boxes):
        texts = [text.text for text in group.iter(f"{SVG}text")]
        assert texts == [box.title, *box.lines]
        assert ("highlighted" in group.get("class")) == box.highlighted
        assert (group.find(f"{SVG}rect").get("stroke-dasharray") is not None) == (box.kind == "tensor")
    for path, edge in zip(paths, model.edges):
        assert ("highlighted" in path.get("class")) == edge.highlighted


@pytest.mark.parametrize("name", MODELS)
def test_svg_boxes_do_not_overlap_and_arrows_join_their_boxes(name):
    model = MODELS[name]
    root, groups, paths = _parsed_svg(model)
    width, height = float(root.get("width")), float(root.get("height"))
    rects = {g.get("data-id"): _rect(g) for g in groups}
    placed = list(rects.values())
    for index, (x, y, w, h) in enumerate(placed):
        assert 0 <= x and x + w <= width + 0.5 and 0 <= y and y + h <= height + 0.5
        for other_x, other_y, other_w, other_h in placed[index + 1:]:
            apart = x + w <= other_x or other_x + other_w <= x or y + h <= other_y or other_y + other_h <= y
            assert apart, "two boxes overlap"
    for path in paths:
        numbers = [float(n) for n in NUMBER.findall(path.get("d"))]
        (start_x, start_y), (end_x, end_y) = numbers[:2], numbers[-2:]
        x, y, w, h = rects[path.get("data-source")]
        assert x <= start_x <= x + w and start_y == pytest.approx(y + h, abs=0.1)  # leaves the source's bottom
        x, y, w, h = rects[path.get("data-target")]
        assert x <= end_x <= x + w and end_y == pytest.approx(y, abs=0.1)  # enters the target's top


def test_svg_escapes_names():
    x = ndgrad.ones(2, requires_grad=True)
    svg = to_svg(describe((x * 2).sum(), {"<x & 'y'>": x}))
    root = ElementTree.fromstring(svg)
    assert "<x & 'y'>" in [text.text for text in root.iter(f"{SVG}text")]


DOT_NODE = re.compile(r"^  (\w+) \[label=\"(.*?)\\n", re.MULTILINE)
DOT_EDGE = re.compile(r"^  (\w+) -> (\w+) \[", re.MULTILINE)


@pytest.mark.parametrize("name", MODELS)
def test_dot_has_one_statement_per_box_and_per_edge(name):
    model = MODELS[name]
    dot = to_dot(model)
    assert DOT_NODE.findall(dot) == [(box.id, box.title) for box in model.boxes]
    assert DOT_EDGE.findall(dot) == [(edge.source, edge.target) for edge in model.edges]
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
@pytest.mark.parametrize("name", ["seed_chain_rule", "branching_and_fan_in-highlighted", "custom_function"])
def test_graphviz_reads_the_dot_text(name):
    graphviz = pytest.importorskip("graphviz")
    model = MODELS[name]
    plain = graphviz.Source(to_dot(model)).pipe(format="plain").decode()
    statements = [line.split()[0] for line in plain.splitlines()]
    assert statements.count("node") == len(model.boxes) and statements.count("edge") == len(model.edges)


@pytest.fixture
def no_sites():
    """Graphs made without creation sites: the exact texts below are about the tree's shape."""
    set_provenance_enabled(False)
    yield
    set_provenance_enabled(True)


def test_text_tree_names_each_line_of_user_code_once_per_run():
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).exp(); line = sys._getframe().f_lineno  # noqa: E702
    out = y.sum()
    here = f"test_viz_render.py:{line}"
    assert to_text(describe(out, options=Options(shapes_only=True))).splitlines() == [
        f"output [] → SumBackward0 (test_viz_render.py:{line + 1}) → ExpBackward0 ({here}) → MulBackward0 → "
        f"AccumulateGrad (test_viz_render.py:{line - 1}) → leaf [2]"  # where the leaf was made
    ]


@pytest.mark.usefixtures("no_sites")
def test_text_tree_of_the_chain_rule_example():
    namespace = run(ndgrad, PROGRAMS["seed_chain_rule"])
    text = to_text(model_of(namespace, show_values=False))
    assert text.splitlines() == [
        "out [] float32 (requires_grad) → MeanBackward0",
        "z [2, 2] float32 (requires_grad) → MulBackward0 → MulBackward0",
        "├── y [2, 2] float32 (requires_grad) #1 → AddBackward0 → AccumulateGrad → x [2, 2] float32 (leaf, "
        "requires_grad)",
        "└── y #1 (shown above)",
    ]
    namespace["out"].backward()
    text = to_text(model_of(namespace))
    assert text.splitlines()[2].endswith("x [2, 2] float32 (leaf, requires_grad, data=[[1., 1.], [1., 1.]], "
                                         "grad=[[4.5, 4.5], [4.5, 4.5]])")  # the seed's 4.5


@pytest.mark.usefixtures("no_sites")
def test_text_tree_of_shared_nodes_and_branches():
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    a, b = x.unbind()
    out = a * b + a.exp()
    text = to_text(describe(out, options=Options(shapes_only=True)))
    assert text.splitlines() == [
        "output [] → AddBackward0",
        "├── MulBackward0",
        "│   ├── UnbindBackward0 #1 → AccumulateGrad → leaf [2]",
        "│   └── UnbindBackward0 #1 (shown above)",
        "└── ExpBackward0 → UnbindBackward0 #1 (shown above)",
    ]


@pytest.mark.usefixtures("no_sites")
def test_text_and_svg_of_a_long_chain():
    x = ndgrad.ones(2, requires_grad=True)
    y = x
    for _ in range(300):
        y = y * 1.5
    model = describe(y.sum(), options=Options(show_saved=False))
    lines = to_text(model).splitlines()
    words = 304  # output, SumBackward0, 300 MulBackward0, AccumulateGrad, leaf
    assert len(lines) == math.ceil(words / WORDS_PER_LINE) and max(map(len, lines)) < 120  # no drift to the right
    assert " → ".join(lines).count("MulBackward0") == 300
    root, groups, paths = _parsed_svg(model)
    assert len(groups) == 304 and len(paths) == 303
