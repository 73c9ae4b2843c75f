"""RNN, LSTM, GRU and their cells against torch.nn: torch's weights are loaded into ours, then outputs, final states
and the gradients of inputs, initial states and every parameter must match; state_dict keys, repr and errors too.
The other sequence-layer tests import the oracle helpers defined here."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad


# ---- the oracle helpers ----------------------------------------------------------------------------------------
def load_torch_weights(ours, theirs):
    """Copy torch's parameters into ours; both must name them alike, in the same order."""
    state = theirs.state_dict()
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict({name: ndgrad.tensor(value.numpy()) for name, value in state.items()})


def leaf_pair(array, dtype_name, requires_grad=True):
    """The same values as a torch leaf and an ndgrad leaf."""
    theirs = torch.tensor(array, dtype=getattr(torch, dtype_name), requires_grad=requires_grad)
    return ndgrad.tensor(array, dtype=getattr(ndgrad, dtype_name), requires_grad=requires_grad), theirs


def flatten(value):
    """The tensors in a module's result, in order (tuples and PackedSequence data unpacked)."""
    if isinstance(value, (ndgrad.nn.utils.rnn.PackedSequence, torch.nn.utils.rnn.PackedSequence)):
        return [value.data]
    if isinstance(value, (tuple, list)):
        return [tensor for item in value for tensor in flatten(item)]
    return [] if value is None else [value]


def assert_matches_torch(ours, theirs, our_inputs, their_inputs, dtype_name, seed=1):
    """Run both modules, compare their results, backpropagate one random cotangent through every result, and
    compare the gradients of the inputs that require grad and of every parameter."""
    results_n, results_t = flatten(ours(*our_inputs)), flatten(theirs(*their_inputs))
    assert len(results_n) == len(results_t)
    for index, (result_n, result_t) in enumerate(zip(results_n, results_t)):
        assert_close(result_n, result_t, msg=f"result {index}")
    differentiable = [index for index, result in enumerate(results_t) if result.requires_grad]
    rng = np.random.default_rng(seed)
    cotangents = [rng.standard_normal(tuple(results_t[index].shape)) for index in differentiable]
    torch.autograd.backward(
        [results_t[index] for index in differentiable],
        [torch.tensor(c, dtype=getattr(torch, dtype_name)) for c in cotangents],
    )
    ndgrad.autograd.backward(
        [results_n[index] for index in differentiable],
        [ndgrad.tensor(c, dtype=getattr(ndgrad, dtype_name)) for c in cotangents],
    )
    for index, (input_n, input_t) in enumerate(zip(flatten(our_inputs), flatten(their_inputs))):
        if isinstance(input_t, torch.Tensor) and input_t.requires_grad and input_t.is_leaf:
            assert_close(input_n.grad, input_t.grad, msg=f"grad of input {index}")
    params_t = dict(theirs.named_parameters())
    for name, param in ours.named_parameters():
        assert_close(param.grad, params_t[name].grad, msg=f"grad of {name}")


def build_pair(constructor, dtype_name, training=True):
    """``constructor`` evaluated with torch.nn and ndgrad.nn, converted to the dtype, torch's weights loaded."""
    theirs = eval(constructor, {"nn": torch.nn, "F": torch.nn.functional, "torch": torch})
    ours = eval(constructor, {"nn": ndgrad.nn, "F": ndgrad.nn.functional, "torch": ndgrad})
    if dtype_name == "float64":
        theirs, ours = theirs.double(), ours.double()
    load_torch_weights(ours, theirs)
    return ours.train(training), theirs.train(training)


# ---- recurrent layers ------------------------------------------------------------------------------------------
LAYERS = {  # name: (class, extra arguments)
    "RNN": ("RNN", ""),
    "RNN_relu": ("RNN", ", nonlinearity='relu'"),
    "LSTM": ("LSTM", ""),
    "LSTM_proj": ("LSTM", ", proj_size=1"),
    "GRU": ("GRU", ""),
}


def initial_state(kind, layers, directions, batch, hidden, proj, rng, dtype_name):
    """(ours, theirs): h0, or (h0, c0) for an LSTM; ``batch`` None for unbatched input."""
    def shape(size):
        return (layers * directions, size) if batch is None else (layers * directions, batch, size)

    h0 = leaf_pair(rng.standard_normal(shape(proj or hidden)), dtype_name)
    if kind != "LSTM":
        return h0
    c0 = leaf_pair(rng.standard_normal(shape(hidden)), dtype_name)
    return (h0[0], c0[0]), (h0[1], c0[1])


def layer_case(name, layers, batch_first, bidirectional, with_state, unbatched, bias, sizes, dtype_name):
    steps, batch, input_size, hidden = sizes
    kind, extra = LAYERS[name]
    ours, theirs = build_pair(
        f"nn.{kind}({input_size}, {hidden}, num_layers={layers}, bias={bias}, batch_first={batch_first}, "
        f"bidirectional={bidirectional}{extra})",
        dtype_name,
    )
    rng = np.random.default_rng(0)
    layout = () if unbatched else (batch, steps) if batch_first else (steps, batch)
    shape = (steps, input_size) if unbatched else (*layout, input_size)
    our_x, their_x = leaf_pair(rng.standard_normal(shape), dtype_name)
    our_inputs, their_inputs = [our_x], [their_x]
    if with_state:
        proj = 1 if name == "LSTM_proj" else 0
        states = initial_state(kind, layers, 1 + bidirectional, None if unbatched else batch, hidden, proj, rng,
                               dtype_name)
        our_inputs.append(states[0])
        their_inputs.append(states[1])
    assert_matches_torch(ours, theirs, our_inputs, their_inputs, dtype_name)


SIZES = st.tuples(st.integers(1, 4), st.integers(1, 3), st.integers(1, 4), st.integers(2, 5))


@pytest.mark.parametrize("unbatched", [False, True], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "initial_state"])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["one_way", "bidirectional"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_first", "batch_first"])
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("name", list(LAYERS))
@settings(max_examples=2, deadline=None)
@given(sizes=SIZES, bias=st.booleans())
def test_layer_matches_torch_float64(name, layers, batch_first, bidirectional, with_state, unbatched, bias, sizes):
    layer_case(name, layers, batch_first, bidirectional, with_state, unbatched, bias, sizes, "float64")


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch_float32(name):
    layer_case(name, 2, True, True, True, False, True, (5, 3, 4, 6), "float32")


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_dropout_between_layers(name):
    """p = 1 zeroes the inner layers' outputs in training (deterministic), and eval mode ignores dropout."""
    rng = np.random.default_rng(0)
    for training, p in ((True, 1.0), (False, 0.5)):
        ours, theirs = build_pair(f"nn.{name}(3, 4, num_layers=3, dropout={p})", "float64", training)
        our_x, their_x = leaf_pair(rng.standard_normal((4, 2, 3)), "float64")
        assert_matches_torch(ours, theirs, [our_x], [their_x], "float64")


@pytest.mark.parametrize("initial", [False, True], ids=["zero_state", "initial_state"])
@pytest.mark.parametrize("enforce_sorted", [True, False], ids=["sorted", "unsorted"])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["one_way", "bidirectional"])
@pytest.mark.parametrize("name", list(LAYERS))
def test_packed_sequence_input(name, bidirectional, enforce_sorted, initial):
    kind, extra = LAYERS[name]
    ours, theirs = build_pair(f"nn.{kind}(3, 4, num_layers=2, bidirectional={bidirectional}{extra})", "float64")
    rng = np.random.default_rng(0)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    our_x, their_x = leaf_pair(rng.standard_normal((5, 4, 3)), "float64")
    our_inputs = [ndgrad.nn.utils.rnn.pack_padded_sequence(our_x, lengths, enforce_sorted=enforce_sorted)]
    their_inputs = [torch.nn.utils.rnn.pack_padded_sequence(their_x, lengths, enforce_sorted=enforce_sorted)]
    if initial:
        proj = 1 if name == "LSTM_proj" else 0
        states = initial_state(kind, 2, 1 + bidirectional, 4, 4, proj, rng, "float64")
        our_inputs.append(states[0])
        their_inputs.append(states[1])
    packed_n, packed_t = ours(*our_inputs)[0], theirs(*their_inputs)[0]
    assert packed_n.batch_sizes.tolist() == packed_t.batch_sizes.tolist()
    padded_n, lengths_n = ndgrad.nn.utils.rnn.pad_packed_sequence(packed_n, batch_first=True)
    padded_t, lengths_t = torch.nn.utils.rnn.pad_packed_sequence(packed_t, batch_first=True)
    assert_close(padded_n, padded_t, msg="padded output")
    assert lengths_n.tolist() == lengths_t.tolist()
    assert_matches_torch(ours, theirs, our_inputs, their_inputs, "float64")


def test_node_names_match_torch():
    """The results' grad_fn: stack over time, cat of two directions, transpose for batch_first, squeeze unbatched."""
    constructors = ["nn.RNN(3, 4)", "nn.GRU(3, 4, bidirectional=True)", "nn.LSTM(3, 4, batch_first=True)"]
    for constructor in constructors:
        ours, theirs = build_pair(constructor, "float32")
        for shape in ((5, 2, 3), (5, 3)):
            x_n, x_t = leaf_pair(np.ones(shape), "float32", requires_grad=False)
            names_n = [type(r.grad_fn).__name__ for r in flatten(ours(x_n))]
            assert names_n == [type(r.grad_fn).__name__ for r in flatten(theirs(x_t))]


# ---- cells -----------------------------------------------------------------------------------------------------
CELLS = {"RNNCell": "nn.RNNCell(3, 4{})", "RNNCell_relu": "nn.RNNCell(3, 4, nonlinearity='relu'{})",
         "LSTMCell": "nn.LSTMCell(3, 4{})", "GRUCell": "nn.GRUCell(3, 4{})"}


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "initial_state"])
@pytest.mark.parametrize("unbatched", [False, True], ids=["batched", "unbatched"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("name", list(CELLS))
def test_cell_matches_torch(name, bias, unbatched, with_state, dtype_name):
    ours, theirs = build_pair(CELLS[name].format("" if bias else ", bias=False"), dtype_name)
    rng = np.random.default_rng(0)
    batch = () if unbatched else (2,)
    our_x, their_x = leaf_pair(rng.standard_normal((*batch, 3)), dtype_name)
    our_inputs, their_inputs = [our_x], [their_x]
    if with_state:
        h0 = leaf_pair(rng.standard_normal((*batch, 4)), dtype_name)
        state = h0
        if name == "LSTMCell":
            c0 = leaf_pair(rng.standard_normal((*batch, 4)), dtype_name)
            state = (h0[0], c0[0]), (h0[1], c0[1])
        our_inputs.append(state[0])
        their_inputs.append(state[1])
    results_n, results_t = flatten(ours(*our_inputs)), flatten(theirs(*their_inputs))
    assert [type(r.grad_fn).__name__ for r in results_n] == [type(r.grad_fn).__name__ for r in results_t]
    assert_matches_torch(ours, theirs, our_inputs, their_inputs, dtype_name)


# ---- parameters, printing, initialisation -------------------------------------------------------------------
CONSTRUCTORS = [
    "nn.RNN(3, 4)", "nn.RNN(3, 4, 2, 'relu', False, True, 0.5, True)", "nn.RNN(3, 4, nonlinearity='relu')",
    "nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)", "nn.LSTM(3, 4, bias=False, batch_first=True)",
    "nn.GRU(3, 4, 3, dropout=0.25)", "nn.GRU(5, 2, bidirectional=True)", "nn.RNNCell(3, 4)",
    "nn.RNNCell(3, 4, bias=False, nonlinearity='relu')", "nn.LSTMCell(3, 4)", "nn.GRUCell(3, 4, bias=False)",
]


@pytest.mark.parametrize("constructor", CONSTRUCTORS)
def test_parameters_and_repr_match_torch(constructor):
    ours, theirs = build_pair(constructor, "float32")
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    if hasattr(theirs, "all_weights"):
        assert ours._all_weights == theirs._all_weights
        assert [[tuple(w.shape) for w in group] for group in ours.all_weights] == [
            [tuple(w.shape) for w in group] for group in theirs.all_weights
        ]
        assert ours.flatten_parameters() is None


@pytest.mark.parametrize("constructor", ["nn.LSTM(10, 16, num_layers=2)", "nn.GRUCell(8, 25)"])
def test_default_init_is_uniform_within_one_over_sqrt_hidden(constructor):
    """Every parameter ~ U(-1/sqrt(hidden), 1/sqrt(hidden)): torch's and ours lie inside, with the same spread."""
    theirs = eval(constructor, {"nn": torch.nn})
    ours = eval(constructor, {"nn": ndgrad.nn})
    bound = 1 / np.sqrt(ours.hidden_size)
    values_t = np.concatenate([p.detach().numpy().ravel() for p in theirs.parameters()])
    values_n = np.concatenate([p.detach().numpy().ravel() for p in ours.parameters()])
    assert np.abs(values_t).max() <= bound and np.abs(values_n).max() <= bound
    assert abs(values_n.std() - values_t.std()) < 0.1 * values_t.std()


# ---- errors and warnings -------------------------------------------------------------------------------------
ERRORS = [
    "torch.nn.RNN(3, 4, dropout=1.5)",
    "torch.nn.RNN(3, 4, dropout=True)",
    "torch.nn.RNN(3, 4.0)",
    "torch.nn.RNN(3.5, 4)",
    "torch.nn.RNN(0, 4)",
    "torch.nn.RNN(3, 0)",
    "torch.nn.RNN(3, 4, num_layers=0)",
    "torch.nn.RNN(3, 4, num_layers=1.0)",
    "torch.nn.RNN(3, 4, bias=1)",
    "torch.nn.RNN(3, 4, batch_first=1)",
    "torch.nn.RNN(3, 4, nonlinearity='sigmoid')",
    "torch.nn.RNN(3, 4, proj_size=2)",
    "torch.nn.GRU(3, 4, proj_size=0)",
    "torch.nn.LSTM(3, 4, proj_size=-1)",
    "torch.nn.LSTM(3, 4, proj_size=4)",
    "torch.nn.RNN(3, 4)(torch.randn(2, 3, 4, 5))",
    "torch.nn.GRU(3, 4)(torch.randn(5))",
    "torch.nn.LSTM(3, 4)(torch.randn(5))",
    "torch.nn.RNN(3, 4)(torch.randn(5, 2, 7))",
    "torch.nn.RNN(3, 4, 2)(torch.randn(5, 2, 3), torch.randn(1, 2, 4))",
    "torch.nn.GRU(3, 4)(torch.randn(5, 2, 3), torch.randn(2, 4))",
    "torch.nn.RNN(3, 4)(torch.randn(5, 3), torch.randn(1, 1, 4))",
    "torch.nn.RNN(3, 4, 2)(torch.randn(5, 3), torch.randn(2, 5))",
    "torch.nn.RNN(3, 4)(torch.randn(5, 2, 3).double())",
    "torch.nn.RNN(3, 4)(torch.randn(5, 2, 3).long())",
    "torch.nn.RNN(3, 4)(torch.randn(5, 2, 3), torch.randn(1, 2, 4).double())",
    "torch.nn.GRU(3, 4, bias=False)(torch.randn(5, 2, 3), torch.randn(1, 2, 4).double())",
    "torch.nn.RNN(3, 4)(torch.randn(0, 2, 3))",
    "torch.nn.LSTM(3, 4)(torch.randn(5, 2, 3), (torch.randn(1, 2, 4),))",
    "torch.nn.LSTM(3, 4)(torch.randn(5, 2, 3), (torch.randn(1, 2, 4), torch.randn(1, 2, 5)))",
    "torch.nn.LSTM(3, 4, proj_size=2)(torch.randn(5, 2, 3), (torch.randn(1, 2, 4), torch.randn(1, 2, 4)))",
    "torch.nn.LSTM(3, 4)(torch.randn(5, 3), (torch.randn(1, 2, 4), torch.randn(1, 2, 4)))",
    "torch.nn.LSTM(3, 4)(torch.randn(5, 2, 3), (torch.randn(2, 4), torch.randn(2, 4)))",
    "torch.nn.RNN(3, 4)(torch.randn(5, 2, 3), (torch.randn(1, 2, 4),))",
    "torch.nn.RNNCell(3, 4)(torch.randn(2, 2, 3))",
    "torch.nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(2, 4, 1))",
    "torch.nn.RNNCell(3, 4)(torch.randn(2, 5))",
    "torch.nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(3, 4))",
    "torch.nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(2, 5))",
    "torch.nn.RNNCell(3, 4)(torch.randn(3), torch.randn(2, 4))",
    "torch.nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(4))",
    "torch.nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(2))",
    "torch.nn.RNNCell(3, 4)(torch.randn(2, 3).double())",
    "torch.nn.RNNCell(3, 4, bias=False)(torch.randn(2, 3), torch.randn(2, 4).double())",
    "torch.nn.RNNCell(3, 4, nonlinearity='sigmoid')(torch.randn(2, 3))",
    "torch.nn.LSTMCell(3, 4)(torch.randn(2, 2, 3))",
    "torch.nn.LSTMCell(3, 4)(torch.randn(2, 3), (torch.randn(2, 4, 1), torch.randn(2, 4)))",
    "torch.nn.LSTMCell(3, 4)(torch.randn(2, 3), (torch.randn(3, 4), torch.randn(3, 4)))",
    "torch.nn.LSTMCell(3, 4)(torch.randn(2, 3), (torch.randn(2, 4), torch.randn(2, 5)))",
    "torch.nn.LSTMCell(3, 4)(torch.randn(2, 3), torch.randn(2, 4))",
    "torch.nn.GRUCell(3, 4)(torch.randn(2, 5))",
    "torch.nn.GRUCell(3, 4)(torch.randn(2, 3), torch.randn(2, 5))",
    "torch.nn.GRUCell(3, 4)(torch.randn(2, 3, 1))",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(code, same):
    assert same(code).error is not None


def test_dropout_warning_matches_torch(same):
    assert same("torch.nn.LSTM(3, 4, dropout=0.5)").warnings


# ---- nn.utils.rnn ----------------------------------------------------------------------------------------------
def sequences_pair(lengths, trailing, rng):
    """The same list of sequences (length, *trailing), as ndgrad and as torch leaves."""
    pairs = [leaf_pair(rng.standard_normal((length, *trailing)), "float64") for length in lengths]
    return [ours for ours, _ in pairs], [theirs for _, theirs in pairs]


LENGTHS = st.lists(st.integers(1, 4), min_size=1, max_size=4)


@settings(max_examples=15, deadline=None)
@given(lengths=LENGTHS, batch_first=st.booleans(), left=st.booleans(), value=st.sampled_from([0.0, -1.5]))
def test_pad_sequence_matches_torch(lengths, batch_first, left, value):
    ours, theirs = sequences_pair(lengths, (2,), np.random.default_rng(0))
    side = "left" if left else "right"
    padded_n = ndgrad.nn.utils.rnn.pad_sequence(ours, batch_first, value, side)
    padded_t = torch.nn.utils.rnn.pad_sequence(theirs, batch_first, value, side)
    assert_close(padded_n, padded_t, msg="padded")
    assert type(padded_n.grad_fn).__name__ == type(padded_t.grad_fn).__name__
    weights = np.random.default_rng(1).standard_normal(tuple(padded_t.shape))
    (padded_n * ndgrad.tensor(weights)).sum().backward()
    (padded_t * torch.tensor(weights)).sum().backward()
    for sequence_n, sequence_t in zip(ours, theirs):
        assert_close(sequence_n.grad, sequence_t.grad, msg="grad")


def detached(packed):
    return type(packed)(packed.data.detach(), *packed[1:])


@pytest.mark.xfail(strict=True, reason="the packed data's node is IndexSelectBackward0: ndgrad.ops has no "
                                       "_pack_padded_sequence op to record PackPaddedSequenceBackward0")
def test_packed_data_node_name_matches_torch():
    x_n, x_t = leaf_pair(np.ones((3, 2, 1)), "float64")
    data_n = ndgrad.nn.utils.rnn.pack_padded_sequence(x_n, [3, 1]).data
    data_t = torch.nn.utils.rnn.pack_padded_sequence(x_t, [3, 1]).data
    assert type(data_n.grad_fn).__name__ == type(data_t.grad_fn).__name__


@settings(max_examples=15, deadline=None)
@given(lengths=LENGTHS, batch_first=st.booleans(), enforce_sorted=st.booleans(), extra=st.integers(0, 2))
def test_pack_and_pad_round_trip_match_torch(lengths, batch_first, enforce_sorted, extra):
    if enforce_sorted:
        lengths = sorted(lengths, reverse=True)
    rng = np.random.default_rng(0)
    batch, steps = len(lengths), max(lengths) + extra
    x_n, x_t = leaf_pair(rng.standard_normal((batch, steps, 2) if batch_first else (steps, batch, 2)), "float64")
    packed_n = ndgrad.nn.utils.rnn.pack_padded_sequence(x_n, lengths, batch_first, enforce_sorted)
    packed_t = torch.nn.utils.rnn.pack_padded_sequence(x_t, torch.tensor(lengths), batch_first, enforce_sorted)
    assert repr(detached(packed_n)) == repr(detached(packed_t)).replace("torch.", "ndgrad.")
    padded_n, lengths_n = ndgrad.nn.utils.rnn.pad_packed_sequence(packed_n, batch_first, -2.0, steps + 1)
    padded_t, lengths_t = torch.nn.utils.rnn.pad_packed_sequence(packed_t, batch_first, -2.0, steps + 1)
    assert_close(padded_n, padded_t, msg="padded")
    assert type(padded_n.grad_fn).__name__ == type(padded_t.grad_fn).__name__
    assert repr(lengths_n) == repr(lengths_t)
    weights = rng.standard_normal(tuple(padded_t.shape))
    (padded_n * ndgrad.tensor(weights)).sum().backward()
    (padded_t * torch.tensor(weights)).sum().backward()
    assert_close(x_n.grad, x_t.grad, msg="grad")
    unpacked_n = ndgrad.nn.utils.rnn.unpack_sequence(packed_n)
    unpacked_t = torch.nn.utils.rnn.unpack_sequence(packed_t)
    for sequence_n, sequence_t in zip(unpacked_n, unpacked_t, strict=True):
        assert_close(sequence_n, sequence_t, msg="unpacked")


def test_pack_sequence_and_unpad_sequence_match_torch(same):
    same(
        "rnn = torch.nn.utils.rnn\n"
        "a, b, c = torch.ones(2, 2), torch.arange(6.).reshape(3, 2), torch.tensor([[5., 6.]])\n"
        "packed = rnn.pack_sequence([a, b, c], enforce_sorted=False)\n"
        "print(packed)\n"
        "print(packed.double().data.dtype, packed.to(torch.float32) is packed, packed.is_cuda)\n"
        "padded = rnn.pad_sequence([a, b, c])\n"
        "print(rnn.unpad_sequence(padded, torch.tensor([2, 3, 1])))\n"
        "print(rnn.invert_permutation(torch.tensor([2, 0, 1])), rnn.invert_permutation(None))\n"
        "print(rnn.PackedSequence((torch.ones(3), torch.tensor([2, 1]))))\n"
    )


UTILS_ERRORS = [
    "rnn.pack_padded_sequence(torch.randn(4, 3, 2), [2, 4, 1])",
    "rnn.pack_padded_sequence(torch.randn(4, 3, 2), [4, 2, 0])",
    "rnn.pack_padded_sequence(torch.randn(4, 3, 2), [4, 2])",
    "rnn.pack_padded_sequence(torch.randn(4, 3, 2), [[4, 2, 1]])",
    "rnn.pack_padded_sequence(torch.randn(0, 3, 2), [4, 2, 1])",
    "rnn.pad_packed_sequence(rnn.pack_sequence([torch.ones(3), torch.ones(2)]), total_length=2)",
    "rnn.pad_sequence([])",
    "rnn.pad_sequence(5)",
    "rnn.pad_sequence([torch.tensor(1.), torch.tensor(2.)])",
    "rnn.pad_sequence([torch.ones(2, 2), torch.ones(3, 3)])",
    "rnn.pad_sequence([torch.ones(2, 2)], padding_side='middle')",
    "rnn.PackedSequence(torch.ones(3))",
]


@pytest.mark.parametrize("code", UTILS_ERRORS)
def test_utils_errors_match_torch(code, same):
    assert same("rnn = torch.nn.utils.rnn\n" + code).error is not None
