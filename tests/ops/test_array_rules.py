"""Every op's array rule (``vjp_arrays``, what a backward that builds no graph runs) against its Tensor rule (``vjp``,
the one truth, which create_graph and the other tests check against torch): for every sample of every op that has
one, in float64 and float32, the same gradients, of the same dtype and shape, or None for the same inputs."""

import numpy as np
import pytest
from tests.closeness import assert_close

import ndgrad
from ndgrad.ops import OP_TABLE

from .samples import first, random_like, samples_for

OPS_WITH_ARRAY_RULES = [op for op in OP_TABLE if op.vjp_arrays is not None]


def test_the_hot_ops_have_array_rules():
    """The ops that models and chains are made of skip Tensor wrapping in backward (a guard against losing one)."""
    names = {op.__name__ for op in OPS_WITH_ARRAY_RULES}
    assert {"Add", "Sub", "Mul", "Div", "Neg", "Tanh", "Sin", "Exp", "Log", "Relu", "Sum", "SumDim", "Mean", "Mm",
            "MaxDim", "View", "Permute", "Expand", "LogSoftmax"} <= names


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("op, case", [
    pytest.param(op, case, id=f"{op.__name__}-{i}: {case}")
    for op in OPS_WITH_ARRAY_RULES for i, case in enumerate(samples_for(op))
])
def test_array_rule_agrees_with_tensor_rule(op, case, dtype):
    outs = case.run(ndgrad, case.tensors(ndgrad, dtype))
    outs = outs if isinstance(outs, tuple) else (outs,)
    node = first(outs).grad_fn
    if node is None or type(node).op is not op:
        pytest.skip(f"the sample records {type(node).__name__}, not {op.__name__}'s node")
    rng = np.random.default_rng(3)
    cotangents = [random_like(rng, tuple(out.shape), out.dtype).astype(out.numpy(force=True).dtype)
                  if out.requires_grad else None for out in outs]
    with ndgrad.no_grad():
        expected = node._apply([None if c is None else ndgrad.from_numpy(c.copy()) for c in cotangents])
        got = node._apply_arrays([None if c is None else c.copy() for c in cotangents])
    assert len(got) == len(expected)
    for index, (ours, truth) in enumerate(zip(got, expected)):
        assert (ours is None) == (truth is None), f"gradient {index}: array rule {ours!r}, Tensor rule {truth!r}"
        if truth is not None:
            ours = np.asarray(ours)
            assert ours.dtype == truth.numpy().dtype and ours.shape == tuple(truth.shape), f"gradient {index}"
            assert_close(ndgrad.from_numpy(np.array(ours)), truth, msg=f"gradient {index}")
