"""ndgrad.utils.safetensors against the safetensors package (on torch tensors), both ways: the bytes each writes,
what each reads of the other's files, safe_open and its slices, devices, and save_model/load_model with tied
weights. test_safetensors_invalid.py has the inputs and files that are refused."""

import json
import os
import struct

import hypothesis.extra.numpy as hnp
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from tests.utils.safetensors_pairs import SHARED_DTYPES, contents, error_of, raw_bytes, tensor_pair, tensor_pairs

import ndgrad
from ndgrad.testing import fake_cuda
from ndgrad.utils import safetensors as ours

safetensors = pytest.importorskip("safetensors", minversion="0.8")
theirs = pytest.importorskip("safetensors.torch")

# Names as the format allows them (any text UTF-8 can hold: no lone surrogates), but the metadata's own key
NAMES = st.text(st.characters(exclude_categories=("Cs",)), max_size=6).filter(lambda name: name != "__metadata__")
SPECS = st.dictionaries(
    NAMES,
    st.tuples(st.sampled_from(SHARED_DTYPES), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3),
              st.integers(0, 2**32 - 1)),
    max_size=6,
)
# The package writes metadata in the order of a hash map, which changes between runs: one key at most for bytes
METADATA = st.none() | st.dictionaries(NAMES, st.text(st.characters(exclude_categories=("Cs",))), max_size=1)
# Without tensors, empty metadata is the one case where the package writes no JSON (see the test of it)
CONTENTS = st.tuples(SPECS, METADATA).filter(lambda drawn: drawn[0] or drawn[1] != {})
EVERY_DTYPE = {f"{dtype}_{index}": (dtype, shape, index)
               for index, shape in enumerate([(), (0,), (3,), (2, 0, 3), (2, 3)]) for dtype in SHARED_DTYPES}


def header_of(data):
    (length,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + length])


# ---- bytes ---------------------------------------------------------------------------------------------------
@given(CONTENTS)
def test_save_writes_the_bytes_the_package_writes(drawn):
    specs, metadata = drawn
    mine, torchs = tensor_pairs(specs)
    assert ours.save(mine, metadata) == theirs.save(torchs, metadata)


def test_empty_metadata_without_tensors_is_written_as_json():
    # NOTE: the package writes '{},"__metadata__":{}}' here, which no reader takes, itself included
    assert error_of(lambda: theirs.load(theirs.save({}, {})))[0] == "SafetensorError"
    data = ours.save({}, {})
    assert header_of(data) == {"__metadata__": {}} and theirs.load(data) == {} == ours.load(data)


@given(CONTENTS)
def test_each_loads_what_the_other_saved(drawn):
    specs, metadata = drawn
    mine, torchs = tensor_pairs(specs)
    assert contents(theirs.load(ours.save(mine, metadata=metadata))) == contents(torchs)
    loaded = ours.load(theirs.save(torchs, metadata=metadata))
    assert contents(loaded) == contents(mine)
    assert all(type(t) is ndgrad.Tensor and not t.requires_grad and t.is_contiguous() for t in loaded.values())


def test_every_shared_dtype_and_shape_round_trips_byte_for_byte():
    mine, torchs = tensor_pairs(EVERY_DTYPE)
    data = theirs.save(torchs, {"format": "pt"})
    assert ours.save(mine, {"format": "pt"}) == data
    assert ours.save(ours.load(data), {"format": "pt"}) == data  # loaded tensors share no memory, so save takes them


def test_metadata_of_many_keys_reads_the_same_in_both():
    mine, torchs = tensor_pairs({"w": ("float32", (2, 2), 0)})
    metadata = {f"key{i}": f"value {i} é\n" for i in range(20)}
    data_ours, data_theirs = ours.save(mine, metadata), theirs.save(torchs, metadata)
    assert header_of(data_ours) == header_of(data_theirs)  # as JSON: the package orders the keys by hash
    assert ours.load(data_theirs).keys() == ours.load(data_ours).keys()
    assert theirs.load(data_ours)["w"].equal(torchs["w"])


def test_tensors_that_require_grad_and_parameters_are_saved_as_their_values():
    weight, torch_weight = tensor_pair("float32", (2, 3))
    mine = {"p": ndgrad.nn.Parameter(weight), "g": weight.clone().requires_grad_()}
    torchs = {"p": torch.nn.Parameter(torch_weight), "g": torch_weight.clone().requires_grad_()}
    assert ours.save(mine) == theirs.save(torchs)


def test_a_conjugate_view_is_saved_as_the_values_it_holds():
    # NOTE: the package writes the memory behind torch's lazy conjugate, that is the values before conj()
    mine, torchs = tensor_pair("complex64", (3,))
    assert ours.save({"c": mine.conj()}) == theirs.save({"c": torchs.conj().resolve_conj()})


def test_views_that_do_not_overlap_are_saved_like_the_package():
    mine, torchs = tensor_pair("float32", (6,))
    assert ours.save({"a": mine[:3], "b": mine[3:]}) == theirs.save({"a": torchs[:3], "b": torchs[3:]})
    assert ours.save({"tail": mine[2:]}) == theirs.save({"tail": torchs[2:]})


def test_loaded_tensors_are_writable_and_independent():
    mine, _ = tensor_pairs({"a": ("float32", (3,), 0), "b": ("int64", (2,), 1)})
    data = ours.save(mine)
    loaded = ours.load(data)
    loaded["a"][0] = 7.0
    assert ours.load(data)["a"].equal(mine["a"]) and loaded["a"][0].item() == 7.0


# ---- files ---------------------------------------------------------------------------------------------------
def test_files_are_the_packages_files(tmp_path):
    mine, torchs = tensor_pairs(EVERY_DTYPE)
    ours.save_file(mine, tmp_path / "ours.safetensors", metadata={"format": "pt"})
    theirs.save_file(torchs, str(tmp_path / "theirs.safetensors"), metadata={"format": "pt"})
    ours_bytes, theirs_bytes = ((tmp_path / f"{who}.safetensors").read_bytes() for who in ("ours", "theirs"))
    assert ours_bytes == theirs_bytes
    modes = {os.stat(tmp_path / f"{who}.safetensors").st_mode for who in ("ours", "theirs")}
    assert len(modes) == 1  # the package writes a new file and renames it: readable by its owner only
    loaded = ours.load_file(tmp_path / "theirs.safetensors")
    assert contents(loaded) == contents(mine)
    with safetensors.safe_open(tmp_path / "ours.safetensors", "pt") as f:
        assert list(loaded) == f.offset_keys()
    assert contents(theirs.load_file(tmp_path / "ours.safetensors")) == contents(torchs)


def test_save_file_replaces_an_existing_file_and_leaves_nothing_else(tmp_path):
    mine, torchs = tensor_pairs({"a": ("float32", (2,), 0)})
    path = tmp_path / "model.safetensors"
    path.write_bytes(b"old contents, longer than the new file will be" * 10)
    ours.save_file(mine, str(path))
    assert path.read_bytes() == theirs.save(torchs) and os.listdir(tmp_path) == ["model.safetensors"]


# ---- safe_open -----------------------------------------------------------------------------------------------
@pytest.fixture
def both_files(tmp_path):
    """The same file written by each library: (ours path, theirs path, ndgrad tensors, torch tensors)."""
    specs = {"x": ("float32", (2, 3, 4), 0), "scalar": ("int64", (), 1), "empty": ("bfloat16", (0, 2), 2),
             "flags": ("bool", (5,), 3)}
    mine, torchs = tensor_pairs(specs)
    ours.save_file(mine, tmp_path / "ours.safetensors", metadata={"k": "v"})
    theirs.save_file(torchs, tmp_path / "theirs.safetensors", metadata={"k": "v"})
    return tmp_path / "ours.safetensors", tmp_path / "theirs.safetensors", mine, torchs


def test_safe_open_lists_and_reads_what_the_packages_does(both_files):
    ours_path, theirs_path, mine, torchs = both_files
    with ours.safe_open(theirs_path, framework="pt") as mine_f, safetensors.safe_open(ours_path, "pt") as their_f:
        assert mine_f.keys() == their_f.keys() == sorted(mine)
        assert mine_f.offset_keys() == their_f.offset_keys()
        assert mine_f.metadata() == their_f.metadata() == {"k": "v"}
        for name in mine:
            assert contents({name: mine_f.get_tensor(name)}) == contents({name: their_f.get_tensor(name)})
            mine_slice, their_slice = mine_f.get_slice(name), their_f.get_slice(name)
            assert mine_slice.get_shape() == their_slice.get_shape()
            assert mine_slice.get_dtype() == their_slice.get_dtype()
        assert contents(mine_f.get_tensors()) == contents(their_f.get_tensors())
        assert list(mine_f.get_tensors()) == their_f.offset_keys()


def test_metadata_is_none_without_any_and_empty_when_empty(tmp_path):
    mine, _ = tensor_pairs({"a": ("float32", (1,), 0)})
    for metadata in (None, {}):
        ours.save_file(mine, tmp_path / "a.safetensors", metadata=metadata)
        with ours.safe_open(tmp_path / "a.safetensors", "pt") as f, \
                safetensors.safe_open(tmp_path / "a.safetensors", "pt") as g:
            assert f.metadata() == g.metadata() == metadata


SLICES = {
    "x": [(), ..., slice(None), (slice(None), slice(1, 3)), 1, -1, (1, 2), (1, 2, 3), slice(None, None, 2),
          (..., 1), (..., slice(0, 2)), slice(5, 10), slice(-5, None), slice(1, 0), None, (0, ..., 0), (..., ...),
          (slice(None),) * 4, 5, -3, slice(None, None, -1), slice(None, None, 0), slice(1.5, 2), (0, 0, 0, 0)],
    "scalar": [(), ..., 0, slice(None)],
    "empty": [(), ..., 0, slice(None), (slice(None), 1)],
}


@pytest.mark.parametrize("name, index", [(name, index) for name, indices in SLICES.items() for index in indices],
                         ids=lambda value: repr(value))
def test_get_slice_indexes_as_the_package_does(both_files, name, index):
    ours_path, theirs_path, _, _ = both_files
    with ours.safe_open(theirs_path, "pt") as mine_f, safetensors.safe_open(ours_path, "pt") as their_f:
        mine_slice, their_slice = mine_f.get_slice(name), their_f.get_slice(name)
        expected = error_of(lambda: their_slice[index])
        assert error_of(lambda: mine_slice[index]) == expected
        if expected is None:
            part = mine_slice[index]
            assert contents({name: part}) == contents({name: their_slice[index].contiguous()})
            part.fill_(1)  # a copy of its own: the next read sees the file
            assert contents({name: mine_slice[index]}) == contents({name: their_slice[index].contiguous()})


def test_slices_index_with_tensors_and_read_after_the_file_is_closed(both_files):
    ours_path, theirs_path, _, _ = both_files
    with ours.safe_open(theirs_path, "pt") as mine_f, safetensors.safe_open(ours_path, "pt") as their_f:
        mine_slice, their_slice = mine_f.get_slice("x"), their_f.get_slice("x")
    assert contents({"x": mine_slice[ndgrad.tensor(1)]}) == contents({"x": their_slice[torch.tensor(1)]})
    for opened in (mine_f, their_f):
        assert error_of(opened.keys) == ("SafetensorError", "File is closed")
        assert error_of(lambda f=opened: f.get_tensor("x")) == ("SafetensorError", "File is closed")


def test_safe_open_works_without_a_with_block(both_files):
    ours_path, _, mine, _ = both_files
    assert ours.safe_open(ours_path, "pt").get_tensor("x").equal(mine["x"])


# ---- devices -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", [None, "cpu"])
def test_the_cpu_by_its_names(both_files, device):
    ours_path, _, mine, _ = both_files
    loaded = ours.load_file(ours_path, device=device)
    assert contents(loaded) == contents(mine) and {t.device.type for t in loaded.values()} == {"cpu"}


def test_a_gpu_by_its_names_on_the_stand_in_gpu(both_files):
    ours_path, _, mine, _ = both_files
    with fake_cuda():
        for device in ("cuda", "cuda:0", 0, ndgrad.device("cuda", 0)):
            loaded = ours.load_file(ours_path, device=device)
            assert {str(t.device) for t in loaded.values()} == {"cuda:0"}
            assert contents(loaded) == contents(mine)
            assert ours.save(loaded) == ours.save(mine)  # a GPU tensor is written from a host copy
        with ours.safe_open(ours_path, "pt", device="cuda") as f:
            part = f.get_slice("x")[:, 1]
        assert str(part.device) == "cuda:0" and raw_bytes(part) == raw_bytes(mine["x"][:, 1])


# ---- save_model / load_model ---------------------------------------------------------------------------------
def models(tied=True, second_out=2):
    """The same two-layer model in ndgrad and torch (weights alike), the second layer's weight tied to the first's."""
    pair = []
    for library in (ndgrad, torch):
        library.manual_seed(0)
        model = library.nn.Sequential(library.nn.Linear(2, 2), library.nn.Linear(2, second_out))
        if tied:
            model[1].weight = model[0].weight
        pair.append(model)
    with ndgrad.no_grad():
        for mine, torchs in zip(pair[0].parameters(), pair[1].parameters()):
            mine.copy_(ndgrad.tensor(torchs.detach().numpy()))
    return pair


def test_save_model_stores_a_tied_weight_once_as_the_package_does(tmp_path):
    mine, torchs = models()
    metadata = {"user": "data"}
    ours.save_model(mine, tmp_path / "ours.safetensors", metadata=metadata)
    theirs.save_model(torchs, str(tmp_path / "theirs.safetensors"), metadata={"user": "data"})
    theirs_file = safetensors.safe_open(tmp_path / "theirs.safetensors", "pt")
    with ours.safe_open(tmp_path / "ours.safetensors", "pt") as f:
        assert f.keys() == theirs_file.keys() == ["0.bias", "0.weight", "1.bias"]
        assert f.metadata() == theirs_file.metadata() == {"user": "data", "1.weight": "0.weight"}
    assert metadata == {"user": "data"}  # NOTE: the package adds the dropped names to the caller's dict


@pytest.mark.parametrize("target, strict", [
    ({"tied": True}, True), ({"tied": False}, True), ({"tied": False}, False), ({"second_out": 3}, True),
])
def test_load_model_answers_as_the_package_does(tmp_path, target, strict):
    ours.save_model(models()[0], tmp_path / "model.safetensors")
    mine, torchs = models(**target)
    expected = error_of(lambda: theirs.load_model(torchs, tmp_path / "model.safetensors", strict=strict))
    assert error_of(lambda: ours.load_model(mine, tmp_path / "model.safetensors", strict=strict)) == expected
    if expected is None:
        assert (ours.load_model(mine, tmp_path / "model.safetensors", strict=strict)
                == theirs.load_model(torchs, tmp_path / "model.safetensors", strict=strict))
        assert mine[1].weight.equal(ndgrad.tensor(torchs[1].weight.detach().numpy()))


@pytest.mark.parametrize("force_contiguous", [False, True])
def test_save_model_takes_a_transposed_weight_only_when_forced(tmp_path, force_contiguous):
    mine, torchs = models(tied=False)
    mine[0].weight = ndgrad.nn.Parameter(ndgrad.zeros(2, 2).t())
    torchs[0].weight = torch.nn.Parameter(torch.zeros(2, 2).t())
    expected = error_of(lambda: theirs.save_model(torchs, tmp_path / "t", force_contiguous=force_contiguous))
    assert (expected is None) == force_contiguous
    assert error_of(lambda: ours.save_model(mine, tmp_path / "o", force_contiguous=force_contiguous)) == expected


def test_save_model_refuses_a_view_that_covers_no_storage_of_its_own(tmp_path):
    mine, torchs = models(tied=False)
    for library, module in ((ndgrad, mine), (torch, torchs)):
        module.register_buffer("part", library.zeros(4)[1:3])  # no name of its memory covers it all: none to keep
    expected = error_of(lambda: theirs.save_model(torchs, tmp_path / "t"))
    assert expected[0] == "RuntimeError" and error_of(lambda: ours.save_model(mine, tmp_path / "o")) == expected
