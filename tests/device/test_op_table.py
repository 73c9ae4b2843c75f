"""The op table a second time, on the stand-in GPU (see ndgrad.testing): for the first cases of every op, the values
and first derivatives computed on "cuda" equal those computed on the cpu (which tests/ops compares with torch), and
every result and gradient is a device tensor. An op that hands device data to NumPy fails here with a TypeError.

The device run makes "cuda" the default device while the case's call runs, so tensors a case builds inside its call
land there too; backward runs with the cpu as default device, so a rule that builds a constant without ``device=``
mixes devices and fails."""

import re

import numpy as np
import pytest
from tests.ops.samples import first, random_like, samples_for

import ndgrad
from ndgrad.ops import OP_TABLE
from ndgrad.testing import _fake_cuda, fake_cuda

CASES_PER_OP = 2  # the first real cases; plus the first complex one, where the op has complex samples


def device_cases():
    params = []
    for op in OP_TABLE:
        cases = samples_for(op)
        chosen = cases[:CASES_PER_OP] + [c for c in cases[CASES_PER_OP:] if c.is_complex][:1]
        params += [pytest.param(op, case, id=f"{op.__name__}-{i}") for i, case in enumerate(chosen)]
    return params


def outputs(result):
    return tuple(result) if isinstance(result, tuple) else (result,)


def run(case, device):
    """The case's outputs on ``device``, and the gradients of its first output for a fixed cotangent."""
    ndgrad.manual_seed(0)  # random ops draw the same numbers on both devices
    inputs = tuple(t.detach().to(device).requires_grad_(t.requires_grad) for t in case.tensors(ndgrad, np.float64))
    ndgrad.set_default_device(device)
    try:
        result = case.run(ndgrad, inputs)
    finally:
        ndgrad.set_default_device(None)
    out = first(result)
    if not out.requires_grad:
        return outputs(result), ()
    cotangent = random_like(np.random.default_rng(1), tuple(out.shape), str(out.dtype))
    cotangent = ndgrad.tensor(cotangent, dtype=out.dtype, device=out.device)
    grads = ndgrad.autograd.grad(out, case.differentiable(inputs), cotangent, allow_unused=True)
    return outputs(result), grads


def host_values(tensor):
    """The values as a NumPy array; a device tensor's read through the stand-in's own copy to the host."""
    data = tensor.detach().resolve_conj()._data
    return data if isinstance(data, np.ndarray) else data.get()


@pytest.mark.parametrize("op, case", device_cases())
def test_op_on_device_matches_cpu(op, case):
    try:
        expected_outputs, expected_grads = run(case, "cpu")
    except Exception as error:  # noqa: BLE001 - a refusal on the cpu must be the same refusal on the device
        with fake_cuda(), pytest.raises(type(error), match=re.escape(str(error))):
            run(case, "cuda")
        return
    with fake_cuda():
        got_outputs, got_grads = run(case, "cuda")
    for kind, got, expected in (("output", got_outputs, expected_outputs), ("gradient", got_grads, expected_grads)):
        assert len(got) == len(expected)
        for index, (ours, theirs) in enumerate(zip(got, expected)):
            assert (ours is None) == (theirs is None), f"{kind} {index}: {ours!r} vs {theirs!r}"
            if ours is None or not isinstance(theirs, ndgrad.Tensor):
                continue
            assert type(ours._data) is _fake_cuda.ndarray, f"{kind} {index} is on {ours.device}, not on the GPU"
            assert ours.dtype is theirs.dtype and ours.shape == theirs.shape
            np.testing.assert_allclose(host_values(ours), host_values(theirs), rtol=1e-10, atol=1e-12,
                                       err_msg=f"{kind} {index}")
