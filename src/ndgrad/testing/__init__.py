"""ndgrad.testing: torch.testing's assert_close, assert_allclose and make_tensor; and, for ndgrad's own tests (not
part of the PyTorch API), ``fake_cuda()``, which runs ndgrad on a stand-in GPU so CPU-only tests can check the
device layer."""

from ndgrad._device import use_cuda_backend
from ndgrad.testing import _fake_cuda
from ndgrad.testing._comparison import assert_allclose, assert_close
from ndgrad.testing._creation import make_tensor

__all__ = ["fake_cuda", "assert_close", "assert_allclose", "make_tensor"]


def fake_cuda():
    """Make the stand-in GPU (two devices, ``cuda:0`` and ``cuda:1``) the array library of cuda tensors.

    Use as ``with fake_cuda(): ...`` or keep the handle and call ``.restore()``.
    """
    return use_cuda_backend(_fake_cuda.namespace)
