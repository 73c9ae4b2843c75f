"""ndgrad.multiprocessing: Python's multiprocessing, with tensors that travel to other processes by shared memory
(see torch.multiprocessing). Import it instead of ``multiprocessing``; Process, Queue, Pool and the rest are the
standard library's, and the pickler they share sends a tensor as a handle on its memory (see .reductions)."""

import multiprocessing
from multiprocessing import *  # noqa: F403  (the standard library's API, as torch.multiprocessing re-exports it)

from ndgrad.multiprocessing.reductions import init_reductions
from ndgrad.multiprocessing.spawn import (  # noqa: F401  (torch's names, though not in its __all__)
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", *multiprocessing.__all__]

# torch's file_descriptor strategy (its default on Linux) is the one ndgrad has: a shared tensor's memory is a file
# without a name, and its descriptor is what travels; torch's file_system strategy (named files) is not implemented.
_ALL_SHARING_STRATEGIES = {"file_descriptor"}


class _Sharing:
    strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Choose how cpu tensors are shared (see torch.multiprocessing.set_sharing_strategy)."""
    if new_strategy not in _ALL_SHARING_STRATEGIES:
        raise AssertionError(
            f"invalid sharing strategy {new_strategy!r}, expected one of {_ALL_SHARING_STRATEGIES}"
        )
    _Sharing.strategy = new_strategy


def get_sharing_strategy():
    return _Sharing.strategy


def get_all_sharing_strategies():
    return _ALL_SHARING_STRATEGIES


init_reductions()
