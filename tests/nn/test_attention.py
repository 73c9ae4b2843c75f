"""MultiheadAttention against torch.nn.MultiheadAttention: torch's weights loaded into ours, then the output, the
attention weights and the gradients of query, key, value, float masks and every parameter must match, for each
kind of source (self-attention, shared key/value, distinct, kdim/vdim), mask, layout and option; repr and errors."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad

from .test_rnn import assert_matches_torch, build_pair, leaf_pair

HEADS, EMBED, TARGET, SOURCE, BATCH = 2, 4, 3, 4, 2


def masks(kind, unbatched, source_length, rng):
    """(key_padding_mask, attn_mask, is_causal) as numpy arrays for one mask kind."""
    batch = () if unbatched else (BATCH,)
    padding = np.zeros((*batch, source_length), dtype=bool)
    padding[..., -1] = True  # the last key is padding for every sequence; no row is fully masked
    causal = np.triu(np.ones((TARGET, source_length), dtype=bool), 1)
    per_head = rng.standard_normal((HEADS if unbatched else BATCH * HEADS, TARGET, source_length))
    return {
        "none": (None, None, False),
        "padding_bool": (padding, None, False),
        "padding_float": (np.where(padding, -1e9, rng.standard_normal(padding.shape)), None, False),
        "attn_bool": (None, causal, False),
        "attn_float_3d": (None, per_head, False),
        "both_bool": (padding, causal, False),
        "causal": (None, causal, True),
    }[kind]


def as_pair(array, dtype_name):
    """A mask as (ours, theirs): bool masks as they are, float masks as leaves whose gradient is compared."""
    if array is None:
        return None, None
    if array.dtype == bool:
        return ndgrad.tensor(array), torch.tensor(array)
    return leaf_pair(array, dtype_name)


def attention_case(mask, need_weights, batch_first, unbatched, sources, options, dtype_name="float64"):
    bias, add_bias_kv, add_zero_attn, average = options
    dims = ", kdim=3, vdim=5" if sources == "kdim_vdim" else ""
    ours, theirs = build_pair(
        f"nn.MultiheadAttention({EMBED}, {HEADS}, bias={bias}, add_bias_kv={add_bias_kv}, "
        f"add_zero_attn={add_zero_attn}, batch_first={batch_first}{dims})",
        dtype_name,
    )
    rng = np.random.default_rng(0)
    source_length = TARGET if sources == "self" else SOURCE

    def shape(length, features):
        if unbatched:
            return (length, features)
        return (BATCH, length, features) if batch_first else (length, BATCH, features)

    query = leaf_pair(rng.standard_normal(shape(TARGET, EMBED)), dtype_name)
    if sources == "self":
        key = value = query
    elif sources == "shared_key_value":
        key = value = leaf_pair(rng.standard_normal(shape(source_length, EMBED)), dtype_name)
    else:
        key_features, value_features = (3, 5) if sources == "kdim_vdim" else (EMBED, EMBED)
        key = leaf_pair(rng.standard_normal(shape(source_length, key_features)), dtype_name)
        value = leaf_pair(rng.standard_normal(shape(source_length, value_features)), dtype_name)
    key_padding_mask, attn_mask, is_causal = masks(mask, unbatched, source_length, rng)
    padding, attention = as_pair(key_padding_mask, dtype_name), as_pair(attn_mask, dtype_name)
    # forward's positional order: query, key, value, key_padding_mask, need_weights, attn_mask, average, is_causal
    our_inputs = [query[0], key[0], value[0], padding[0], need_weights, attention[0], average, is_causal]
    their_inputs = [query[1], key[1], value[1], padding[1], need_weights, attention[1], average, is_causal]
    assert_matches_torch(ours, theirs, our_inputs, their_inputs, dtype_name)


OPTIONS = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans())
SOURCES = ["self", "shared_key_value", "distinct", "kdim_vdim"]
MASKS = ["none", "padding_bool", "padding_float", "attn_bool", "attn_float_3d", "both_bool", "causal"]


@pytest.mark.parametrize("unbatched", [False, True], ids=["batched", "unbatched"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_first", "batch_first"])
@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "no_weights"])
@pytest.mark.parametrize("mask", MASKS)
@settings(max_examples=2, deadline=None)
@given(sources=st.sampled_from(SOURCES), options=OPTIONS)
def test_attention_matches_torch(mask, need_weights, batch_first, unbatched, sources, options):
    attention_case(mask, need_weights, batch_first, unbatched, sources, options)


@pytest.mark.parametrize("sources", SOURCES)
def test_attention_matches_torch_float32(sources):
    attention_case("both_bool", True, True, False, sources, (True, True, True, False), "float32")


@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "no_weights"])
def test_attention_dropout(need_weights):
    """p = 1 drops every attention weight in training (deterministic); eval mode ignores dropout."""
    for training, p in ((True, 1.0), (False, 0.5)):
        ours, theirs = build_pair(f"nn.MultiheadAttention({EMBED}, {HEADS}, dropout={p})", "float64", training)
        x_n, x_t = leaf_pair(np.random.default_rng(0).standard_normal((TARGET, BATCH, EMBED)), "float64")
        assert_matches_torch(ours, theirs, [x_n, x_n, x_n, None, need_weights], [x_t, x_t, x_t, None, need_weights],
                             "float64")


def test_static_keys_and_values_match_torch():
    """multi_head_attention_forward with static_k / static_v: given (batch * heads, source, head_dim) tensors."""
    ours, theirs = build_pair(f"nn.MultiheadAttention({EMBED}, {HEADS})", "float64")
    rng = np.random.default_rng(0)
    query = leaf_pair(rng.standard_normal((TARGET, BATCH, EMBED)), "float64")
    static_k, static_v = (leaf_pair(rng.standard_normal((BATCH * HEADS, SOURCE, EMBED // HEADS)), "float64")
                          for _ in range(2))
    results = []
    for index, (lib, module) in enumerate(((ndgrad, ours), (torch, theirs))):
        function = (ndgrad.nn.modules.attention.multi_head_attention_forward if lib is ndgrad
                    else torch.nn.functional.multi_head_attention_forward)
        q = query[index]
        output, weights = function(
            q, q, q, EMBED, HEADS, module.in_proj_weight, module.in_proj_bias, None, None, False, 0.0,
            module.out_proj.weight, module.out_proj.bias, static_k=static_k[index], static_v=static_v[index],
        )
        (output.sum() + (weights * weights).sum()).backward()
        results.append([output, weights, q.grad, static_k[index].grad, static_v[index].grad])
    for ours_value, theirs_value in zip(*results):
        assert_close(ours_value, theirs_value)


@pytest.mark.parametrize("constructor", [
    "nn.MultiheadAttention(8, 2)",
    "nn.MultiheadAttention(8, 4, dropout=0.1, bias=False, add_bias_kv=True, add_zero_attn=True, batch_first=True)",
    "nn.MultiheadAttention(6, 3, kdim=4, vdim=5)",
])
def test_parameters_and_repr_match_torch(constructor):
    theirs = eval(constructor, {"nn": torch.nn})
    ours = eval(constructor, {"nn": ndgrad.nn})
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name in ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v"):
        assert (getattr(ours, name) is None) == (getattr(theirs, name) is None), name


def test_default_init_matches_torch():
    """xavier_uniform_ projections (inside torch's bound, same spread), zero biases, xavier_normal_ bias_k/v."""
    theirs = torch.nn.MultiheadAttention(16, 4, add_bias_kv=True)
    ours = ndgrad.nn.MultiheadAttention(16, 4, add_bias_kv=True)
    bound = np.sqrt(6 / (16 + 3 * 16))
    for module in (ours, theirs):
        weights = module.in_proj_weight.detach().numpy()
        assert np.abs(weights).max() <= bound and weights.std() > 0.8 * bound / np.sqrt(3)
        assert not module.in_proj_bias.detach().numpy().any() and not module.out_proj.bias.detach().numpy().any()
    assert ours.bias_k.shape == theirs.bias_k.shape and ours.bias_k.detach().numpy().std() > 0


ERRORS = [
    "torch.nn.MultiheadAttention(0, 2)",
    "torch.nn.MultiheadAttention(8, 3)",
    "m(torch.randn(3, 8), torch.randn(4, 2, 8), torch.randn(4, 2, 8))",
    "m(torch.randn(3, 2, 8), torch.randn(4, 8), torch.randn(4, 8))",
    "m(torch.randn(2, 3, 2, 8), torch.randn(4, 2, 8), torch.randn(4, 2, 8))",
    "m(torch.randn(3, 2, 6), torch.randn(4, 2, 6), torch.randn(4, 2, 6))",
    "m(torch.randn(3, 2, 8), torch.randn(4, 2, 8), torch.randn(5, 2, 8))",
    "m(x, x, x, key_padding_mask=torch.zeros(2, 3, 1, dtype=torch.bool))",
    "m(x, x, x, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool))",
    "m(x, x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.int64))",
    "m(x, x, x, attn_mask=torch.zeros(3, 4, dtype=torch.bool))",
    "m(x, x, x, attn_mask=torch.zeros(2, 3, 3))",
    "m(x, x, x, attn_mask=torch.zeros(1, 1, 3, 3))",
    "m(x, x, x, is_causal=True)",
    "m(x[:, 0], x[:, 0], x[:, 0], attn_mask=torch.zeros(1, 3, 3))",
    "m(x[:, 0], x[:, 0], x[:, 0], key_padding_mask=torch.zeros(2, 3, dtype=torch.bool))",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code, same):
    assert same("m = torch.nn.MultiheadAttention(8, 2)\nx = torch.randn(3, 2, 8)\n" + code).error is not None


def test_mismatched_mask_types_warn_as_torch(same):
    outcome = same(
        "m = torch.nn.MultiheadAttention(8, 2)\nx = torch.randn(3, 2, 8)\n"
        "out, weights = m(x, x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool), attn_mask=torch.zeros(3, 3))\n"
        "print(out.shape, weights.shape)\n"
    )
    assert outcome.warnings
