"""Elementwise, reduction, indexing, shape, sorting and fft ops against torch for wrong and edge calls: the checks in
torch's order and words (add's alpha, integer powers, broadcasting of three operands, searchsorted's sorter,
scatter's shapes, view's sizes), what torch computes where ndgrad used to refuse (scatter with reduce=, view as a
dtype, take_along_dim's wrapped indices, fftfreq's inf and nan), and the Python functions torch writes over its ops
(unique, unique_consecutive, split, meshgrid, atleast_*d), whose flags and lists torch's parser checks."""

import pytest

import ndgrad

from .errors import assert_raises_like_torch, assert_result_like_torch

A = "lib.arange(6.0).reshape(3, 2)"
INT = "lib.arange(6).reshape(3, 2)"
MASK = "(lib.arange(6).reshape(3, 2) % 2 == 0)"

ERRORS = [
    # add/sub/rsub's alpha, against the dtype they compute in
    f"lib.add({INT}, {INT}, alpha=0.5)",
    f"lib.sub({INT}, 1, alpha=2.5)",
    f"lib.add({A}, {A}, alpha=False)",
    f"lib.add({INT}, {INT}, alpha=True)",
    f"lib.rsub({A}, 3, alpha=2j)",
    f"lib.rsub({INT}, {INT}, alpha=0.25)",
    f"{A}.add_({A}, alpha=-1j)",
    f"{INT}.sub_(1, alpha=1.5)",
    # integer powers
    f"lib.pow({INT}, -3)",
    f"{INT}.pow_(-2)",
    f"lib.pow({MASK}, -1)",
    f"{INT} ** -1",
    # three operands broadcast as TensorIterator folds them: the shape so far against the next
    f"lib.lerp(lib.ones(4, 3, 2), {A}, lib.ones(2, 2))",
    f"lib.lerp({A}, lib.ones(4, 1, 1), lib.ones(5, 1, 2))",
    f"lib.clamp({A}, lib.ones(4, 1), lib.ones(3, 2))",
    f"lib.where({MASK}, lib.ones(4, 1, 3), lib.ones(3, 2))",
    f"lib.where(lib.ones(4, 1, dtype=lib.bool), {A}, 0.0)",
    f"{A}.masked_fill_(lib.ones(2, 3, 2, dtype=lib.bool), 1.0)",
    f"lib.masked_select({A}, lib.ones(2, dtype=lib.bool).unsqueeze(0).expand(4, 2))",
    f"lib.masked_scatter({A}, lib.ones(4, 1, dtype=lib.bool), lib.ones(8))",
    f"{A}.masked_scatter_(lib.ones(1, 3, 2, dtype=lib.bool), lib.ones(6))",
    # reductions, searching, sorting
    f"lib.argmax({MASK}, 1)",
    f"lib.argmin({MASK})",
    f"lib.median({MASK}, 0)",
    f"lib.nanmedian({MASK})",
    f"lib.kthvalue({MASK}, 1, 0)",
    f"lib.logsumexp({A}, [])",
    f"lib.var({A}, 0, correction=2j)",
    f"lib.std_mean({A}, correction=0.5j)",
    "lib.searchsorted(lib.arange(4.0), lib.ones(2), sorter=lib.tensor([3, 2, 1, 4]))",
    "lib.searchsorted(lib.arange(4.0), lib.ones(2), sorter=lib.tensor([[0, 1, 2, 3]]))",
    "lib.searchsorted(lib.arange(4.0), lib.ones(2), sorter=lib.tensor([0, 1, 2, 3], dtype=lib.int16))",
    "lib.searchsorted(lib.arange(4.0), lib.ones(2), sorter=lib.arange(4.0))",
    "lib.searchsorted(lib.ones(2, 3, dtype=lib.bool), lib.ones(2, 1, dtype=lib.bool))",
    "lib.searchsorted(lib.tensor(1.0), lib.ones(2))",
    "lib.searchsorted(lib.ones(2, 3), 1.0)",
    f"lib.unique({INT}, return_inverse='no')",
    f"lib.unique({INT}, False, 1)",
    f"lib.unique({INT}, return_counts=1.0, dim=0)",
    f"lib.unique({INT}, dim='0')",
    "lib.unique(lib.tensor(2.0), dim=0)",
    "lib.unique(lib.ones(3, 0), dim=0)",
    f"lib.unique_consecutive({INT}, return_counts='yes', dim=1)",
    f"lib.unique_consecutive({INT}, True, True, 1.5)",
    f"lib.unique_consecutive({INT}, return_inverse=True, extra=0)",
    f"lib.unique({INT}, return_inverse=True, return_counts=True, extra=0)",
    # gather, scatter, index ops
    f"lib.scatter({A}, 1, lib.zeros(3, 2, dtype=lib.int64), {A}, reduce='sum')",
    f"lib.scatter({A}, 1, lib.zeros(3, 2, dtype=lib.int64), 1.0, reduce='mean')",
    f"lib.scatter({A}, 1, lib.zeros(3, 2, dtype=lib.int64), {INT}, reduce='multiply')",
    f"lib.scatter({A}, 0, lib.zeros(3, 2, dtype=lib.int64), lib.ones(3))",
    f"lib.scatter({A}, 0, lib.zeros(3, 2, dtype=lib.float32), {INT})",
    f"lib.scatter({A}, 0, lib.zeros(3, 2, dtype=lib.int64), lib.ones(3, 2, 2))",
    f"lib.scatter_add({A}, 0, lib.zeros(3, 2, dtype=lib.int64), lib.ones(2))",
    f"lib.scatter({A}, 1, lib.full((3, 2), 7), 1.0, reduce='add')",
    f"lib.scatter({A}, 1, lib.zeros(3, 2, dtype=lib.int64), 2 + 3j)",
    f"lib.index_select({A}, 1, lib.tensor([2]))",
    "lib.index_select(lib.ones(2, 3, 4), 1, lib.tensor([-2]))",
    "lib.index_select(lib.ones(2, 3, 4), 2, lib.tensor([4]))",
    f"lib.index_fill({A}, 0, lib.zeros(1, 1, dtype=lib.int64), 2.0)",
    f"lib.index_fill({A}, 0, lib.tensor([1]), 0.5j)",
    f"{A}.index_fill_(1, lib.tensor([0]), lib.tensor(1j))",
    f"lib.masked_fill({A}, {MASK}, 3j)",
    f"{A}.masked_fill_({MASK}, lib.tensor(1 - 2j))",
    f"lib.index_add({A}, 0, lib.tensor([0]), lib.ones(1, 2), alpha=1 + 1j)",
    f"lib.index_put({A}, (lib.tensor([0, 5]),), lib.ones(3))",
    f"lib.index_put({A}, (lib.tensor([0, 5]),), lib.ones(2, 2, dtype=lib.float64))",
    "lib.take(lib.ones(0, 3), lib.tensor([2]))",
    "lib.take_along_dim(lib.ones(3, 0), lib.zeros(3, 1, dtype=lib.int64), dim=1)",
    f"lib.take_along_dim({A}, lib.zeros(1, 2, 2, dtype=lib.int64), dim=0)",
    # shapes and views
    "lib.ones(3, 3).view(lib.float64)",
    f"{A}.t().view(lib.int16)",
    f"{A}.t().view(lib.complex128)",
    "lib.ones(4, 4)[:, 1:3].view(lib.float64)",
    "lib.ones(3, 5)[:, :4].view(lib.float64)",
    "lib.ones(3, 6)[:, 1:5].view(lib.float64)",
    "lib.tensor(1.0).view(lib.int8)",
    "lib.ones(2, 2, dtype=lib.complex64).conj().view(lib.float32)",
    f"{A}.view(3, -3)",
    f"{A}.reshape(-1, 2, -4)",
    f"{A}.view(-5, -1, -1)",
    f"{A}.expand(-1, 3, 2)",
    f"{A}.expand(3, 3)",
    f"{A}.expand(5, 4, 2)",
    f"{A}.permute(1, -1)",
    "lib.permute(lib.ones(2, 3, 4), (2, 0, 2))",
    f"{A}.unflatten(0.5, (3,))",
    f"{A}.unflatten(0, ('3',))",
    f"{A}.unflatten(0, 3.0)",
    f"{A}.unflatten(0, [])",
    f"lib.narrow({A}, 0, lib.tensor([1]), 1)",
    f"lib.narrow({A}, 0, lib.tensor(1.0), 1)",
    f"{A}.narrow(1, lib.tensor(False), 1)",
    "lib.diag(lib.ones(2), 2**61)",
    "lib.diag_embed(lib.ones(2, 2), -(10**12))",
    # torch's Python functions over tensor lists
    "lib.atleast_1d('a')",
    "lib.atleast_2d((lib.ones(2), 3))",
    "lib.atleast_3d([lib.ones(2), None])",
    "lib.atleast_1d(lib.ones(2), 1.0)",
    "lib.meshgrid(lib.ones(2), 'a', indexing='xy')",
    "lib.meshgrid([lib.ones(2), lib.ones(2, 2)], indexing='xy')",
    "lib.meshgrid(lib.arange(3), lib.arange(4).reshape(2, 2), indexing='ij')",
    "lib.meshgrid(lib.ones(2), lib.ones(2, 2, 2), indexing='ij')",
    "lib.meshgrid(lib.ones(2), lib.ones(2, dtype=lib.int32), indexing='x')",
    "lib.meshgrid(lib.ones(2), indexing=0)",
    "lib.broadcast_tensors(lib.ones(2), [1.0])",
    "lib.split((1, 2), 1)",
    f"lib.split({A}, 1.5)",
    f"lib.split({A}, [1, 'a'])",
    f"{A}.split(2, extra=1)",
    f"{A}.unique(extra=1)",
    f"{A}.norm(extra=1)",
    f"{A}.unflatten(0, (3,), 1)",
    # fft: the n-dimensional transforms check their dims before the dtype
    "lib.fft.fftn(lib.ones(2, 2, dtype=lib.float16), dim=(0, 2))",
    "lib.fft.rfftn(lib.ones(2, 2, dtype=lib.float16), dim=(3,))",
    "lib.fft.ihfft2(lib.ones(2, 2, dtype=lib.float16), dim=(1, 1))",
    "lib.fft.irfftn(lib.ones(2, 2, dtype=lib.float16), s=(0,), dim=(1,))",
    "lib.fft.fftfreq(-5)",
    "lib.fft.rfftfreq(-6)",
    "lib.fft.fftfreq(-3, dtype=lib.int32)",
    # datasets index their tensors as torch does
    "lib.utils.data.TensorDataset(lib.ones(3, 2))['a']",
    f"{A}['a']",
    f"{A}[0, 'a']",
]

RESULTS = [
    f"lib.add({A}, 2, alpha=0.5)",
    f"lib.sub({A}, 1.5, alpha=2)",
    f"lib.add({INT}, 2.5, alpha=2)",
    f"lib.rsub({A}, 2, alpha=0.5)",
    f"lib.add({MASK}, {MASK}, alpha=3)",
    f"lib.sub({A}, {A}, alpha=0)",
    "lib.add(2, 3)",
    "lib.add(2.5, 3, alpha=2)",
    "lib.sub(4, 1.5)",
    "lib.mul(3, 4)",
    "lib.div(3, 4)",
    "lib.floor_divide(7, 2)",
    "lib.pow(lib.tensor([-3, -1, 0, 1, 3]), lib.tensor([-2, -3, -1, -5, 2]))",
    "lib.pow(-1, lib.tensor([-1, -2, 3]))",
    "lib.pow(2, lib.tensor([-1, 0, 2], dtype=lib.int32))",
    f"lib.scatter({A}, 1, lib.tensor([[0, 0], [1, 0], [1, 1]]), {A}, reduce='add')",
    f"lib.scatter({A}, 0, lib.tensor([[0, 2], [0, 2]]), {A}, reduce='multiply')",
    f"lib.scatter({INT}, 1, lib.tensor([[1], [0], [1]]), 1.75, reduce='add')",
    f"lib.scatter({MASK}, 1, lib.tensor([[1], [0], [1]]), {MASK}, reduce='multiply')",
    "lib.ones(3, 2).scatter_(0, lib.tensor([[2, 2]]), 3.0, reduce='multiply')",
    f"lib.scatter({A}, 1, lib.zeros(0, dtype=lib.int64), lib.ones(4))",
    f"lib.take_along_dim({A}, lib.tensor([[2], [-1], [-5]]), dim=1)",
    f"lib.take_along_dim({A}, lib.tensor([[3, 7]]), dim=0)",
    f"{A}.view(lib.int32)",
    f"{A}.view(lib.uint8)",
    f"{A}.view(lib.complex64)",
    f"{INT}.view(lib.float64)",
    f"{A}.t().view(lib.int32)",
    f"{A}[:, :1].view(lib.int16)",
    "lib.ones(2, 4, dtype=lib.int8).view(lib.bool)",
    "lib.tensor(2.5).view(lib.int32)",
    f"lib.all({A}, ())",
    f"lib.any({INT}, dim=[])",
    "lib.all(lib.ones(3, dtype=lib.uint8), dim=())",
    f"lib.logsumexp({A}, (), keepdim=True)",
    "lib.logsumexp(lib.tensor(1.5), ())",
    f"lib.var({A}, 1, correction=1 + 0j)",
    "lib.searchsorted(lib.tensor([3.0, 1.0, 2.0]), lib.tensor([2.5]), sorter=lib.tensor([1, 2, 0]))",
    "lib.bucketize(lib.tensor([True, False]), lib.tensor([0.5]))",
    "lib.fft.fftfreq(5, d=0.0)",
    "lib.fft.rfftfreq(6, d=-0.0)",
    "lib.fft.fftfreq(4, d=2e-320, dtype=lib.float64)",
    "lib.fft.fftfreq(3, d=float('nan'))",
    "lib.fft.rfftfreq(-1)",
    "lib.fft.fftfreq(9, d=0.7, dtype=lib.float16)",
    f"lib.unique_consecutive({INT} % 2, True)",
    f"lib.unique({INT} % 3, True, True, True)",
    f"{INT}.unique(return_counts=True)",
    "lib.narrow(lib.arange(5), 0, lib.tensor(2), 2)",
    f"lib.split({A}, lib.tensor(2))",
    "lib.atleast_2d([lib.ones(2), lib.tensor(1.0)])",
    "lib.atleast_3d(lib.ones(2))",
    "lib.meshgrid([lib.arange(2), lib.arange(3)], indexing='xy')",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


@pytest.mark.parametrize("call", RESULTS)
def test_results_match_torch(call):
    assert_result_like_torch(call)


def test_scatter_with_reduce_records_a_node_without_derivative():
    """As torch: the result requires grad, its node is NotImplemented, and backward says so."""
    x = ndgrad.ones(2, 2, requires_grad=True)
    result = ndgrad.scatter(x, 1, ndgrad.tensor([[0, 0], [1, 1]]), 2.0, reduce="multiply")
    assert type(result.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::scatter is not implemented$"):
        result.sum().backward()


def test_view_as_dtype_shares_memory_and_needs_no_grad():
    """A write through the view changes the tensor; like torch's, the view never requires grad."""
    x = ndgrad.zeros(2, 2, requires_grad=True)
    bits = x.detach().view(ndgrad.int32)
    bits[0, 0] = 1065353216  # the bits of 1.0f
    assert x[0, 0].item() == 1.0
    assert not x.view(ndgrad.float32).requires_grad
