"""ndgrad.backends.openmp: whether ndgrad was built with OpenMP (see torch.backends.openmp). Its kernels are
NumPy's, which brings its own BLAS threads (see ndgrad.set_num_threads), so no."""

__all__ = ["is_available"]


def is_available():
    return False
