"""ndgrad.backends: the switches and availability checks of the libraries torch can compute with (see
torch.backends). Each says honestly what ndgrad has: NumPy on the cpu, CuPy on a GPU, none of the others."""

from ndgrad.backends import cuda, cudnn, mkldnn, mps, openmp

__all__ = ["cuda", "cudnn", "mkldnn", "mps", "openmp"]
