"""On a real GPU (CuPy and CUDA present; skipped elsewhere): tensors live in GPU memory, the op table's first cases
give the cpu's values and gradients, training runs there, and DLPack shares GPU memory with CuPy and PyTorch."""

import numpy as np
import pytest
import torch
from tests.device.test_op_table import device_cases, host_values, run

import ndgrad

pytestmark = pytest.mark.skipif(
    not ndgrad.cuda.is_available(), reason="needs CuPy and a CUDA GPU (ndgrad.cuda.is_available() is False)"
)


def in_gpu_memory(tensor):
    import cupy

    return isinstance(tensor._data, cupy.ndarray)


def test_op_table_on_the_gpu_matches_cpu():
    for param in device_cases():
        op, case = param.values
        try:
            expected = run(case, "cpu")
        except Exception as error:  # noqa: BLE001 - the cpu's refusal must be the GPU's too
            with pytest.raises(type(error)):
                run(case, "cuda")
            continue
        got = run(case, "cuda")
        for ours, theirs in zip((*got[0], *got[1]), (*expected[0], *expected[1])):
            assert (ours is None) == (theirs is None), f"{param.id}"
            if isinstance(ours, ndgrad.Tensor):
                assert in_gpu_memory(ours) and ours.dtype is theirs.dtype, f"{param.id}"
                np.testing.assert_allclose(host_values(ours), host_values(theirs), rtol=1e-7, atol=1e-9,
                                           err_msg=param.id)


def test_training_step_on_the_gpu():
    ndgrad.manual_seed(0)
    model = ndgrad.nn.Sequential(ndgrad.nn.Linear(4, 8), ndgrad.nn.ReLU(), ndgrad.nn.Linear(8, 2)).cuda()
    optimizer = ndgrad.optim.Adam(model.parameters(), lr=0.01)
    x, target = ndgrad.randn(16, 4, device="cuda"), ndgrad.randint(0, 2, (16,), device="cuda")
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = ndgrad.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] and all(in_gpu_memory(p) and in_gpu_memory(p.grad) for p in model.parameters())
    ndgrad.cuda.synchronize()


def test_dlpack_shares_gpu_memory_with_cupy_and_torch():
    import cupy

    ours = ndgrad.arange(6.0, device="cuda")
    theirs = cupy.from_dlpack(ours)
    theirs[0] = 50
    assert ours[0].item() == 50.0 and ours.__dlpack_device__() == (2, 0)
    back = ndgrad.from_dlpack(cupy.arange(3.0))
    assert in_gpu_memory(back) and back.tolist() == [0.0, 1.0, 2.0]
    if torch.cuda.is_available():
        shared = torch.from_dlpack(ours)
        shared[1] = -1
        assert ours[1].item() == -1.0 and ndgrad.from_dlpack(shared).device == ndgrad.device("cuda:0")
