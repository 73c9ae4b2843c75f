"""A backward trace played on its diagram: an SVG whose SMIL animation highlights each step's boxes in turn with the
step's text as a caption (no script), and an HTML page that steps through the same frames with buttons."""

import json
from xml.sax.saxutils import escape, quoteattr

from ndgrad.viz.graph_model import MODULE, describe_nodes
from ndgrad.viz.layout import layout
from ndgrad.viz.svg import CHAR_WIDTH, FONT, HIGHLIGHT, LINE_HEIGHT, LINE_SIZE, PAD, box_size, to_svg

__all__ = ["animated_svg", "stepper_html", "STEP_SECONDS"]

STEP_SECONDS = 2.0  # how long each step stays on screen; one blank frame ends each loop
RECEIVING = "#d97706"  # the boxes a step sends gradients to (amber); the running box is HIGHLIGHT (red)
CAPTION_GAP = 12


def _frames(traced, params):
    """The diagram's SVG text, its size, and per step: (boxes to mark as (rect, colour), caption lines)."""
    from ndgrad.autograd.trace import FanIn, Labels, step_lines

    roots = list(dict.fromkeys((node, nr) for run in traced.runs for node, nr in run.roots))
    model = describe_nodes(roots, params)
    placed = layout({box.id: box_size(box) for box in model.boxes}, [(e.source, e.target) for e in model.edges])
    rect_of = {id(box.subject): placed.rects[box.id] for box in model.boxes if box.kind != MODULE}
    labels = Labels(traced, params)
    frames = []
    for step in traced.steps:
        if isinstance(step, FanIn):
            marks = [(step.node, RECEIVING), (step.source, HIGHLIGHT)]
        else:
            marks = [(step.node, HIGHLIGHT)] + [(flow.target, RECEIVING) for flow in step.grads_out if flow.target]
            if step.accumulation is not None:
                marks.append((step.accumulation.leaf, RECEIVING))
        boxes = [(rect_of[id(subject)], colour) for subject, colour in marks if id(subject) in rect_of]
        lines = step_lines(step, labels)
        lines[0] = f"step {step.index + 1} of {len(traced.steps)}: {lines[0].split('] ', 1)[1]}"
        frames.append((boxes, [line.strip() for line in lines]))
    return to_svg(model, title="backward trace"), placed, frames


def _visible_during(index, count):
    """SMIL that shows an element during step ``index`` of ``count`` and hides it the rest of the loop."""
    total = (count + 1) * STEP_SECONDS
    start, end = index * STEP_SECONDS / total, (index + 1) * STEP_SECONDS / total
    values, times = ("1;0", f"0;{end:.4f}") if index == 0 else ("0;1;0", f"0;{start:.4f};{end:.4f}")
    return (
        f'<animate attributeName="opacity" values="{values}" keyTimes="{times}" calcMode="discrete" '
        f'dur="{total:g}s" repeatCount="indefinite"/>'
    )


def _overlay(frames, top, animate):
    """The marks and captions of every step, hidden (opacity 0) until their step comes."""
    parts = ['<g class="trace-marks">']
    for index, (boxes, _) in enumerate(frames):
        timing = _visible_during(index, len(frames)) if animate else ""
        for (left, box_top, width, height), colour in boxes:
            parts.append(
                f'<rect class="trace-mark" data-step="{index}" x="{left - 3:.1f}" y="{box_top - 3:.1f}" '
                f'width="{width + 6:.1f}" height="{height + 6:.1f}" rx="6" fill="none" stroke="{colour}" '
                f'stroke-width="3" opacity="0">{timing}</rect>'
            )
    parts.append('</g><g class="trace-captions">')
    for index, (_, lines) in enumerate(frames):
        timing = _visible_during(index, len(frames)) if animate else ""
        parts.append(f'<g class="trace-caption" data-step="{index}" opacity="0">{timing}')
        baseline = top + PAD
        for number, line in enumerate(lines):
            baseline += LINE_SIZE * LINE_HEIGHT
            weight = ' font-weight="bold"' if number == 0 else ""
            parts.append(
                f'<text x="{PAD}" y="{baseline:.1f}" font-size="{LINE_SIZE}"{weight} xml:space="preserve">'
                f"{escape(line)}</text>"
            )
        parts.append("</g>")
    parts.append("</g>")
    return parts


def _document(traced, params, animate):
    diagram, placed, frames = _frames(traced, params)
    longest = max((len(line) for _, lines in frames for line in lines), default=0)
    rows = max((len(lines) for _, lines in frames), default=0)
    width = max(placed.width, longest * LINE_SIZE * CHAR_WIDTH + 2 * PAD)
    top = placed.height + CAPTION_GAP
    height = top + rows * LINE_SIZE * LINE_HEIGHT + 2 * PAD
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family={quoteattr(FONT)}>',
        "<title>backward trace</title>",
        '<rect width="100%" height="100%" fill="white"/>',
        diagram,
        f'<line x1="0" y1="{top - CAPTION_GAP / 2:.1f}" x2="{width:.1f}" y2="{top - CAPTION_GAP / 2:.1f}" '
        'stroke="#d1d5db"/>',
        *_overlay(frames, top, animate),
        "</svg>",
    ]
    return "\n".join(parts), [lines for _, lines in frames]


def animated_svg(traced, params=None):
    """The trace's diagram where the steps play in order, looping: see Trace.to_svg."""
    return _document(traced, params, animate=True)[0]


_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>backward trace</title>
<style>
body {{ font-family: {font}; margin: 1em; }}
button {{ font: inherit; margin-right: 0.5em; }}
pre {{ background: #f9fafb; border: 1px solid #e5e7eb; padding: 0.5em; }}
</style></head>
<body>
<div><button id="prev">Prev</button><button id="next">Next</button><button id="play">Play</button>
<span id="counter"></span></div>
<pre id="step-text"></pre>
{svg}
<script>
const texts = {texts};
let current = 0, timer = null;
function show(index) {{
  current = Math.max(0, Math.min(texts.length - 1, index));
  for (const mark of document.querySelectorAll("[data-step]")) {{
    mark.setAttribute("opacity", Number(mark.dataset.step) === current ? "1" : "0");
  }}
  document.getElementById("step-text").textContent = texts.length ? texts[current] : "(no steps)";
  document.getElementById("counter").textContent = texts.length ? `step ${{current + 1}} of ${{texts.length}}` : "";
}}
function stop() {{ clearInterval(timer); timer = null; document.getElementById("play").textContent = "Play"; }}
document.getElementById("prev").onclick = () => {{ stop(); show(current - 1); }};
document.getElementById("next").onclick = () => {{ stop(); show(current + 1); }};
document.getElementById("play").onclick = () => {{
  if (timer) {{ stop(); return; }}
  if (current >= texts.length - 1) show(0);
  document.getElementById("play").textContent = "Pause";
  timer = setInterval(() => {{ if (current >= texts.length - 1) stop(); else show(current + 1); }}, {milliseconds});
}};
show(0);
</script>
</body></html>
"""


def stepper_html(traced, params=None):
    """One self-contained page (no network): the diagram, Prev / Next / Play, and each step's text."""
    svg, texts = _document(traced, params, animate=False)
    # "</" never appears inside the script's JSON, so no text can close the script element early
    encoded = json.dumps(["\n".join(lines) for lines in texts], ensure_ascii=False).replace("</", "<\\/")
    return _PAGE.format(font=FONT, svg=svg, texts=encoded, milliseconds=int(STEP_SECONDS * 1000))
