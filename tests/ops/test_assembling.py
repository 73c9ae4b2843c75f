"""diagflat, block_diag, cartesian_prod, combinations, cumulative_trapezoid, dist and renorm against torch, beyond
the op table: values, dtypes, shapes and errors, and the gradients of the composites (the VJP, second derivatives
and forward mode against torch, finite differences on ndgrad), whose grad_fn is the op they end with."""

import numpy as np
import pytest

import ndgrad

from .composites import assert_like_torch
from .errors import assert_raises_like_torch, assert_result_like_torch

RESULTS = [
    "lib.diagflat(lib.tensor([[1, 2], [3, 4]]))",
    "lib.diagflat(lib.tensor([1., 2, 3]), -1)",
    "lib.diagflat(lib.tensor(5.), 2)",
    "lib.tensor([[1., 2], [3, 4]]).diagflat(offset=1)",
    "lib.block_diag()",
    "lib.block_diag(lib.tensor([1, 2]), lib.tensor([[3., 4], [5, 6]], dtype=lib.float64))",
    "lib.block_diag(lib.tensor(1), lib.tensor([True, False]))",
    "lib.block_diag(lib.zeros(0, 2), lib.tensor([1., 2, 3]), lib.zeros(2, 0))",
    "lib.block_diag(lib.tensor([1j, 2]), lib.tensor([[1., 2]]))",
    "lib.cartesian_prod(lib.tensor([1, 2, 3]), lib.tensor([4, 5]))",
    "lib.cartesian_prod(lib.tensor([1., 2]), lib.tensor([3., 4]), lib.tensor([5., 6, 7]))",
    "lib.cartesian_prod(lib.tensor([1., 2]))",
    "lib.cartesian_prod(lib.tensor([1., 2]), lib.tensor([]))",
    "lib.combinations(lib.tensor([1, 2, 3, 4]))",
    "lib.combinations(lib.tensor([1., 2, 3, 4]), 3)",
    "lib.combinations(lib.tensor([1., 2, 3]), 2, with_replacement=True)",
    "lib.combinations(lib.tensor([1., 2, 3]), r=4)",
    "lib.combinations(lib.tensor([1., 2, 3]), 0)",
    "lib.combinations(lib.tensor([1., 2, 3]), 1)",
    "lib.combinations(lib.tensor([]), 2)",
    "lib.combinations(lib.tensor([True, False]), 2, True)",
    "lib.cumulative_trapezoid(lib.tensor([1., 2, 4, 7]))",
    "lib.cumulative_trapezoid(lib.tensor([1, 2, 4, 7]))",
    "lib.cumulative_trapezoid(lib.tensor([1, 2, 4, 7]), dx=0.5)",
    "lib.cumulative_trapezoid(lib.tensor([[1., 2, 4], [0, 1, -1]]), dim=0, dx=2)",
    "lib.cumulative_trapezoid(lib.tensor([1., 2, 4, 7]), lib.tensor([0., 1, 3, 6]))",
    "lib.cumulative_trapezoid(lib.tensor([1, 2, 4, 7]), lib.tensor([0, 1, 3, 6]))",
    "lib.cumulative_trapezoid(lib.tensor([[1., 2, 4], [0, 1, -1]]), lib.tensor([0., 2, 3], dtype=lib.float64))",
    "lib.cumulative_trapezoid(lib.tensor([[1., 2, 4], [0, 1, -1]]), lib.tensor([[0., 2, 3], [1, 2, 5]]), dim=0)",
    "lib.cumulative_trapezoid(lib.tensor([[1., 2, 4], [0, 1, -1]]), lib.tensor([1., 2]), dim=0)",
    "lib.cumulative_trapezoid(lib.ones(2, 3, 2), lib.tensor([[0., 2], [1, 3], [2, 2.5]]), dim=1)",
    "lib.cumulative_trapezoid(lib.tensor([]))",
    "lib.cumulative_trapezoid(lib.tensor([1j, 2]))",
    "lib.dist(lib.tensor([1., 2, 3]), lib.tensor([0., 4, -1]))",
    "lib.dist(lib.tensor([1., 2, 3]), lib.tensor([0., 4, -1], dtype=lib.float64), 1)",
    "lib.dist(lib.tensor([[1., 2, 3]]), lib.tensor([[0.], [2]]), float('inf'))",
    "lib.dist(lib.tensor([1., 2, 3]), lib.tensor([1., 4, -1]), 0)",
    "lib.dist(lib.tensor([1., 2, 3]), lib.tensor(2.), -1.5)",
    "lib.dist(lib.tensor([1 + 1j, 2]), lib.tensor([0., 4]), 3)",
    "lib.tensor([1., 2, 3]).dist(lib.tensor([0., 4, -1]), p=0.5)",
    "lib.renorm(lib.tensor([[1., 2, 3], [0.1, 0.2, 0.1], [4, 0, 0]]), 2, 0, 1.5)",
    "lib.renorm(lib.tensor([[1., 2, 3], [0.1, 0.2, 0.1]]), 1, 1, 2)",
    "lib.renorm(lib.tensor([[1., 2, 3], [0.1, 0.2, 0.1]]), float('inf'), -1, 0.5)",
    "lib.renorm(lib.tensor([[1 + 1j, 2], [0.1, 0.2j]]), 2, 0, 1)",
    "lib.renorm(lib.tensor([[1., 2], [3, 4]]), 2, 0, 0)",
    "lib.tensor([[1., 2, 3], [0.1, 0.2, 0.1]]).renorm(3, 0, 1)",
    "lib.tensor([[1., 2, 3], [0.1, 0.2, 0.1]]).renorm_(2, 0, 1)",
]


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    assert_result_like_torch(expression)


ERRORS = [
    "lib.block_diag(lib.zeros(1, 2, 3))",
    "lib.block_diag(lib.zeros(2), lib.zeros(1, 1, 1))",
    "lib.cartesian_prod()",
    "lib.cartesian_prod(lib.zeros(3, 1))",
    "lib.cartesian_prod(lib.tensor(1.))",
    "lib.cartesian_prod(lib.zeros(2), lib.tensor([1, 2]))",
    "lib.combinations(lib.zeros(3, 1))",
    "lib.combinations(lib.tensor(1.))",
    "lib.combinations(lib.zeros(3), -1)",
    "lib.cumulative_trapezoid(lib.tensor(1.))",
    "lib.cumulative_trapezoid(lib.tensor([True, False]))",
    "lib.cumulative_trapezoid(lib.tensor([1., 2]), lib.tensor([True, False]))",
    "lib.cumulative_trapezoid(lib.tensor([1., 2]), dx=1j)",
    "lib.cumulative_trapezoid(lib.tensor([1., 2]), dim=3)",
    "lib.cumulative_trapezoid(lib.tensor([1., 2, 3]), lib.tensor([1., 2]))",
    "lib.cumulative_trapezoid(lib.zeros(2, 3), lib.zeros(2, 2), dim=0)",
    "lib.dist(lib.tensor([1, 2]), lib.tensor([3, 4]))",
    "lib.dist(lib.zeros(3), lib.zeros(4))",
    "lib.renorm(lib.zeros(3), 2, 0, 1)",
    "lib.renorm(lib.zeros(3, 1), 2, 2, 1)",
    "lib.renorm(lib.zeros(3, 1), -1, 0, 1)",
    "lib.renorm(lib.zeros(3, 1), 0, 0, 1)",
    "lib.renorm(lib.zeros(3, 1), 2, 0, -1)",
    "lib.renorm(lib.zeros(3, 1), 2, 0, -2.5)",
    "lib.renorm(lib.zeros(3, 1), 1j, 0, 1)",
    "lib.renorm(lib.tensor([[1, 2]]), 2, 0, 1)",
    "lib.zeros(3).renorm_(2, 0, 1)",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


RNG = np.random.default_rng(11)
COMPOSITES = {
    "diagflat": (lambda lib, x: lib.diagflat(x, 1), [(2, 2)]),
    "diagflat method": (lambda lib, x: x.diagflat(-2), [(3,)]),
    "cartesian_prod": (lambda lib, x, y: lib.cartesian_prod(x, y), [(3,), (2,)]),
    "cartesian_prod of three": (lambda lib, x, y, z: lib.cartesian_prod(x, y, z), [(2,), (3,), (2,)]),
    "combinations": (lambda lib, x: lib.combinations(x), [(4,)]),
    "combinations of three": (lambda lib, x: lib.combinations(x, 3), [(5,)]),
    "combinations with replacement": (lambda lib, x: lib.combinations(x, 2, with_replacement=True), [(3,)]),
    "cumulative_trapezoid": (lambda lib, y: lib.cumulative_trapezoid(y), [(5,)]),
    "cumulative_trapezoid dx": (lambda lib, y: lib.cumulative_trapezoid(y, dx=0.3, dim=0), [(3, 4)]),
    "cumulative_trapezoid x": (lambda lib, y, x: lib.cumulative_trapezoid(y, x), [(2, 4), (4,)]),
    "cumulative_trapezoid x 2-d": (lambda lib, y, x: lib.cumulative_trapezoid(y, x, dim=0), [(3, 2), (3, 2)]),
}


@pytest.mark.parametrize("name", COMPOSITES)
def test_composite_gradients_match_torch(name):
    call, shapes = COMPOSITES[name]
    assert_like_torch(call, *(RNG.standard_normal(shape) for shape in shapes))


def test_cartesian_prod_of_one_tensor_is_that_tensor():
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    assert ndgrad.cartesian_prod(x) is x


def test_block_diag_gradient_reaches_empty_blocks():
    def call(lib, x, y):
        return lib.block_diag(lib.zeros(0, 2, dtype=lib.float64).requires_grad_(), x, y)

    assert_like_torch(call, RNG.standard_normal(3), RNG.standard_normal((2, 2)))


@pytest.mark.parametrize(("call", "node"), [
    (lambda lib, x: lib.diagflat(x), "DiagEmbedBackward0"),
    (lambda lib, x: lib.block_diag(x, x), "BlockDiagBackward0"),
    (lambda lib, x: lib.cartesian_prod(x, x), "StackBackward0"),
    (lambda lib, x: lib.combinations(x), "StackBackward0"),
    (lambda lib, x: lib.cumulative_trapezoid(x), "CumsumBackward0"),
    (lambda lib, x: lib.cumulative_trapezoid(x, x), "DivBackward1"),
    (lambda lib, x: lib.dist(x, x * 2), "DistBackward0"),
    (lambda lib, x: lib.renorm(x.reshape(3, 1), 2, 0, 1), "RenormBackward0"),
], ids=["diagflat", "block_diag", "cartesian_prod", "combinations", "cumulative_trapezoid", "cumulative_trapezoid x",
        "dist", "renorm"])
def test_grad_fn_is_torchs(call, node):
    import torch

    for lib in (torch, ndgrad):
        result = call(lib, lib.tensor([1.0, -2.0, 3.0], requires_grad=True))
        assert type(result.grad_fn).__name__ == node
