"""Write a GraphModel as a Unicode tree for the terminal. A tensor and the node that made it share a line
(``z → MulBackward0 → MulBackward0``) up to a branch or a named tensor, which go on in the next line; a box
reached twice is printed once, numbered, and referred to by its number after that."""

from ndgrad.viz.graph_model import NEXT, OP, TENSOR

__all__ = ["to_text"]

BRANCH, LAST, PIPE, SPACE = "├── ", "└── ", "│   ", "    "
WORDS_PER_LINE = 6  # a longer chain goes on in the next line


def _joins_line(edge, boxes):
    """A box's only follower shares its line, unless it is a tensor some node feeds (a tensor starts a line)."""
    return edge.kind != NEXT or boxes[edge.target].kind != TENSOR



def to_text(model):
    """The tree, roots at the left margin; a chain stays in one column, so a long chain does not drift right."""
    leaving, reached = {}, {}
    for edge in model.edges:
        leaving.setdefault(edge.source, []).append(edge)
        reached[edge.target] = reached.get(edge.target, 0) + 1
    boxes = {box.id: box for box in model.boxes}
    tops = [box.id for box in model.boxes if box.role == "root" or box.id not in reached]
    for box_id in tops:
        reached[box_id] = reached.get(box_id, 0) + 1
    numbers, lines = {}, []
    pending = [(box_id, "", "") for box_id in reversed(tops)]  # (box, prefix of this line, prefix of children)
    while pending:
        box_id, prefix, child_prefix = pending.pop()
        words, children, previous_site = [], [], None
        while True:
            if box_id in numbers:  # printed before: refer to it
                words.append(f"{boxes[box_id].title} #{numbers[box_id]} (shown above)")
                break
            box = boxes[box_id]
            site = box.summary[len(box.title):] if box.kind == OP else None  # " (file.py:12)" or ""
            # a run of nodes made on one line (y = x * 2 + 1) names the line once, at its first node
            words.append(box.title if site and site == previous_site else box.summary)
            previous_site = site
            if reached[box_id] > 1:
                numbers[box_id] = len(numbers) + 1
                words[-1] += f" #{numbers[box_id]}"
            out = leaving.get(box_id, [])
            if len(out) == 1 and len(words) < WORDS_PER_LINE and _joins_line(out[0], boxes):
                box_id = out[0].target
                continue
            children = [edge.target for edge in out]
            break
        lines.append(prefix + " → ".join(words))
        if len(children) == 1:
            pending.append((children[0], child_prefix, child_prefix))
            continue
        for index, child in reversed(list(enumerate(children))):
            last = index == len(children) - 1
            pending.append((child, child_prefix + (LAST if last else BRANCH), child_prefix + (SPACE if last else PIPE)))
    return "\n".join(lines)
