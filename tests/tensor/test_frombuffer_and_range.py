"""frombuffer (a tensor over an object's buffer) and the deprecated range (end included), against torch."""

import array
import warnings

import pytest
import torch
from tests.ops.errors import raised

import ndgrad

BUFFERS = {
    "bytearray": lambda: bytearray(range(16)),
    "array.array of doubles": lambda: array.array("d", [1.5, -2.0, 3.25, 0.0]),
    "memoryview": lambda: memoryview(bytearray(range(8))),
}
READS = [
    dict(dtype="int32"), dict(dtype="int8", count=3, offset=2), dict(dtype="float64"), dict(dtype="uint8", count=-2),
    dict(dtype="int16", offset=2), dict(dtype="float32", requires_grad=True),
]


def _read(lib, make, read):
    keywords = dict(read, dtype=getattr(lib, read["dtype"]))
    made = lib.frombuffer(make(), **keywords)
    return str(made.dtype).split(".")[-1], made.tolist(), made.requires_grad


@pytest.mark.parametrize("buffer", BUFFERS)
@pytest.mark.parametrize("read", READS, ids=str)
def test_frombuffer_reads_as_torchs(buffer, read):
    assert raised(lambda lib: _read(lib, BUFFERS[buffer], read), ndgrad) == \
        raised(lambda lib: _read(lib, BUFFERS[buffer], read), torch)
    if raised(lambda lib: _read(lib, BUFFERS[buffer], read), torch) is None:
        assert _read(ndgrad, BUFFERS[buffer], read) == _read(torch, BUFFERS[buffer], read)


def test_frombuffer_shares_a_writable_buffer():
    memory = bytearray(8)
    ours = ndgrad.frombuffer(memory, dtype=ndgrad.int32)
    memory[0] = 7
    ours[1] = 5
    assert ours.tolist() == [7, 5] and memory[4] == 5


@pytest.mark.parametrize("offset", [0, 4])
def test_frombuffer_storage_is_the_memory_it_reads(offset):
    def storage(lib):
        made = lib.frombuffer(bytearray(16), dtype=lib.int32, offset=offset)
        memory = made.untyped_storage()
        return memory.data_ptr() == made.data_ptr(), memory.nbytes(), made[1:].storage_offset()

    assert storage(ndgrad) == storage(torch)


def test_frombuffer_copies_a_read_only_buffer():
    ours = ndgrad.frombuffer(bytes(4), dtype=ndgrad.int8)
    ours.add_(1)  # writes the copy: bytes stay immutable
    assert ours.tolist() == [1, 1, 1, 1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.frombuffer([1, 2], dtype=lib.int8),
    lambda lib: lib.frombuffer(bytearray(0), dtype=lib.int8),
    lambda lib: lib.frombuffer(bytearray(4), dtype=lib.int8, count=0),
    lambda lib: lib.frombuffer(bytearray(4), dtype=lib.int8, offset=-1),
    lambda lib: lib.frombuffer(bytearray(16), dtype=lib.int32, offset=20),
    lambda lib: lib.frombuffer(bytearray(16), dtype=lib.float64, offset=3),
    lambda lib: lib.frombuffer(bytearray(16), dtype=lib.int32, count=5),
    lambda lib: lib.frombuffer(bytearray(16)),
    lambda lib: lib.frombuffer(bytearray(16), dtype=lib.int32, requires_grad=True),
])
def test_frombuffer_refusals_are_torchs(call):
    assert raised(call, ndgrad) == raised(call, torch) is not None


INT_RANGES = [(1, 4), (0, 10, 3), (1, 1), (3, 0, -1)]
# (an integer dtype with a fractional step crashes torch itself, dividing by the step truncated to 0)
CASES = [(bounds, dtype) for bounds in INT_RANGES for dtype in (None, "float64", "int64", "int16")] + [
    (bounds, dtype) for bounds in [(0, 1, 0.3), (0, 2.5), (0.5, 2, 0.5)] for dtype in (None, "float64")]


@pytest.mark.parametrize("bounds, dtype", CASES, ids=str)
def test_range_includes_its_end_as_torchs(bounds, dtype):
    def made(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = lib.range(*bounds, **({} if dtype is None else {"dtype": getattr(lib, dtype)}))
        return str(result.dtype).split(".")[-1], result.tolist()

    ours, theirs = made(ndgrad), made(torch)
    assert ours[0] == theirs[0] and ours[1] == pytest.approx(theirs[1], rel=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib: lib.range(0, 1, 0), lambda lib: lib.range(1, 0, 1), lambda lib: lib.range(0, 1, -1),
    lambda lib: lib.range(0, float("inf")), lambda lib: lib.range(0, 3, dtype=lib.bool),
    lambda lib: lib.range(0, 3, float("nan")), lambda lib: lib.range("a", 3),
])
def test_range_refusals_are_torchs(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert raised(call, ndgrad) == raised(call, torch) is not None


def test_range_warns_as_torch_does():
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        ndgrad.range(0, 2)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.range(0, 2)
    assert [(w.category, str(w.message)) for w in ours] == \
        [(w.category, str(w.message).replace("torch.", "ndgrad.")) for w in theirs]
