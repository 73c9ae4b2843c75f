"""Test support for ndgrad itself: ``fake_cuda()`` runs ndgrad on a stand-in GPU so CPU-only tests can check the
device layer (no op may hand device data to NumPy). Not part of the PyTorch API."""

from ndgrad._device import use_cuda_backend
from ndgrad.testing import _fake_cuda

__all__ = ["fake_cuda"]


def fake_cuda():
    """Make the stand-in GPU (two devices, ``cuda:0`` and ``cuda:1``) the array library of cuda tensors.

    Use as ``with fake_cuda(): ...`` or keep the handle and call ``.restore()``.
    """
    return use_cuda_backend(_fake_cuda.namespace)
