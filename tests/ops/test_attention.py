"""F.scaled_dot_product_attention (ndgrad.ops.attention), a composite, against torch: values in both precisions,
grad_fn, VJP, second derivatives, forward mode and finite differences (tests/ops/composites.py) over masks, causal,
scale, grouped-query heads and broadcast batch dims; its errors; and dropout, checked by its statistics."""

import numpy as np
import pytest
import torch

import ndgrad

from .composites import assert_like_torch
from .errors import assert_raises_like_torch


def attention(**kwargs):
    def call(lib, q, k, v, *mask):
        options = dict(kwargs, attn_mask=mask[0]) if mask else kwargs
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, **options)
    return call


def normal(*shape, seed=0):
    return np.random.default_rng(seed + len(shape) + sum(shape)).standard_normal(shape)


Q, K, V = normal(2, 3, 3, 4), normal(2, 3, 5, 4, seed=1), normal(2, 3, 5, 2, seed=2)
BOOL_MASK = np.random.default_rng(3).random((3, 5)) > 0.4
ROW_MASKED = np.ones((3, 5), dtype=bool)
ROW_MASKED[2] = False
CASES = [
    ("plain", (Q, K, V), attention()),
    ("bool_mask", (Q, K, V, BOOL_MASK), attention()),
    ("bool_mask_row_masked", (Q, K, V, ROW_MASKED), attention()),
    ("float_mask_broadcast", (Q, K, V, normal(3, 1, 5)), attention()),
    ("causal", (Q, K, V), attention(is_causal=True)),
    ("causal_more_queries", (normal(1, 2, 6, 3), normal(1, 2, 4, 3), normal(1, 2, 4, 2)), attention(is_causal=True)),
    ("scale", (Q, K, V), attention(scale=0.7)),
    ("negative_scale", (Q, K, V, BOOL_MASK), attention(scale=-0.3)),
    ("gqa", (Q, K[:, :1], V[:, :1]), attention(enable_gqa=True)),
    ("gqa_value_heads", (normal(1, 4, 3, 2), normal(1, 2, 5, 2), normal(1, 1, 5, 3)), attention(enable_gqa=True)),
    ("batch_broadcast", (Q, K[:1], V[:1]), attention()),
    ("unbatched", (normal(4, 5), normal(6, 5), normal(6, 3)), attention()),
    ("five_dims", (normal(2, 1, 2, 3, 4), normal(2, 1, 2, 5, 4), normal(2, 1, 2, 5, 2)), attention(is_causal=True)),
    ("tiny", (normal(2, 2, 2), normal(2, 3, 2), normal(2, 3, 2)), attention()),
    ("tiny_mask", (normal(1, 2, 2), normal(1, 3, 2), normal(1, 3, 2), normal(2, 3)), attention(scale=1.5)),
]


@pytest.mark.parametrize(("inputs", "call"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_matches_torch(inputs, call):
    assert_like_torch(call, *inputs)


S = "lib.nn.functional.scaled_dot_product_attention"
Q4, K4, V4 = "lib.ones(2, 3, 4, 5)", "lib.ones(2, 3, 6, 5)", "lib.ones(2, 3, 6, 7)"
ERRORS = [
    f"{S}({Q4}.double(), {K4}, {V4})",
    f"{S}({Q4}, {K4}, {V4}.double())",
    f"{S}(lib.ones(5), lib.ones(5), lib.ones(5))",
    f"{S}({Q4}, {K4}, {V4}, attn_mask=lib.zeros(4, 6, dtype=lib.long))",
    f"{S}({Q4}, {K4}, {V4}, attn_mask=lib.zeros(4, 6, dtype=lib.float64))",
    f"{S}({Q4}, {K4}, {V4}, attn_mask=lib.zeros(4, 6), is_causal=True)",
    f"{S}({Q4}, {K4}, {V4}, attn_mask=lib.zeros(5, 6))",
    f"{S}({Q4}, {K4}, {V4}, attn_mask=lib.zeros(1, 2, 3, 4, 6, dtype=lib.bool))",
    f"{S}({Q4}, {K4}[:, :2], {V4}[:, :2], enable_gqa=True)",
    f"{S}({Q4}, {K4}, {V4}, dropout_p=2.0)",
    f"{S}({Q4}.long(), {K4}.long(), {V4}.long())",
    f"{S}(1.0, {K4}, {V4})",
    f"{S}({Q4}, {K4}, {V4}, attn_mask=[[True]])",
    f"{S}({Q4}.to(lib.complex128), {K4}.to(lib.complex128), {V4}.to(lib.complex128))",
    f"{S}({Q4}.to(lib.complex64).requires_grad_(), {K4}.to(lib.complex64), {V4}.to(lib.complex64))",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


def test_dropout_zeroes_weights_with_probability_p_and_rescales_the_rest():
    """With the identity as values, the output is the dropped-out attention weights themselves."""
    ndgrad.manual_seed(0)
    query, key = (ndgrad.from_numpy(normal(64, 4, 50, 8, seed=s)) for s in (0, 1))
    value = ndgrad.eye(50, dtype=ndgrad.float64).requires_grad_()
    out = ndgrad.nn.functional.scaled_dot_product_attention(query, key, value, dropout_p=0.3)
    weights = ndgrad.nn.functional.scaled_dot_product_attention(query, key, ndgrad.eye(50, dtype=ndgrad.float64))
    assert type(out.grad_fn).__name__ == "UnsafeViewBackward0" and out.shape == weights.shape
    dropped, kept = out.detach().numpy(), weights.numpy()
    zero = dropped == 0
    assert abs(zero.mean() - 0.3) < 0.01  # 640,000 draws: the standard error is 0.0006
    np.testing.assert_allclose(dropped[~zero], kept[~zero] / 0.7)
    (grad,) = ndgrad.autograd.grad(out.sum(), value)  # d sum(W @ V) / d V = W^T @ 1: the dropped weights again
    np.testing.assert_allclose(grad.numpy(), dropped.sum(axis=(0, 1, 2))[:, None].repeat(50, 1))


def test_dropout_of_one_gives_zeros_as_torch():
    for lib in (ndgrad, torch):
        out = lib.nn.functional.scaled_dot_product_attention(lib.ones(1, 2, 3), lib.ones(1, 4, 3), lib.ones(1, 4, 2),
                                                             dropout_p=1.0)
        assert not out.numpy().any()
