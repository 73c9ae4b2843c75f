"""Warnings pointed at the user's line: the first frame outside ndgrad, however deep inside ndgrad the warning is
raised (a public function runs behind its argument parser, so no fixed ``stacklevel`` would be right)."""

import sys
import warnings

__all__ = ["warn"]


def warn(message, category=UserWarning):
    """``warnings.warn``, attributed to the first frame outside ndgrad (as provenance tells ndgrad's frames)."""
    from ndgrad.autograd.provenance import is_internal_file  # the autograd package imports modules that warn

    frame, level = sys._getframe(1), 2  # level 2: warn's caller, as warnings.warn counts from here
    while frame is not None and is_internal_file(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
