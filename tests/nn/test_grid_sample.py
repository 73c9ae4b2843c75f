"""F.grid_sample and F.affine_grid against torch: values and gradients (input and grid) over every mode, padding
mode and align_corners, in 2-D and 3-D; gradcheck in float64; torch's warnings and errors."""

import itertools

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

MODES = list(itertools.product(["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"], [False, True]))


def _both(array):
    return torch.tensor(array, requires_grad=True), ndgrad.tensor(array, requires_grad=True)


def _compare(torch_fn, ndgrad_fn, arrays, seed):
    """Same outputs and the same gradients of a random projection of them, for every input."""
    theirs, ours = zip(*(_both(a) for a in arrays))
    expected, actual = torch_fn(*theirs), ndgrad_fn(*ours)
    assert_close(actual, expected)
    weights = np.random.default_rng(seed).standard_normal(tuple(expected.shape))
    (expected * torch.tensor(weights)).sum().backward()
    (actual * ndgrad.tensor(weights)).sum().backward()
    for mine, reference in zip(ours, theirs):
        assert_close(mine.grad, reference.grad)


@pytest.mark.parametrize("mode, padding_mode, align_corners", MODES)
@pytest.mark.parametrize("rank", [2, 3])
def test_grid_sample_matches_torch(mode, padding_mode, align_corners, rank):
    if mode == "bicubic" and rank == 3:
        pytest.skip("bicubic is 2-D only, in torch too")
    rng = np.random.default_rng(rank)
    shape, grid_shape = ((2, 3, 4, 5), (2, 3, 2, 2)) if rank == 2 else ((2, 2, 3, 4, 3), (2, 2, 2, 3, 3))
    arrays = [rng.standard_normal(shape), rng.uniform(-1.4, 1.4, grid_shape)]  # some points outside the input

    def call(F):
        return lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners)

    _compare(call(torch.nn.functional), call(ndgrad.nn.functional), arrays, seed=1)


@pytest.mark.parametrize("size, align_corners", [((2, 3, 4, 5), False), ((2, 3, 4, 5), True),
                                                 ((1, 2, 3, 2, 4), False), ((1, 2, 3, 2, 4), True)])
def test_affine_grid_matches_torch(size, align_corners):
    rank = len(size) - 2
    theta = np.random.default_rng(rank).standard_normal((size[0], rank, rank + 1))
    _compare(lambda t: torch.nn.functional.affine_grid(t, size, align_corners=align_corners),
             lambda t: ndgrad.nn.functional.affine_grid(t, size, align_corners=align_corners), [theta], seed=2)


@pytest.mark.parametrize("mode, padding_mode", [("bilinear", "zeros"), ("bilinear", "reflection"),
                                                ("bicubic", "border"), ("nearest", "zeros")])
def test_grid_sample_gradcheck(mode, padding_mode):
    rng = np.random.default_rng(3)
    x = ndgrad.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    # points off the pixel grid's kinks (integer coordinates), where the sample is smooth in the grid
    grid = ndgrad.tensor(rng.uniform(-0.9, 0.9, (1, 2, 2, 2)) + 0.01, requires_grad=mode != "nearest")

    def sample(x, grid):
        return ndgrad.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding_mode, align_corners=False)

    assert ndgrad.autograd.gradcheck(sample, (x, grid))
    assert ndgrad.autograd.gradgradcheck(sample, (x, grid))


def test_affine_grid_into_grid_sample_gradcheck():
    theta = ndgrad.tensor([[[0.9, 0.2, 0.05], [-0.15, 1.1, 0.07]]], dtype=ndgrad.float64, requires_grad=True)
    x = ndgrad.tensor(np.random.default_rng(4).standard_normal((1, 1, 3, 4)), requires_grad=True)
    F = ndgrad.nn.functional
    assert ndgrad.autograd.gradcheck(
        lambda t, x: F.grid_sample(x, F.affine_grid(t, (1, 1, 2, 3), align_corners=True), align_corners=True),
        (theta, x))


SETUP = """
import torch
F = torch.nn.functional
x = torch.arange(12.).reshape(1, 1, 3, 4)
g = torch.tensor([[[[-1.0, -1.0], [0.25, 0.5]], [[1.0, 1.0], [1.5, -0.2]]]])
theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
"""


@pytest.mark.parametrize("code", [
    "print(F.grid_sample(x, g))",
    "print(F.grid_sample(x, g, mode='nearest', align_corners=True))",
    "F.grid_sample(x, g, mode='area')",
    "F.grid_sample(x, g, padding_mode='circular')",
    "F.grid_sample(x, g.double(), align_corners=False)",
    "F.grid_sample(x, g[..., :1], align_corners=False)",
    "F.grid_sample(x, g.expand(2, -1, -1, -1), align_corners=False)",
    "F.grid_sample(x[0], g[0], align_corners=False)",
    "F.grid_sample(x[None], g[None].expand(1, 1, 2, 2, 3), mode='bicubic', align_corners=False)",
    "print(F.affine_grid(theta, (1, 1, 2, 3)))",
    "print(F.affine_grid(theta, (1, 1, 1, 3), align_corners=True))",
    "F.affine_grid(theta.long(), (1, 1, 2, 2), align_corners=False)",
    "F.affine_grid(theta, (1, 1, 2, 2, 2), align_corners=False)",
    "F.affine_grid(theta, (1, 2), align_corners=False)",
    "F.affine_grid(theta, (1, 1, 0, 2), align_corners=False)",
])
def test_grid_sample_warnings_and_errors(same, code):
    same(SETUP + code)
