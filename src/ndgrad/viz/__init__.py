"""Pictures of the dynamic graph: ``draw(out)`` shows the tensors, the backward nodes between them and what they
saved, as an SVG, Graphviz DOT text or a text tree; ``record_modules(model)`` lets it draw one box per layer."""

import os

from ndgrad.viz.dot import render, to_dot
from ndgrad.viz.graph_model import GraphModel, describe
from ndgrad.viz.labels import Options
from ndgrad.viz.modules import record_modules
from ndgrad.viz.svg import to_svg
from ndgrad.viz.text import to_text

__all__ = ["draw", "Diagram", "record_modules"]

_WRITERS = {"svg": to_svg, "dot": to_dot, "gv": to_dot, "txt": to_text, "text": to_text}


class Diagram:
    """A drawn graph: ``to_svg()``, ``to_dot()``, ``to_text()`` (also ``str()``), ``save(path)``, and inline display
    in Jupyter. ``model`` is the plain description (boxes and edges) that all three are made from, a snapshot of the
    graph when draw() ran: draw again after backward() to see the gradients."""

    def __init__(self, model: GraphModel):
        self.model = model
        self._svg = None

    def to_svg(self):
        if self._svg is None:
            self._svg = to_svg(self.model)
        return self._svg

    def to_dot(self):
        return to_dot(self.model)

    def to_text(self):
        return to_text(self.model)

    def save(self, path, format=None):
        """Write the picture; the format comes from the suffix (.svg, .dot, .gv, .txt, or .png/.pdf/... through
        Graphviz's dot program) unless ``format`` names it."""
        file_format = (format or os.path.splitext(os.fspath(path))[1].lstrip(".")).lower()
        if not file_format:
            raise ValueError(f"cannot tell the picture format of {os.fspath(path)!r}: give it a suffix or format=")
        writer = _WRITERS.get(file_format)
        if writer is not None:
            text = self.to_svg() if writer is to_svg else writer(self.model)
            with open(path, "w", encoding="utf-8") as file:
                file.write(text if text.endswith("\n") else text + "\n")
        else:
            data = render(self.to_dot(), file_format)
            with open(path, "wb") as file:
                file.write(data)
        return path

    def _repr_svg_(self):
        return self.to_svg()

    def _repr_html_(self):
        return self.to_svg()

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return f"<Diagram: {len(self.model.boxes)} boxes, {len(self.model.edges)} edges>"


def draw(roots, *, params=None, show_saved=True, show_values="auto", shapes_only=False, highlight=None,
         collapse_modules=False, path=None, format=None):
    """Draw the autograd graph behind ``roots`` (a tensor, a sequence of them, or a dict name -> tensor).

    ``params`` names tensors (a dict such as ``dict(model.named_parameters())`` or ``locals()``: values that are not
    tensors are skipped); named leaves and intermediates get their names in the picture. ``show_values`` prints
    values of tensors with at most 10 elements ("auto"), of all (True) or none (False); ``shapes_only`` shows only
    names and shapes. ``highlight`` (a tensor or several) marks the paths from the roots to it.
    ``collapse_modules`` draws one box per module call recorded by ``record_modules``. ``path`` also saves the
    picture there, in ``format`` (default: from the suffix). Returns a Diagram.
    """
    if show_values not in ("auto", True, False):
        raise ValueError(f"show_values must be 'auto', True or False, but got {show_values!r}")
    if format is not None and path is None:
        raise ValueError("format= is the format of the file written to path=: pass path= too")
    options = Options(show_saved=show_saved, show_values=show_values, shapes_only=shapes_only)
    diagram = Diagram(describe(roots, params, options=options, highlight=highlight, collapse_modules=collapse_modules))
    if path is not None:
        diagram.save(path, format)
    return diagram
