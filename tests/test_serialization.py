"""ndgrad.save / ndgrad.load: what a round trip gives back is what torch.save / torch.load give back (values,
dtypes, flags, shared memory, containers, map_location, errors at the call). test_serialization_invalid.py has
the files load refuses."""

import io
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
    "overlapping_views": """
x = torch.arange(6.)
buffer = io.BytesIO()
torch.save([x, x.unfold(0, 3, 1), torch.ones(1).expand(10**12)], buffer)
buffer.seek(0)
a, windows, expanded = torch.load(buffer)
a[2] = -1.
print(windows, windows.stride(), expanded.shape, expanded.stride())
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
    bits = dtype is ndgrad.bfloat16  # no NumPy array of it to draw from or compare: its bits, as int16
    array = data.draw(hnp.arrays(np.int16 if bits else dtype.numpy, shape))  # any bit pattern: nan, inf, -0.0, ...
    tensor, reference = ndgrad.from_numpy(array), torch.from_numpy(array)
    if bits:
        tensor, reference = tensor.view(ndgrad.bfloat16), reference.view(torch.bfloat16)
    tensor.requires_grad_(requires_grad and dtype._category >= 2)
    loaded = round_trip(tensor)
    reference = torch.load(_torch_round_trip(reference))
    assert loaded.dtype is dtype and loaded.shape == tensor.shape and loaded.stride() == reference.stride()
    assert loaded.requires_grad == tensor.requires_grad and loaded.is_leaf
    if bits:
        loaded, reference = loaded.detach().view(ndgrad.int16), reference.view(torch.int16)
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


def test_a_view_at_a_byte_offset_of_its_memory():
    """A float32 view one byte into a NumPy buffer: saved as its own storage, since a file counts in elements."""
    array = np.arange(9, dtype=np.uint8)[1:].view(np.float32)
    assert np.array_equal(round_trip(ndgrad.from_numpy(array)).numpy(), array, equal_nan=True)


def test_real_and_imaginary_parts_share_the_complex_storage():
    """ndgrad saves a complex tensor with its real and imaginary views (torch.save refuses views of one memory as
    different dtypes): they load as views at whole-element offsets of one storage."""
    z = ndgrad.tensor([1 + 2j, 3 - 4j])
    c, real, imag = round_trip([z, z.real, z.imag])
    real[1] = 9.0
    assert c.tolist() == [1 + 2j, 9 - 4j] and imag.tolist() == [2.0, -4.0] and imag.stride() == (2,)


def _tensor_pool():
    """Tensors of every layout save meets: views at offsets, transposed, strided, overlapping, expanded, empty."""
    x, z = ndgrad.arange(12.0).reshape(3, 4), ndgrad.tensor([1 + 2j, 3 - 4j])
    return [x, x.t(), x[1], x[:, ::2], x.unfold(1, 2, 1), ndgrad.ones(1).expand(3, 2), ndgrad.zeros(0, 2),
            x[:, 4:], ndgrad.tensor(True), z, z.imag, ndgrad.tensor(3, dtype=ndgrad.int8),
            ndgrad.ones(2).requires_grad_(), ndgrad.nn.Parameter(ndgrad.zeros(2))]


_TENSORS = st.sampled_from(_tensor_pool())
_HASHABLE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4) | st.complex_numbers()
    | st.sampled_from([ndgrad.float16, ndgrad.device("cpu"), ndgrad.device("cuda:1"), ndgrad.Size([2, 0])]) | _TENSORS,
    lambda keys: st.tuples(keys, keys), max_leaves=4,
)
_VALUES = st.recursive(
    _HASHABLE,
    lambda values: st.lists(values, max_size=3) | st.tuples(values, values)
    | st.dictionaries(_HASHABLE, values, max_size=3) | st.dictionaries(_HASHABLE, values, max_size=3).map(OrderedDict),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(obj=_VALUES)
def test_load_reads_whatever_save_writes(obj):
    """Any object save takes loads back as an object whose file is the same, byte for byte."""
    first = io.BytesIO()
    ndgrad.save(obj, first)
    first.seek(0)
    second = io.BytesIO()
    ndgrad.save(ndgrad.load(first), second)
    assert second.getvalue() == first.getvalue()


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
