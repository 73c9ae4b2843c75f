"""ndgrad.backends.cudnn: cuDNN's switches, which scripts set on their first lines (see torch.backends.cudnn).

ndgrad calls no cuDNN (its GPU arrays are CuPy's), so is_available() is False and version() None, as on torch's
CPU build; the switches are kept and read back, and change nothing.
"""

import contextlib
import sys

from ndgrad.backends._flags import flag, flags_module

__all__ = ["is_available", "version", "is_acceptable", "flags"]

benchmark_limit = None  # torch's CPU build keeps it as a plain attribute, set to anything


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    """Whether cuDNN would take this tensor: never, as there is none."""
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Set the switches for a ``with`` block, and restore them after (see torch.backends.cudnn.flags);
    ``benchmark_limit`` is left as it is, as torch's CPU build leaves it."""
    module = sys.modules[__name__]
    wanted = {"enabled": enabled, "benchmark": benchmark, "deterministic": deterministic, "allow_tf32": allow_tf32}
    saved = {name: getattr(module, name) for name in wanted}
    for name, value in wanted.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


flags_module(
    __name__,
    enabled=flag("set_enabled_cudnn", True),
    benchmark=flag("set_benchmark_cudnn", False),
    deterministic=flag("set_deterministic_cudnn", False),
    allow_tf32=flag("set_allow_tf32_cublas", True),  # sic: torch 2.13's cudnn.allow_tf32 names cuBLAS's setter
)
