"""``ndgrad.explain(tensor, loss=None)``: why a tensor's ``.grad`` is None, or why it does not require grad,
answered from the graph and from the user's lines that made, cut or renamed it."""

import re

from ndgrad.autograd.hints import cut_lines, place, recent_cut_lines, say
from ndgrad.autograd.paths import leaves_reached, name_of, reaches
from ndgrad.autograd.provenance import origin_of, site_of

__all__ = ["explain", "Explanation"]

MAX_LEAVES = 6  # leaves listed when the loss does not reach the tensor


class Explanation:
    """explain()'s answer: ``reasons``, codes for programs ("non_leaf", "no_grad", "detached", "unreachable", ...),
    and ``lines``, the text for people, which str() and repr() (so a notebook cell) show."""

    __slots__ = ("reasons", "lines")

    def __init__(self, reasons, lines):
        self.reasons, self.lines = tuple(reasons), tuple(lines)

    def __str__(self):
        return "\n".join(self.lines)

    __repr__ = __str__


class _Answer:
    """The reasons and lines explain() collects: each reason is one bullet, with its extra lines indented."""

    def __init__(self, header):
        self.reasons, self.lines = [], [header]

    def add(self, code, text, more=()):
        self.reasons.append(code)
        self.lines.append(f"- {text}")
        self.lines.extend(f"  {line}" for line in more)


def explain(tensor, loss=None):
    """Why ``tensor.grad`` is None or why ``tensor`` does not require grad; with ``loss``, also whether backward
    from ``loss`` reaches it. Returns an Explanation (print it, or read its ``reasons``)."""
    from ndgrad._tensor import Tensor

    for argument, value in (("tensor", tensor), ("loss", loss)):
        if not isinstance(value, Tensor) and not (argument == "loss" and value is None):
            raise TypeError(f"explain(): argument '{argument}' must be Tensor, not {type(value).__name__}")
    name = name_of(tensor)
    answer = _Answer(_header(tensor, name))
    if not tensor.requires_grad:
        _why_not_required(tensor, answer)
    elif tensor._grad is not None:
        answer.add("has_grad", say("has_grad"))
    else:
        if tensor.grad_fn is not None and not tensor._retains_grad:
            answer.add("non_leaf", say("non_leaf", name=name or "tensor"))
            _why_non_leaf(tensor, name, answer)
        if loss is not None:
            _why_unreached(tensor, name, loss, answer)
        elif tensor.grad_fn is None or tensor._retains_grad:
            answer.add("no_backward_yet", say("no_backward_yet"))
    return Explanation(answer.reasons, answer.lines)


def _header(tensor, name):
    fields = {"name": name or "tensor", "dtype": str(tensor.dtype).rsplit(".", 1)[-1], "shape": list(tensor.shape)}
    if tensor.grad_fn is not None:
        return say("explain.made", node=tensor.grad_fn.name(), place=place(site_of(tensor.grad_fn)), **fields)
    requires = say("explain.requires" if tensor.requires_grad else "explain.no_requires")
    return say("explain.leaf", requires=requires, **fields)


def _why_not_required(tensor, answer):
    """Integer dtype, a cut (no_grad, detach, .data, integer cast) with its line, or never asked for."""
    origin = origin_of(tensor)
    how = origin[0] if origin is not None else None
    if how in ("no_grad", "inference_mode", "detach", "data", "integer cast"):
        code = {"detach": "detached", "data": "detached", "integer cast": "integer_dtype"}.get(how, how)
        answer.add(code, cut_lines(tensor)[0])
    elif not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        answer.add("integer_dtype", say("integer_dtype", dtype=tensor.dtype))
    else:
        answer.add("never_required", say("never_required"), recent_cut_lines())


def _why_non_leaf(tensor, name, answer):
    """A non-leaf that took a leaf's name (``x = x + 1``), or a leaf made on the same line (``randn(...,
    requires_grad=True) * 0.01``): say which leaf gets the gradient instead."""
    site = site_of(tensor.grad_fn)
    if site is None:
        return
    leaves = leaves_reached(tensor.grad_fn)
    if name is not None and _renames_itself(site.source, name):
        former = next((leaf for leaf in leaves if name_of(leaf) == name), None)
        leaf = say("rebound.leaf", place=place(origin_of(former)[1])) if former is not None else say("rebound.earlier")
        answer.add("rebound", say("rebound", source=site.source, name=name, leaf=leaf))
    elif any(_made_at(leaf) == site for leaf in leaves):
        answer.add("same_line_leaf", say("same_line_leaf"))


def _renames_itself(source, name):
    """``x = x + 1``: a plain assignment to ``name`` whose right-hand side reads ``name``."""
    target, equals, value = source.partition("=")
    if not equals or target.strip() != name or value.startswith("="):
        return False
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", value) is not None


def _made_at(leaf):
    origin = origin_of(leaf)
    return origin[1] if origin is not None else None


def _why_unreached(tensor, name, loss, answer):
    """Whether backward from ``loss`` reaches ``tensor``; if not, the leaves it does reach, and the latest cuts."""
    if not loss.requires_grad:
        answer.add("loss_without_graph", say("loss_without_graph"), cut_lines(loss))
        return
    chain = reaches(loss.grad_fn, tensor._edge()[0])
    if chain is not None:
        if tensor.grad_fn is None or tensor._retains_grad:
            answer.add("reachable", say("reachable", count=len(chain)))
        return
    leaves = [leaf for leaf in leaves_reached(loss.grad_fn) if leaf is not tensor]
    more = [_leaf_line(leaf) for leaf in leaves[:MAX_LEAVES]] or [say("unreachable.none")]
    namesake = next((leaf for leaf in leaves if name is not None and name_of(leaf) == name), None)
    if namesake is not None:
        more.append(say("unreachable.same_name", name=name, place=place(_made_at(namesake))))
    answer.add("unreachable", say("unreachable"), more + recent_cut_lines())


def _leaf_line(leaf):
    dtype = str(leaf.dtype).rsplit(".", 1)[-1]
    return f"  {name_of(leaf) or 'tensor'}: {dtype} {list(leaf.shape)}, {place(_made_at(leaf))}"
