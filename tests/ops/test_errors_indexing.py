"""Bad arguments to the indexing, masking, sorting and searching ops raise torch's exception type and message."""

import numpy as np
import pytest
import torch

import ndgrad

from .errors import assert_raises_like_torch


def x(lib):
    return lib.from_numpy(np.arange(12.0).reshape(3, 4))


def x3(lib):
    return lib.from_numpy(np.arange(24.0).reshape(2, 3, 4))


def mask(lib):
    return x(lib) > 4


def one(lib):
    return lib.tensor(1.0, dtype=lib.float64)


ERRORS = {
    "index out of bounds": lambda lib: x(lib)[lib.tensor([5])],
    "negative index out of bounds": lambda lib: x(lib)[lib.tensor([-4])],
    "index out of bounds, second index": lambda lib: x3(lib)[:, [1], [9]],
    "int out of bounds": lambda lib: x(lib)[1, [0, 5]],
    "float index tensor": lambda lib: x(lib)[lib.tensor([2.0])],
    "0-d float index tensor": lambda lib: x(lib)[lib.tensor(2.0)],
    "float index": lambda lib: x(lib)[1.5],
    "too many indices": lambda lib: x(lib)[[0], [0], [0]],
    "mask shape": lambda lib: x3(lib)[:, :, lib.tensor([True, False])],
    "mask shape after an int": lambda lib: x3(lib)[0, lib.tensor([True, False])],
    "indices that do not broadcast": lambda lib: x3(lib)[[0, 1], :, [0, 1, 2]],
    "setitem dtype": lambda lib: x(lib).__setitem__([0], lib.ones(4, dtype=lib.float32)),
    "setitem shape": lambda lib: x(lib).__setitem__([0, 1], lib.ones(3, dtype=lib.float64)),
    "setitem str": lambda lib: x(lib).__setitem__([0], "a"),
    "index_put dtype": lambda lib: lib.index_put(x(lib), (lib.tensor([0]),), lib.ones(4)),
    "index_put too many": lambda lib: lib.index_put(x(lib), (lib.tensor([1]),) * 3, one(lib)),
    "index_put None": lambda lib: lib.index_put(x(lib), (None, lib.tensor([1])), one(lib)),
    "index_put out of bounds": lambda lib: lib.index_put(x(lib), (lib.tensor([3]),), one(lib)),
    "gather float index": lambda lib: lib.gather(x(lib), 1, lib.tensor([[1.0]])),
    "gather out of bounds": lambda lib: lib.gather(x(lib), 1, lib.tensor([[4]])),
    "gather negative index": lambda lib: lib.gather(x(lib), 1, lib.tensor([[-1]])),
    "gather dims": lambda lib: lib.gather(x(lib), 1, lib.tensor([1])),
    "gather size": lambda lib: lib.gather(x(lib), 1, lib.tensor([[1]] * 4)),
    "gather dim": lambda lib: lib.gather(x(lib), 2, lib.tensor([[1]])),
    "scatter float index": lambda lib: lib.scatter(x(lib), 1, lib.tensor([[1.0]]), 1.0),
    "scatter out of bounds": lambda lib: lib.scatter(x(lib), 1, lib.tensor([[4]]), 1.0),
    "scatter src too small": lambda lib: lib.scatter(x(lib), 1, lib.tensor([[1, 2]]), one(lib)[None, None]),
    "scatter index too big": lambda lib: lib.scatter(x(lib), 1, lib.tensor([[1]] * 4), 1.0),
    "scatter dims": lambda lib: lib.scatter(x(lib), 1, lib.tensor([1]), 1.0),
    "scatter dtype": lambda lib: lib.scatter(x(lib), 1, lib.tensor([[1]]), lib.ones(1, 1)),
    "scatter_add dtype": lambda lib: lib.scatter_add(x(lib), 1, lib.tensor([[1]]), lib.ones(1, 1)),
    "scatter_reduce reduce": lambda lib: lib.scatter_reduce(x(lib), 1, lib.tensor([[1]]), x(lib), "max2"),
    "index_select float index": lambda lib: lib.index_select(x(lib), 0, lib.tensor([1.0])),
    "index_select 2-d index": lambda lib: lib.index_select(x(lib), 0, lib.tensor([[1]])),
    "index_select out of range": lambda lib: lib.index_select(x(lib), 0, lib.tensor([3])),
    "index_add float index": lambda lib: lib.index_add(x(lib), 0, lib.tensor([1.0]), x(lib)[:1]),
    "index_add dtype": lambda lib: lib.index_add(x(lib), 0, lib.tensor([0]), lib.ones(1, 4)),
    "index_add count": lambda lib: lib.index_add(x(lib), 0, lib.tensor([0]), lib.ones(2, 4, dtype=lib.float64)),
    "index_add out of bounds": lambda lib: lib.index_add(x(lib), 0, lib.tensor([3]), x(lib)[:1]),
    "index_copy float index": lambda lib: lib.index_copy(x(lib), 0, lib.tensor([1.0]), x(lib)[:1]),
    "index_copy dtype": lambda lib: lib.index_copy(x(lib), 0, lib.tensor([0]), lib.ones(1, 4)),
    "index_copy count": lambda lib: lib.index_copy(x(lib), 0, lib.tensor([1, 2]), x(lib)[:1]),
    "index_copy out of bounds": lambda lib: lib.index_copy(x(lib), 0, lib.tensor([3]), x(lib)[:1]),
    "index_fill float index": lambda lib: lib.index_fill(x(lib), 0, lib.tensor([1.0]), 1.0),
    "index_fill out of bounds": lambda lib: lib.index_fill(x(lib), 0, lib.tensor([3]), 1.0),
    "index_fill value tensor": lambda lib: lib.index_fill(x(lib), 0, lib.tensor([1]), lib.ones(2)),
    "masked_fill float mask": lambda lib: lib.masked_fill(x(lib), lib.ones(3, 4), 1.0),
    "masked_fill value tensor": lambda lib: lib.masked_fill(x(lib), mask(lib), lib.ones(2)),
    "masked_fill broadcast": lambda lib: lib.masked_fill(x(lib), lib.ones(2, dtype=lib.bool), 1.0),
    "masked_scatter float mask": lambda lib: lib.masked_scatter(x(lib), lib.ones(3, 4), x(lib)),
    "masked_scatter dtype": lambda lib: lib.masked_scatter(x(lib), mask(lib), lib.ones(12)),
    "masked_scatter too few": lambda lib: lib.masked_scatter(x(lib), mask(lib), lib.ones(5, dtype=lib.float64)),
    "masked_select float mask": lambda lib: lib.masked_select(x(lib), lib.ones(4)),
    "take float index": lambda lib: lib.take(x(lib), lib.tensor([1.0])),
    "take out of range": lambda lib: lib.take(x(lib), lib.tensor([12])),
    "put float index": lambda lib: lib.put(x(lib), lib.tensor([1.0]), x(lib)[0, :1]),
    "put out of range": lambda lib: lib.put(x(lib), lib.tensor([-13]), x(lib)[0, :1]),
    "put dtype": lambda lib: lib.put(x(lib), lib.tensor([1]), lib.ones(1)),
    "put count": lambda lib: lib.put(x(lib), lib.tensor([[0, 1]]), lib.ones(3, dtype=lib.float64)),
    "take_along_dim float index": lambda lib: lib.take_along_dim(x(lib), lib.tensor([[1.0]]), 1),
    "take_along_dim dims": lambda lib: lib.take_along_dim(x(lib), lib.tensor([1]), 1),
    "take_along_dim broadcast": lambda lib: lib.take_along_dim(x(lib), lib.tensor([[0], [1]]), dim=1),
    "take_along_dim non-contiguous": lambda lib: lib.take_along_dim(x(lib).t(), lib.tensor([1])),
    "copy_ broadcast": lambda lib: lib.zeros(3).copy_(lib.zeros(2)),
    "sort dim": lambda lib: lib.sort(x(lib), dim=2),
    "topk k": lambda lib: lib.topk(x(lib), 5),
    "topk negative k": lambda lib: lib.topk(x(lib), -1),
    "topk dim": lambda lib: lib.topk(x(lib), 2, dim=3),
    "topk bool": lambda lib: lib.topk(lib.tensor([True, False]), 1),
    "searchsorted side": lambda lib: lib.searchsorted(lib.tensor([1.0, 2.0]), lib.tensor([1.0]), side="mid"),
    "searchsorted opposite": lambda lib: lib.searchsorted(lib.tensor([1.0, 2.0]), lib.tensor([1.0]), side="left",
                                                          right=True),
    "searchsorted dims": lambda lib: lib.searchsorted(lib.zeros(2, 3), lib.zeros(3, 1)),
    "bucketize dims": lambda lib: lib.bucketize(lib.tensor([1.0]), lib.zeros(2, 3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(name):
    assert_raises_like_torch(ERRORS[name])


def test_unique_backward_is_not_implemented():
    for dim in (None, 0):
        messages = []
        for lib in (torch, ndgrad):
            values = lib.unique(x(lib).requires_grad_(), dim=dim)
            assert type(values.grad_fn).__name__ == ("Unique2Backward0" if dim is None else "UniqueDimBackward0")
            with pytest.raises(NotImplementedError) as error:
                values.sum().backward()
            messages.append(str(error.value))
        assert messages[0] == messages[1]
