"""default_collate and default_convert give what torch's give: the same container types, tensor dtypes, shapes and
values, and the same errors, for every kind of sample."""

import collections
import types

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ndgrad
from ndgrad._dtype import ALL_DTYPES

Point = collections.namedtuple("Point", "x y")


class Record(collections.abc.Mapping):
    """An immutable mapping that can be rebuilt from a dict."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


def plain(value):
    """A library-neutral picture of a collated value: tensors as (dtype name, shape, values), containers by type."""
    if isinstance(value, (torch.Tensor, ndgrad.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist())
    if isinstance(value, collections.abc.Mapping):
        return (type(value).__name__, {key: plain(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(item) for item in value])
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.tolist())
    return (type(value).__name__, value)


# Each batch is built by a function of the library, so tensors in it are that library's.
BATCHES = {
    "ints": lambda lib: [0, 1, 2, 3],
    "floats": lambda lib: [0.5, 1.0, -2.25],
    "bools": lambda lib: [True, False, True],
    "strings": lambda lib: ["a", "b"],
    "bytes": lambda lib: [b"a", b"b"],
    "tensors": lambda lib: [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
    "int_tensors_0d": lambda lib: [lib.tensor(1), lib.tensor(2)],
    "numpy_arrays": lambda lib: [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)],
    "numpy_int16": lambda lib: [np.arange(3, dtype=np.int16)] * 2,
    "numpy_scalars": lambda lib: [np.float32(1.5), np.float32(2.5)],
    "numpy_int_scalars": lambda lib: [np.int64(1), np.int64(2)],
    "numpy_bool_scalars": lambda lib: [np.bool_(True), np.bool_(False)],
    "numpy_0d_arrays": lambda lib: [np.array(1.0), np.array(2.0)],
    "dicts": lambda lib: [{"x": lib.ones(2), "y": 1, "name": "a"}, {"x": lib.zeros(2), "y": 2, "name": "b"}],
    "ordered_dicts": lambda lib: [collections.OrderedDict(b=1.0, a=2), collections.OrderedDict(b=3.0, a=4)],
    "immutable_mapping": lambda lib: [Record({"k": 1}), Record({"k": 2})],
    "mapping_proxy": lambda lib: [types.MappingProxyType({"k": 1}), types.MappingProxyType({"k": 2})],
    "named_tuples": lambda lib: [Point(1, lib.ones(1)), Point(2, lib.zeros(1))],
    "tuples_become_lists": lambda lib: [(lib.ones(2), 0), (lib.zeros(2), 1)],
    "lists": lambda lib: [[1, 2.0], [3, 4.0]],
    "nested": lambda lib: [{"pair": (1, [lib.tensor([1]), "s"])}, {"pair": (2, [lib.tensor([2]), "t"])}],
    "range_sequences": lambda lib: [range(2), range(3, 5)],
}


@pytest.mark.parametrize("name", BATCHES)
def test_default_collate_like_torch(name):
    expected = plain(torch.utils.data.default_collate(BATCHES[name](torch)))
    assert plain(ndgrad.utils.data.default_collate(BATCHES[name](ndgrad))) == expected


@pytest.mark.parametrize("name", BATCHES)
def test_default_convert_like_torch(name):
    expected = plain(torch.utils.data.default_convert(BATCHES[name](torch)))
    assert plain(ndgrad.utils.data.default_convert(BATCHES[name](ndgrad))) == expected


# NumPy arrays of every dtype torch.from_numpy takes: not bfloat16, whose NumPy type is ml_dtypes' (torch refuses it)
NUMPY_DTYPES = [dtype for dtype in ALL_DTYPES if dtype.name != "bfloat16"]


@settings(max_examples=30, deadline=None)
@given(
    dtype=st.sampled_from(NUMPY_DTYPES),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3),
    size=st.integers(1, 4),
    data=st.data(),
)
def test_collated_tensors_and_arrays_stack(dtype, shape, size, data):
    arrays = [data.draw(hnp.arrays(dtype.numpy, shape, elements={"allow_nan": False})) for _ in range(size)]
    for samples in (arrays, [[a] for a in arrays]):
        expected = plain(torch.utils.data.default_collate(samples))
        assert plain(ndgrad.utils.data.default_collate(samples)) == expected
    tensors = [torch.from_numpy(a) for a in arrays]
    expected = plain(torch.utils.data.default_collate(tensors))
    assert plain(ndgrad.utils.data.default_collate([ndgrad.from_numpy(a) for a in arrays])) == expected


ERRORS = {
    "unequal_lists": "[[1, 2], [3]]",
    "unsupported_type": "[object(), object()]",
    "string_arrays": "[np.array(['a']), np.array(['b'])]",
    "object_arrays": "[np.array([None]), np.array([None])]",
    "unequal_tensors": "[torch.zeros(2), torch.zeros(3)]",
    "none_samples": "[None, None]",
}


@pytest.mark.parametrize("name", ERRORS)
def test_collate_errors_like_torch(same, name):
    same(f"torch.utils.data.default_collate({ERRORS[name]})")


def test_collate_registry_extends():
    """A custom collate_fn_map entry wins for its type, as with torch's collate()."""
    from ndgrad.utils.data._utils.collate import collate, default_collate_fn_map

    custom = {**default_collate_fn_map, int: lambda batch, *, collate_fn_map: sum(batch)}
    assert collate([{"n": 1}, {"n": 2}], collate_fn_map=custom) == {"n": 3}
