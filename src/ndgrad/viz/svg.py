"""Draw a GraphModel as a self-contained SVG document: dashed boxes for tensors, solid boxes for backward nodes,
arrows the way gradients flow. Sizes come from the text (a monospace font), positions from layout.py."""

import unicodedata
from xml.sax.saxutils import escape, quoteattr

from ndgrad.viz.graph_model import MODULE, TENSOR, VARIABLE
from ndgrad.viz.layout import layout

__all__ = ["to_svg", "box_size", "colours"]

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
TITLE_SIZE, LINE_SIZE = 13, 11
CHAR_WIDTH = 0.6  # of the font size: the advance of one monospace character
LINE_HEIGHT = 1.35
PAD = 8
HIGHLIGHT = "#dc2626"
EDGE = "#4b5563"
# role -> (fill, stroke): leaves green, other tensors blue, nodes purple (as the seeds draw operations)
STYLES = {
    "leaf": ("#dcfce7", "#15803d"), "root": ("#dbeafe", "#1d4ed8"), "intermediate": ("#e0f2fe", "#0369a1"),
    "op": ("#ede9fe", "#6d28d9"), "accumulate": ("#f5f3ff", "#7c3aed"), "module": ("#ffedd5", "#c2410c"),
}
CUT_STYLE = ("#f3f4f6", "#6b7280")


def _text_width(text, size):
    """Width in pixels: East Asian wide characters (a Chinese name, say) take two columns."""
    columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return columns * size * CHAR_WIDTH


def box_size(box):
    width = max([_text_width(box.title, TITLE_SIZE)] + [_text_width(line, LINE_SIZE) for line in box.lines])
    height = TITLE_SIZE * LINE_HEIGHT + len(box.lines) * LINE_SIZE * LINE_HEIGHT
    return round(width + 2 * PAD, 1), round(height + 2 * PAD, 1)


def colours(box):
    """(fill, stroke) of a box: a leaf is green wherever it is drawn (a root too), a tensor cut from any graph grey."""
    if box.is_cut:
        return CUT_STYLE
    return STYLES["leaf" if box.kind == TENSOR and box.subject.is_leaf else box.role]


def _box(box, rect):
    left, top, width, height = rect
    fill, stroke = colours(box)
    stroke_width = 1.5
    if box.highlighted:
        stroke, stroke_width = HIGHLIGHT, 3
    dash = ' stroke-dasharray="6 4"' if box.kind == TENSOR else ""
    corner = 10 if box.kind == MODULE else 4
    classes = f"box {box.kind} {box.role}" + (" highlighted" if box.highlighted else "")
    parts = [f'<g class="{classes}" data-id="{box.id}">']
    if box.tooltip:
        parts.append(f"<title>{escape(box.tooltip)}</title>")
    parts.append(
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" height="{height:.1f}" rx="{corner}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="{stroke_width}"{dash}/>'
    )
    baseline = top + PAD + TITLE_SIZE
    parts.append(
        f'<text x="{left + width / 2:.1f}" y="{baseline:.1f}" text-anchor="middle" font-size="{TITLE_SIZE}" '
        f'font-weight="bold">{escape(box.title)}</text>'
    )
    for line in box.lines:
        baseline += LINE_SIZE * LINE_HEIGHT
        parts.append(
            f'<text x="{left + PAD:.1f}" y="{baseline:.1f}" font-size="{LINE_SIZE}" xml:space="preserve">'
            f"{escape(line)}</text>"
        )
    parts.append("</g>")
    return "".join(parts)


def _path(points):
    """Curves across the gaps between layers, straight lines through layers (see layout.Layout.routes)."""
    commands = [f"M{points[0][0]:.1f},{points[0][1]:.1f}"]
    for index in range(1, len(points)):
        (x0, y0), (x1, y1) = points[index - 1], points[index]
        if index % 2:  # between layers
            middle = (y0 + y1) / 2
            commands.append(f"C{x0:.1f},{middle:.1f} {x1:.1f},{middle:.1f} {x1:.1f},{y1:.1f}")
        else:
            commands.append(f"L{x1:.1f},{y1:.1f}")
    return " ".join(commands)


def _edge(edge, points):
    colour, width = (HIGHLIGHT, 2.5) if edge.highlighted else (EDGE, 1.3)
    marker = "ndgrad-arrow-hl" if edge.highlighted else "ndgrad-arrow"
    dash = ' stroke-dasharray="4 3"' if edge.kind == VARIABLE else ""
    classes = f"edge {edge.kind}" + (" highlighted" if edge.highlighted else "")
    return (
        f'<path class="{classes}" data-source="{edge.source}" data-target="{edge.target}" d="{_path(points)}" '
        f'fill="none" stroke="{colour}" stroke-width="{width}"{dash} marker-end="url(#{marker})"/>'
    )


def _marker(marker_id, colour):
    return (
        f'<marker id="{marker_id}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
    )


def to_svg(model, title="autograd graph"):
    """The whole picture as SVG text."""
    placed = layout({box.id: box_size(box) for box in model.boxes}, [(e.source, e.target) for e in model.edges])
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{placed.width:.0f}" height="{placed.height:.0f}" '
        f'viewBox="0 0 {placed.width:.1f} {placed.height:.1f}" font-family={quoteattr(FONT)}>',
        f"<title>{escape(title)}</title>",
        f"<defs>{_marker('ndgrad-arrow', EDGE)}{_marker('ndgrad-arrow-hl', HIGHLIGHT)}</defs>",
        '<rect width="100%" height="100%" fill="white"/>',
        '<g class="edges">',
    ]
    parts += [_edge(edge, route) for edge, route in zip(model.edges, placed.routes) if route is not None]
    parts.append('</g><g class="boxes">')
    parts += [_box(box, placed.rects[box.id]) for box in model.boxes]
    parts.append("</g></svg>")
    return "\n".join(parts)
