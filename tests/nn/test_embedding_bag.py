"""nn.EmbeddingBag and F.embedding_bag against torch: torch's weights loaded into ours, then outputs and the
gradients of the weight and of per_sample_weights for drawn bags in every mode; repr, state_dict, from_pretrained,
max_norm and the argument errors."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad

from .test_rnn import assert_matches_torch, build_pair, leaf_pair

ROWS, DIM = 6, 3


@st.composite
def bags(draw):
    """(indices, offsets): a flat index list cut into bags, some possibly empty."""
    indices = draw(st.lists(st.integers(0, ROWS - 1), min_size=0, max_size=9))
    cuts = sorted(draw(st.lists(st.integers(0, len(indices)), min_size=1, max_size=4)))
    return indices, [0, *cuts[1:]]


@settings(max_examples=40, deadline=None)
@given(case=bags(), mode=st.sampled_from(["sum", "mean", "max"]), padding_idx=st.sampled_from([None, 2, -1]),
       include_last_offset=st.booleans(), weighted=st.booleans())
def test_bags_match_torch(case, mode, padding_idx, include_last_offset, weighted):
    indices, offsets = case
    if include_last_offset:
        offsets = [*offsets, len(indices)]
    ours, theirs = build_pair(f"nn.EmbeddingBag({ROWS}, {DIM}, mode={mode!r}, padding_idx={padding_idx}, "
                              f"include_last_offset={include_last_offset})", "float64")
    our_inputs = [ndgrad.tensor(indices, dtype=ndgrad.int64), ndgrad.tensor(offsets)]
    their_inputs = [torch.tensor(indices, dtype=torch.int64), torch.tensor(offsets)]
    if weighted and mode == "sum":
        weights = leaf_pair(np.random.default_rng(0).standard_normal(len(indices)), "float64")
        our_inputs.append(weights[0])
        their_inputs.append(weights[1])
    assert_matches_torch(ours, theirs, our_inputs, their_inputs, "float64")


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_two_dimensional_input_float32_and_node_name(mode):
    ours, theirs = build_pair(f"nn.EmbeddingBag({ROWS}, {DIM}, mode={mode!r})", "float32")
    indices = [[0, 5, 5], [2, 1, 3]]
    assert_matches_torch(ours, theirs, [ndgrad.tensor(indices)], [torch.tensor(indices)], "float32")
    assert type(ours(ndgrad.tensor(indices)).grad_fn).__name__ == type(theirs(torch.tensor(indices)).grad_fn).__name__


def test_max_norm_matches_torch():
    ours, theirs = build_pair(f"nn.EmbeddingBag({ROWS}, {DIM}, mode='sum', max_norm=0.5)", "float64")
    indices, offsets = [1, 1, 4, 1, 0], [0, 2]
    assert_matches_torch(ours, theirs, [ndgrad.tensor(indices), ndgrad.tensor(offsets)],
                         [torch.tensor(indices), torch.tensor(offsets)], "float64")
    assert_close(ours.weight, theirs.weight, msg="renormalised weight")


def test_from_pretrained_state_dict_and_init(same):
    assert same("""
bag = torch.nn.EmbeddingBag.from_pretrained(torch.tensor([[1., 2.], [3., 4.], [5., 7.]]), mode='max', padding_idx=0)
print(bag, bag.weight.requires_grad, list(bag.state_dict()), bag(torch.tensor([[0, 1], [2, 1]])))
thawed = torch.nn.EmbeddingBag.from_pretrained(torch.ones(2, 2), freeze=False, include_last_offset=True)
print(thawed.weight.requires_grad, thawed.include_last_offset, thawed(torch.tensor([0, 1, 1]), torch.tensor([0, 1, 3])))
torch.manual_seed(0)
print(torch.nn.EmbeddingBag(4, 2, padding_idx=1, max_norm=1.0, norm_type=3.0, scale_grad_by_freq=True, mode='sum'))
print(torch.nn.EmbeddingBag(4, 2, padding_idx=1).weight[1])
""").error is None


ERRORS = [
    "torch.nn.EmbeddingBag(4, 2, padding_idx=4)",
    "torch.nn.EmbeddingBag(4, 2, _weight=torch.ones(2, 2))",
    "torch.nn.EmbeddingBag.from_pretrained(torch.ones(3))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([0, 1]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([[0, 1]]), torch.tensor([0]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([0, 1]), torch.tensor([[0]]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([[[0, 1]]]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([0, 1]), torch.tensor([1]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([0, 1]), torch.tensor([0, 3]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([0, 4]), torch.tensor([0]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([0., 1.]), torch.tensor([0]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([0, 1]), torch.tensor([0.]))",
    "torch.nn.EmbeddingBag(4, 2)(torch.tensor([0, 1]), torch.tensor([0]), torch.ones(2))",
    "torch.nn.EmbeddingBag(4, 2, mode='sum')(torch.tensor([0, 1]), torch.tensor([0]), torch.ones(3))",
    "torch.nn.EmbeddingBag(4, 2, mode='min')(torch.tensor([0, 1]), torch.tensor([0]))",
    "torch.nn.EmbeddingBag(4, 2, mode='max', scale_grad_by_freq=True)(torch.tensor([0, 1]), torch.tensor([0]))",
    "torch.nn.functional.embedding_bag(torch.tensor([0, 1]), torch.ones(4), torch.tensor([0]))",
    "torch.nn.functional.embedding_bag(torch.tensor([0, 1]), torch.ones(4, 2), torch.tensor([0]), padding_idx=-5)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code, same):
    assert same(code).error is not None


def test_decreasing_offsets_raise_as_torch_does_on_two_threads(same):
    """torch checks the offsets only as it splits the bags over its threads: on one thread it returns empty bags
    for decreasing offsets, on two it raises the error that ndgrad raises whatever the thread count."""
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert same("torch.nn.EmbeddingBag(4, 2)(torch.tensor([0, 1, 2]), torch.tensor([0, 2, 1]))").error is not None
    finally:
        torch.set_num_threads(threads)
