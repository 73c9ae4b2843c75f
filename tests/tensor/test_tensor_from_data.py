"""ndgrad.tensor of the data real programs hand it (a deque of losses, a range, tuples of 0-d tensors, NumPy
scalars, buffers): the same dtype, shape and values as torch.tensor, or the same error."""

import array
import collections
import warnings

import numpy as np
import pytest
import torch
from tests.ops.errors import raised

import ndgrad

DATA = {
    "deque": lambda lib: collections.deque([1.0, 2.0]),
    "range": lambda lib: range(4),
    "tuple of ranges": lambda lib: (range(2), range(2)),
    "a generator's list": lambda lib: [x * 0.5 for x in (i for i in range(3))],
    "dict values": lambda lib: {1: 2.0, 3: 4.0}.values(),
    "nested tuples of 0-d tensors": lambda lib: ((lib.tensor(1.0), lib.tensor(2.0)),
                                                 (lib.tensor(3.0), lib.tensor(4.0))),
    "one-element tensors": lambda lib: [lib.tensor([1]), lib.tensor([2])],
    "a tensor that requires grad": lambda lib: [lib.tensor(1.5, requires_grad=True)],
    "a Size": lambda lib: lib.Size([2, 3]),
    "NumPy scalars": lambda lib: [np.float32(1), np.float32(2)],
    "NumPy and Python ints": lambda lib: [np.int64(1), 2],
    "a list of arrays": lambda lib: [np.ones(2), np.zeros(2)],
    "array.array": lambda lib: array.array("d", [1, 2]),
    "bools and ints": lambda lib: [True, 2],
    "complex numbers": lambda lib: [1 + 2j, 3],
    "empty rows": lambda lib: [[], []],
    "a generator": lambda lib: (i for i in range(3)),
    "a set": lambda lib: {1, 2},
    "a string": lambda lib: "ab",
    "bytes": lambda lib: b"ab",
    "ragged rows": lambda lib: [[1, 2], [3]],
    "two-element tensors": lambda lib: [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
}


def _made(lib, name):
    with warnings.catch_warnings():  # torch warns for a tensor of tensors that require grad
        warnings.simplefilter("ignore")
        made = lib.tensor(DATA[name](lib))
    return str(made.dtype).split(".")[-1], tuple(made.shape), made.tolist(), made.requires_grad


@pytest.mark.parametrize("name", DATA)
def test_tensor_of_data_is_torchs(name):
    theirs = raised(lambda lib: _made(lib, name), torch)
    ours = raised(lambda lib: _made(lib, name), ndgrad)
    assert ours == theirs
    if theirs is None:
        assert _made(ndgrad, name) == _made(torch, name)
