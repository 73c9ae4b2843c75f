"""Where the user made each node: the file, line, source text and variable name behind every grad_fn.

Recording must be nearly free, because it runs for every recorded op: a node keeps only the code object and
line number of the first frame outside ndgrad (a dict lookup per frame walked). Everything readable (the
source text, the variable it was assigned to) is worked out only when someone asks, by ``site_of``.
The same raw sites mark where a tensor left the graph (detach, no_grad, an integer cast) and where an in-place
op last bumped a version counter, for explain() and the hints after errors.
"""

import linecache
import re
import threading
from pathlib import Path
from sys import _getframe

from ndgrad._shared import keep

__all__ = ["Site", "site_of", "origin_of", "last_write_of", "set_provenance_enabled", "is_provenance_enabled"]

_PACKAGE = str(Path(__file__).resolve().parent.parent)  # frames inside ndgrad are not where the user made it
_DEMO = str(Path(_PACKAGE) / "demo")  # except the demo's, which is written as a user would write it
_INTERNAL, _EXTERNAL = set(), set()  # co_filenames seen so far: ndgrad's own, and the user's
_SITES = {}  # each raw site once (see Note [shared records] in ndgrad._shared)
_COMPILED = not __file__.endswith(".py")  # see capture


class _State:
    enabled = True  # global: sites are cheap enough to keep on by default (see bench/README.md)


class _Backward(threading.local):
    depth = 0  # backward passes running in this thread (the engine counts them): their rules' results are no cuts


BACKWARD = _Backward()


def set_provenance_enabled(mode):
    """Turn the recording of creation sites on or off (on by default)."""
    _State.enabled = bool(mode)


def is_provenance_enabled():
    return _State.enabled


def capture(depth=2):
    """The raw site (code object, bytecode offset) of the innermost frame that is not ndgrad's, or None.

    This runs for every recorded op, so the walk is the cheapest loop found: one set test per frame, and the
    line number is looked up from the offset only when someone asks (``Site.from_raw``). ``depth`` frames (the
    caller's and ndgrad's above it) are skipped unread, so the walk does not make frame objects of them; in the
    compiled core (see Note [compiled core] in ndgrad._core) those functions have no frames, and the walk starts
    at the innermost Python frame.
    """
    frame = _getframe(0 if _COMPILED else depth)
    internal, external = _INTERNAL, _EXTERNAL
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        if filename in external or (filename not in internal and not is_internal_file(filename)):
            # shared (see Note [shared records] in ndgrad._shared) under the code's identity: code objects compare
            # by content, and two files can hold equal ones
            key = (id(code), frame.f_lasti)
            return _SITES.get(key) or keep(_SITES, (code, key[1]), key)
        frame = frame.f_back
    return None


def is_internal_file(filename):
    """Whether a frame of this file is ndgrad's, not the user's (the demo's count as the user's). Each file is
    classified once: ndgrad's own join _INTERNAL, the user's _EXTERNAL."""
    if filename in _EXTERNAL:
        return False
    if filename.startswith(_PACKAGE) and not filename.startswith(_DEMO):
        _INTERNAL.add(filename)
        return True
    _EXTERNAL.add(filename)
    return False


def _line_at(code, offset):
    """The source line of the instruction at this bytecode offset (what frame.f_lineno would have said)."""
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line
    return code.co_firstlineno


class Site:
    """A place in the user's code: ``filename``, ``lineno``, ``function``, and on demand the ``source`` line and
    the ``variable`` it assigns to (``y = x * 2`` -> ``"y"``; None when the line is not a plain assignment)."""

    __slots__ = ("filename", "lineno", "function")

    def __init__(self, filename, lineno, function):
        self.filename, self.lineno, self.function = filename, lineno, function

    @classmethod
    def from_raw(cls, raw):
        if raw is None:
            return None
        code, offset = raw
        return cls(code.co_filename, _line_at(code, offset), code.co_name)

    @property
    def source(self):
        return linecache.getline(self.filename, self.lineno).strip()

    @property
    def variable(self):
        return assigned_name(self.source)

    def short(self):
        """``file.py:12``: the file's name without its folder."""
        return f"{Path(self.filename).name}:{self.lineno}"

    def __str__(self):
        return f"{self.filename}:{self.lineno}"

    def __repr__(self):
        return f"Site({self.short()!r}, {self.source!r})"

    def __eq__(self, other):
        return isinstance(other, Site) and (self.filename, self.lineno) == (other.filename, other.lineno)

    def __hash__(self):
        return hash((self.filename, self.lineno))


_ASSIGNMENT = re.compile(r"^([A-Za-z_][\w.]*(?:\[[^\]]*\])?)\s*(?:[-+*/@%&|^]|//|\*\*)?=(?!=)")


def assigned_name(source):
    """The target of a one-target assignment statement (``loss = ...``, ``h += ...``, ``self.w = ...``), else None."""
    match = _ASSIGNMENT.match(source)
    return match.group(1) if match else None


def site_of(node):
    """Where the user's code created this grad_fn (a Site), or None (made inside ndgrad or while recording was
    off). AccumulateGrad answers with its leaf's creation site."""
    raw = getattr(node, "_site", None)
    if raw is None and hasattr(node, "variable"):
        origin = origin_of(node.variable)
        return origin[1] if origin is not None and origin[0] == "leaf" else None
    return Site.from_raw(raw)


def mark(tensor, how):
    """Remember on ``tensor`` how it came to be outside (or at the start of) the graph, and where: ``how`` is
    "leaf" (made to require grad), "detach", "no_grad", "inference_mode", "integer cast" or "data"."""
    # NOTE: not inside a backward: its rules run with grad off on inputs that require grad, but are no cut (and
    # skipping them saves a frame walk per rule)
    if _State.enabled and not BACKWARD.depth:
        site = capture(2)
        tensor._origin = (how, site)
        if how != "leaf":
            _remember_cut(how, site)


def origin_of(tensor):
    """(how, Site) recorded by ``mark`` for this tensor, or None."""
    origin = getattr(tensor, "_origin", None)
    if origin is None:
        return None
    return origin[0], Site.from_raw(origin[1])


def note_write(counter):
    """An in-place op bumped this version counter: remember the line (the counter is [version, raw site])."""
    if _State.enabled:
        site = capture(2)
        if len(counter) == 1:
            counter.append(site)
        else:
            counter[1] = site


def last_write_of(tensor):
    """(version, Site) of the last in-place write to this tensor's storage that was recorded, or None."""
    counter = tensor._version_counter
    if counter is None or len(counter) < 2 or counter[1] is None:
        return None
    return counter[0], Site.from_raw(counter[1])


# ---- recent cuts: where tensors left the graph, for the hint after "does not require grad" ---------------------
_MAX_CUTS = 8


class _Cuts(threading.local):
    """Per thread, as the error they explain: another thread's cuts (an optimizer's no_grad step) are not its."""

    def __init__(self):
        self.recent = {}  # (how, id(code), offset) -> raw site, oldest first: a loop's repeated cut takes one place


_CUTS = _Cuts()


def _remember_cut(how, site):
    if site is None:
        return
    recent = _CUTS.recent
    key = (how, id(site[0]), site[1])  # NOTE: id, not the code object: hashing a code object hashes its bytecode
    recent.pop(key, None)
    recent[key] = site  # the value keeps the code object, so its id stays unique
    if len(recent) > _MAX_CUTS:
        del recent[next(iter(recent))]


def note_cut(how):
    """A tensor that requires grad left the graph without a tensor to mark (``.item()`` gives a Python number)."""
    if _State.enabled:
        _remember_cut(how, capture(2))


def recent_cuts(limit=3):
    """The last ``limit`` places where a grad-requiring tensor left the graph: [(how, Site)], most recent first."""
    return [(key[0], Site.from_raw(site)) for key, site in reversed(list(_CUTS.recent.items())[-limit:])]
