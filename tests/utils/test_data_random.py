"""Random sampling: ndgrad's generator is not torch's, so the order differs from torch's; what must hold is what
torch promises. Each pass is a permutation, a seeded generator repeats itself, passes differ, ndgrad.manual_seed
fixes loaders without a generator, and weighted sampling follows the weights."""

import collections

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ndgrad
from ndgrad.utils import data as D


def seeded(seed):
    return ndgrad.Generator().manual_seed(seed)


def epoch(loader):
    return [value for batch in loader for value in batch.tolist()]


@settings(max_examples=25, deadline=None)
@given(size=st.integers(1, 30), batch_size=st.integers(1, 7), seed=st.integers(0, 2**64 - 1))
def test_shuffle_is_a_permutation_reproducible_and_new_each_epoch(size, batch_size, seed):
    dataset = ndgrad.arange(size)
    loader = D.DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=seeded(seed))
    epochs = [epoch(loader) for _ in range(4)]
    assert all(sorted(order) == list(range(size)) for order in epochs)
    again = D.DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=seeded(seed))
    assert [epoch(again) for _ in range(4)] == epochs
    if size >= 6:  # 4 equal permutations of 6 or more items: odds below 1e-8
        assert len({tuple(order) for order in epochs}) > 1


def test_shuffle_without_generator_follows_manual_seed():
    loader = D.DataLoader(ndgrad.arange(20), batch_size=3, shuffle=True)
    ndgrad.manual_seed(7)
    first = [epoch(loader), epoch(loader)]
    ndgrad.manual_seed(7)
    assert [epoch(loader), epoch(loader)] == first
    assert first[0] != first[1] and sorted(first[0]) == list(range(20))


def test_random_sampler_with_replacement_and_num_samples():
    sampler = D.RandomSampler(range(5), replacement=True, num_samples=100, generator=seeded(0))
    drawn = list(sampler)
    assert len(sampler) == len(drawn) == 100 and set(drawn) == set(range(5))
    over = list(D.RandomSampler(range(4), num_samples=10, generator=seeded(1)))
    assert sorted(over[:4]) == sorted(over[4:8]) == [0, 1, 2, 3] and len(set(over[8:])) == 2  # whole passes first


def test_subset_random_sampler():
    indices = [10, 20, 30, 40, 50]
    sampler = D.SubsetRandomSampler(indices, generator=seeded(3))
    orders = [list(sampler) for _ in range(3)]
    assert len(sampler) == 5 and all(sorted(order) == indices for order in orders)
    again = D.SubsetRandomSampler(indices, generator=seeded(3))
    assert [list(again) for _ in range(3)] == orders


def test_random_split_is_disjoint_and_seeded():
    first = D.random_split(range(30), [0.5, 0.3, 0.2], generator=seeded(5))
    second = D.random_split(range(30), [0.5, 0.3, 0.2], generator=seeded(5))
    assert [list(s) for s in first] == [list(s) for s in second]
    assert [len(s) for s in first] == [15, 9, 6] and sorted(i for s in first for i in s) == list(range(30))
    assert [list(s) for s in D.random_split(range(30), [15, 9, 6], generator=seeded(6))] != [list(s) for s in first]


def test_weighted_sampling_follows_the_weights():
    weights = [0.0, 1.0, 3.0, 0.0, 6.0]
    drawn = list(D.WeightedRandomSampler(weights, 20000, generator=seeded(0)))
    counts = collections.Counter(drawn)
    assert set(counts) == {1, 2, 4}  # zero weights are never drawn
    assert np.allclose([counts[1] / 20000, counts[2] / 20000, counts[4] / 20000], [0.1, 0.3, 0.6], atol=0.015)


def test_weighted_sampling_without_replacement():
    weights = [5.0, 0.0, 1.0, 0.0, 2.0]
    for seed in range(20):
        drawn = list(D.WeightedRandomSampler(weights, 5, replacement=False, generator=seeded(seed)))
        assert sorted(drawn) == [0, 1, 2, 3, 4] and drawn[3:] == [1, 3]  # zero weights last, as torch orders them
    first = collections.Counter(
        next(iter(D.WeightedRandomSampler(weights, 1, replacement=False, generator=seeded(s)))) for s in range(3000)
    )
    assert abs(first[0] / 3000 - 5 / 8) < 0.04


@pytest.mark.parametrize(
    "weights, count, replacement, message",
    [
        ([1.0, -1.0, 2.0], 2, True, "invalid multinomial distribution (encountering probability entry < 0)"),
        ([1.0, float("nan"), 2.0], 2, True, "invalid multinomial distribution (encountering probability entry < 0)"),
        ([float("inf"), -1.0], 2, True,
         "invalid multinomial distribution (encountering probability entry = infinity or NaN)"),
        ([1.0, -1.0, 2.0], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
        ([1.0, float("inf")], 2, False, "probability tensor contains either `inf`, `nan` or element < 0"),
        ([0.0, 0.0], 2, True, "invalid multinomial distribution (sum of probabilities <= 0)"),
        ([1.0, 2.0, 3.0], 4, False, "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    ],
)
def test_weighted_sampling_errors_like_torch(weights, count, replacement, message):
    import torch

    with pytest.raises(RuntimeError) as theirs:
        list(torch.utils.data.WeightedRandomSampler(weights, count, replacement=replacement))
    assert str(theirs.value) == message  # the case still describes torch
    with pytest.raises(RuntimeError) as ours:
        list(D.WeightedRandomSampler(weights, count, replacement=replacement))
    assert str(ours.value) == message
