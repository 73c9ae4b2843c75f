"""The training demo reaches what the README promises: at least 97% test accuracy, curves written as a PNG, and a
picture of each model's graph with one box per layer."""

import xml.etree.ElementTree as ElementTree

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")

from ndgrad.__main__ import main  # noqa: E402
from ndgrad.demo import digits  # noqa: E402


def mean(values):
    return sum(values) / len(values)


def layer_boxes(svg_path):
    """The titles of the module boxes in a drawn graph (the SVG must parse)."""
    root = ElementTree.parse(svg_path).getroot()
    boxes = [group for group in root.iter() if group.get("class", "").startswith("box module")]
    return sorted(next(text.text for text in box.iter() if text.tag.endswith("text")) for box in boxes)


def expected_layers(name, skip_first=False):
    """One box per layer of the model: ``index (Type)``, as record_modules names a Sequential's layers."""
    layers = [f"{index} ({type(layer).__name__})" for index, layer in enumerate(digits.make_model(name))]
    return sorted(layers[1:] if skip_first else layers)


def test_mlp_reaches_97_percent_and_writes_the_curves(tmp_path, capsys):
    losses, accuracies = digits.run(("mlp",), out=tmp_path, progress=False)["mlp"]
    assert accuracies[-1] >= 0.97
    assert mean(losses[-20:]) < mean(losses[:20]) / 10
    png = tmp_path / "loss_curves.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert str(png.resolve()) in out
    svg = tmp_path / "mlp_graph.svg"
    assert f"graph of one training batch written to {svg.resolve()}" in out
    # the MLP's first layer, Flatten, only reshapes the images, which need no gradient: it records no node
    assert layer_boxes(svg) == expected_layers("mlp", skip_first=True)


def test_cnn_learns_in_one_epoch(tmp_path):
    losses, accuracies = digits.run(("cnn",), epochs=1, out=tmp_path, progress=False)["cnn"]
    assert accuracies[-1] > 0.8 and mean(losses[-5:]) < mean(losses[:5])
    assert layer_boxes(tmp_path / "cnn_graph.svg") == expected_layers("cnn")


def test_command_line(tmp_path, capsys):
    assert main(["demo", "--model", "mlp", "--epochs", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    assert "mlp epoch  1/1" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["demo", "--model", "resnet"])
    assert "invalid choice: 'resnet'" in capsys.readouterr().err


def test_tour_prints_the_seed_examples(capsys):
    assert main(["tour"]) == 0
    out = capsys.readouterr().out
    assert "grad_fn=<MeanBackward0>" in out and "tensor([[4.5000, 4.5000]," in out
