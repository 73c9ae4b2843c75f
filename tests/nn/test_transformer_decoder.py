"""TransformerDecoderLayer, TransformerDecoder and Transformer against torch.nn: torch's weights loaded into ours,
then outputs and the gradients of the inputs, float masks and every parameter must match for each layout, norm
placement, activation and mask; also the causal mask, repr, Xavier initialisation and the shape errors."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ndgrad

from .test_rnn import assert_matches_torch, build_pair, leaf_pair
from .test_transformer import ACTIVATIONS

D_MODEL, HEADS, FEEDFORWARD, TARGET, SOURCE, BATCH = 4, 2, 6, 3, 2, 2
NONE = (None, None)


def sequence(length, batch_first, unbatched, rng):
    shape = (length, D_MODEL) if unbatched else (BATCH, length, D_MODEL) if batch_first else (length, BATCH, D_MODEL)
    return leaf_pair(rng.standard_normal(shape), "float64")


def decoder_masks(kind, unbatched, rng):
    """(tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal) as (ours, theirs)."""
    causal = leaf_pair(np.triu(np.full((TARGET, TARGET), -np.inf), 1), "float64", requires_grad=False)
    if kind == "none":
        return [NONE, NONE, NONE, NONE, (None, None)]
    if kind in ("causal", "is_causal"):
        flag = True if kind == "is_causal" else None
        return [causal, NONE, NONE, NONE, (flag, flag)]
    memory_padding = np.zeros((SOURCE,) if unbatched else (BATCH, SOURCE), dtype=bool)
    memory_padding[..., -1] = True
    return [leaf_pair(rng.standard_normal((TARGET, TARGET)), "float64"),
            leaf_pair(rng.standard_normal((TARGET, SOURCE)), "float64"),
            leaf_pair(np.zeros((TARGET,) if unbatched else (BATCH, TARGET)), "float64"),
            (ndgrad.tensor(memory_padding), torch.tensor(memory_padding)), (None, None)]


def options(activation, batch_first, norm_first, bias):
    return (f"dropout=0.0, activation={activation}, layer_norm_eps=1e-4, batch_first={batch_first}, "
            f"norm_first={norm_first}, bias={bias}")


def split(pairs):
    return [pair[0] for pair in pairs], [pair[1] for pair in pairs]


@pytest.mark.parametrize("stacked", [False, True], ids=["layer", "decoder"])
@pytest.mark.parametrize("mask", ["none", "causal", "is_causal", "all"])
@settings(max_examples=6, deadline=None)
@given(activation=st.sampled_from(ACTIVATIONS), batch_first=st.booleans(), norm_first=st.booleans(),
       bias=st.booleans(), unbatched=st.booleans())
def test_decoder_matches_torch(stacked, mask, activation, batch_first, norm_first, bias, unbatched):
    layer = (f"nn.TransformerDecoderLayer({D_MODEL}, {HEADS}, {FEEDFORWARD}, "
             f"{options(activation, batch_first, norm_first, bias)})")
    constructor = f"nn.TransformerDecoder({layer}, 2, norm=nn.LayerNorm({D_MODEL}))" if stacked else layer
    ours, theirs = build_pair(constructor, "float64")
    rng = np.random.default_rng(0)
    tgt, memory = sequence(TARGET, batch_first, unbatched, rng), sequence(SOURCE, batch_first, unbatched, rng)
    *tensors, is_causal = decoder_masks(mask, unbatched, rng)
    if not stacked and is_causal[0] is None:
        is_causal = (False, False)
    our_inputs, their_inputs = split([tgt, memory, *tensors, is_causal])
    assert_matches_torch(ours, theirs, our_inputs, their_inputs, "float64")


@pytest.mark.parametrize("mask", ["none", "causal", "all"])
@settings(max_examples=3, deadline=None)
@given(batch_first=st.booleans(), norm_first=st.booleans(), activation=st.sampled_from(ACTIVATIONS))
def test_transformer_matches_torch(mask, batch_first, norm_first, activation):
    constructor = (f"nn.Transformer({D_MODEL}, {HEADS}, 2, 1, {FEEDFORWARD}, "
                   f"{options(activation, batch_first, norm_first, True)})")
    ours, theirs = build_pair(constructor, "float64")
    rng = np.random.default_rng(1)
    src, tgt = sequence(SOURCE, batch_first, False, rng), sequence(TARGET, batch_first, False, rng)
    tgt_mask, memory_mask, tgt_padding, memory_padding, tgt_is_causal = decoder_masks(mask, False, rng)
    src_mask = leaf_pair(rng.standard_normal((SOURCE, SOURCE)), "float64") if mask == "all" else NONE
    our_inputs, their_inputs = split([src, tgt, src_mask, tgt_mask, memory_mask, memory_padding, tgt_padding,
                                      memory_padding, NONE, tgt_is_causal])
    assert_matches_torch(ours, theirs, our_inputs, their_inputs, "float64")


def test_repr_parameters_and_causal_mask(same):
    assert same("""
model = torch.nn.Transformer(4, 2, 1, 1, 6, activation='gelu', batch_first=True)
print(model)
print([(name, tuple(p.shape)) for name, p in model.named_parameters()])
print(list(model.state_dict()))
print(torch.nn.Transformer.generate_square_subsequent_mask(4))
print(model.generate_square_subsequent_mask(2, dtype=torch.float64))
print(model.d_model, model.nhead, model.batch_first)
""").error is None


def test_xavier_initialisation():
    """Every matrix of a Transformer is U(-a, a) with a = sqrt(6 / (fan_in + fan_out)); vectors keep their init."""
    ndgrad.manual_seed(0)
    model = ndgrad.nn.Transformer(8, 2, 1, 1, 16)
    for name, param in model.named_parameters():
        values = param.detach().numpy()
        if values.ndim > 1:
            bound = np.sqrt(6 / sum(values.shape))
            assert np.abs(values).max() <= bound and np.abs(values).max() > 0.5 * bound, name


ERRORS = [
    "torch.nn.Transformer(4, 2, 1, 1, 6)(torch.randn(3, 2, 4), torch.randn(3, 1, 4))",
    "torch.nn.Transformer(4, 2, 1, 1, 6, batch_first=True)(torch.randn(2, 3, 4), torch.randn(1, 3, 4))",
    "torch.nn.Transformer(4, 2, 1, 1, 6)(torch.randn(3, 2, 4), torch.randn(3, 2, 5))",
    "torch.nn.TransformerDecoderLayer(4, 2, 6, activation='tanh')",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code, same):
    assert same(code).error is not None
