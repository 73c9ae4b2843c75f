"""Every op against finite differences (gradcheck, gradgradcheck in float64 on small inputs), and binary ops over
hypothesis-drawn broadcastable shapes: each gradient comes back in its input's shape, equal to torch's."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tests.closeness import assert_close

import ndgrad
from ndgrad.autograd import gradcheck, gradgradcheck
from ndgrad.ops import OP_TABLE, special_functions
from ndgrad.ops._op import BINARY

from . import exceptions
from .samples import binary_case, random_like, samples_for


def tiny_cases(test):
    return [
        pytest.param(op, case, id=f"{op.__name__}-{i}: {case}", marks=exceptions.marks(op, test, case))
        for op in OP_TABLE
        for i, case in enumerate(samples_for(op))
        if case.smooth and case.is_tiny()
    ]


@pytest.mark.parametrize("op, case", tiny_cases("test_gradcheck"))
def test_gradcheck(op, case):
    assert gradcheck(lambda *inputs: case.run(ndgrad, inputs), case.tensors(ndgrad, np.float64))


@pytest.mark.parametrize("op, case", tiny_cases("test_gradgradcheck"))
def test_gradgradcheck(op, case):
    """Complex cases in fast mode (one random projection per input and output): the element-by-element check costs
    several times a real one's, and their second derivatives are compared with torch's element by element anyway."""
    inputs = case.tensors(ndgrad, np.float64)
    assert gradgradcheck(lambda *xs: case.run(ndgrad, xs), inputs, fast_mode=case.is_complex)


# The binary ops called as ndgrad.name(x, y) and differentiable in both inputs: not torch.special's xlog1py (only in
# ndgrad.special), nor zeta and the incomplete gamma functions (torch differentiates them in the second input only).
SECOND_INPUT_ONLY = {special_functions.Zeta, special_functions.Igamma, special_functions.Igammac}
BINARY_OPS = [op for op in OP_TABLE if op.family == BINARY and hasattr(ndgrad, op.name)
              and op not in SECOND_INPUT_ONLY and not exceptions.xfailed(op, "test_vjp")]


@settings(max_examples=100, deadline=None)
@given(
    op=st.sampled_from(BINARY_OPS),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=1, max_side=3),
    seed=st.integers(0, 2**32 - 1),
)
def test_binary_gradients_reduce_to_input_shapes(op, shapes, seed):
    case = binary_case(op, shapes.input_shapes, seed)
    ours, theirs = case.tensors(ndgrad, np.float64), case.tensors(torch, np.float64)
    out, ref = case.run(ndgrad, ours), case.run(torch, theirs)
    assert tuple(out.shape) == tuple(ref.shape) == shapes.result_shape
    cotangent = random_like(np.random.default_rng(seed), shapes.result_shape, ref.dtype)
    grads = ndgrad.autograd.grad(out, ours, ndgrad.from_numpy(cotangent.copy()))
    expected = torch.autograd.grad(ref, theirs, torch.from_numpy(cotangent.copy()))
    for grad, reference, x in zip(grads, expected, ours):
        assert tuple(grad.shape) == tuple(x.shape)
        assert_close(grad, reference, **exceptions.tolerance(op))
