"""ndgrad.viz.draw and Diagram: options, outputs, saving (by suffix, and through Graphviz when installed), and
clear errors for bad arguments."""

import shutil
import sys
import warnings

import pytest
import torch
from tests.viz.programs import MATCHING_PROGRAMS, PROGRAMS, both, model_of, run

import ndgrad
from ndgrad import viz
from ndgrad.viz import Diagram
from ndgrad.viz.svg import CUT_STYLE, STYLES, colours
from ndgrad.viz.text import to_text


def _chain():
    namespace = run(ndgrad, PROGRAMS["seed_chain_rule"])
    return namespace, viz.draw(namespace["out"], params=namespace)


def test_diagram_outputs():
    namespace, diagram = _chain()
    assert isinstance(diagram, Diagram)
    assert str(diagram) == diagram.to_text() and str(diagram).startswith("out [] float32")
    assert diagram._repr_svg_() == diagram.to_svg() == diagram._repr_html_()
    assert diagram.to_svg().startswith("<svg") and diagram.to_dot().startswith("digraph")
    assert repr(diagram) == "<Diagram: 9 boxes, 9 edges>"


@pytest.mark.parametrize("name", MATCHING_PROGRAMS)
def test_text_tree_equals_the_tree_of_torchs_graph(name):
    theirs, ours = both(name)
    assert to_text(model_of(ours, show_values=True)) == to_text(model_of(theirs, show_values=True))


def test_grads_after_backward_as_torch_has_them():
    for lib in (torch, ndgrad):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        y.retain_grad()
        z = y * 2
        big = lib.arange(20.0, requires_grad=True)
        out = z.sum() + (big * 3).sum()  # d out/dx = 4x, d out/dy = 2
        out.backward()
        boxes = {box.title: box.lines for box in viz.draw(out, params=locals()).model.boxes}
        assert "grad: [4., 8., 12.]" in boxes["x"] and "grad: [2., 2., 2.]" in boxes["y"]
        assert "grad: None" in boxes["z"]  # not retained
        assert "grad: [20] float32" in boxes["big"] and not any(line.startswith("data") for line in boxes["big"])


def test_drawing_reads_no_non_leaf_grad():
    """Reading .grad of a non-leaf warns in PyTorch; drawing must not."""
    namespace, diagram = _chain()
    namespace["out"].backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        viz.draw(namespace["out"], params=namespace)
    assert not caught


def test_value_and_shape_options():
    namespace, _ = _chain()
    out = namespace["out"]
    every = viz.draw(out, params=namespace, show_values=True).model.boxes
    none = viz.draw(out, params=namespace, show_values=False).model.boxes
    shapes = viz.draw(out, params=namespace, shapes_only=True).model.boxes
    bare = viz.draw(out, params=namespace, show_saved=False).model.boxes
    assert "data: [[3., 3.], [3., 3.]]" in every[5].lines and not any("data" in line for line in none[5].lines)
    assert [box.lines for box in shapes if box.kind == "tensor"] == [["[]"], ["[2, 2]"], ["[2, 2]"], ["[2, 2]"]]
    assert all(box.lines == [] for box in bare if box.kind == "op")
    assert any("version 0" in line for box in none for line in box.lines)


def test_params_as_pairs_and_names_for_roots():
    model = ndgrad.nn.Linear(2, 1)
    out = model(ndgrad.ones(3, 2)).sum()
    titles = {box.title for box in viz.draw(out, params=model.named_parameters()).model.boxes}
    assert {"weight", "bias", "output"} <= titles
    titles = [box.title for box in viz.draw({"loss": out, "w": model.weight}).model.roots]
    assert titles == ["loss", "w"]
    titles = [box.title for box in viz.draw([out, out * 2]).model.roots]
    assert titles == ["output 0", "output 1"]


def test_save_by_suffix_and_format(tmp_path):
    _, diagram = _chain()
    for suffix, text in [("svg", diagram.to_svg()), ("dot", diagram.to_dot()), ("gv", diagram.to_dot()),
                         ("txt", diagram.to_text())]:
        path = diagram.save(tmp_path / f"graph.{suffix}")
        assert path.read_text(encoding="utf-8").rstrip("\n") == text.rstrip("\n")
    diagram.save(tmp_path / "graph.out", format="dot")
    assert (tmp_path / "graph.out").read_text().startswith("digraph")
    namespace = run(ndgrad, PROGRAMS["seed_chain_rule"])
    viz.draw(namespace["out"], path=tmp_path / "drawn.svg")
    assert (tmp_path / "drawn.svg").read_text().startswith("<svg")
    with pytest.raises(ValueError, match="cannot tell the picture format"):
        diagram.save(tmp_path / "graph")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_save_png_and_pdf_through_graphviz(tmp_path):
    pytest.importorskip("graphviz")
    _, diagram = _chain()
    assert diagram.save(tmp_path / "graph.png").read_bytes().startswith(b"\x89PNG")
    assert diagram.save(tmp_path / "graph.pdf").read_bytes().startswith(b"%PDF")


def test_png_without_graphviz_says_what_to_install(tmp_path, monkeypatch):
    _, diagram = _chain()
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match=r"needs the graphviz Python package \(pip install graphviz\)"):
        diagram.save(tmp_path / "graph.png")


def test_png_without_the_dot_program_says_what_to_install(tmp_path, monkeypatch):
    pytest.importorskip("graphviz")
    _, diagram = _chain()
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="needs Graphviz's dot program on the PATH"):
        diagram.save(tmp_path / "graph.png")


def test_bad_arguments():
    namespace, _ = _chain()
    out = namespace["out"]
    with pytest.raises(TypeError, match="draw\\(\\) expects roots to be Tensors, but got int"):
        viz.draw([out, 3])
    with pytest.raises(TypeError, match="expects a Tensor, a list of Tensors or a dict of them, but got int"):
        viz.draw(3)
    with pytest.raises(ValueError, match="at least one root"):
        viz.draw([])
    with pytest.raises(ValueError, match="show_values must be 'auto', True or False, but got 'all'"):
        viz.draw(out, show_values="all")
    with pytest.raises(ValueError, match="pass path= too"):
        viz.draw(out, format="svg")
    with pytest.raises(ValueError, match="highlight: the tensor is not part of the drawn graph"):
        viz.draw(out, highlight=ndgrad.ones(1, requires_grad=True))


def test_colours_say_leaf_non_leaf_and_cut():
    namespace = run(ndgrad, PROGRAMS["leaf_and_no_grad_roots"])
    x, n = viz.draw(namespace["out"], params=namespace).model.boxes
    assert colours(x) == STYLES["leaf"] and colours(n) == CUT_STYLE  # a leaf drawn as a root is still a leaf
    namespace = run(ndgrad, PROGRAMS["seed_chain_rule"])
    out, _, z = viz.draw(namespace["out"], params=namespace).model.boxes[:3]
    assert colours(out) == STYLES["root"] and colours(z) == STYLES["intermediate"]


def test_draws_torch_tensors_too():
    namespace = run(torch, PROGRAMS["seed_chain_rule"])
    diagram = viz.draw(namespace["out"], params=namespace)
    assert diagram.to_text().splitlines()[0] == "out [] float32 (requires_grad, data=27.) → MeanBackward0"
