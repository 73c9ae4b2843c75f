"""``out=``: the result written into the caller's tensors, resized with PyTorch's warning where their shape is
wrong, refused where autograd would need it or the dtype cannot hold the result, as in PyTorch."""

import warnings

import pytest
import torch
from tests.closeness import assert_close

import ndgrad

WRITES = [
    "lib.add(lib.ones(2, 3), lib.ones(3), out=out)",
    "lib.mul(lib.arange(6.0).reshape(2, 3), 2, out=out)",
    "lib.exp(lib.zeros(2, 3), out=out)",
    "lib.sum(lib.ones(4, 3), 0, out=out)",
    "lib.matmul(lib.ones(2, 4), lib.ones(4, 3), out=out)",
    "lib.cat([lib.ones(1, 3), lib.zeros(1, 3)], out=out)",
    "lib.zeros((2, 3), out=out)",
    "lib.eq(lib.ones(2, 3, requires_grad=True), 1, out=out.bool())",
]


@pytest.mark.parametrize("call", WRITES)
@pytest.mark.parametrize("shape", [(2, 3), (0,), (5,)], ids=["same shape", "empty", "other shape"])
def test_the_result_is_written_into_out(call, shape):
    def run(lib):
        out = lib.full(shape, -1.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = eval(call, {"lib": lib, "out": out})
        return result, out, [str(w.message).split(" (Triggered")[0] for w in caught]

    ours, theirs = run(ndgrad), run(torch)
    expected = theirs[0] if theirs[0].dtype == torch.bool else theirs[1]
    assert_close(ours[0] if theirs[0].dtype == torch.bool else ours[1], expected)
    if call.startswith("lib.add"):  # some of torch's ops resize without the warning (cat): add warns
        assert ours[2] == theirs[2]


def test_a_tuple_of_outs_holds_values_and_indices():
    def run(lib):
        values, indices = lib.zeros(2), lib.zeros(2, dtype=lib.int64)
        result = lib.max(lib.tensor([[1.0, 5.0], [7.0, 2.0]]), 1, out=(values, indices))
        return result[0] is values and result[1] is indices, values.tolist(), indices.tolist()

    assert run(ndgrad) == run(torch)


@pytest.mark.parametrize("call", [
    "lib.add(lib.ones(3), lib.ones(3), out=lib.zeros(3, dtype=lib.int64))",
    "lib.add(lib.ones(3, requires_grad=True), 1, out=lib.zeros(3))",
    "lib.exp(lib.ones(3), out=lib.zeros(3, requires_grad=True))",
    "lib.max(lib.ones(2, 3), 1, out=lib.zeros(2))",
])
def test_out_refusals_match_torch(call):
    def raised(lib):
        with pytest.raises(Exception) as error:
            eval(call, {"lib": lib})
        return type(error.value), str(error.value).replace("torch.", "ndgrad.")

    assert raised(ndgrad) == raised(torch)
