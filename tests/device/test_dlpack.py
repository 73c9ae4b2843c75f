"""DLPack: ndgrad tensors go to PyTorch and NumPy and come back without a copy (a write through one is read through
the other), in every dtype both sides have, and are refused where PyTorch refuses to export."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ndgrad

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64",
          "complex128"]


def values(dtype, shape):
    return (np.arange(int(np.prod(shape))) % 3).reshape(shape).astype(dtype)


@settings(max_examples=25, deadline=None)
@given(dtype=st.sampled_from(DTYPES), shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4),
       transposed=st.booleans())
def test_round_trips_share_memory(dtype, shape, transposed):
    ours = ndgrad.from_numpy(values(dtype, shape))
    if transposed:
        ours = ours.t() if ours.ndim == 2 else ours.permute(tuple(reversed(range(ours.ndim))))
    theirs = torch.from_dlpack(ours)
    assert str(theirs.dtype).replace("torch", "ndgrad") == str(ours.dtype)
    assert theirs.shape == ours.shape and theirs.stride() == ours.stride()
    flat = theirs.view(-1) if theirs.is_contiguous() else theirs
    flat.fill_(1)  # written by torch, read by ndgrad
    assert ours.tolist() == theirs.tolist()
    back = ndgrad.from_dlpack(theirs)
    back.fill_(0)  # and the other way
    assert theirs.tolist() == ours.tolist() == back.tolist()
    host = np.from_dlpack(ours)
    assert np.shares_memory(host, ours.numpy())


def test_from_torch_numpy_and_capsules():
    source = torch.arange(6.0).reshape(2, 3)[:, 1:]  # a strided view
    ours = ndgrad.from_dlpack(source)
    source[0, 0] = 50
    assert ours.tolist() == [[50.0, 2.0], [4.0, 5.0]] and ours.stride() == source.stride()
    array = np.arange(4, dtype=np.int32)
    from_numpy = ndgrad.from_dlpack(array)
    from_capsule = ndgrad.from_dlpack(array.__dlpack__())
    array[2] = -1
    assert from_numpy.tolist() == from_capsule.tolist() == [0, 1, -1, 3]
    assert ndgrad.from_dlpack(ndgrad.ones(2)).tolist() == [1.0, 1.0]
    assert ndgrad.ones(1).__dlpack_device__() == torch.ones(1).__dlpack_device__()
    assert repr(ndgrad.ones(1).__dlpack_device__()[0]) == repr(torch.ones(1).__dlpack_device__()[0])


def outcome(function):
    """The values made, or (exception type name, message)."""
    try:
        return function().tolist()
    except Exception as error:  # noqa: BLE001 - the refusal is the result
        return type(error).__name__, str(error)


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(2, requires_grad=True),
    lambda lib: lib.ones(2, dtype=lib.complex64).conj(),
    lambda lib: lib.ones(1).expand(3),  # a broadcast view (stride 0) is exported
    lambda lib: 1,
], ids=["requires_grad", "conj", "expanded", "not_a_tensor"])
def test_refusals_match_torch(make):
    expected = outcome(lambda: torch.from_dlpack(make(torch)))
    assert outcome(lambda: torch.from_dlpack(make(ndgrad))) == expected
    assert outcome(lambda: ndgrad.from_dlpack(make(ndgrad))) == expected


def test_negative_strides_are_refused_before_a_consumer_sees_them():
    flipped = ndgrad.from_numpy(np.arange(3.0))[...]
    flipped._data = flipped._data[::-1]  # no public op makes such a view: from_numpy refuses it, as torch does
    with pytest.raises(BufferError, match="negative strides"):
        flipped.__dlpack__()
    with pytest.raises(ValueError, match="^At least one stride in the given numpy array is negative"):
        ndgrad.from_numpy(np.arange(3.0)[::-1])
