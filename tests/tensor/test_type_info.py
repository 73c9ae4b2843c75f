"""finfo, iinfo, the memory formats and the constants, against torch: values, printed forms and errors."""

import math

import pytest
import torch
from tests.ops.errors import raised

import ndgrad

FLOATING = ["float16", "float32", "float64", "complex64", "complex128"]
INTEGER = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATING)
def test_finfo_is_torchs(name):
    ours, theirs = ndgrad.finfo(getattr(ndgrad, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "dtype", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)


def test_finfo_without_a_dtype_describes_the_default_dtype():
    assert repr(ndgrad.finfo()) == repr(torch.finfo())
    previous = ndgrad.get_default_dtype()
    ndgrad.set_default_dtype(ndgrad.float64)
    try:
        assert ndgrad.finfo().dtype == torch.finfo(torch.float64).dtype
    finally:
        ndgrad.set_default_dtype(previous)


@pytest.mark.parametrize("name", INTEGER)
def test_iinfo_is_torchs(name):
    ours, theirs = ndgrad.iinfo(getattr(ndgrad, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.dtype, ours.min, ours.max) == (theirs.bits, theirs.dtype, theirs.min, theirs.max)
    assert repr(ours) == repr(theirs)


def test_equal_dtypes_give_equal_infos():
    assert ndgrad.finfo(ndgrad.float32) == ndgrad.finfo(ndgrad.float32) != ndgrad.finfo(ndgrad.float64)
    assert torch.finfo(torch.float32) == torch.finfo(torch.float32) != torch.finfo(torch.float64)
    assert ndgrad.iinfo(ndgrad.int8) == ndgrad.iinfo(ndgrad.int8) != ndgrad.iinfo(ndgrad.int16)


@pytest.mark.parametrize("call", [
    lambda lib: lib.finfo(lib.int32), lambda lib: lib.finfo(lib.bool), lambda lib: lib.iinfo(lib.float32),
    lambda lib: lib.iinfo(lib.bool), lambda lib: lib.finfo("float32"), lambda lib: lib.iinfo(3),
    lambda lib: lib.iinfo(), lambda lib: lib.memory_format(),
])
def test_refusals_are_torchs(call):
    assert raised(call, ndgrad) == raised(call, torch)


def test_memory_formats_print_and_pickle_as_torchs():
    import pickle

    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        ours = getattr(ndgrad, name)
        assert repr(ours) == repr(getattr(torch, name)).replace("torch.", "ndgrad.")
        assert isinstance(ours, ndgrad.memory_format)
        assert pickle.loads(pickle.dumps(ours)) is ours


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.empty(2, 3, memory_format=lib.contiguous_format).shape,
    lambda lib, x: x.contiguous(memory_format=lib.contiguous_format).is_contiguous(),
    lambda lib, x: x.clone(memory_format=lib.preserve_format).tolist(),
    lambda lib, x: lib.zeros_like(x, memory_format=lib.preserve_format).tolist(),
    lambda lib, x: x.float(memory_format=lib.preserve_format).tolist(),
    lambda lib, x: x.to(lib.float64, memory_format=lib.preserve_format).tolist(),
])
def test_the_default_memory_formats_are_taken_where_torch_takes_them(call):
    x = ndgrad.arange(6.0).reshape(2, 3).t()
    assert call(ndgrad, x) == call(torch, torch.arange(6.0).reshape(2, 3).t())


def test_channels_last_is_refused_not_ignored():
    with pytest.raises(NotImplementedError, match="memory_format"):
        ndgrad.ones(1, 2, 3, 4).contiguous(memory_format=ndgrad.channels_last)
    with pytest.raises(NotImplementedError, match="memory_format"):
        ndgrad.empty(1, 2, 3, 4, memory_format=ndgrad.channels_last)


def test_constants_are_torchs():
    for name in ("pi", "e", "inf"):
        assert getattr(ndgrad, name) == getattr(torch, name)
    assert math.isnan(ndgrad.nan) and math.isnan(torch.nan)
    assert ndgrad.newaxis is torch.newaxis is None


def test_cuda_takes_non_blocking():
    """Without a GPU both refuse the same way; the keyword itself is accepted."""
    if ndgrad.cuda.is_available():
        pytest.skip("a GPU is here: the copy succeeds")
    assert raised(lambda lib: lib.ones(2).cuda(non_blocking=True), ndgrad) == \
        raised(lambda lib: lib.ones(2).cuda(non_blocking=True), torch)
