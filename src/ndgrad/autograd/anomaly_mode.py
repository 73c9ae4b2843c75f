"""Anomaly detection: remember where each node was made in the forward pass, and check backward for NaN. With
``check_forward=True`` (ndgrad's addition) it also stops at the first recorded forward op that makes a NaN or Inf."""

import math
import threading
import traceback
from pathlib import Path

from ndgrad._argument_parser import parses
from ndgrad._fpstate import silenced
from ndgrad._warnings import warn
from ndgrad.autograd.provenance import Site, capture

__all__ = [
    "detect_anomaly", "set_detect_anomaly", "set_anomaly_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "is_anomaly_check_forward_enabled",
]

_PACKAGE = str(Path(__file__).resolve().parent.parent)  # frames inside ndgrad are not the user's forward call


class _AnomalyState:
    enabled = False  # global, as in PyTorch (not per thread)
    check_nan = True
    check_forward = False  # ndgrad's addition: stop at the forward op that makes the first NaN or Inf


def is_anomaly_enabled():
    """True while anomaly detection is on (see torch.is_anomaly_enabled)."""
    return _AnomalyState.enabled


def is_anomaly_check_nan_enabled():
    """True while anomaly detection also checks backward for NaN (see torch.is_anomaly_check_nan_enabled)."""
    return _AnomalyState.check_nan


def is_anomaly_check_forward_enabled():
    """True while anomaly detection also stops at the first forward op that makes a NaN or Inf (ndgrad only)."""
    return _AnomalyState.check_forward


@parses("set_anomaly_enabled(bool enabled, bool check_nan=True)")
def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly detection on or off (see torch.set_anomaly_enabled)."""
    _AnomalyState.enabled, _AnomalyState.check_nan = enabled, check_nan


def _set(enabled, check_nan, check_forward):
    set_anomaly_enabled(enabled, check_nan)  # by position, as PyTorch's context managers call it
    _AnomalyState.check_forward = bool(check_forward)


class detect_anomaly:
    """Context manager that turns anomaly detection on inside it (see torch.autograd.detect_anomaly).

    ``check_forward=True`` (not in PyTorch) also raises FloatingPointError at the first op recorded in the graph
    whose result has a NaN or Inf while its inputs had none, naming the user's line and the inputs' statistics.
    """

    def __init__(self, check_nan=True, check_forward=False):
        self.prev = is_anomaly_enabled()
        self.check_nan, self.check_forward = check_nan, check_forward
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        self.prev_check_forward = is_anomaly_check_forward_enabled()
        warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for "
            "debugging.",
        )

    def __enter__(self):
        _set(True, self.check_nan, self.check_forward)

    def __exit__(self, *exc_info):
        _set(self.prev, self.prev_check_nan, self.prev_check_forward)


class set_detect_anomaly:
    """Turn anomaly detection on or off, now; as a context manager, until its end (see
    torch.autograd.set_detect_anomaly); ``check_forward`` as for detect_anomaly."""

    def __init__(self, mode, check_nan=True, check_forward=False):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        self.prev_check_forward = is_anomaly_check_forward_enabled()
        _set(mode, check_nan, check_forward)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _set(self.prev, self.prev_check_nan, self.prev_check_forward)


_EVALUATING = threading.local()  # .node: the node the engine runs in this thread, for nodes backward creates


def remember_forward(node, inputs=(), outputs=()):
    """Called by Op.apply for every recorded node while anomaly detection is on: keep the user's stack, and the
    node whose backward created this one, if any; with check_forward, check the outputs (see check_forward)."""
    if _AnomalyState.check_forward and outputs:
        check_forward(node, inputs, outputs)
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_PACKAGE):
        frames.pop()
    node.metadata["traceback_"] = traceback.format_list(frames)
    parent = getattr(_EVALUATING, "node", None)
    if parent is not None:
        node.metadata["parent_"] = parent


def evaluating(node):
    """The engine says which node it runs now (only while anomaly detection is on)."""
    _EVALUATING.node = node


def check_nan(node, input_grads):
    """PyTorch's error if a node's backward returned NaN (anomaly mode with check_nan)."""
    for i, grad in enumerate(input_grads):
        if grad is not None and grad._data.dtype.kind in "fcV" and bool((grad._data != grad._data).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def warn_forward_trace(node):
    """The warning PyTorch gives when backward fails in a node: where the forward pass created it, and the nodes
    whose backward created it in turn."""
    metadata = node.__dict__.get("_metadata") or {}
    if "traceback_" not in metadata:
        warn(
            f"Error detected in {node.name()}. No forward pass information available. Enable detect anomaly during "
            "forward pass for more information.",
        )
        return
    stack = "".join(metadata["traceback_"])
    warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{stack}")
    parent = metadata.get("parent_")
    while parent is not None:  # one warning per node up the chain, as PyTorch gives them
        metadata = parent.__dict__.get("_metadata") or {}
        warn(
            f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call that induced the "
            f"previous calculation:\n{''.join(metadata.get('traceback_', ()))}",
        )
        parent = metadata.get("parent_")


# ---- check_forward: the first NaN or Inf of the forward pass ------------------------------------------------------
def check_forward(node, inputs, outputs):
    """Raise FloatingPointError if an output has a NaN or Inf that no input had: this op made it.

    An Inf handed in as a number (``masked_fill(mask, float("-inf"))``) counts as an input that had one.
    FloatingPointError, not RuntimeError: PyTorch raises nothing here, and Python's (and NumPy's) error for an
    invalid floating-point result says what happened.
    """
    bad = [(nr, out._data) for nr, out in enumerate(outputs) if not _all_finite(out._data)]
    if not bad:
        return
    numbers = [value for value in node.__dict__.values() if type(value) in (float, complex)]
    if not all(_all_finite(x._data if hasattr(x, "_data") else x) for x in (*inputs, *numbers)):
        return  # the NaN or Inf came in: an earlier op (or the caller) made it
    raise FloatingPointError(_first_nan_message(node, inputs, bad))


def _all_finite(value):
    if type(value) in (float, complex):
        return math.isfinite(abs(value))
    if not hasattr(value, "dtype") or value.dtype.kind not in "fcV":
        return True
    from ndgrad._device import namespace_of

    return bool(namespace_of(value).isfinite(value).all())


def _first_nan_message(node, inputs, bad):
    op = getattr(node, "op", None)
    name = f"{op.name} ({node.name()})" if op is not None and op.name else node.name()
    site = Site.from_raw(capture(2))
    where = f"at {site.short()}" if site is not None else "inside ndgrad"
    lines = [f"ndgrad: {name} made the first NaN/Inf of the forward pass, {where}"]
    if site is not None and site.source:
        lines.append(f"    {site.source}")
    lines.append("from inputs that had none (detect_anomaly(check_forward=True) stops at the first such op):")
    for nr, x in enumerate(inputs):
        lines.append(f"  input {nr}: {_statistics(x._data) if hasattr(x, '_data') else f'the number {x!r}'}")
    for nr, array in bad:
        label = "result" if len(bad) == 1 and nr == 0 else f"output {nr}"
        lines.append(f"  {label}: {_statistics(array)}")
    return "\n".join(lines)


@silenced  # the mean of huge finite values may overflow (see Note [floating-point error state])
def _statistics(array):
    """shape, dtype, min, max, mean, and how many elements are NaN, Inf, zero and negative."""
    from ndgrad._device import namespace_of
    from ndgrad._dtype import from_numpy_dtype

    xp = namespace_of(array)
    text = f"shape {list(array.shape)}, {from_numpy_dtype(array.dtype)}"
    if array.size == 0 or array.dtype.kind not in "fiubV":
        return text
    values = array.astype("float64")
    finite = values[xp.isfinite(values)]
    if finite.size:  # of the finite elements
        text += f", min {float(finite.min()):.4g}, max {float(finite.max()):.4g}, mean {float(finite.mean()):.4g}"
    counts = {
        "NaN": int(xp.isnan(values).sum()), "Inf": int(xp.isinf(values).sum()),
        "zeros": int((values == 0).sum()), "negatives": int((values < 0).sum()),
    }
    return text + "; " + ", ".join(f"{what} {count}" for what, count in counts.items()) + f" (of {array.size})"
