"""Write a GraphModel as Graphviz DOT text, with the same boxes, words and colours as the SVG, and render it to
PNG or PDF through the ``graphviz`` Python package and the ``dot`` program when those are installed."""

from ndgrad.viz.graph_model import MODULE, OP, VARIABLE
from ndgrad.viz.svg import EDGE, HIGHLIGHT, colours

__all__ = ["to_dot", "render"]


def _escaped(text):
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _quoted(text):
    return f'"{_escaped(text)}"'


def _label(box):
    """Title centred, then the lines left-justified (``\\l`` ends a left-justified line in DOT)."""
    return '"' + _escaped(box.title) + "\\n" + "".join(_escaped(line) + "\\l" for line in box.lines) + '"'


def _node(box):
    fill, stroke = colours(box)
    style = {OP: "filled", MODULE: "filled,rounded"}.get(box.kind, "filled,dashed")
    attributes = [f"label={_label(box)}", f'style="{style}"', f'fillcolor="{fill}"']
    attributes.append(f'color="{HIGHLIGHT}", penwidth=3' if box.highlighted else f'color="{stroke}"')
    if box.tooltip:
        attributes.append(f"tooltip={_quoted(box.tooltip)}")
    return f"  {box.id} [{', '.join(attributes)}];"


def _edge(edge):
    attributes = [f'color="{HIGHLIGHT}", penwidth=2.5' if edge.highlighted else f'color="{EDGE}"']
    if edge.kind == VARIABLE:
        attributes.append("style=dashed")
    return f"  {edge.source} -> {edge.target} [{', '.join(attributes)}];"


def to_dot(model, title="autograd graph"):
    """The picture as DOT text: one node statement per box, one edge statement per edge."""
    lines = [
        f"digraph {_quoted(title)} {{",
        "  rankdir=TB;",
        '  node [shape=box, fontname="DejaVu Sans Mono", fontsize=11];',
        "  edge [arrowsize=0.7];",
    ]
    lines += [_node(box) for box in model.boxes]
    lines += [_edge(edge) for edge in model.edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot_text, file_format):
    """Bytes of the picture in ``file_format`` (png, pdf, ...), made by Graphviz's ``dot`` program."""
    try:
        import graphviz
    except ImportError:
        raise ImportError(
            f"saving a .{file_format} picture needs the graphviz Python package (pip install graphviz) and "
            "Graphviz's dot program; .svg, .dot and .txt need neither"
        ) from None
    try:
        return graphviz.Source(dot_text).pipe(format=file_format)
    except graphviz.ExecutableNotFound:
        raise RuntimeError(
            f"saving a .{file_format} picture needs Graphviz's dot program on the PATH (the graphviz system "
            "package); .svg, .dot and .txt need neither"
        ) from None
