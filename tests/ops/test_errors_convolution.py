"""Convolutions (ops.convolutions) against torch where the op table cannot reach: bad arguments (the exception type
and message), and the unbatched forms, whose outermost node is a squeeze."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad

from .errors import assert_raises_like_torch

F = "lib.nn.functional"
ERRORS = [
    f"{F}.conv2d(lib.zeros(1, 1, 1, 1, 1), lib.zeros(1, 1, 1, 1))",
    f"{F}.conv1d(lib.zeros(1, 2, 5, 5, 5), lib.zeros(3, 2, 3))",
    f"{F}.conv2d(lib.zeros(1, 4, 5, 5), lib.zeros(3, 2, 2, 2))",
    f"{F}.conv2d(lib.zeros(1, 2, 2, 2), lib.zeros(3, 2, 3, 3))",
    f"{F}.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3), stride=2, padding='same')",
    f"{F}.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3), padding='same')",
    "lib.convolution(lib.zeros(2, 5, 5), lib.zeros(3, 2, 3, 3), None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1)",
    "lib.convolution(lib.zeros(2, 5), lib.zeros(3, 2, 3), None, (1,), (0,), (1,), True, (0,), 1)",
    "lib.convolution(lib.zeros(2, 5, dtype=lib.complex64), lib.zeros(3, 2, 3, dtype=lib.complex64), None, (1,), "
    "(0,), (1,), False, (0,), 1)",
    f"{F}.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3), padding='foo')",
    f"{F}.conv2d(lib.zeros(1, 4, 5, 5), lib.zeros(3, 2, 3, 3), groups=2)",
    f"{F}.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3), lib.zeros(4))",
    f"{F}.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3), stride=0)",
    f"{F}.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3), padding=-1)",
    f"{F}.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3, dtype=lib.float64))",
    f"{F}.conv_transpose2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3))",
    f"{F}.fold(lib.zeros(1, 8, 15), (5, 5), 2)",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


@pytest.mark.parametrize("name, x, w", [("conv2d", (2, 5, 5), (3, 2, 2, 3)), ("conv1d", (2, 6), (3, 2, 3)),
                                        ("conv_transpose1d", (2, 4), (2, 3, 2))])
def test_unbatched_input(name, x, w):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(x), rng.standard_normal(w)
    results = []
    for lib in (torch, ndgrad):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = getattr(lib.nn.functional, name)(xt, wt)
        (gx,) = lib.autograd.grad((y * y).sum(), (xt,))
        results.append((type(y.grad_fn).__name__, y.detach().numpy(), gx.numpy()))
    assert results[0][0] == results[1][0]
    assert_close(results[1][1], results[0][1])
    assert_close(results[1][2], results[0][2])


@settings(max_examples=30, deadline=None)
@given(nd=st.integers(1, 3), data=st.data())
def test_conv_transpose_output_padding_up_to_dilation(nd, data):
    """output_padding may reach stride when dilation is larger (torch allows output_padding < max(stride,
    dilation)): values and gradients, first and second order, as torch's."""
    stride = data.draw(st.lists(st.integers(1, 2), min_size=nd, max_size=nd))
    dilation = data.draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd))
    output_padding = [data.draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation)]
    padding = data.draw(st.integers(0, 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    x, w = rng.standard_normal((1, 2, *[3] * nd)), rng.standard_normal((2, 2, *[2] * nd))
    results = []
    for lib in (torch, ndgrad):
        xs, ws = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        conv = getattr(lib.nn.functional, f"conv_transpose{nd}d")
        y = conv(xs, ws, stride=stride, padding=padding, output_padding=output_padding, dilation=dilation)
        grads = lib.autograd.grad((y * y).sum(), (xs, ws), create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), (xs, ws))
        results.append([t.detach().numpy() for t in (y, *grads, *second)])
    for ours, theirs in zip(results[1], results[0]):
        assert_close(ours, theirs)
