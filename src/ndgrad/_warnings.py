"""Warnings pointed at the user's line: the first frame outside ndgrad, however deep inside ndgrad the warning is
raised (a public function runs behind its argument parser, so no fixed ``stacklevel`` would be right)."""

import sys
import warnings
from pathlib import Path

__all__ = ["warn"]

_PACKAGE = str(Path(__file__).resolve().parent)
_DEMO = str(Path(_PACKAGE) / "demo")  # the demo is written as a user would write it


def warn(message, category=UserWarning):
    """``warnings.warn``, attributed to the first frame outside ndgrad."""
    frame, level = sys._getframe(1), 2  # level 2: warn's caller, as warnings.warn counts from here
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE) and not (
        frame.f_code.co_filename.startswith(_DEMO)
    ):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
