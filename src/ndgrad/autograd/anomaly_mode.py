"""Anomaly detection: remember where each node was made in the forward pass, and check backward for NaN."""

__all__ = ["is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class _AnomalyState:
    enabled = False  # global, as in PyTorch (not per thread)
    check_nan = True


def is_anomaly_enabled():
    return _AnomalyState.enabled


def is_anomaly_check_nan_enabled():
    return _AnomalyState.check_nan


def remember_forward(node):
    """Called by Op.apply for every recorded node while anomaly detection is on."""
