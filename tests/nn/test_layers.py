"""Every layer against torch.nn: torch's freshly initialised weights are loaded into ours (load_state_dict), then
forward values, the gradients of inputs and parameters, the buffers after the step, and repr must all match,
in float32 and in float64 (the modules converted with .double())."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .layer_cases import ACTIVATIONS, CONSTANTS, LAYERS, LOSSES, sample_inputs


def skip_if_missing(case):
    if case.needs is not None and not hasattr(ndgrad.nn.functional, case.needs):
        pytest.skip(f"ndgrad.nn.functional has no {case.needs} yet")


def build(lib, case, dtype_name):
    dtype = getattr(lib, dtype_name)
    namespace = {name: getattr(lib.nn, name) for name in dir(lib.nn)}
    namespace.update({name: lib.tensor(values, dtype=dtype) for name, values in CONSTANTS.items()})
    module = eval(case.constructor, namespace)
    return module.double() if dtype_name == "float64" else module


def as_tensors(lib, samples, dtype_name):
    tensors = []
    for value, differentiable in samples:
        if not isinstance(value, np.ndarray):
            tensors.append(value)
        elif value.dtype.kind == "i":
            tensors.append(lib.tensor(value, dtype=lib.int64))
        else:
            tensors.append(lib.tensor(value, dtype=getattr(lib, dtype_name), requires_grad=differentiable))
    return tensors


def load_torch_state(ours, theirs):
    state = {name: ndgrad.tensor(value.detach().numpy()) for name, value in theirs.state_dict().items()}
    assert repr(ours.load_state_dict(state)) == "<All keys matched successfully>"


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", ACTIVATIONS + LAYERS + LOSSES, ids=lambda case: case.id)
def test_forward_and_backward_match_torch(case, dtype_name):
    skip_if_missing(case)
    torch.manual_seed(0)
    theirs, ours = build(torch, case, dtype_name), build(ndgrad, case, dtype_name)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    load_torch_state(ours, theirs)
    theirs.train(case.train)
    ours.train(case.train)
    samples = sample_inputs(case)
    inputs_t, inputs_n = as_tensors(torch, samples, dtype_name), as_tensors(ndgrad, samples, dtype_name)
    out_t, out_n = theirs(*inputs_t), ours(*inputs_n)
    assert_close(out_n, out_t, msg="forward")
    cotangent = np.random.default_rng(1).standard_normal(tuple(out_t.shape))
    out_t.backward(torch.tensor(cotangent, dtype=out_t.dtype))
    out_n.backward(ndgrad.tensor(cotangent, dtype=out_n.dtype))
    for index, (x_n, x_t) in enumerate(zip(inputs_n, inputs_t)):
        if isinstance(x_t, torch.Tensor) and x_t.requires_grad:
            assert_close(x_n.grad, x_t.grad, msg=f"grad of input {index}")
    params_t = dict(theirs.named_parameters())
    for name, param in ours.named_parameters():
        assert_close(param.grad, params_t[name].grad, msg=f"grad of {name}")
    buffers_t = dict(theirs.named_buffers())
    for name, buffer in ours.named_buffers():
        assert_close(buffer, buffers_t[name], msg=f"buffer {name}")


@pytest.mark.parametrize("case", ACTIVATIONS + LAYERS + LOSSES, ids=lambda case: case.id)
def test_repr_matches_torch(case):
    skip_if_missing(case)
    expected = repr(build(torch, case, "float32")).replace("torch.", "ndgrad.")
    assert repr(build(ndgrad, case, "float32")) == expected
