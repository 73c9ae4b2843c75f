"""Reductions (ops.reduction, ops.selection) against torch where the op table cannot reach: bad arguments (the
exception type and message), integer and bool dtype rules, the non-differentiable reductions (argmax, any, all,
count_nonzero), and the composites and special cases (nanmean, the 0-norm, max with a tensor)."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .errors import assert_raises_like_torch

ERRORS = [
    "lib.mean(lib.tensor([1, 2]))",
    "lib.mean(lib.tensor([1, 2]), dtype=lib.int64)",
    "lib.sum(lib.tensor([1.0, 2.0]), dim=2)",
    "lib.sum(lib.tensor([[1.0, 2.0]]), dim=(0, 0))",
    "lib.prod(lib.tensor([1.0, 2.0]), 1)",
    "lib.var(lib.tensor([1, 2]))",
    "lib.std(lib.tensor([1, 2]))",
    "lib.var_mean(lib.tensor([True]))",
    "lib.std_mean(lib.tensor([1]))",
    "lib.logsumexp(lib.tensor([1.0, 2.0]), 1)",
    "lib.kthvalue(lib.tensor([1.0, 2.0]), 3)",
    "lib.kthvalue(lib.tensor([1.0, 2.0]), 0)",
    "lib.kthvalue(lib.zeros(2, 0), 1, 1)",
    "lib.median(lib.zeros(1, 0), 1)",
    "lib.nanmedian(lib.zeros(1, 0), 1)",
    "lib.median(lib.tensor([1.0, 2.0]), -3)",
    "lib.mode(lib.zeros(1, 0), 1)",
    "lib.amax(lib.tensor([]))",
    "lib.amin(lib.zeros(1, 0), 1)",
    "lib.amax(lib.tensor([[1.0, 2.0]]), (0, 0))",
    "lib.max(lib.tensor([]))",
    "lib.min(lib.zeros(2, 0), 1)",
    "lib.max(lib.tensor([1.0, 2.0]), 2)",
    "lib.argmax(lib.tensor([]))",
    "lib.argmin(lib.zeros(1, 0), 1)",
    "lib.aminmax(lib.tensor([]))",
    "lib.aminmax(lib.zeros(1, 0), dim=1)",
    "lib.norm(lib.tensor([1, 2]))",
    "lib.norm(lib.tensor([1.0, 2.0]), p='nuc')",
    "lib.norm(lib.tensor([[1.0, 2.0]]), p='abc')",
    "lib.norm(lib.tensor([[[1.0, 2.0]]]), p='fro', dim=(0, 1, 2))",
    "lib.norm(lib.tensor([1.0, 2.0], dtype=lib.float64), dtype=lib.float32)",
    "lib.norm(lib.tensor([]), -1)",
    "lib.nanmean(lib.tensor([1, 2]))",
    "lib.nansum(lib.tensor([1.0, 2.0]), 3)",
    "lib.any(lib.tensor([1.0, 2.0]), 1)",
    "lib.all(lib.tensor([1.0, 2.0]), (0, 1))",
    "lib.count_nonzero(lib.tensor([1.0, 2.0]), 1)",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


# Results that are not differentiable, or whose dtype follows the integer rules: dtype, shape and values.
RESULTS = [
    "lib.sum(lib.tensor([[1, 2], [3, 4]], dtype=lib.int32), 1)",
    "lib.sum(lib.tensor([True, True, False]))",
    "lib.sum(lib.tensor([1.5, 2.5]), dtype=lib.int64)",
    "lib.sum(lib.tensor([True, False]), dtype=lib.bool)",
    "lib.sum(lib.tensor([1, 2], dtype=lib.uint8))",
    "lib.mean(lib.tensor([1, 2]), dtype=lib.float64)",
    "lib.prod(lib.tensor([[1, 2], [3, 4]], dtype=lib.int8), 0, keepdim=True)",
    "lib.prod(lib.tensor([True, False]))",
    "lib.cumsum(lib.tensor([1, 2], dtype=lib.int8), 0)",
    "lib.cumprod(lib.tensor([True, True]), 0)",
    "lib.cumsum(lib.tensor([1.0, 2.0]), 0, dtype=lib.int64)",
    "lib.logsumexp(lib.tensor([1, 2, 3]), 0)",
    "lib.logsumexp(lib.tensor([[True, False]]), (0, 1))",
    "lib.nansum(lib.tensor([True, True]))",
    "lib.nansum(lib.tensor([1.0, float('nan')]), dtype=lib.float32)",
    "lib.amax(lib.tensor([[1, 5], [3, 4]]), 0)",
    "lib.amin(lib.tensor([True, False]))",
    "lib.aminmax(lib.tensor([[1, 2], [3, 0]]), dim=0, keepdim=True)",
    "lib.aminmax(lib.tensor([[1.0, 2.0], [3.0, 4.0]]), keepdim=True)",
    "lib.median(lib.tensor([3, 1, 2, 4]))",
    "lib.median(lib.tensor([1.0, float('nan'), 3.0]), 0)",
    "lib.nanmedian(lib.tensor([float('nan')] * 3), 0)",
    "lib.mode(lib.tensor([[1, 2, 2], [3, 3, 1]]))",
    "lib.kthvalue(lib.tensor([[1, 3, 3, 2]]), 2, 1, True)",
    "lib.kthvalue(lib.tensor([1.0, float('nan'), 0.0, float('nan')]), 3)",
    "lib.cummax(lib.tensor([1, 3, 2, 3]), 0)",
    "lib.cummin(lib.tensor([1.0, float('nan'), 0.0]), 0)",
    "lib.cummax(lib.tensor(3.0), 0)",
    "lib.argmax(lib.tensor([[1.0, 5.0], [5.0, 2.0]]))",
    "lib.argmax(lib.tensor([[1.0, 5.0], [5.0, 2.0]]), keepdim=True)",
    "lib.argmin(lib.tensor([[1.0, 5.0], [0.0, 2.0]]), 1, True)",
    "lib.argmax(lib.tensor([1.0, float('nan'), 3.0]))",
    "lib.argmin(lib.tensor(2.0), 0)",
    "lib.any(lib.tensor([[0.0, 1.0], [0.0, 0.0]]), 1)",
    "lib.any(lib.tensor([1, 0], dtype=lib.uint8))",
    "lib.all(lib.tensor([[1, 2], [0, 3]]), (0, 1), keepdim=True)",
    "lib.all(lib.tensor([]))",
    "lib.count_nonzero(lib.tensor([[1, 0], [2, 0]]))",
    "lib.count_nonzero(lib.tensor([[1.0, 0.0], [2.0, 0.0]]), (0, 1))",
    "lib.count_nonzero(lib.tensor([[1.0, 0.0], [2.0, 0.0]]), 0)",
    "lib.tensor([[1.0, 0.0], [2.0, 0.0]]).any()",
    "lib.tensor([[1.0, 0.0], [2.0, 0.0]]).all(0)",
    "lib.tensor([[1.0, 0.0], [2.0, 0.0]]).argmax(1)",
    "lib.tensor([[1.0, 0.0], [2.0, 0.0]]).count_nonzero()",
    "lib.var(lib.tensor([1.0]))",
    "lib.var(lib.tensor([1.0, 2.0]), True)",
    "lib.std(lib.tensor([[1.0, 2.0]]), (0, 1), False, True)",
    "lib.norm(lib.tensor([1.0, 0.0, -2.0]), 0)",
    "lib.norm(lib.tensor([1.0, 2.0], dtype=lib.float32), dtype=lib.float64)",
    "lib.tensor([3, 1, 2]).max()",
    "lib.tensor([3, 1, 2]).min(0)",
]


def assert_same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert not ours.requires_grad and not theirs.requires_grad or ours.requires_grad == theirs.requires_grad
    assert_close(ours, theirs)


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    ours, theirs = eval(expression, {"lib": ndgrad}), eval(expression, {"lib": torch})
    if isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__  # the named result: return_types.<name>
        for a, b in zip(ours, theirs, strict=True):
            assert_same(a, b)
    else:
        assert_same(ours, theirs)


def test_nanmean_is_a_composite_recorded_as_division():
    """nanmean = nansum / count of non-NaN, as torch: the result's node is DivBackward0, the gradient 1/count."""
    values = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]])
    results = []
    for lib in (ndgrad, torch):
        x = lib.from_numpy(values.copy()).requires_grad_()
        out = lib.nanmean(x, 1)
        assert type(out.grad_fn).__name__ == "DivBackward0"
        out.backward(lib.from_numpy(np.array([1.0, 2.0])))
        results.append((out.detach().numpy(), x.grad.numpy(), lib.nanmean(x).item(), x.nanmean(0).detach().numpy()))
    for ours, theirs in zip(*results):
        assert_close(ours, theirs)


def test_zero_norm_has_no_gradient():
    """torch's ord-0 vector norm records a node whose gradient is undefined: x.grad stays None."""
    for lib in (ndgrad, torch):
        x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        out = lib.norm(x, 0)
        assert type(out.grad_fn).__name__ == "LinalgVectorNormBackward0" and out.item() == 2.0
        out.backward()
        assert x.grad is None


def test_max_and_min_with_a_tensor_are_maximum_and_minimum():
    for name, node in (("max", "MaximumBackward0"), ("min", "MinimumBackward0")):
        grads = []
        for lib in (ndgrad, torch):
            x, y = lib.tensor([1.0, 3.0, 2.0], requires_grad=True), lib.tensor([2.0, 0.0, 2.0], requires_grad=True)
            out = getattr(lib, name)(x, y) + getattr(x, name)(other=y)
            assert type(out.grad_fn.next_functions[0][0]).__name__ == node
            out.sum().backward()
            grads.append((out.detach().numpy(), x.grad.numpy(), y.grad.numpy()))
        for ours, theirs in zip(*grads):
            assert_close(ours, theirs)


def test_named_results_print_as_torch():
    ours = repr(ndgrad.max(ndgrad.tensor([[1.0, 3.0]]), 1))
    theirs = repr(torch.max(torch.tensor([[1.0, 3.0]]), 1)).replace("torch.", "ndgrad.")
    assert ours == theirs
