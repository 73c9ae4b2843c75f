"""ndgrad.cuda's memory counters (see torch.cuda.memory). On a GPU they are CuPy's memory pool's; without one they
answer as torch's CPU build does: no memory in use (0), and no peak statistics to reset."""

from ndgrad import _device
from ndgrad._warnings import warn

__all__ = [
    "empty_cache", "memory_allocated", "memory_reserved", "max_memory_allocated", "max_memory_reserved",
    "reset_peak_memory_stats", "reset_max_memory_allocated",
]


def _pool():
    """CuPy's default memory pool, or None without a GPU (torch's CPU build answers then)."""
    from ndgrad import cuda

    return _device.cuda_backend().get_default_memory_pool() if cuda.is_available() else None


def empty_cache():
    """Give the pool's unused blocks back to the GPU (see torch.cuda.empty_cache)."""
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()


def memory_allocated(device=None):
    """Bytes that tensors hold on the GPU (see torch.cuda.memory_allocated)."""
    pool = _pool()
    return 0 if pool is None else pool.used_bytes()


def memory_reserved(device=None):
    """Bytes the pool holds from the GPU, in use or cached (see torch.cuda.memory_reserved)."""
    pool = _pool()
    return 0 if pool is None else pool.total_bytes()


def _no_peaks(pool):
    if pool is not None:
        raise NotImplementedError("CuPy's memory pool keeps no peak statistics: ndgrad cannot report or reset them")


def max_memory_allocated(device=None):
    _no_peaks(_pool())
    return 0


def max_memory_reserved(device=None):
    _no_peaks(_pool())
    return 0


def reset_peak_memory_stats(device=None):
    pool = _pool()
    _no_peaks(pool)
    raise AttributeError("module 'ndgrad._C' has no attribute '_cuda_resetPeakMemoryStats'")  # torch's CPU build


def reset_max_memory_allocated(device=None):
    warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets /all/ "
         "peak memory stats.", FutureWarning)
    reset_peak_memory_stats(device)
