"""The graph-leak warning: a backward that reaches nodes made before the last optimizer step almost always means a
tensor with history was carried from one training iteration into the next (a loss summed for logging, an RNN's
hidden state not detached). The engine pays one comparison per node; the rest runs only when the warning fires,
after a backward that completed. A running total that is never backpropagated is caught where it grows: an
in-place op recorded onto a tensor whose history predates the last step (``total += loss``, see
``warn_if_carried``), one comparison per recorded in-place op.

Note [leak boundary]: the boundary is the *oldest* of the live optimizers' last steps, and an optimizer that has
not stepped yet means no boundary at all. With one optimizer that is simply the last step. A GAN's generator loss
legitimately reaches nodes made before the discriminator's step in the same iteration, but not nodes made before
the generator's own previous step. Backward passes are no boundary: two losses backpropagated one after the other
(retain_graph), a discriminator trained on ``fake.detach()`` before the generator's loss reaches ``fake``, and
double backward all reach nodes made before an earlier backward, on purpose. Old nodes that saved nothing (a view
of a parameter made once outside the loop) give correct gradients whenever they run, so they do not count. Each
thread has its own boundary, set by the steps it ran.
"""

import re
import threading
import weakref

from ndgrad._warnings import warn
from ndgrad.autograd.graph import _sequence
from ndgrad.autograd.provenance import Site, capture, site_of

__all__ = ["set_graph_leak_warning", "is_graph_leak_warning_enabled", "note_optimizer", "note_step", "leak_boundary",
           "saved_before_step", "warn_graph_leak", "warn_if_carried", "last_step_site"]

_NO_BOUNDARY = -1


class _Leaks:
    enabled = True


class _Steps(threading.local):
    """The boundary is per thread: a training loop carries history across its own steps. Another thread's step
    (two threads sharing one optimizer) falls in the middle of this thread's iteration and must not count."""

    def __init__(self):
        self.last = weakref.WeakKeyDictionary()  # optimizer -> (sequence number at its last step here, raw site)
        self.boundary = _NO_BOUNDARY  # nodes with a smaller sequence number were made before the boundary
        self.site = None  # the raw site of the step that set the boundary


_STEPS = _Steps()


def set_graph_leak_warning(mode):
    """Turn the warning about graphs that reach past the last optimizer step on or off (on by default)."""
    _Leaks.enabled = bool(mode)


def is_graph_leak_warning_enabled():
    return _Leaks.enabled


def note_optimizer(optimizer):
    """A new optimizer: until it steps, there is no boundary in this thread (see Note [leak boundary])."""
    steps = _STEPS
    steps.last[optimizer] = (_NO_BOUNDARY, None)
    steps.boundary, steps.site = _NO_BOUNDARY, None


def note_step(optimizer):
    """An optimizer finished a step: move this thread's boundary to the oldest live optimizer's last step here."""
    steps = _STEPS
    steps.last[optimizer] = (next(_sequence), capture(2))
    steps.boundary, steps.site = min(steps.last.values(), key=lambda step: step[0])


def last_step_site():
    """Where the user called the step that set this thread's boundary (a Site), or None."""
    return Site.from_raw(_STEPS.site)


def leak_boundary():
    """The sequence number before which nodes were made before this thread's last step, or None when there is
    nothing to check (the warning is off, or no optimizer stepped here)."""
    boundary = _STEPS.boundary
    return boundary if _Leaks.enabled and boundary > 0 else None


def saved_before_step(node):
    """The engine is about to run ``node``, made before the boundary: True if its gradient may be stale (it saved
    something from before the step). A node that saved nothing gives the right gradient whenever it runs."""
    saved = getattr(node, "_saved", ())
    return saved is None or any(item is not None for item in saved)


def warn_graph_leak(root_nodes):
    """The warning, once per backward, after the backward completed (an error it raised instead says more)."""
    warn(_message(root_nodes), UserWarning)


def warn_if_carried(tensor):
    """Op.apply_ recorded an in-place op onto ``tensor``. If the history it extends was made before this thread's
    last step, the tensor was carried across the step with its graph, and now chains this iteration's graph to
    all the earlier ones: ``total += loss`` kept for logging holds every iteration's graph alive, backpropagated
    or not. Gradient accumulation sums its losses between two steps, so it never gets here."""
    node = (tensor._base if tensor._base is not None else tensor).grad_fn
    if node is None or node._sequence_nr >= _STEPS.boundary or not _Leaks.enabled:
        return
    from ndgrad.autograd.hints import say, sentences  # hints reach the graph through saved tensors: import late

    site = Site.from_raw(capture(2))
    step = Site.from_raw(_STEPS.site)
    where = _quote(site) if site is not None else say("leak_this_op")
    text = sentences(say("leak_in_place", line=where, step=f" ({step.short()})" if step is not None else ""),
                     _advice(site, say))
    warn(text, UserWarning)


def _message(root_nodes):
    from ndgrad.autograd.hints import say, sentences  # hints reach the graph through saved tensors: import late

    newest, oldest = _old_nodes_with_sites(root_nodes)
    step = Site.from_raw(_STEPS.site)
    parts = [say("leak", step=f" ({step.short()})" if step is not None else "")]
    if newest is not None:
        carried = say("leak_carrier", newest=_quote(newest))
        if oldest is not None and oldest != newest:
            carried += say("leak_oldest", oldest=_quote(oldest))
        parts.append(carried + say("full_stop"))
    parts.append(_advice(newest, say))
    return sentences(*parts)


def _old_nodes_with_sites(root_nodes):
    """Sites of the newest and the oldest node made before the boundary that this graph reaches (None if unknown)."""
    boundary = _STEPS.boundary
    pending, seen = list(root_nodes), set()
    newest = oldest = None  # (sequence_nr, site)
    while pending:
        node = pending.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        sequence_nr = node._sequence_nr
        if sequence_nr < boundary:
            site = site_of(node)
            if site is not None:
                if newest is None or sequence_nr > newest[0]:
                    newest = (sequence_nr, site)
                if oldest is None or sequence_nr < oldest[0]:
                    oldest = (sequence_nr, site)
        pending.extend(next_node for next_node, _ in node.next_functions)
    return (newest and newest[1]), (oldest and oldest[1])


_ACCUMULATION = re.compile(r"^([A-Za-z_][\w.]*)\s*\+=\s*(.+)$")
_STORE = re.compile(r"^([A-Za-z_][\w.]*\[[^\]]*\])\s*=(?!=)\s*(.+)$")  # losses[step] = loss


def _advice(site, say):
    """What to change, told in the user's own names where the line says them."""
    source = site.source if site is not None else ""
    total = _ACCUMULATION.match(source)
    if total:
        return say("leak_total", total=total.group(1), term=_parenthesised(total.group(2)))
    store = _STORE.match(source)
    if store:
        return say("leak_store", target=store.group(1), term=_parenthesised(store.group(2)))
    variable = site.variable if site is not None else None
    if variable:
        return say("leak_state", variable=variable)
    return say("leak_generic")


def _parenthesised(expression):
    expression = expression.strip()
    return expression if re.fullmatch(r"[\w.]+", expression) else f"({expression})"


def _quote(site):
    source = re.sub(r"\s+#[^'\"]*$", "", site.source)  # without a trailing comment
    return f"`{source}` ({site.short()})" if source else site.short()
