"""A tensor's memory against torch (ndgrad._memory and its neighbours): resize_, resize_as_, fill_diagonal_,
untyped_storage, is_set_to, empty_strided, new, type_as, pin_memory; values, dtypes, shapes and errors."""

import pytest
import torch
from tests.closeness import assert_close
from tests.ops.errors import assert_raises_like_torch

import ndgrad


def assert_same(ours, theirs):
    """Tensors compare by dtype, shape and values; tuples item by item; anything else by ==."""
    if isinstance(theirs, torch.Tensor):
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert_close(ours, theirs)
    elif isinstance(theirs, tuple) and not isinstance(theirs, torch.Size):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
    elif isinstance(theirs, torch.dtype):
        assert str(ours).split(".")[-1] == str(theirs).split(".")[-1]
    else:
        assert ours == theirs


RESULTS = [
    'lib.tensor([1., 2, 3, 4]).resize_(2, 2)',
    'lib.tensor([1., 2, 3, 4]).resize_(2)',
    'lib.tensor([1., 2, 3, 4]).resize_((2, 1))',
    'lib.tensor([1., 2, 3, 4]).resize_(3, 3).shape',
    'lib.tensor([1., 2]).resize_as_(lib.zeros(2, 1))',
    'lib.resize_as_(lib.tensor([1., 2]), lib.zeros(1))',
    'lib.arange(6.).view(2,3).t().resize_(2, 2)',
    'lib.arange(6.)[1:].resize_(2, 2)',
    '(lambda x: (x.resize_(3)[:2], x._version))(lib.zeros(2))',
    '(lambda x: (x.resize_(1), x._version))(lib.zeros(2))',
    '(lambda x: (x[1:].resize_(1).fill_(5), x))(lib.zeros(3))',
    'lib.zeros(3, 3).fill_diagonal_(2)',
    'lib.zeros(7, 3).fill_diagonal_(2, wrap=True)',
    'lib.zeros(7, 3).fill_diagonal_(2)',
    'lib.zeros(8, 3).fill_diagonal_(2, wrap=True)',
    'lib.zeros(3, 7).fill_diagonal_(2, wrap=True)',
    'lib.zeros(2, 2, 2).fill_diagonal_(2)',
    'lib.zeros(3, 3, 3).fill_diagonal_(2)',
    'lib.zeros(3, 3, dtype=lib.int64).fill_diagonal_(2.5)',
    "(lambda x: lib.autograd.grad(x.clone().fill_diagonal_(1).mul(lib.arange(9.).view(3,3)).sum(), [x]))"
    "(lib.arange(9.).view(3,3).requires_grad_())",
    'lib.zeros(2,3).untyped_storage().nbytes()',
    'lib.zeros(2,3).untyped_storage().size()',
    'len(lib.zeros(2,3).untyped_storage())',
    'lib.zeros(2,3)[1].untyped_storage().nbytes()',
    '(lambda x: x[1].untyped_storage().data_ptr() == x.data_ptr())(lib.zeros(2,3))',
    'lib.zeros(2,3).new(2).shape',
    'lib.zeros(2,3).new([1,2])',
    'lib.zeros(2,3, dtype=lib.int64).new([1.5,2])',
    'lib.zeros(2,3).new()',
    'lib.zeros(2,3).new((2,3)).shape',
    'lib.zeros(2,3).new_empty_strided((2,3),(1,2)).stride()',
    'lib.empty_strided((2,3),(1,2)).stride()',
    'lib.empty_strided((2,3),(1,2), dtype=lib.int64).dtype',
    'lib.empty_strided((2,3),(1,2), requires_grad=True).requires_grad',
    'lib.empty_strided((2,3),(0,1)).stride()',
    'lib.zeros(2).new_empty_strided((2,3),(3,1), dtype=lib.float64).dtype',
    'lib.zeros(3).is_set_to(lib.zeros(3))',
    '(lambda x: x.is_set_to(x))(lib.zeros(3))',
    '(lambda x: x.is_set_to(x.view(3)))(lib.zeros(3))',
    '(lambda x: x.is_set_to(x[:]))(lib.zeros(3))',
    '(lambda x: x.is_set_to(x[1:]))(lib.zeros(3))',
    '(lambda x: x.is_set_to(x.view(1, 3)))(lib.zeros(3))',
    'lib.tensor([1., 2]).type_as(lib.tensor([1]))',
    'lib.tensor([1., 2], requires_grad=True).type_as(lib.tensor([1], dtype=lib.float64)).grad_fn.name()',
]


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    assert_same(eval(expression, {"lib": ndgrad}), eval(expression, {"lib": torch}))


ERRORS = [
    'lib.tensor([1., 2], requires_grad=True).resize_(2)',
    '(lib.tensor([1., 2], requires_grad=True)*2).resize_(1)',
    'lib.tensor([1., 2]).resize_(-1)',
    'lib.zeros(2).resize_(2, -1)',
    "lib.zeros(2).resize_(2, 'a')",
    'lib.zeros(2).resize_as_(2)',
    'lib.zeros(2, 3, 2).fill_diagonal_(2)',
    'lib.zeros(3).fill_diagonal_(2)',
    'lib.zeros(3,3,requires_grad=True).fill_diagonal_(1)',
    'lib.zeros(2,3).pin_memory()',
    'lib.empty_strided((2,3),(1,-2))',
    'lib.tensor([1., 2]).type_as(1)',
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


def test_resize_grows_keeping_the_values_in_memory_order():
    for lib in (ndgrad, torch):
        x = lib.arange(6.0).view(2, 3).t()
        assert x.resize_(4, 2)[:3].tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]


def test_storage_is_shared_by_views():
    x = ndgrad.zeros(2, 3)
    assert x[1].untyped_storage().data_ptr() == x.untyped_storage().data_ptr() == x.data_ptr()
