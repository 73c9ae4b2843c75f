"""TransformerEncoderLayer and TransformerEncoder against torch.nn: torch's weights loaded into ours, then outputs
and the gradients of the input, float masks and every parameter must match for each layout, norm placement,
activation and mask; also torch's inference path (padded positions come out as zeros), repr, warnings and errors."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad

from .test_rnn import assert_matches_torch, build_pair, leaf_pair

D_MODEL, HEADS, FEEDFORWARD, LENGTH, BATCH = 4, 2, 6, 3, 2
ACTIVATIONS = ["F.relu", "F.gelu", "'gelu'", "'relu'", "nn.GELU(approximate='tanh')", "nn.ReLU()", "F.silu"]


def mask_inputs(kind, unbatched, rng, dtype_name):
    """(src_mask, src_key_padding_mask, is_causal) as (ours, theirs) pairs for one mask kind."""
    padding = np.zeros((LENGTH,) if unbatched else (BATCH, LENGTH), dtype=bool)
    padding[..., -1] = True
    causal = np.triu(np.full((LENGTH, LENGTH), -np.inf), 1)
    none = (None, None)
    return {
        "none": (none, none, False),
        "causal_float": (leaf_pair(causal, dtype_name, requires_grad=False), none, False),
        "is_causal": (leaf_pair(causal, dtype_name, requires_grad=False), none, True),
        "padding_bool": (none, (ndgrad.tensor(padding), torch.tensor(padding)), False),
        "both": (leaf_pair(rng.standard_normal((LENGTH, LENGTH)), dtype_name),
                 leaf_pair(np.where(padding, -1e9, 0.0), dtype_name), False),
    }[kind]


def input_pair(batch_first, unbatched, rng, dtype_name):
    shape = (LENGTH, D_MODEL) if unbatched else (BATCH, LENGTH, D_MODEL) if batch_first else (LENGTH, BATCH, D_MODEL)
    return leaf_pair(rng.standard_normal(shape), dtype_name)


def layer_constructor(batch_first, norm_first, activation, bias, dropout=0.0):
    return (f"nn.TransformerEncoderLayer({D_MODEL}, {HEADS}, {FEEDFORWARD}, dropout={dropout}, "
            f"activation={activation}, layer_norm_eps=1e-4, batch_first={batch_first}, norm_first={norm_first}, "
            f"bias={bias})")


def layer_case(mask, batch_first, norm_first, unbatched, activation, bias, dtype_name="float64"):
    ours, theirs = build_pair(layer_constructor(batch_first, norm_first, activation, bias), dtype_name)
    rng = np.random.default_rng(0)
    src = input_pair(batch_first, unbatched, rng, dtype_name)
    src_mask, padding, is_causal = mask_inputs(mask, unbatched, rng, dtype_name)
    assert_matches_torch(ours, theirs, [src[0], src_mask[0], padding[0], is_causal],
                         [src[1], src_mask[1], padding[1], is_causal], dtype_name)


@pytest.mark.parametrize("unbatched", [False, True], ids=["batched", "unbatched"])
@pytest.mark.parametrize("norm_first", [False, True], ids=["norm_after", "norm_first"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_first", "batch_first"])
@pytest.mark.parametrize("mask", ["none", "causal_float", "is_causal", "padding_bool", "both"])
@settings(max_examples=2, deadline=None)
@given(activation=st.sampled_from(ACTIVATIONS), bias=st.booleans())
def test_encoder_layer_matches_torch(mask, batch_first, norm_first, unbatched, activation, bias):
    layer_case(mask, batch_first, norm_first, unbatched, activation, bias)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_encoder_layer_matches_torch_float32(activation):
    layer_case("both", True, False, False, activation, True, "float32")


@pytest.mark.parametrize("mask", ["none", "causal_float", "padding_bool", "both"])
@pytest.mark.parametrize("final_norm", [False, True], ids=["no_norm", "norm"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_first", "batch_first"])
def test_encoder_matches_torch(batch_first, final_norm, mask):
    """Two layers, an optional final LayerNorm; a causal float mask is detected as causal (is_causal=None)."""
    norm = f", norm=nn.LayerNorm({D_MODEL})" if final_norm else ""
    constructor = f"nn.TransformerEncoder({layer_constructor(batch_first, False, 'F.relu', True)}, 2{norm})"
    ours, theirs = build_pair(constructor, "float64")
    rng = np.random.default_rng(0)
    src = input_pair(batch_first, False, rng, "float64")
    src_mask, padding, _ = mask_inputs(mask, False, rng, "float64")
    assert_matches_torch(ours, theirs, [src[0], src_mask[0], padding[0]], [src[1], src_mask[1], padding[1]],
                         "float64")


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_dropout(training):
    """dropout=1 in training zeroes attention weights and feed-forward outputs (deterministic); eval ignores it."""
    ours, theirs = build_pair(layer_constructor(True, False, "F.relu", True, dropout=1.0 if training else 0.5),
                              "float64", training)
    src = input_pair(True, False, np.random.default_rng(0), "float64")
    assert_matches_torch(ours, theirs, [src[0]], [src[1]], "float64")


@pytest.mark.parametrize("padding", [[3, 2], [3, 3], [1, 2]], ids=["right_aligned", "no_padding", "ragged"])
def test_inference_zeroes_padded_positions_as_torch(padding):
    """In eval mode without gradients, torch runs a batch_first encoder on nested tensors: padded positions are
    zeros. The same model with gradients, or with padding not at the ends, computes every position."""
    constructor = f"nn.TransformerEncoder({layer_constructor(True, False, 'F.relu', True)}, 2)"
    ours, theirs = build_pair(constructor, "float32", training=False)
    src = input_pair(True, False, np.random.default_rng(0), "float32")
    lengths = np.array(padding)[:, None]
    mask = np.arange(LENGTH)[None, :] >= lengths
    if padding == [1, 2]:
        mask = ~mask  # padding at the start: not the nested-tensor path
    with torch.no_grad(), ndgrad.no_grad():
        expected = theirs(src[1], src_key_padding_mask=torch.tensor(mask))
        actual = ours(src[0], src_key_padding_mask=ndgrad.tensor(mask))
    assert_close(actual, expected, msg="inference output")


CONSTRUCTORS = [
    "nn.TransformerEncoderLayer(8, 2, 16)",
    "nn.TransformerEncoderLayer(8, 2, 16, 0.2, 'gelu', 1e-6, True, True, False)",
    "nn.TransformerEncoderLayer(8, 2, activation=nn.GELU())",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 3)",
]


@pytest.mark.parametrize("constructor", CONSTRUCTORS)
def test_parameters_and_repr_match_torch(constructor):
    theirs = eval(constructor, {"nn": torch.nn})
    ours = eval(constructor, {"nn": ndgrad.nn})
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    assert list(ours.state_dict()) == list(theirs.state_dict())


NESTED_TENSOR_WARNINGS = [
    "torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16), 2)",
    "torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True), 2)",
    "torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, batch_first=True, bias=False), 1)",
    "torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 1, batch_first=True), 1)",
    "torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, batch_first=True, activation=abs), 1)",
    "torch.nn.TransformerEncoder(torch.nn.Linear(2, 2), 1)",
]


@pytest.mark.parametrize("code", NESTED_TENSOR_WARNINGS)
def test_nested_tensor_warnings_match_torch(code, same):
    assert same(code).warnings


def test_no_warning_when_nested_tensors_apply(same):
    assert not same("torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, batch_first=True), 2)").warnings


ERRORS = [
    "torch.nn.TransformerEncoderLayer(8, 2, activation='tanh')",
    "torch.nn.TransformerEncoderLayer(8, 3)",
    "torch.nn.TransformerEncoderLayer(8, 2)(torch.randn(3, 2, 8), src_key_padding_mask=torch.zeros(2, 3).long())",
    "torch.nn.TransformerEncoderLayer(8, 2)(torch.randn(3, 2, 8), src_mask=torch.zeros(2, 3))",
    "torch.nn.TransformerEncoderLayer(8, 2)(torch.randn(3, 2, 6))",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code, same):
    assert same(code).error is not None
