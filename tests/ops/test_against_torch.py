"""Every op in OP_TABLE against torch, case by case: values (float64 and float32), the grad_fn it records, the
VJP for a random cotangent, and second derivatives. Reductions also over hypothesis-drawn shapes and dims.
Complex cases run in complex128 and complex64, with complex cotangents and weights where the tensors are complex."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tests.closeness import assert_close

import ndgrad
from ndgrad.ops import OP_TABLE
from ndgrad.ops._op import REDUCTION

from . import exceptions
from .samples import MAX_REDUCED_DIMS, draw, first, has_dim, random_like, reduction_case, samples_for


def cases(test):
    return [
        pytest.param(op, case, id=f"{op.__name__}-{i}: {case}", marks=exceptions.marks(op, test, case))
        for op in OP_TABLE
        for i, case in enumerate(samples_for(op))
    ]


def as_torch(tensor):
    return torch.from_numpy(np.array(tensor.detach().resolve_conj().numpy()))


def outputs(result):
    return tuple(result) if isinstance(result, tuple) else (result,)


def assert_matches(ours, theirs, tolerance):
    """Same shape, dtype and values (integer outputs exactly)."""
    assert type(ours).__name__ == "Tensor", f"expected an ndgrad Tensor, got {type(ours).__name__}"
    assert_close(ours, theirs, **tolerance)


def assert_all_match(ours, theirs, tolerance):
    assert len(ours) == len(theirs)
    for index, (a, b) in enumerate(zip(ours, theirs)):
        assert (a is None) == (b is None), f"gradient {index}: ndgrad gives {a!r}, torch {b!r}"
        if b is not None:
            assert_matches(a, b, tolerance)


def first_order(lib, case, cotangent):
    inputs = case.tensors(lib, np.float64)
    out = first(case.run(lib, inputs))
    return lib.autograd.grad(out, case.differentiable(inputs), lib.from_numpy(cotangent.copy()))


def weighted_sum(lib, grads, weights):
    """<grads, weights> summed over the gradients that depend on something (its real part: a real number to
    differentiate, which sees both parts of complex gradients through complex weights); None if none does."""
    terms = [(g * lib.from_numpy(w.copy())).sum() for g, w in zip(grads, weights) if g is not None and g.requires_grad]
    if not terms:
        return None
    total = terms[0].real
    for term in terms[1:]:
        total = total + term.real
    return total


def second_order(lib, case, cotangent, weights, more_weights=None):
    """Gradients of <J^T v, w> with respect to the inputs and v; None where nothing depends on them. With
    ``more_weights``, the third derivatives instead: gradients of <those gradients, more_weights>."""
    all_inputs = case.tensors(lib, np.float64)
    inputs = case.differentiable(all_inputs)
    out = first(case.run(lib, all_inputs))
    v = lib.from_numpy(cotangent.copy()).requires_grad_()
    grads = lib.autograd.grad(out, inputs, v, create_graph=True)
    total = weighted_sum(lib, grads, weights)
    if total is None:
        return (None,) * (len(inputs) + 1)
    grads = lib.autograd.grad(total, inputs + (v,), allow_unused=True, create_graph=more_weights is not None)
    if more_weights is None:
        return grads
    total = weighted_sum(lib, grads, more_weights)
    if total is None:
        return (None,) * (len(inputs) + 1)
    return lib.autograd.grad(total, inputs + (v,), allow_unused=True)


def zeros_for_none(grads, like):
    return [torch.zeros(x.shape, dtype=x.dtype) if g is None else g for g, x in zip(grads, like)]


def cotangent_for(case, rng):
    """A random cotangent for the case's (first) output, complex if the output is."""
    out = first(case.run(torch, case.tensors(torch, np.float64, requires_grad=False)))
    return random_like(rng, tuple(out.shape), out.dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op, case", cases("test_values"))
def test_values(op, case, dtype):
    ours = case.run(ndgrad, case.tensors(ndgrad, dtype, requires_grad=False))
    theirs = case.run(torch, case.tensors(torch, dtype, requires_grad=False))
    assert_all_match(outputs(ours), outputs(theirs), exceptions.tolerance(op, dtype))


@pytest.mark.parametrize("op, case", cases("test_grad_fn"))
def test_grad_fn(op, case):
    ours = outputs(case.run(ndgrad, case.tensors(ndgrad, np.float64)))
    theirs = outputs(case.run(torch, case.tensors(torch, np.float64)))
    assert [o.requires_grad for o in ours] == [t.requires_grad for t in theirs]
    assert [type(o.grad_fn).__name__ for o in ours] == [type(t.grad_fn).__name__ for t in theirs]
    assert ours[0].grad_fn.op is op, f"the case ran {ours[0].grad_fn.op.__name__}, not {op.__name__}"


@pytest.mark.parametrize("op, case", cases("test_vjp"))
def test_vjp(op, case):
    cotangent = cotangent_for(case, np.random.default_rng(1))
    assert_all_match(first_order(ndgrad, case, cotangent), first_order(torch, case, cotangent),
                     exceptions.tolerance(op))


@pytest.mark.parametrize("op, case", [p for p in cases("test_second_derivatives") if p.values[1].smooth])
def test_second_derivatives(op, case):
    """At a kink only the first derivative has a convention; torch's second derivatives there are artifacts."""
    rng = np.random.default_rng(2)
    inputs = case.differentiable(case.tensors(torch, np.float64, requires_grad=False))
    cotangent = cotangent_for(case, rng)
    weights = [random_like(rng, x.shape, x.dtype) for x in inputs]
    like = inputs + (torch.from_numpy(cotangent),)
    ours = [None if g is None else as_torch(g) for g in second_order(ndgrad, case, cotangent, weights)]
    theirs = second_order(torch, case, cotangent, weights)
    assert_all_match(zeros_for_none(ours, like), zeros_for_none(theirs, like), exceptions.tolerance(op))


@pytest.mark.parametrize(
    "op, case", [p for p in cases("test_third_derivatives") if p.values[1].smooth and p.values[1].is_tiny()]
)
def test_third_derivatives(op, case):
    """Derivatives of every order come from differentiating vjp rules: the third order checks the rules' own rules."""
    rng = np.random.default_rng(3)
    inputs = case.differentiable(case.tensors(torch, np.float64, requires_grad=False))
    cotangent = cotangent_for(case, rng)
    like = inputs + (torch.from_numpy(cotangent),)
    weights = [random_like(rng, x.shape, x.dtype) for x in inputs]
    more_weights = [random_like(rng, x.shape, x.dtype) for x in like]
    ours = [None if g is None else as_torch(g) for g in second_order(ndgrad, case, cotangent, weights, more_weights)]
    theirs = second_order(torch, case, cotangent, weights, more_weights)
    # NOTE: assert_close accepts NaN where torch gives NaN too: torch's third derivative of logcumsumexp takes logs
    # of negative numbers
    assert_all_match(zeros_for_none(ours, like), zeros_for_none(theirs, like), exceptions.tolerance(op))


DIM_REDUCTIONS = [op for op in OP_TABLE if op.family == REDUCTION and has_dim(op)]


@st.composite
def reductions(draw_from):
    """A dim-reduction, an input shape, dims in any order and sign (one int for ops returning indices), keepdim."""
    op = draw_from(st.sampled_from(DIM_REDUCTIONS))
    shape = draw_from(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3))
    ndim = max(len(shape), 1)
    if len(op.outputs) > 1:
        dim = draw_from(st.integers(-ndim, ndim - 1))
    else:
        most = min(ndim, MAX_REDUCED_DIMS.get(op, ndim))
        dims = draw_from(st.permutations(range(ndim)))[: draw_from(st.integers(1, most))]
        dim = tuple(d - ndim if draw_from(st.booleans()) else d for d in dims)
        dim = dim[0] if len(dim) == 1 and draw_from(st.booleans()) else dim
    return op, shape, dim, draw_from(st.booleans()), draw_from(st.integers(0, 2**32 - 1))


@settings(max_examples=80, deadline=None)
@given(reductions())
def test_reductions_over_drawn_dims(drawn):
    op, shape, dim, keepdim, seed = drawn
    rng = np.random.default_rng(seed)
    case = reduction_case(op, draw(rng, shape, op.domain), dim, keepdim)
    ours = case.run(ndgrad, case.tensors(ndgrad, np.float64))
    theirs = case.run(torch, case.tensors(torch, np.float64))
    assert_all_match(outputs(ours), outputs(theirs), exceptions.tolerance(op))
    assert first(ours).grad_fn.op is op
    cotangent = rng.standard_normal(first(theirs).shape)
    assert_all_match(first_order(ndgrad, case, cotangent), first_order(torch, case, cotangent),
                     exceptions.tolerance(op))
