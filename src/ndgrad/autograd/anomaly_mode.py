"""Anomaly detection: remember where each node was made in the forward pass, and check backward for NaN."""

import threading
import traceback
import warnings
from pathlib import Path

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_PACKAGE = str(Path(__file__).resolve().parent.parent)  # frames inside ndgrad are not the user's forward call


class _AnomalyState:
    enabled = False  # global, as in PyTorch (not per thread)
    check_nan = True


def is_anomaly_enabled():
    """True while anomaly detection is on (see torch.is_anomaly_enabled)."""
    return _AnomalyState.enabled


def is_anomaly_check_nan_enabled():
    """True while anomaly detection also checks backward for NaN (see torch.is_anomaly_check_nan_enabled)."""
    return _AnomalyState.check_nan


def _set(enabled, check_nan):
    _AnomalyState.enabled, _AnomalyState.check_nan = bool(enabled), bool(check_nan)


class detect_anomaly:
    """Context manager that turns anomaly detection on inside it (see torch.autograd.detect_anomaly)."""

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for "
            "debugging.",
            stacklevel=2,
        )

    def __enter__(self):
        _set(True, self.check_nan)

    def __exit__(self, *exc_info):
        _set(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off, now; as a context manager, until its end (see
    torch.autograd.set_detect_anomaly)."""

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        _set(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _set(self.prev, self.prev_check_nan)


_EVALUATING = threading.local()  # .node: the node the engine runs in this thread, for nodes backward creates


def remember_forward(node):
    """Called by Op.apply for every recorded node while anomaly detection is on: keep the user's stack, and the
    node whose backward created this one, if any."""
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
        if grad is not None and grad._data.dtype.kind in "fc" and bool((grad._data != grad._data).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def warn_forward_trace(node):
    """The warning PyTorch gives when backward fails in a node: where the forward pass created it, and the nodes
    whose backward created it in turn."""
    metadata = node.__dict__.get("_metadata") or {}
    if "traceback_" not in metadata:
        warnings.warn(
            f"Error detected in {node.name()}. No forward pass information available. Enable detect anomaly during "
            "forward pass for more information.",
            stacklevel=3,
        )
        return
    stack = "".join(metadata["traceback_"])
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{stack}",
                  stacklevel=3)
    parent = metadata.get("parent_")
    while parent is not None:  # one warning per node up the chain, as PyTorch gives them
        metadata = parent.__dict__.get("_metadata") or {}
        warnings.warn(
            f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call that induced the "
            f"previous calculation:\n{''.join(metadata.get('traceback_', ()))}",
            stacklevel=3,
        )
        parent = metadata.get("parent_")
