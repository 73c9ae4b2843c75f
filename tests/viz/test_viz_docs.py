"""docs/make_images.py runs, and the pictures committed under docs/images/ still show what it draws: the same
boxes (kind and title) and the same edges. After a change, regenerate them: python docs/make_images.py"""

import importlib.util
import pathlib
import xml.etree.ElementTree as ElementTree

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
SVG = "{http://www.w3.org/2000/svg}"


def _make_images():
    spec = importlib.util.spec_from_file_location("make_images", DOCS / "make_images.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _structure(path):
    root = ElementTree.parse(path).getroot()
    boxes = [
        (group.get("class"), group.find(f"{SVG}text").text)
        for group in root.iter(f"{SVG}g") if group.get("class", "").split()[:1] == ["box"]
    ]
    edges = [
        (path.get("class"), path.get("data-source"), path.get("data-target"))
        for path in root.iter(f"{SVG}path") if path.get("class", "").split()[:1] == ["edge"]
    ]
    captions = [  # a traced backward pass: each step's text, in the order the animation plays them
        [text.text for text in group.iter(f"{SVG}text")]
        for group in root.iter(f"{SVG}g") if group.get("class") == "trace-caption"
    ]
    return boxes, edges, captions


def test_committed_pictures_match_what_the_script_draws(tmp_path, capsys):
    _make_images().main(tmp_path)
    drawn = sorted(path.name for path in tmp_path.glob("*.svg"))
    assert drawn == sorted(path.name for path in (DOCS / "images").glob("*.svg"))
    for name in drawn:
        assert _structure(tmp_path / name) == _structure(DOCS / "images" / name), (
            f"docs/images/{name} is out of date: run python docs/make_images.py"
        )


def test_every_picture_is_shown_in_the_guide():
    for path in (DOCS / "images").glob("*.svg"):
        guide = "tracing.md" if path.name.startswith("trace_") else "graphs.md"
        assert f"images/{path.name}" in (DOCS / guide).read_text(encoding="utf-8")


@pytest.mark.parametrize("example", ["chain_rule", "vector_jacobian", "detach"])
def test_seed_examples_have_before_and_after_pictures(example):
    names = [name for name, _ in _make_images().pictures()]
    assert f"{example}_before" in names and f"{example}_after" in names
