"""How many threads ndgrad computes with (see torch.set_num_threads). ndgrad's kernels are NumPy's, whose threads
are its BLAS library's: threadpoolctl (optional) sets and reads them; without it, the number asked for is kept and
reported, and NumPy's BLAS keeps the threads it started with."""

import os

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads"]


class _State:
    num_threads = None  # asked for, where threadpoolctl cannot apply it
    interop_threads = None  # set once, as torch allows


def _controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    blas = ThreadpoolController().select(user_api="blas")
    return blas if blas.lib_controllers else None


def _check_count(function, count):
    if isinstance(count, bool) or not isinstance(count, int):
        raise RuntimeError(f"{function} expects an int, but got {type(count).__name__}")
    if count <= 0:
        raise RuntimeError(f"{function} expects a positive integer")


def set_num_threads(int):  # noqa: A002 - torch's parameter name
    """Use ``int`` threads in the BLAS library behind NumPy's matmuls (see torch.set_num_threads)."""
    _check_count("set_num_threads", int)
    blas = _controller()
    if blas is not None:
        blas.limit(limits=int)
    _State.num_threads = int


def get_num_threads():
    blas = _controller()
    if blas is not None:
        return max(library.num_threads for library in blas.lib_controllers)
    return _State.num_threads or os.cpu_count()


def set_num_interop_threads(int):  # noqa: A002 - torch's parameter name
    """Kept for torch's API: ndgrad runs ops one after another, with no pool of threads between them."""
    _check_count("set_num_interop_threads", int)
    if _State.interop_threads is not None:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or set_num_interop_threads "
            "called"
        )
    _State.interop_threads = int


def get_num_interop_threads():
    return _State.interop_threads or os.cpu_count()
