"""ndgrad.save / ndgrad.load: what a round trip gives back is what torch.save / torch.load give back (values,
dtypes, flags, shared memory, containers, map_location, errors at the call), while damaged, foreign and pickled
files are refused with a RuntimeError and never executed."""

import io
import json
import pickle
import zipfile
from collections import OrderedDict, namedtuple

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ndgrad
from ndgrad._dtype import ALL_DTYPES

# ---- against torch: the same snippet, run with each library, prints the same ---------------------------------
ROUND_TRIPS = {
    "shared_views": """
x = torch.arange(12.).reshape(3, 4)
buffer = io.BytesIO()
torch.save({'x': x, 'column': x[:, 1], 't': x.t(), 'again': x, 'flat': x.view(-1)[2:9:3]}, buffer)
buffer.seek(0)
d = torch.load(buffer)
d['x'][0, 1] = 100.
d['x'][2, 2] = -1.
print(d['column'], d['t'], d['flat'], d['again'] is d['x'])
print(d['column'].stride(), d['t'].stride(), d['t'].is_contiguous(), d['flat'].stride())
""",
    "detached_alias_and_expand": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
buffer = io.BytesIO()
torch.save([x, x.detach(), x.detach().expand(2, 3), (x * 2)], buffer)
buffer.seek(0)
a, b, e, y = torch.load(buffer)
with torch.no_grad():
    a[0] = 7.
print(a, b, e, e.stride(), y, y.is_leaf, y.grad_fn)
""",
    "state_dict_shapes": """
buffer = io.BytesIO()
state = {
    'state': {0: {'step': torch.tensor(3.), 'exp_avg': torch.zeros(2, 0), 'momentum_buffer': None}},
    'param_groups': [{'lr': 0.001, 'betas': (0.9, 0.999), 'eps': 1e-08, 'amsgrad': False, 'foreach': None,
                      'params': [0, 1], 'name': 'encoder', 'big': 2 ** 70, 'inf': float('inf'), 'c': 1 - 2j}],
    'layout': OrderedDict([('weight', torch.ones(2, 2, dtype=torch.float64)), ('bias', torch.tensor(5))]),
    'dtype': torch.int16, 'device': torch.device('cpu'), 'size': torch.Size([2, 3]),
}
torch.save(state, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print(loaded)
print(type(loaded['layout']).__name__, type(loaded['param_groups'][0]['betas']).__name__)
print(loaded['state'][0]['exp_avg'].shape, loaded['dtype'], loaded['size'])
""",
    "paths": """
torch.save(torch.tensor([[1, 2], [3, 4]], dtype=torch.int8), path)
print(torch.load(path))
torch.save({'nan': float('nan'), 't': torch.tensor(float('nan'))}, pathlib.Path(path))
print(torch.load(pathlib.Path(path)))
with open(path, 'wb') as f:
    torch.save((1, 'two', [3.0, None, True]), f)
with open(path, 'rb') as f:
    print(torch.load(f))
""",
    "map_location": """
x = torch.arange(4.)
buffer = io.BytesIO()
torch.save({'x': x, 'view': x[1:]}, buffer)
for where in ['cpu', torch.device('cpu'), {'cpu': 'cpu'}, lambda storage, location: storage,
              lambda storage, location: None]:
    buffer.seek(0)
    d = torch.load(buffer, map_location=where)
    d['x'][1] = -1.
    print(d['view'], d['x'].device)
buffer.seek(0)
torch.load(buffer, map_location=5)
""",
    "save_needs_a_file": "torch.save(torch.ones(2), 123)",
    "load_needs_a_file": "torch.load(123)",
    "load_missing_path": "torch.load(path + '.missing')",
}


@pytest.mark.parametrize("name", ROUND_TRIPS)
def test_round_trip_like_torch(same, name, tmp_path):
    namespace = {"io": io, "OrderedDict": OrderedDict, "pathlib": __import__("pathlib"), "path": str(tmp_path / "f")}
    same(ROUND_TRIPS[name], namespace)


# ---- every dtype and shape ---------------------------------------------------------------------------------------
def round_trip(obj, **load_args):
    buffer = io.BytesIO()
    ndgrad.save(obj, buffer)
    buffer.seek(0)
    return ndgrad.load(buffer, **load_args)


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from(ALL_DTYPES),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
    requires_grad=st.booleans(),
    data=st.data(),
)
def test_every_dtype_and_shape(dtype, shape, requires_grad, data):
    array = data.draw(hnp.arrays(dtype.numpy, shape))  # any bit pattern: nan, inf, -0.0, subnormals
    tensor = ndgrad.from_numpy(array).requires_grad_(requires_grad and dtype._category >= 2)
    loaded = round_trip(tensor)
    reference = torch.load(_torch_round_trip(torch.from_numpy(array)))
    assert loaded.dtype is dtype and loaded.shape == tensor.shape and loaded.stride() == reference.stride()
    assert loaded.requires_grad == tensor.requires_grad and loaded.is_leaf
    assert loaded.numpy(force=True).tobytes() == reference.numpy().tobytes()  # bit for bit


def _torch_round_trip(tensor):
    buffer = io.BytesIO()
    torch.save(tensor, buffer)
    buffer.seek(0)
    return buffer


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_strided_views_keep_layout_and_sharing(data):
    """Any basic-slicing view (steps, transposes) comes back with its strides, sharing memory."""
    base = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    index = data.draw(hnp.basic_indices(base.shape, allow_ellipsis=False, allow_newaxis=False))
    view = base[index]
    assume(isinstance(view, np.ndarray))  # not a NumPy scalar (every index an integer)
    assume(all(stride >= 0 for stride in view.strides))  # from_numpy refuses negative strides, as torch does
    view = view.T if data.draw(st.booleans()) else view
    whole, window = round_trip([ndgrad.from_numpy(base), ndgrad.from_numpy(view)])
    assert window.stride() == tuple(s // 8 for s in view.strides) and np.array_equal(window.numpy(), view)
    whole.numpy()[...] = -1  # the base's storage was saved once: the view sees the write
    assert (window.numpy() == -1).all()


def test_same_tensor_and_separate_storages():
    x, y = ndgrad.ones(3), ndgrad.ones(3)
    a, b, c = round_trip([x, y, x])
    assert a is c and a is not b
    a.add_(1)
    assert b.tolist() == [1.0, 1.0, 1.0]


def test_ordered_dict_metadata_and_determinism():
    state = OrderedDict(weight=ndgrad.ones(2))
    state._metadata = OrderedDict([("", {"version": 1})])
    assert round_trip(state)._metadata == state._metadata
    first, second = io.BytesIO(), io.BytesIO()
    ndgrad.save(state, first)
    ndgrad.save(state, second)
    assert first.getvalue() == second.getvalue()


def test_parameters():
    Parameter = pytest.importorskip("ndgrad.nn").__dict__.get("Parameter") or pytest.skip("no nn.Parameter yet")
    weight = Parameter(ndgrad.ones(2, 2))
    frozen = Parameter(ndgrad.zeros(3), requires_grad=False)
    loaded = round_trip({"weight": weight, "frozen": frozen, "alias": weight.detach()})
    assert type(loaded["weight"]) is Parameter and loaded["weight"].requires_grad
    assert type(loaded["frozen"]) is Parameter and not loaded["frozen"].requires_grad
    assert type(loaded["alias"]) is ndgrad.Tensor
    loaded["alias"].fill_(3.0)
    assert loaded["weight"].tolist() == [[3.0, 3.0], [3.0, 3.0]]


# ---- what save refuses ----------------------------------------------------------------------------------------
Point = namedtuple("Point", "x y")


@pytest.mark.parametrize(
    "obj, kind",
    [({1, 2}, "builtins.set"), (object(), "builtins.object"), (np.float64(1.0), "numpy.float64"),
     (Point(1, 2), "Point"), (np.ones(2), "numpy.ndarray"), ([b"bytes"], "builtins.bytes")],
)
def test_save_refuses_other_types(obj, kind):
    with pytest.raises(TypeError, match=f"ndgrad.save cannot store an object of type '[^']*{kind}'"):
        ndgrad.save(obj, io.BytesIO())


def test_save_refuses_a_cycle():
    cycle = [1]
    cycle.append(cycle)
    with pytest.raises(ValueError, match="contains itself"):
        ndgrad.save({"a": cycle}, io.BytesIO())


# ---- what load refuses ----------------------------------------------------------------------------------------
def saved_bytes(obj):
    buffer = io.BytesIO()
    ndgrad.save(obj, buffer)
    return buffer.getvalue()


def load_bytes(data):
    return ndgrad.load(io.BytesIO(data))


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
                assert str(error).startswith("ndgrad.load: invalid file: ")


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
    crafted = _with_manifest(saved_bytes([1]), lambda m: {**m, "object": {"kind": "pickle", "data": payload.hex()}})
    with pytest.raises(RuntimeError, match="unknown value"):
        load_bytes(crafted)
    # pickle bytes as a storage are only bytes: they load as uint8 values
    crafted = _with_storage(saved_bytes(ndgrad.zeros(len(payload), dtype=ndgrad.uint8)), payload)
    assert bytes(load_bytes(crafted).numpy()) == payload
    assert _Alarm.rung == []


def _with_manifest(data, edit):
    """The archive ``data`` with its manifest replaced by ``edit(manifest)``."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in source.namelist():
            content = source.read(name)
            if name == "manifest.json":
                content = json.dumps(edit(json.loads(content)))
            archive.writestr(name, content)
    return out.getvalue()


def _with_storage(data, content):
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in source.namelist():
            archive.writestr(name, content if name == "storages/0" else source.read(name))
    return out.getvalue()


def _tensor_field(field, value):
    return lambda manifest: {**manifest, "tensors": [{**manifest["tensors"][0], field: value}]}


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda m: {**m, "version": 2}, "format version 2"),
        (lambda m: {**m, "format": "other"}, "not an ndgrad manifest"),
        (lambda m: {**m, "byteorder": "big"}, "byte order 'big'"),
        (lambda m: {k: v for k, v in m.items() if k != "object"}, "incomplete manifest"),
        (lambda m: {**m, "storages": [{"nbytes": 12, "device": "tpu"}]}, "invalid device"),
        (lambda m: {**m, "storages": [{"nbytes": 999, "device": "cpu"}]}, "holds 12 bytes, the manifest says 999"),
        (_tensor_field("dtype", "float128"), "unknown dtype"),
        (_tensor_field("shape", [4]), "reaches outside its storage"),
        (_tensor_field("byte_offset", -4), "reaches outside its storage"),
        (_tensor_field("byte_strides", [-4]), "reaches outside its storage"),
        (_tensor_field("shape", [True, 3]), "invalid shape"),
        (_tensor_field("storage", 3), "no storage 3"),
        (_tensor_field("requires_grad", "yes"), "invalid flags"),
        (lambda m: {**m, "object": {"kind": "tensor", "index": 5}}, "malformed value"),
        (lambda m: {**m, "object": {"kind": "dict", "items": [[[1], 2]]}}, "malformed value"),
        (lambda m: {**m, "object": {"kind": "float", "value": "1e400"}}, "malformed value"),
    ],
)
def test_malformed_manifests(edit, problem):
    crafted = _with_manifest(saved_bytes(ndgrad.ones(3)), edit)
    with pytest.raises(RuntimeError, match=f"ndgrad.load: invalid file: .*{problem}"):
        load_bytes(crafted)


def test_integer_tensors_cannot_require_grad_in_a_file():
    crafted = _with_manifest(saved_bytes(ndgrad.ones(3, dtype=ndgrad.int32)), _tensor_field("requires_grad", True))
    with pytest.raises(RuntimeError, match="an integer tensor cannot require grad"):
        load_bytes(crafted)


def test_training_resumes_from_a_checkpoint():
    """A model's and an optimizer's state dicts, saved and loaded into fresh objects, continue the same run."""
    nn, optim = ndgrad.nn, getattr(ndgrad, "optim", None)
    if not hasattr(nn, "Linear") or not hasattr(optim, "Adam"):
        pytest.skip("nn.Linear or optim.Adam not available yet")
    inputs, targets = ndgrad.linspace(-1, 1, 12).reshape(4, 3), ndgrad.ones(4, 2)

    def step(model, optimizer):
        optimizer.zero_grad()
        ((model(inputs) - targets) ** 2).mean().backward()
        optimizer.step()

    model = nn.Linear(3, 2)
    optimizer = optim.Adam(model.parameters(), lr=0.1)
    step(model, optimizer)
    checkpoint = round_trip({"model": model.state_dict(), "optimizer": optimizer.state_dict()})
    resumed = nn.Linear(3, 2)
    resumed.load_state_dict(checkpoint["model"])
    resumed_optimizer = optim.Adam(resumed.parameters(), lr=0.5)
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])  # lr 0.1 again, and Adam's moments
    for _ in range(3):
        step(model, optimizer)
        step(resumed, resumed_optimizer)
    assert resumed.weight.tolist() == model.weight.tolist() and resumed.bias.tolist() == model.bias.tolist()
