"""How this ndgrad is built, as ``torch.__config__.show()`` says it for torch: which core runs (the compiled one or
pure Python, see Note [compiled core] in ndgrad._core) and the versions it runs on."""

import platform

import numpy as np

from ndgrad import _core

__all__ = ["show", "CORE"]

CORE = _core.CORE  # "compiled" or "python"


def show():
    """A few lines saying how ndgrad is built and why its core is the one loaded."""
    core = "compiled by Cython" if CORE == "compiled" else "pure Python"
    return (
        f"ndgrad built with:\n"
        f"  - Core: {core}: {_core.why}\n"
        f"  - Python {platform.python_version()} ({platform.python_implementation()})\n"
        f"  - NumPy {np.__version__}\n"
    )
