"""ndgrad.load on damaged, crafted and foreign files: each one either loads as a file ndgrad.save could have written
(the object saved, or another object whose file it is) or raises RuntimeError("ndgrad.load: invalid file: ...");
never another exception, never a hang or a huge allocation. Saved files are mutated systematically (every JSON
field, every zip entry, every byte range) and the examples that once got through are checked by name."""

import io
import json
import pickle
import re
import tracemalloc
import warnings
import zipfile
from collections import Counter, OrderedDict

import pytest
import torch

import ndgrad
from ndgrad.testing import fake_cuda

INVALID = "ndgrad.load: invalid file: "
NO_GPU = "Attempting to deserialize object on a CUDA device but ndgrad.cuda.is_available() is False"


def saved_bytes(obj):
    buffer = io.BytesIO()
    ndgrad.save(obj, buffer)
    return buffer.getvalue()


def load_bytes(data, **load_args):
    return ndgrad.load(io.BytesIO(data), **load_args)


def entries_of(data):
    """[(name, bytes)] of a zip archive, in its order."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def archive_of(entries, compression=zipfile.ZIP_STORED, comment=b""):
    """A zip archive of [(name, bytes)], repeated names included."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile's "Duplicate name": that is the point
        archive.comment = comment
        for name, content in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = compression
            archive.writestr(info, content)
    return out.getvalue()


def with_manifest(data, manifest_text):
    return archive_of([(name, manifest_text if name == "manifest.json" else content)
                       for name, content in entries_of(data)])


def edited(data, edit):
    """The file ``data`` with its manifest replaced by ``edit(manifest)``."""
    return with_manifest(data, json.dumps(edit(json.loads(dict(entries_of(data))["manifest.json"]))))


def _tensor_fields(**fields):
    """An edit of a manifest: tensor 0's fields set to ``fields``."""
    return lambda manifest: {**manifest, "tensors": [{**manifest["tensors"][0], **fields}, *manifest["tensors"][1:]]}


# ---- the files that got through before, by name ------------------------------------------------------------------
needs_no_gpu = pytest.mark.skipif(ndgrad.cuda.is_available(), reason="about a machine without a GPU")


@needs_no_gpu
def test_a_gpu_storage_on_a_machine_without_one_asks_for_map_location():
    """torch's error and advice, in ndgrad's names, for a saved cuda storage and for map_location='cuda'."""
    buffer = io.BytesIO()
    torch.save(torch.ones(2), buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(buffer, map_location="cuda:0")
    expected = str(theirs.value).replace("torch.", "ndgrad.")
    assert expected.startswith(NO_GPU)
    data = saved_bytes({"w": ndgrad.arange(3.0), "b": ndgrad.ones(2)})
    on_gpu = edited(data, lambda m: {**m, "storages": [{**m["storages"][0], "device": "cuda:0"}, m["storages"][1]]})
    for file, where in ((on_gpu, None), (data, "cuda"), (data, "cuda:1"), (data, ndgrad.device("cuda", 0)),
                        (data, {"cpu": "cuda:0"}), (on_gpu, lambda storage, location: None)):
        with pytest.raises(RuntimeError) as ours:
            load_bytes(file, map_location=where)
        assert str(ours.value) == expected
    for where in ("cpu", ndgrad.device("cpu"), {"cuda:0": "cpu"}, lambda storage, location: storage):
        loaded = load_bytes(on_gpu, map_location=where)
        assert loaded["w"].tolist() == [0.0, 1.0, 2.0] and loaded["w"].device == ndgrad.device("cpu")


def test_map_location_on_gpus():
    """Each form torch.load takes, on the stand-in GPUs (cuda:0 and cuda:1), and a GPU that is not there."""
    with fake_cuda():
        x = ndgrad.arange(4.0, device="cuda:1")
        data = saved_bytes({"x": x, "view": x[1:]})
        placements = [
            (None, "cuda:1"), ("cpu", "cpu"), (ndgrad.device("cpu"), "cpu"), ("cuda:0", "cuda:0"),
            ({"cuda:1": "cpu"}, "cpu"), ({"cuda:1": ndgrad.device("cuda:0")}, "cuda:0"), ({"cuda:7": "cpu"}, "cuda:1"),
            (lambda storage, location: None, "cuda:1"), (lambda storage, location: storage, "cpu"),
            (lambda storage, location: storage.cuda(0), "cuda:0"),
        ]
        assert saved_bytes(load_bytes(data)) == data  # back on cuda:1, as it was
        for where, expected in placements:
            loaded = load_bytes(data, map_location=where)
            assert loaded["x"].device == ndgrad.device(expected) == loaded["view"].device
            loaded["x"].data[1] = -1.0  # still one storage
            assert loaded["view"].tolist() == [-1.0, 2.0, 3.0]
        on_third = edited(data, lambda m: {**m, "storages": [{**m["storages"][0], "device": "cuda:2"}]})
        for file, where, number in ((on_third, None, 2), (data, "cuda:2", 2), (data, {"cuda:1": "cuda:5"}, 5)):
            with pytest.raises(RuntimeError) as error:
                load_bytes(file, map_location=where)
            assert str(error.value) == (
                f"Attempting to deserialize object on CUDA device {number} but ndgrad.cuda.device_count() is 2. "
                "Please use ndgrad.load with map_location to map your storages to an existing device."
            )


@pytest.mark.parametrize("shape", [[2**62, 2**62], [10**30], [2**61], [2**40] * 3, [2**63, 0]])
def test_shapes_past_what_a_tensor_can_hold(shape):
    stride_0 = _tensor_fields(shape=shape, byte_strides=[0] * len(shape))
    crafted = edited(saved_bytes(ndgrad.ones(1).expand(3)), stride_0)
    with pytest.raises(RuntimeError, match=f"^{INVALID}tensor 0: larger than a tensor of 4-byte elements can be"):
        load_bytes(crafted)


def test_an_expanded_tensor_stays_a_view_of_its_storage():
    """A 10^12-element expand of 4 bytes loads as torch loads it: a stride-0 view of the 4 bytes, no allocation.
    A record that claims those elements without stride 0 reaches outside the storage and is refused."""
    ours, theirs = ndgrad.ones(1).expand(10**12), torch.ones(1).expand(10**12)
    buffer = io.BytesIO()
    torch.save(theirs, buffer)
    buffer.seek(0)
    reference = torch.load(buffer)
    for requires_grad, parameter in ((False, False), (True, False), (True, True)):
        data = edited(saved_bytes(ours), _tensor_fields(requires_grad=requires_grad, parameter=parameter))
        tracemalloc.start()
        try:
            loaded = load_bytes(data)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 2**20 and loaded.shape == reference.shape and loaded.stride() == reference.stride() == (0,)
        assert loaded.requires_grad == requires_grad and isinstance(loaded, ndgrad.nn.Parameter) == parameter
        assert loaded[10**12 - 1].item() == 1.0
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to"):
        load_bytes(saved_bytes(ndgrad.ones(1).expand(3))).add_(1.0)  # as torch.ones(1).expand(3).add_(1.0)
    with pytest.raises(RuntimeError, match=f"^{INVALID}tensor 0 reaches outside its storage$"):
        load_bytes(edited(saved_bytes(ours), _tensor_fields(byte_strides=[4])))


def test_repeated_zip_entries_are_refused():
    data = saved_bytes([ndgrad.ones(2), ndgrad.zeros(3)])
    entries = entries_of(data)
    other = json.loads(entries[0][1])
    other["object"] = [{"kind": "tensor", "index": 1}, {"kind": "tensor", "index": 0}]  # a valid manifest too
    for repeated in ([(entries[0][0], json.dumps(other))] + entries, entries + [entries[1]], entries + [entries[0]]):
        with pytest.raises(RuntimeError, match=f"^{INVALID}the zip archive holds '[^']*' twice$"):
            load_bytes(archive_of(repeated))


def test_nesting_depth():
    """save stores containers 100 deep and load reads them; save refuses one more, load refuses a file with one
    more, and JSON too deep for the parser is refused too."""
    deep = ndgrad.ones(1)
    for level in range(100):
        deep = ([deep], (deep,), {"k": deep}, OrderedDict(k=deep))[level % 4]
    loaded = load_bytes(saved_bytes(deep))
    for _ in range(100):
        loaded = loaded[("k", 0)[isinstance(loaded, (list, tuple))]]
    assert loaded.tolist() == [1.0]
    with pytest.raises(ValueError, match="^ndgrad.save cannot store containers nested more than 100 deep$"):
        saved_bytes([deep])
    data = saved_bytes(None)
    for nested, problem in (("[" * 101 + "]" * 101, r"containers nested more than 100 deep\)$"),
                            ("[" * 100_000 + "]" * 100_000, "RecursionError")):
        text = dict(entries_of(data))["manifest.json"].decode().replace('"object": null', '"object": ' + nested)
        with pytest.raises(RuntimeError, match=f"^{INVALID}.*{problem}"):
            load_bytes(with_manifest(data, text))


# ---- systematic mutations of valid files --------------------------------------------------------------------------
def _bases():
    """Valid files: a tensor, a state dict whose tensors share storages, nested containers, an optimizer's state."""
    weight = ndgrad.arange(6.0).reshape(2, 3).requires_grad_()
    state = OrderedDict(weight=ndgrad.nn.Parameter(weight.detach()), row=weight.detach()[1], t=weight.detach().t(),
                        expanded=ndgrad.ones(1).expand(2, 2), mask=ndgrad.tensor([True, False]),
                        empty=ndgrad.zeros(0, 3), steps=ndgrad.tensor(7))
    state._metadata = OrderedDict([("", {"version": 1})])
    nested = {"a": [1, 2.5, "s", None, True, (3, (-0.0,))], (1, "k"): {"nan": float("nan"), "c": 1 - 2j},
              "dtype": ndgrad.float16, "device": ndgrad.device("cuda:1"), "size": ndgrad.Size([2, 3])}
    parameter = ndgrad.nn.Parameter(ndgrad.ones(3))
    optimizer = ndgrad.optim.Adam([parameter], lr=0.1)
    parameter.sum().backward()
    optimizer.step()
    return {"tensor": weight, "state dict": state, "nested": nested, "optimizer": optimizer.state_dict()}


BASES = {name: saved_bytes(obj) for name, obj in _bases().items()}
DELETE = object()
WRONG = [None, True, -1, 7, 2**64, 0.5, "", "cuda:0", "float32", [], [2**62, 2**62], {}, {"kind": "tensor", "index": 0}]


def _neighbours(value):
    """Values near ``value``, of its type: what a slip or a crafted edit would write."""
    if type(value) is int:
        return [value + 1, value - 1, -value, 2 * value, value + 4]
    if type(value) is str:
        return [value + "x", value.upper(), value[:-1]]
    if type(value) is list:
        return [value[::-1], value[:-1], value + value[-1:], [value]]
    if type(value) is dict:
        return [{**value, "extra": 0}]
    return [not value] if type(value) is bool else []


def _paths(node, path=()):
    yield path
    children = node.items() if type(node) is dict else enumerate(node) if type(node) is list else ()
    for key, child in children:
        yield from _paths(child, (*path, key))


def _replaced(node, path, new):
    """``node`` with the value at ``path`` replaced by ``new`` (or removed, for DELETE); the rest shared."""
    if not path:
        return new
    copy = dict(node) if type(node) is dict else list(node)
    child = _replaced(node[path[0]], path[1:], new)
    if child is DELETE:
        del copy[path[0]]
    else:
        copy[path[0]] = child
    return copy


def _at(node, path):
    for key in path:
        node = node[key]
    return node


def manifest_mutations(data):
    """(description, file): every JSON field of the manifest replaced by wrong values and by its neighbours,
    removed, or given an unknown sibling; and edits of the JSON text itself."""
    entries = entries_of(data)
    text = dict(entries)["manifest.json"].decode()
    manifest = json.loads(text)

    def file(manifest_text):
        return archive_of(_swapped(entries, "manifest.json", manifest_text))

    for path in _paths(manifest):
        value = _at(manifest, path)
        for new in [*WRONG, *_neighbours(value), *([DELETE] if path else [])]:
            if type(new) is not type(value) or new != value:
                shown = "deleted" if new is DELETE else f"= {new!r:.40}"
                yield f"{list(path)} {shown}", file(json.dumps(_replaced(manifest, path, new)))
    version = '"version": 1'
    texts = {
        "a repeated key": text.replace(version, f"{version}, {version}"),
        "NaN": text.replace(version, '"version": NaN'), "1e400": text.replace(version, '"version": 1e400'),
        "a byte-order mark": "\ufeff" + text, "latin-1": text.replace("ndgrad", "ndgr\u00e4d").encode("latin-1"),
        "cut short": text[: len(text) // 2], "trailing text": text + " x", "spaces": " " + text + "\n",
    }
    yield from ((f"JSON text: {name}", file(edit)) for name, edit in texts.items())


def _swapped(entries, name, content):
    return [(other, content if other == name else old) for other, old in entries]


def zip_mutations(data):
    """(description, file): entries repeated, removed, renamed, added, reordered, compressed; storages cut or
    grown; a comment (harmless); bytes cut or flipped."""
    entries = entries_of(data)
    manifest = json.loads(dict(entries)["manifest.json"])
    count = len(entries) - 1
    for index, (name, content) in enumerate(entries):
        yield f"{name} twice", archive_of(entries + [(name, content)])
        yield f"{name} removed", archive_of(entries[:index] + entries[index + 1:])
        for other in (f"storages/{count}", "storages/00", "./" + name, "/" + name, name.upper(), name + "/",
                      "storages/-1", "../" + name):
            yield f"{name} renamed {other}", archive_of(entries[:index] + [(other, content)] + entries[index + 1:])
        if name == "manifest.json":
            continue
        for change in (-1, 1, -4, 4):
            changed = content[:change] if change < 0 else content + bytes(change)
            yield f"{name} {change:+} bytes", archive_of(_swapped(entries, name, changed))
            grown = _replaced(manifest, ("storages", int(name.split("/")[1]), "nbytes"), len(changed))
            both = _swapped(_swapped(entries, name, changed), "manifest.json", json.dumps(grown).encode())
            yield f"{name} and its nbytes {change:+}", archive_of(both)
    yield "an extra entry", archive_of(entries + [("extra.txt", b"x")])
    yield "an extra storage", archive_of(entries + [(f"storages/{count}", b"")])
    yield "reversed entries", archive_of(entries[::-1])
    yield "compressed", archive_of(entries, zipfile.ZIP_DEFLATED)
    yield "a comment", archive_of(entries, comment=b"ndgrad")
    for position in range(0, len(data), max(1, len(data) // 64)):
        yield f"cut at {position}", data[:position]
        yield f"byte {position} flipped", data[:position] + bytes([data[position] ^ 0xFF]) + data[position + 1:]


def _content(data, cpu=False):
    """What a file says, to compare: its manifest as sorted JSON text (with every storage on the cpu, if asked)
    and its entries' bytes."""
    entries = dict(entries_of(data))
    manifest = json.loads(entries.pop("manifest.json"))
    if cpu:
        manifest["storages"] = [{**record, "device": "cpu"} for record in manifest["storages"]]
    return json.dumps(manifest, sort_keys=True), sorted(entries.items())


def outcome(data, original):
    """How loading ``data`` ends: refused with the contract's error, or loaded as an object for which save writes
    this very file (the object saved, another object, or one saved on a GPU that needs map_location here)."""
    try:
        loaded = load_bytes(data, map_location="cpu")
    except RuntimeError as error:
        assert str(error).startswith(INVALID), repr(error)
        return "refused"
    resaved = saved_bytes(loaded)
    if resaved != data:  # the same file in other bytes (spaces in the JSON, entries reordered), or saved on a GPU
        assert _content(resaved) == _content(data, cpu=True), "loaded, but save writes another file for it"
        if _content(data) != _content(resaved):
            if not ndgrad.cuda.is_available():
                with pytest.raises(RuntimeError, match=f"^{re.escape(NO_GPU)}"):
                    load_bytes(data)
            return "loads with map_location (saved on a GPU)"
    return "the object saved" if resaved == original else "another object, as its file"


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("family", [manifest_mutations, zip_mutations], ids=["manifest", "zip"])
def test_every_mutation_is_refused_or_loads_as_a_saved_file(base, family):
    data = BASES[base]
    outcomes = Counter()
    for description, mutated in family(data):
        try:
            outcomes[outcome(mutated, data)] += 1
        except Exception as error:
            raise AssertionError(f"{base}, {description}: {type(error).__name__}: {error}") from error
    print(f"{base}, {family.__name__}: {sum(outcomes.values())} files, {dict(outcomes)}")  # pytest -s shows it
    assert outcomes["refused"] > 50 and outcomes["the object saved"] > 0


# ---- damaged, foreign and pickled files ----------------------------------------------------------------------------
def test_every_truncation_and_flipped_byte_is_refused_or_harmless():
    """Cut the file at every length and flip every byte: load either gives the same objects (a flipped timestamp
    is harmless) or raises RuntimeError; never another exception, never different values."""
    data = saved_bytes({"x": ndgrad.arange(6.0).reshape(2, 3), "n": [1, 2.5, "s"]})
    expected = repr(load_bytes(data))
    for position in range(len(data)):
        flipped = data[:position] + bytes([data[position] ^ 0xFF]) + data[position + 1:]
        for damaged in (data[:position], flipped):
            try:
                assert repr(load_bytes(damaged)) == expected
            except RuntimeError as error:
                assert str(error).startswith(INVALID)


def test_garbage_and_empty_files():
    for data in (b"", b"hello, this is not a checkpoint", bytes(range(256)) * 4):
        with pytest.raises(RuntimeError, match="not a zip archive"):
            load_bytes(data)


class _Alarm:
    """Unpickling this calls _ring: a pickle that runs code."""

    rung = []

    def __reduce__(self):
        return (_Alarm.rung.append, ("unpickled!",))


def test_pickles_are_refused_without_running_them():
    payload = pickle.dumps({"weights": _Alarm()})
    with pytest.raises(RuntimeError, match="holds a pickle"):
        load_bytes(payload)
    buffer = io.BytesIO()
    torch.save({"weights": torch.ones(2)}, buffer)  # a zip with data.pkl inside
    with pytest.raises(RuntimeError, match="a torch.save file"):
        load_bytes(buffer.getvalue())
    crafted = edited(saved_bytes([1]), lambda m: {**m, "object": {"kind": "pickle", "data": payload.hex()}})
    with pytest.raises(RuntimeError, match="unknown value"):
        load_bytes(crafted)
    # pickle bytes as a storage are only bytes: they load as uint8 values
    data = saved_bytes(ndgrad.zeros(len(payload), dtype=ndgrad.uint8))
    crafted = archive_of([(name, payload if name == "storages/0" else content) for name, content in entries_of(data)])
    assert bytes(load_bytes(crafted).numpy()) == payload
    assert _Alarm.rung == []


def _complex_chain(length):
    """A complex whose real part is a complex whose real part is ...: deep JSON that is not a container."""
    node = 0.0
    for _ in range(length):
        node = {"kind": "complex", "real": node, "imag": 0.0}
    return node


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda m: {**m, "version": 2}, "format version 2"),
        (lambda m: {**m, "version": True}, "format version True"),
        (lambda m: {**m, "format": "other"}, "not an ndgrad manifest"),
        (lambda m: {**m, "byteorder": "big"}, "byte order 'big'"),
        (lambda m: {k: v for k, v in m.items() if k != "object"}, r"manifest.json lacks \['object'\]"),
        (lambda m: {**m, "extra": 1}, r"manifest.json has unknown fields \['extra'\]"),
        (lambda m: {**m, "storages": [{"nbytes": 12, "device": "tpu"}]}, "invalid device"),
        (lambda m: {**m, "storages": [{"nbytes": 12, "device": "cuda"}]}, "invalid device"),
        (lambda m: {**m, "storages": [{"nbytes": 999, "device": "cpu"}]}, "holds 12 bytes, the manifest says 999"),
        (lambda m: {**m, "storages": []}, "lists 0 storages, the zip holds 1"),
        (_tensor_fields(dtype="float128"), "unknown dtype"),
        (_tensor_fields(dtype="float"), "unknown dtype"),
        (_tensor_fields(shape=[4]), "reaches outside its storage"),
        (_tensor_fields(byte_offset=-4), "invalid byte offset -4"),
        (_tensor_fields(byte_offset=2), "multiples of its element size, 4"),
        (_tensor_fields(byte_strides=[-4]), "reaches outside its storage"),
        (_tensor_fields(byte_strides=[4, 4]), "invalid strides"),
        (_tensor_fields(shape=[True, 3]), "invalid shape"),
        (_tensor_fields(shape=[0]), "an empty tensor is saved with an empty storage"),
        (_tensor_fields(storage=3), "no storage 3"),
        (_tensor_fields(requires_grad="yes"), "invalid flags"),
        (lambda m: {**m, "tensors": m["tensors"] * 2}, "tensor 1 is not used by the object"),
        (lambda m: {**m, "object": {"kind": "tensor", "index": 5}}, "no tensor 5"),
        (lambda m: {**m, "object": {"kind": "tensor", "index": 0, "x": 1}}, "unknown value"),
        (lambda m: {**m, "object": {"kind": "dict", "items": [[[1], 2]]}}, "an unhashable dict key"),
        (lambda m: {**m, "object": {"kind": "dict", "items": [[1, 2], [1.0, 3]]}}, "a dict with a repeated key"),
        (lambda m: {**m, "object": {"kind": "float", "value": "1e400"}}, "not a non-finite float: '1e400'"),
        (lambda m: {**m, "object": {"kind": "complex", "real": 1, "imag": 0.0}}, "complex parts must be floats"),
        (lambda m: {**m, "object": {"kind": "device", "name": "cuda:01"}}, "invalid device 'cuda:01'"),
        (lambda m: {**m, "object": _complex_chain(300)}, "complex parts must be floats"),
    ],
)
def test_malformed_manifests(edit, problem):
    crafted = edited(saved_bytes(ndgrad.ones(3)), edit)
    with pytest.raises(RuntimeError, match=f"^{INVALID}.*{problem}"):
        load_bytes(crafted)


def test_tensors_and_storages_are_numbered_as_save_numbers_them():
    data = saved_bytes([ndgrad.ones(2), ndgrad.zeros(3)])
    swapped = edited(data, lambda m: {**m, "object": [m["object"][1], m["object"][0]]})
    with pytest.raises(RuntimeError, match=f"^{INVALID}.*tensor 1 comes before tensor 0"):
        load_bytes(swapped)
    reordered = edited(data, lambda m: {**m, "tensors": [{**m["tensors"][0], "storage": 1}, m["tensors"][1]]})
    with pytest.raises(RuntimeError, match=f"^{INVALID}tensor 0 uses storage 1 before storage 0"):
        load_bytes(reordered)


def test_integer_tensors_cannot_require_grad_in_a_file():
    crafted = edited(saved_bytes(ndgrad.ones(3, dtype=ndgrad.int32)), _tensor_fields(requires_grad=True))
    with pytest.raises(RuntimeError, match="an integer tensor cannot require grad"):
        load_bytes(crafted)
