"""ndgrad.save / ndgrad.load in torch's file formats: what a round trip gives back is what torch.save / torch.load
give back (values, dtypes, flags, shared memory, containers, map_location, errors at the call), and files cross
between the two libraries both ways, in the zip and the legacy format. test_serialization_invalid.py has the files
load refuses."""

import collections
import io
import os
import pickle
from collections import OrderedDict

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close
from tests.nn.layer_cases import ACTIVATIONS, LAYERS, LOSSES, sample_inputs
from tests.nn.test_layers import as_tensors, build, skip_if_missing

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
    "overlapping_views": """
x = torch.arange(6.)
buffer = io.BytesIO()
torch.save([x, x.unfold(0, 3, 1), torch.ones(1).expand(10**12)], buffer)
buffer.seek(0)
a, windows, expanded = torch.load(buffer)
a[2] = -1.
print(windows, windows.stride(), expanded.shape, expanded.stride())
""",
    "views_as_two_dtypes": """
z = torch.tensor([1 + 2j, 3 - 4j])
torch.save([z, z.real], io.BytesIO())
""",
    "cycles_and_pickled_python": """
cycle = [1]
cycle.append(cycle)
buffer = io.BytesIO()
torch.save({'cycle': cycle, 'set': {1, 2}, 'bytes': b'ab', 'bytearray': bytearray(b'c'), 'complex': 1 - 2j,
            'counter': collections.Counter('aab')}, buffer)
buffer.seek(0)
d = torch.load(buffer)
print(d['cycle'][1] is d['cycle'], d['set'], d['bytes'], d['bytearray'], d['complex'], d['counter'])
""",
    "numpy_arrays_need_an_allowlist": """
buffer = io.BytesIO()
torch.save(np.arange(4.0), buffer)
buffer.seek(0)
print(sorted(torch.serialization.get_unsafe_globals_in_checkpoint(buffer)))
buffer.seek(0)
with torch.serialization.safe_globals([np._core.multiarray._reconstruct, np.ndarray, np.dtype,
                                       type(np.dtype(np.float64))]):
    print(torch.load(buffer))
""",
    "save_needs_a_file": "torch.save(torch.ones(2), 123)",
    "load_needs_a_file": "torch.load(123)",
    "load_missing_path": "torch.load(path + '.missing')",
}


@pytest.mark.parametrize("name", ROUND_TRIPS)
def test_round_trip_like_torch(same, name, tmp_path):
    namespace = {"io": io, "np": np, "collections": collections, "OrderedDict": OrderedDict,
                 "pathlib": __import__("pathlib"), "path": str(tmp_path / "f")}
    same(ROUND_TRIPS[name], namespace)


# ---- files crossing between the libraries --------------------------------------------------------------------
FORMATS = {"zip": {}, "legacy": {"_use_new_zipfile_serialization": False}}


def saved(lib, obj, file_format="zip"):
    buffer = io.BytesIO()
    lib.save(obj, buffer, **FORMATS[file_format])
    buffer.seek(0)
    return buffer


def crossed(obj, to, file_format="zip", **load_args):
    """``obj`` saved by its own library and loaded by the library ``to``."""
    source = ndgrad if to is torch else torch
    return to.load(saved(source, obj, file_format), **load_args)


def round_trip(obj, **load_args):
    return ndgrad.load(saved(ndgrad, obj), **load_args)


def layout_of(tensor):
    """What a loaded tensor is, beyond its values: dtype, shape, strides, offset, flags. An empty tensor's strides
    and offset place no element; ndgrad's own empty tensors have strides 0, so those are not compared."""
    placed = (tensor.stride(), tensor.storage_offset()) if tensor.numel() else None
    return str(tensor.dtype).split(".")[1], tuple(tensor.shape), placed, tensor.requires_grad, tensor.is_leaf


def bits(tensor):
    """A tensor's elements as raw bits (nan payloads, -0.0 and bfloat16 included)."""
    if not tensor.numel():
        return b""
    uint8 = torch.uint8 if isinstance(tensor, torch.Tensor) else ndgrad.uint8
    return tensor.detach().contiguous().reshape(-1).view(uint8).numpy().tobytes()


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from(ALL_DTYPES),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
    requires_grad=st.booleans(),
    file_format=st.sampled_from(sorted(FORMATS)),
    data=st.data(),
)
def test_every_dtype_and_shape_crosses_both_ways(dtype, shape, requires_grad, file_format, data):
    stored = np.int16 if dtype is ndgrad.bfloat16 else dtype.numpy  # NumPy has no bfloat16: its bits, as int16
    array = data.draw(hnp.arrays(stored, shape))  # any bit pattern: nan, inf, -0.0, ...
    ours, theirs = ndgrad.from_numpy(array.copy()), torch.from_numpy(array.copy())
    if dtype is ndgrad.bfloat16:
        ours, theirs = ours.view(ndgrad.bfloat16), theirs.view(torch.bfloat16)
    grad = requires_grad and dtype._category >= 2
    ours.requires_grad_(grad)
    theirs.requires_grad_(grad)
    in_torch, in_ndgrad = crossed(ours, torch, file_format), crossed(theirs, ndgrad, file_format)
    for loaded in (in_torch, in_ndgrad):
        assert layout_of(loaded) == layout_of(theirs) and bits(loaded) == bits(theirs)


def views(lib):
    """Tensors that share memory in every way a file meets: views at offsets, transposed, strided, overlapping,
    expanded, empty, detached aliases, a Parameter's data; built alike in both libraries."""
    x = lib.arange(12.0).reshape(3, 4)
    parameter = lib.nn.Parameter(lib.ones(2, 3))
    return [x, x.t(), x[1], x[:, ::2], x.unfold(1, 2, 1), lib.ones(1).expand(3, 2), lib.zeros(0, 2), x[:, 4:],
            x.view(-1)[2:9:3], x.detach(), parameter, parameter.detach()[1], lib.tensor(True),
            lib.tensor(3, dtype=lib.int8)]


def sharing(tensors):
    """Which tensors share a storage, as the index of the first one with it."""
    pointers = [tensor.untyped_storage().data_ptr() if tensor.numel() else -index for index, tensor in
                enumerate(tensors)]
    return [pointers.index(pointer) for pointer in pointers]


@pytest.mark.parametrize("file_format", sorted(FORMATS))
@pytest.mark.parametrize("to", [torch, ndgrad], ids=["to_torch", "to_ndgrad"])
def test_views_and_shared_storages_cross(to, file_format):
    expected = torch.load(saved(torch, views(torch), file_format))
    loaded = crossed(views(ndgrad if to is torch else torch), to, file_format)
    assert [layout_of(t) for t in loaded] == [layout_of(t) for t in expected]
    assert [type(t).__name__ for t in loaded] == [type(t).__name__ for t in expected]
    assert sharing(loaded) == sharing(expected) and [bits(t) for t in loaded] == [bits(t) for t in expected]
    with to.no_grad():
        loaded[0][0, 1] = -7.0  # the views see the write, as they do in torch
    assert loaded[1][1, 0].item() == -7.0 and loaded[4][0, 0, 1].item() == -7.0 and loaded[9][0, 1].item() == -7.0


def test_a_view_at_a_byte_offset_of_its_memory():
    """A float32 view one byte into a NumPy buffer: saved as its own storage, since a file counts in elements."""
    array = np.arange(9, dtype=np.uint8)[1:].view(np.float32)
    assert np.array_equal(round_trip(ndgrad.from_numpy(array)).numpy(), array, equal_nan=True)
    assert bits(crossed(ndgrad.from_numpy(array), torch)) == array.tobytes()


def test_a_reloaded_file_saves_as_the_same_storages():
    """A tensor loaded from a file views that file's bytes, of another dtype than its own: saving it again
    writes the storage with the tensor's dtype and element count."""
    x = ndgrad.arange(12.0).reshape(3, 4)
    again = round_trip(round_trip([x, x[1:]]))
    assert sharing(again) == [0, 0] and again[1].storage_offset() == 4 and again[0].tolist() == x.tolist()
    in_torch = torch.load(saved(ndgrad, round_trip(x)))
    assert in_torch.untyped_storage().nbytes() == 48 and in_torch.tolist() == x.tolist()


def test_what_pickle_cannot_store_is_refused_as_torch_refuses_it():
    for lib in (torch, ndgrad):
        with pytest.raises(TypeError, match="^cannot pickle 'generator' object$"):
            lib.save([(i for i in range(2))], io.BytesIO())


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
    assert crossed(state, torch)._metadata == state._metadata
    assert saved(ndgrad, state).getvalue() == saved(ndgrad, state).getvalue()


def test_parameters_and_tensor_attributes_cross():
    weight = ndgrad.nn.Parameter(ndgrad.ones(2, 2))
    frozen = ndgrad.nn.Parameter(ndgrad.zeros(3), requires_grad=False)
    tagged = ndgrad.ones(2)
    tagged.note = "kept"
    tensors = [weight, frozen, tagged]
    for loaded, lib in ((round_trip(tensors), ndgrad), (crossed(tensors, torch), torch)):
        assert type(loaded[0]) is lib.nn.Parameter and loaded[0].requires_grad
        assert type(loaded[1]) is lib.nn.Parameter and not loaded[1].requires_grad
        assert type(loaded[2]) is lib.Tensor and loaded[2].note == "kept"
    back = crossed(crossed([weight, tagged], torch), ndgrad)
    assert type(back[0]) is ndgrad.nn.Parameter and back[1].note == "kept"


def test_sparse_tensors_cross():
    dense = [[0.0, 2.0], [3.0, 0.0]]
    for lib, to in ((ndgrad, torch), (torch, ndgrad)):
        loaded = crossed(lib.tensor(dense).to_sparse(), to)
        assert loaded.is_sparse and loaded.to_dense().tolist() == dense and loaded.is_coalesced()


# ---- real checkpoints: layers, optimisers, whole models --------------------------------------------------------
STATEFUL = [case for case in ACTIVATIONS + LAYERS + LOSSES if build(torch, case, "float64").state_dict()]


@pytest.mark.parametrize("to", [torch, ndgrad], ids=["to_torch", "to_ndgrad"])
@pytest.mark.parametrize("case", STATEFUL, ids=lambda case: case.id)
def test_every_layers_state_dict_crosses(case, to):
    """A layer's state dict saved by one library loads into the same layer of the other, which then computes
    what the first one computes."""
    skip_if_missing(case)
    source = ndgrad if to is torch else torch
    source.manual_seed(0)
    original, target = build(source, case, "float64"), build(to, case, "float64")
    checkpoint = crossed(original.state_dict(), to)
    assert repr(target.load_state_dict(checkpoint)) == "<All keys matched successfully>"
    for module in (original, target):
        module.train(case.train)
    samples = sample_inputs(case)
    expected = original(*as_tensors(source, samples, "float64"))
    assert_close(target(*as_tensors(to, samples, "float64")), expected, msg="forward after loading")


OPTIMIZERS = [("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}), ("Adam", {"lr": 0.01, "amsgrad": True}),
              ("AdamW", {"lr": 0.01}), ("RMSprop", {"lr": 0.01, "momentum": 0.5}), ("Adagrad", {"lr": 0.1})]


def train(lib, model, optimizer, steps):
    inputs = lib.tensor(np.linspace(-1, 1, 24).reshape(8, 3))
    targets = lib.tensor(np.cos(np.arange(16.0)).reshape(8, 2))
    for _ in range(steps):
        optimizer.zero_grad()
        lib.nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
    return model(inputs)


def network(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.BatchNorm1d(5), lib.nn.Linear(5, 2)).double()


@pytest.mark.parametrize("to", [torch, ndgrad], ids=["to_torch", "to_ndgrad"])
@pytest.mark.parametrize("name, options", OPTIMIZERS, ids=[name for name, _ in OPTIMIZERS])
def test_a_checkpoint_resumes_training_in_the_other_library(name, options, to):
    """A model and optimiser trained for a few steps in one library, saved, loaded into the other's, and trained
    on there follow the run that continued where it started."""
    source = ndgrad if to is torch else torch
    source.manual_seed(0)
    model = network(source)
    optimizer = getattr(source.optim, name)(model.parameters(), **options)
    train(source, model, optimizer, 3)
    checkpoint = crossed({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3}, to)
    resumed = network(to)
    resumed.load_state_dict(checkpoint["model"])
    resumed_optimizer = getattr(to.optim, name)(resumed.parameters(), lr=1.0)
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])
    assert checkpoint["epoch"] == 3
    assert_close(train(to, resumed, resumed_optimizer, 4), train(source, model, optimizer, 4), msg="resumed run")


def test_whole_models_load_once_their_classes_are_allowed():
    """torch.save(model) pickles the model's classes by name: loading names them, so both libraries refuse the
    file until the classes are allow-listed, and then build the model."""
    torch.manual_seed(0)
    theirs = network(torch).eval()
    inputs = np.linspace(-1, 1, 6).reshape(2, 3)
    classes = [ndgrad.nn.Sequential, ndgrad.nn.Linear, ndgrad.nn.Tanh, ndgrad.nn.BatchNorm1d]
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.container.Sequential was not an allowed"):
        ndgrad.load(saved(torch, theirs))
    with ndgrad.serialization.safe_globals(classes):
        ours = ndgrad.load(saved(torch, theirs))
        again = ndgrad.load(saved(ndgrad, ours))
    for model in (ours, again):
        assert type(model) is ndgrad.nn.Sequential and not model.training
        assert_close(model(ndgrad.tensor(inputs)), theirs(torch.tensor(inputs)), msg="whole model")
    assert ndgrad.serialization.get_unsafe_globals_in_checkpoint(saved(torch, theirs)) == sorted(
        torch.serialization.get_unsafe_globals_in_checkpoint(saved(torch, theirs)))


# ---- files on disk: mmap, paths ------------------------------------------------------------------------------
@pytest.mark.parametrize("writer", [torch, ndgrad], ids=["torch_file", "ndgrad_file"])
def test_mmap_maps_storages_copy_on_write(writer, tmp_path):
    path = tmp_path / "weights.pt"
    writer.manual_seed(0)
    state = writer.nn.Linear(40, 30).state_dict()
    writer.save(state, path)
    mapped = ndgrad.load(path, mmap=True)
    assert [bits(t) for t in mapped.values()] == [bits(t) for t in state.values()]
    mapped["weight"].fill_(5.0)  # the mapping is private: the file keeps its bytes
    assert bits(ndgrad.load(path)["weight"]) == bits(state["weight"])
    in_torch = torch.load(path, mmap=True)  # ndgrad aligns storages as torch does, so torch maps its files too
    assert [bits(t) for t in in_torch.values()] == [bits(t) for t in state.values()]


def test_storages_are_aligned_in_the_archive(tmp_path):
    """Each storage record's bytes start at a multiple of 64 into the file, as torch's .storage_alignment says."""
    import struct
    import zipfile

    path = tmp_path / "aligned.pt"
    ndgrad.save([ndgrad.ones(n) for n in (1, 3, 7, 100)], path)
    with zipfile.ZipFile(path) as archive, open(path, "rb") as raw:
        for entry in archive.infolist():
            raw.seek(entry.header_offset)
            name_length, extra_length = struct.unpack("<HH", raw.read(30)[26:30])
            assert (entry.header_offset + 30 + name_length + extra_length) % 64 == 0, entry.filename
        assert sorted(archive.namelist()) == sorted(
            f"aligned/{name}" for name in ["data.pkl", ".format_version", ".storage_alignment", "byteorder",
                                           "version", "data/0", "data/1", "data/2", "data/3"])


def test_trusted_pickles_load_only_with_the_environment_variable(monkeypatch):
    buffer = saved(torch, {"model": torch.nn.Linear(2, 1)})
    with pytest.raises(pickle.UnpicklingError, match="NDGRAD_TRUST_PICKLES=1"):
        ndgrad.load(buffer, weights_only=False)
    monkeypatch.setitem(os.environ, "NDGRAD_TRUST_PICKLES", "1")
    buffer.seek(0)
    model = ndgrad.load(buffer, weights_only=False)["model"]
    assert type(model) is ndgrad.nn.Linear and model.weight.shape == (1, 2)


@pytest.mark.parametrize("name", ndgrad.nn.functional.__all__)
def test_functional_functions_pickle_by_name(name):
    """A module that keeps a function (a Transformer layer's activation) is saved whole with it: pickle stores
    the function as a name and must find the same object under that name again."""
    function = getattr(ndgrad.nn.functional, name)
    assert pickle.loads(pickle.dumps(function)) is function


def test_a_whole_transformer_layer_loads_once_its_classes_are_allowed():
    ndgrad.manual_seed(0)
    layer = ndgrad.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16).eval()
    inputs = ndgrad.randn(3, 2, 8)
    trusted = [ndgrad.nn.functional.relu, ndgrad.nn.TransformerEncoderLayer, ndgrad.nn.MultiheadAttention,
               ndgrad.nn.Dropout, ndgrad.nn.Linear, ndgrad.nn.LayerNorm,
               ndgrad.nn.modules.attention.NonDynamicallyQuantizableLinear]
    with ndgrad.serialization.safe_globals(trusted):
        loaded = ndgrad.load(saved(ndgrad, layer))
    assert loaded.activation is ndgrad.nn.functional.relu
    assert_close(loaded(inputs), layer(inputs), msg="whole layer")
