"""What ndgrad.utils.safetensors refuses, against the safetensors package: tensors and metadata that save refuses
(the same exception class and message), damaged files that load refuses (SafetensorError, the package's reason),
damaged copies of a valid file drawn by hypothesis, and the arguments the readers refuse."""

import json
import struct

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.utils.safetensors_pairs import contents, error_of

import ndgrad
from ndgrad.utils import safetensors as ours

safetensors = pytest.importorskip("safetensors", minversion="0.8")
theirs = pytest.importorskip("safetensors.torch")


# ---- what save refuses ---------------------------------------------------------------------------------------
def _shared(lib):
    x = lib.zeros(4)
    return {"a": x, "b": x}, None


def _overlapping_views(lib):
    y = lib.zeros(6)
    return {"c": y[:3], "b": y[2:], "a": lib.ones(2)}, None


def _view_and_whole(lib):
    x = lib.zeros(2, 3)
    return {"x": x, "row": x[1]}, None


REFUSED = {  # name -> lib -> (tensors, metadata), for lib ndgrad or torch
    "a list": lambda lib: ([lib.zeros(1)], None),
    "None": lambda lib: (None, None),
    "a number as a tensor": lambda lib: ({"a": 1}, None),
    "an array as a tensor": lambda lib: ({"a": np.zeros(1)}, None),
    "a sparse tensor": lambda lib: ({"dense": lib.zeros(1), "s": lib.zeros(2).to_sparse()}, None),
    "transposed": lambda lib: ({"a": lib.zeros(2, 3).t()}, None),
    "expanded": lambda lib: ({"a": lib.zeros(3).expand(2, 3)}, None),
    "one tensor twice": _shared,
    "views that overlap": _overlapping_views,
    "a view and its whole": _view_and_whole,
    "an int name": lambda lib: ({1: lib.zeros(1)}, None),
    "a None name": lambda lib: ({None: lib.zeros(1)}, None),
    "a bytes name": lambda lib: ({b"x": lib.zeros(1)}, None),
    "a lone surrogate in a name": lambda lib: ({"\ud800": lib.zeros(1)}, None),
    "metadata as a list": lambda lib: ({"a": lib.zeros(1)}, ["a"]),
    "metadata as a str": lambda lib: ({"a": lib.zeros(1)}, "a"),
    "an int value": lambda lib: ({"a": lib.zeros(1)}, {"a": 1}),
    "a None value": lambda lib: ({"a": lib.zeros(1)}, {"a": None}),
    "a bytes value": lambda lib: ({"a": lib.zeros(1)}, {"a": b"x"}),
    "an int key": lambda lib: ({"a": lib.zeros(1)}, {"k": "v", 1: "v"}),
    "a lone surrogate in metadata": lambda lib: ({"a": lib.zeros(1)}, {"k": "\udfff"}),
    # which check comes first
    "a bad value before a transposed tensor": lambda lib: ({"t": lib.zeros(2, 2).t(), "a": 1}, None),
    "a transposed tensor before a bad name": lambda lib: ({1: lib.zeros(1), "t": lib.zeros(2, 2).t()}, None),
    "a bad name before bad metadata": lambda lib: ({1: lib.zeros(1)}, ["a"]),
    "shared memory before a transposed tensor": lambda lib: ({"t": lib.zeros(2, 2).t(), **_shared(lib)[0]}, None),
}


@pytest.mark.parametrize("case", REFUSED)
def test_save_refuses_as_the_package_does(case):
    expected = error_of(lambda: theirs.save(*REFUSED[case](torch)))
    assert expected is not None
    assert error_of(lambda: ours.save(*REFUSED[case](ndgrad))) == expected


@pytest.mark.parametrize("case", ["one tensor twice", "an int value", "transposed"])
def test_save_file_refuses_as_save_does(tmp_path, case):
    (tensors, metadata), (torch_tensors, torch_metadata) = REFUSED[case](ndgrad), REFUSED[case](torch)
    expected = error_of(lambda: theirs.save_file(torch_tensors, tmp_path / "theirs", metadata=torch_metadata))
    assert expected is not None
    assert error_of(lambda: ours.save_file(tensors, tmp_path / "ours", metadata=metadata)) == expected
    assert not any(tmp_path.iterdir())


def test_complex128_is_refused_with_the_packages_class():
    assert error_of(lambda: theirs.save({"a": torch.zeros(1, dtype=torch.complex128)}))[0] == "KeyError"
    assert error_of(lambda: ours.save({"a": ndgrad.zeros(1, dtype=ndgrad.complex128)})) == (
        "KeyError", "'ndgrad.complex128 has no dtype code in the .safetensors format'")


def test_a_tensor_named_like_the_metadata_is_refused():
    # NOTE: the package writes it, and then neither library reads the file
    data = theirs.save({"__metadata__": torch.zeros(1)})
    assert error_of(lambda: theirs.load(data))[0] == error_of(lambda: ours.load(data))[0] == "SafetensorError"
    assert error_of(lambda: ours.save({"__metadata__": ndgrad.zeros(1)})) == (
        "ValueError", "a tensor cannot be named `__metadata__`: the format keeps that name for the metadata")


@pytest.mark.parametrize("filename", [5, b"model.safetensors", None])
def test_save_file_refuses_a_filename_as_the_package_does(filename):
    expected = error_of(lambda: theirs.save_file({"a": torch.zeros(1)}, filename))
    assert error_of(lambda: ours.save_file({"a": ndgrad.zeros(1)}, filename)) == expected


def test_save_file_into_a_missing_folder(tmp_path):
    path = tmp_path / "missing" / "model.safetensors"
    for library, module in ((theirs, torch), (ours, ndgrad)):
        kind, message = error_of(lambda library=library, module=module: library.save_file({"a": module.zeros(1)}, path))
        assert kind == "SafetensorError" and message.startswith("Error while serializing: I/O error: ")


# ---- damaged files -------------------------------------------------------------------------------------------
def file_of(header, data=b""):
    """A file of this header (JSON of a dict, or the header's bytes as they are) and data."""
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def one(dtype="F32", shape=(1,), offsets=(0, 4), name="a"):
    return {name: {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}}


GOOD = theirs.save({"a": torch.arange(3.0), "b": torch.ones(2, dtype=torch.int64)})
DAMAGED = {
    "empty": b"",
    "shorter than a length": b"\x01\x02",
    "a header of no bytes": bytes(8),
    "a header past the end": struct.pack("<Q", 1000) + b"{}",
    "a header too long": struct.pack("<Q", 2**63) + b"{}",
    "a header just too long": struct.pack("<Q", 100_000_001) + b"{}",
    "truncated data": GOOD[:-3],
    "data after the last tensor": GOOD + bytes(4),
    "a header cut inside its JSON": GOOD[:8] + GOOD[8:40] + b" " * (len(GOOD) - 40),
    "UTF-8 that is not": file_of(b"{\xff}"),
    "JSON that is not": file_of(b'{"a":'),
    "JSON padded with NUL": file_of(b"{}\0\0"),
    "JSON and more": file_of(b"{} x"),
    "NaN": file_of(b'{"a":{"dtype":"F32","shape":[NaN],"data_offsets":[0,4]}}', bytes(4)),
    "an unknown dtype": file_of(one(dtype="X9"), bytes(4)),
    "a lower-case dtype": file_of(one(dtype="f32"), bytes(4)),
    "a dtype that is a number": file_of(one(dtype=5), bytes(4)),
    "complex128": file_of(one(dtype="C128", offsets=(0, 16)), bytes(16)),
    "too few bytes for the shape": file_of(one(shape=(2,)), bytes(4)),
    "a half-byte dtype ending inside a byte": file_of(one(dtype="F4", shape=(3,), offsets=(0, 2)), bytes(2)),
    "overlapping tensors": file_of({**one(), **one(name="b")}, bytes(4)),
    "a gap before the first tensor": file_of(one(offsets=(4, 8)), bytes(8)),
    "an end before the beginning": file_of(one(shape=(0,), offsets=(4, 0)), bytes(4)),
    "a negative size": file_of(one(shape=(-1,)), bytes(4)),
    "a size of 2**64": file_of(one(shape=(2**64,)), bytes(4)),
    "a size that is a float": file_of(b'{"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}}', bytes(4)),
    "a size that is a bool": file_of(b'{"a":{"dtype":"F32","shape":[true],"data_offsets":[0,4]}}', bytes(4)),
    "a number of 5000 digits": file_of(b'{"a":{"dtype":"F32","shape":[' + b"9" * 5000 + b'],"data_offsets":[0,4]}}'),
    "no shape": file_of(b'{"a":{"dtype":"F32","shape":null,"data_offsets":[0,4]}}', bytes(4)),
    "no data_offsets": file_of({"a": {"dtype": "F32", "shape": [1]}}, bytes(4)),
    "three data_offsets": file_of(one(offsets=(0, 4, 5)), bytes(4)),
    "a field twice": file_of(b'{"a":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}}', bytes(4)),
    "a tensor that is a number": file_of({"a": 1}),
    "a size that overflows": file_of(one(shape=(2**62, 2**62)), bytes(4)),
    "a size that overflows in bits": file_of(one(shape=(2**64 - 1,)), bytes(4)),
    "a huge tensor in a small file": file_of(one(shape=(2**40,), offsets=(0, 2**42)), bytes(4)),
    "metadata of a number": file_of({"__metadata__": {"a": 1}}),
    "metadata that is a list": file_of({"__metadata__": ["a"]}),
    "JSON nested deeper than any parser goes": file_of(b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    "a lone surrogate in a name": file_of(b'{"\\ud800":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', bytes(4)),
    "a lone surrogate in metadata": file_of(b'{"__metadata__":{"k":"\\udc00"}}'),
    "minus zero": file_of(b'{"a":{"dtype":"F32","shape":[-0],"data_offsets":[0,0]}}'),
    "a number too large for a float": file_of(b'{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0],"x":1e400}}'),
}


OWN_WORDS = {"a half-byte dtype ending inside a byte"}  # the package's words there are of slicing: not ours


def _reason(error):
    """A refusal's reason: the package's message after its prefix, up to its first detail (':' or a name)."""
    return error[1].split(": ", 1)[1].split(":")[0].split(" `")[0]


@pytest.mark.parametrize("case", DAMAGED)
def test_load_refuses_a_damaged_file_as_the_package_does(case):
    expected, refused = error_of(lambda: theirs.load(DAMAGED[case])), error_of(lambda: ours.load(DAMAGED[case]))
    assert expected[0] == refused[0] == "SafetensorError"
    assert refused[1].startswith("Error while deserializing: " + ("" if case in OWN_WORDS else _reason(expected)))


@pytest.mark.parametrize("case", ["empty", "a header too long", "truncated data", "overlapping tensors", "NaN"])
def test_safe_open_refuses_a_damaged_file_as_the_package_does(tmp_path, case):
    path = tmp_path / "damaged.safetensors"
    path.write_bytes(DAMAGED[case])
    expected = error_of(lambda: safetensors.safe_open(path, "pt"))
    refused = error_of(lambda: ours.safe_open(path, "pt"))
    assert expected[0] == refused[0] == "SafetensorError"
    assert refused[1].startswith("Error while deserializing header: " + _reason(expected))


# NOTE: the published format says a header begins with '{' and holds no key twice; the package takes both
ACCEPTED_BY_THE_PACKAGE_ONLY = {
    "a header that begins with a space": (file_of(b" {}"), "invalid header start"),
    "a name twice": (file_of(b'{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},'
                             b'"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', bytes(4)), "duplicate key `a`"),
}


@pytest.mark.parametrize("case", ACCEPTED_BY_THE_PACKAGE_ONLY)
def test_load_follows_the_format_where_the_package_is_lenient(case):
    data, reason = ACCEPTED_BY_THE_PACKAGE_ONLY[case]
    assert error_of(lambda: theirs.load(data)) is None
    kind, message = error_of(lambda: ours.load(data))
    assert kind == "SafetensorError" and reason in message


@pytest.mark.parametrize("dtype, nbytes", [("U16", 4), ("U32", 8), ("U64", 16), ("F8_E4M3", 2), ("F8_E5M2FNUZ", 2)])
def test_a_dtype_ndgrad_lacks_is_listed_but_not_read(tmp_path, dtype, nbytes):
    path = tmp_path / "other.safetensors"
    path.write_bytes(file_of({**one(dtype, (2,), (0, nbytes), "other"), **one(offsets=(nbytes, nbytes + 4))},
                             bytes(nbytes + 4)))
    assert theirs.load_file(path)["other"].shape == (2,)
    with ours.safe_open(path, "pt") as f:
        assert f.keys() == ["a", "other"] and f.get_slice("other").get_dtype() == dtype
        assert f.get_tensor("a").tolist() == [0.0]
        kind, message = error_of(lambda: f.get_tensor("other"))
        assert kind == "TypeError" and message.startswith(f"tensor `other` has dtype {dtype}, which ndgrad has no")
    assert error_of(lambda: ours.load(path.read_bytes()))[0] == "TypeError"


@pytest.mark.parametrize("shape", [[1] * 65, [2**63, 0]])
def test_an_empty_tensor_numpy_cannot_shape_is_refused_clearly(shape):
    data = file_of(one(shape=shape, offsets=(0, 4) if 0 not in shape else (0, 0)), bytes(4 if 0 not in shape else 0))
    kind, message = error_of(lambda: ours.load(data))
    assert kind == "ValueError" and message.startswith("tensor `a` of shape")


# ---- damaged copies of a valid file --------------------------------------------------------------------------
VALID = theirs.save({"w": torch.arange(6.0).reshape(2, 3), "b": torch.tensor([1, 2], dtype=torch.int16),
                     "s": torch.tensor(True)}, metadata={"k": "v"})
DAMAGE = st.one_of(
    st.integers(0, len(VALID)).map(lambda length: VALID[:length]),
    st.lists(st.tuples(st.integers(0, len(VALID) - 1), st.integers(0, 255)), min_size=1, max_size=3).map(
        lambda changes: bytes(
            dict(changes).get(index, byte) for index, byte in enumerate(VALID))),
    st.binary(min_size=1, max_size=9).map(lambda extra: VALID + extra),
)
DELIBERATE = ("duplicate key", "invalid header start", "which ndgrad has no dtype for")


@settings(max_examples=500)
@given(DAMAGE)
def test_a_damaged_copy_is_refused_exactly_when_the_package_refuses_it(data):
    """Never an internal error: ndgrad takes what the package takes, with the same tensors, and refuses with
    SafetensorError what it refuses (or a TypeError for a dtype ndgrad lacks), but where it follows the format."""
    expected, refused = error_of(lambda: theirs.load(data)), error_of(lambda: ours.load(data))
    if refused is not None:
        assert refused[0] in ("SafetensorError", "TypeError")
        assert expected is not None or any(reason in refused[1] for reason in DELIBERATE)
    elif expected is None:
        assert contents(ours.load(data)) == contents(theirs.load(data))
    else:
        assert expected is None, f"the package refuses what ndgrad takes: {expected}"


# ---- the readers' arguments ----------------------------------------------------------------------------------
@pytest.mark.parametrize("data", [bytearray(GOOD), memoryview(GOOD), "text", None])
def test_load_takes_bytes_only_as_the_package_does(data):
    assert error_of(lambda: ours.load(data)) == error_of(lambda: theirs.load(data))


@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "good.safetensors"
    path.write_bytes(GOOD)
    return path


OPEN_ARGUMENTS = {
    "an unknown framework": dict(framework="PT"),
    "an unknown device": dict(framework="pt", device="bogus"),
    "a device ndgrad keeps nothing on": dict(framework="pt", device="meta"),
    "a GPU by number, without one": dict(framework="pt", device=0),
    "an unknown backend": dict(framework="pt", backend="disk"),
}


@pytest.mark.parametrize("case", OPEN_ARGUMENTS)
def test_safe_open_refuses_arguments_as_the_package_does(good_file, case):
    # the package finds that there is no GPU only when it moves a tensor there, ndgrad when it opens the file
    expected = error_of(lambda: safetensors.safe_open(good_file, **OPEN_ARGUMENTS[case]).get_tensor("a"))
    kind, message = error_of(lambda: ours.safe_open(good_file, **OPEN_ARGUMENTS[case]).get_tensor("a"))
    assert kind == expected[0] and message.startswith(expected[1])  # ndgrad says which framework it reads


def test_load_file_takes_both_backends_and_refuses_others(good_file):
    for backend in ("mmap", "pread"):
        assert contents(ours.load_file(good_file, backend=backend)) == contents(theirs.load_file(good_file))
    assert (error_of(lambda: ours.load_file(good_file, backend="disk"))
            == error_of(lambda: theirs.load_file(good_file, backend="disk")))


def test_safe_open_refuses_a_missing_tensor_or_file_as_the_package_does(good_file, tmp_path):
    with ours.safe_open(good_file, "pt") as f, safetensors.safe_open(good_file, "pt") as g:
        for method in ("get_tensor", "get_slice"):
            assert error_of(lambda m=method: getattr(f, m)("nope")) == error_of(lambda m=method: getattr(g, m)("nope"))
    assert error_of(lambda: ours.safe_open(tmp_path / "missing", "pt"))[0] == "FileNotFoundError"
    assert error_of(lambda: safetensors.safe_open(tmp_path / "missing", "pt"))[0] == "FileNotFoundError"
    assert error_of(lambda: ours.safe_open(5, "pt")) == error_of(lambda: safetensors.safe_open(5, "pt"))

