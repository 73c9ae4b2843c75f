"""Datasets and the DataLoader without randomness print exactly what torch's print: batch contents and order,
lengths (with and without drop_last), iterable datasets, Subset / ConcatDataset / StackDataset, and the
errors of bad arguments."""

import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ndgrad

PRELUDE = """
D = torch.utils.data

class Squares(D.Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {'x': torch.tensor([float(i), -float(i)]), 'y': i * i, 'name': f'#{i}'}

class Countdown(D.IterableDataset):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return iter(range(self.n, 0, -1))
    def __len__(self):
        return self.n

class Batched(D.Dataset):
    def __len__(self):
        return 5
    def __getitem__(self, i):
        raise AssertionError('the loader must use __getitems__')
    def __getitems__(self, indices):
        return [torch.tensor(i) for i in indices]
"""

SNIPPETS = {
    "tensor_dataset": """
ds = D.TensorDataset(torch.arange(10.).reshape(5, 2), torch.arange(5))
print(len(ds), ds[1], ds[-1], ds[1:3])
for batch in D.DataLoader(ds, batch_size=2):
    print(batch)
""",
    "drop_last_and_len": """
ds = D.TensorDataset(torch.arange(7))
for drop_last in (False, True):
    loader = D.DataLoader(ds, batch_size=3, drop_last=drop_last)
    print(len(loader), [b[0].tolist() for b in loader])
""",
    "dict_samples": """
for batch in D.DataLoader(Squares(5), batch_size=2):
    print(batch)
""",
    "no_batching": """
loader = D.DataLoader(Squares(3), batch_size=None)
print(len(loader), list(loader))
""",
    "custom_collate_and_sampler": """
loader = D.DataLoader(Squares(6), batch_size=2, sampler=[5, 0, 3], collate_fn=lambda batch: [s['y'] for s in batch])
print(len(loader), list(loader))
""",
    "batch_sampler": """
loader = D.DataLoader(Squares(6), batch_sampler=[[0, 1, 2], [5], [4, 3]])
print(len(loader), [b['y'] for b in loader])
print(loader.batch_size, loader.drop_last)
""",
    "getitems_is_used": """
print(list(D.DataLoader(Batched(), batch_size=2)))
print(list(D.DataLoader(D.Subset(Batched(), [4, 0, 2]), batch_size=2)))
""",
    "iterable_dataset": """
for drop_last in (False, True):
    loader = D.DataLoader(Countdown(7), batch_size=3, drop_last=drop_last)
    print(len(loader), list(loader))
print(list(D.DataLoader(Countdown(3), batch_size=None)), len(D.DataLoader(Countdown(3), batch_size=None)))
print(list(D.DataLoader(Countdown(2) + Countdown(3), batch_size=2)))
""",
    "subset_concat_stack": """
ds = D.TensorDataset(torch.arange(6))
sub = D.Subset(ds, [5, 1, 3])
print(len(sub), sub[0], sub[[0, 2]], sub.__getitems__([0, 1]))
both = D.ConcatDataset([sub, ds])
print(len(both), both.cumulative_sizes, both[2], both[3], both[-1], both[-9])
print(len(sub + ds), (sub + ds)[4])
stacked = D.StackDataset(ds, D.Subset(ds, range(5, -1, -1)))
print(len(stacked), stacked[1])
named = D.StackDataset(a=ds, b=D.TensorDataset(torch.arange(6) * 10))
print(named[2], list(D.DataLoader(named, batch_size=4)))
""",
    "chain_dataset": """
chain = D.ChainDataset([Countdown(2), Countdown(1)])
print(list(chain), len(chain))
""",
    "loader_iterator_len": """
it = iter(D.DataLoader(range(10), batch_size=4))
print(len(it), next(it), next(it), next(it))
next(it)
""",
    "frozen_attributes": """
loader = D.DataLoader(range(4))
loader.batch_size = 2
""",
    "num_workers_and_pin_memory": """
loader = D.DataLoader(range(5), batch_size=2, num_workers=2, prefetch_factor=3)
print(list(loader), list(loader))
print(list(D.DataLoader(range(3), pin_memory=True)))
""",
    "sequential_and_batch_sampler": """
print(list(D.SequentialSampler(range(4))), len(D.SequentialSampler('abc')))
print(list(D.BatchSampler(range(7), 3, False)), list(D.BatchSampler(range(7), 3, True)))
""",
    "random_split_lengths": """
for lengths in ([3, 7], [0.3, 0.7], [0.25, 0.25, 0.5], [1/3, 1/3, 1/3], [0.1, 0.9], [0.0, 1.0]):
    parts = D.random_split(range(10), lengths, generator=torch.Generator().manual_seed(1))
    print([len(p) for p in parts], sorted(i for p in parts for i in p) == list(range(10)))
""",
}

ERRORS = {
    "tensor_size_mismatch": "D.TensorDataset(torch.zeros(3), torch.zeros(4))",
    "stack_both_kinds": "D.StackDataset(range(2), a=range(2))",
    "stack_nothing": "D.StackDataset()",
    "stack_size_mismatch": "D.StackDataset(range(2), range(3))",
    "concat_empty": "D.ConcatDataset([])",
    "concat_iterable": "D.ConcatDataset([Countdown(2)])",
    "concat_index_too_negative": "D.ConcatDataset([range(3)])[-4]",
    "concat_index_too_large": "D.ConcatDataset([range(3)])[3]",
    "chain_of_map_datasets": "list(D.ChainDataset([range(3)]))",
    "dataset_without_getitem": "D.Dataset()[0]",
    "dataset_without_len": "len(D.Dataset())",
    "sampler_without_iter": "iter(D.Sampler())",
    "sampler_with_argument": "D.Sampler(range(3))",
    "sampler_without_len": "len(D.Sampler())",
    "subset_override_without_getitems": """
class Doubled(D.Subset):
    def __getitem__(self, i):
        return 2 * super().__getitem__(i)
Doubled(range(3), [0])
""",
    "split_sum_wrong": "D.random_split(range(10), [3, 4])",
    "split_fractions_over_one": "D.random_split(range(10), [0.5, 0.6])",
    "split_fraction_negative": "D.random_split(range(10), [1.5, -0.5])",
    "sampler_and_shuffle": "D.DataLoader(range(3), sampler=[0, 1], shuffle=True)",
    "batch_sampler_and_batch_size": "D.DataLoader(range(3), batch_sampler=[[0]], batch_size=2)",
    "batch_sampler_and_drop_last": "D.DataLoader(range(3), batch_sampler=[[0]], drop_last=True)",
    "batch_sampler_and_sampler": "D.DataLoader(range(3), batch_sampler=[[0]], sampler=[0])",
    "no_batch_size_and_drop_last": "D.DataLoader(range(3), batch_size=None, drop_last=True)",
    "negative_workers": "D.DataLoader(range(3), num_workers=-1)",
    "negative_timeout": "D.DataLoader(range(3), timeout=-1)",
    "prefetch_without_workers": "D.DataLoader(range(3), prefetch_factor=2)",
    "negative_prefetch": "D.DataLoader(range(3), num_workers=1, prefetch_factor=-1)",
    "persistent_without_workers": "D.DataLoader(range(3), persistent_workers=True)",
    "context_without_workers": "D.DataLoader(range(3), multiprocessing_context='spawn')",
    "iterable_with_shuffle": "D.DataLoader(Countdown(3), shuffle=True)",
    "iterable_with_sampler": "D.DataLoader(Countdown(3), sampler=[0])",
    "iterable_with_batch_sampler": "D.DataLoader(Countdown(3), batch_sampler=[[0]])",
    "iterable_without_len": "len(D.DataLoader(D.ChainDataset([Countdown(1), range(2)])))",
    "zero_batch_size": "D.DataLoader(range(3), batch_size=0)",
    "bool_batch_size": "D.BatchSampler(range(3), True, False)",
    "int_drop_last": "D.BatchSampler(range(3), 2, 0)",
    "random_replacement_not_bool": "D.RandomSampler(range(3), replacement=1)",
    "random_num_samples_zero": "D.RandomSampler(range(3), num_samples=0)",
    "random_num_samples_float": "D.RandomSampler(range(3), num_samples=2.0)",
    "random_empty_dataset": "D.RandomSampler(range(0))",
    "weighted_num_samples": "D.WeightedRandomSampler([1, 2], 0)",
    "weighted_replacement": "D.WeightedRandomSampler([1, 2], 1, replacement=1)",
    "weighted_2d": "D.WeightedRandomSampler([[1, 2]], 1)",
    "weighted_0d": "D.WeightedRandomSampler(5, 1)",
    "collate_in_loader": "list(D.DataLoader([[1, 2], [3]], batch_size=2))",
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_loading_like_torch(same, name):
    same(PRELUDE + SNIPPETS[name])


@pytest.mark.parametrize("name", ERRORS)
def test_errors_like_torch(same, name):
    assert same(PRELUDE + ERRORS[name]).error is not None, "torch accepts this: the case is wrong"


@settings(max_examples=40, deadline=None)
@given(size=st.integers(0, 12), batch_size=st.one_of(st.none(), st.integers(1, 5)), drop_last=st.booleans())
def test_sequential_batches_like_torch(size, batch_size, drop_last):
    drop_last = drop_last and batch_size is not None

    def batches(lib):
        data = lib.utils.data.TensorDataset(lib.arange(size * 2).reshape(size, 2), lib.arange(size) * 0.5)
        loader = lib.utils.data.DataLoader(data, batch_size=batch_size, drop_last=drop_last)
        return len(loader), [[str(t.dtype).split(".")[-1], t.tolist()] for batch in loader for t in batch]

    assert batches(ndgrad) == batches(torch)


@settings(max_examples=40, deadline=None)
@given(fractions=st.lists(st.integers(0, 20), min_size=1, max_size=5).filter(any), size=st.integers(0, 40))
def test_random_split_sizes_like_torch(fractions, size):
    """Fractions summing to 1 become the same lengths as torch's (the split itself is random)."""
    fractions = [f / sum(fractions) for f in fractions]

    def lengths(lib):
        try:
            parts = lib.utils.data.random_split(range(size), fractions)
        except ValueError as error:  # fractions whose float sum exceeds 1
            return str(error)
        indices = [i for part in parts for i in part]
        assert sorted(indices) == list(range(size))  # disjoint, and together the whole dataset
        return [len(part) for part in parts]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zero-length splits warn in both libraries (compared in SNIPPETS)
        assert lengths(ndgrad) == lengths(torch)
