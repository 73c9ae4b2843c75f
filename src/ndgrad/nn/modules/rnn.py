"""Recurrent layers and cells (see torch.nn.RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell). The time loop is Python;
each step is a few ndgrad ops around one matmul for all gates, so autograd differentiates it like any other code.
The input projection of every step is one matmul per layer and direction, done before the loop."""

import math
import numbers
from functools import partial
from typing import NamedTuple

from ndgrad._argument_parser import Signature
from ndgrad._creation import empty, zeros
from ndgrad._tensor import Tensor
from ndgrad._warnings import warn
from ndgrad.nn import init
from ndgrad.nn.modules.module import Module
from ndgrad.nn.parameter import Parameter
from ndgrad.nn.utils.rnn import PackedSequence
from ndgrad.ops.activation import relu
from ndgrad.ops.joining import cat, stack
from ndgrad.ops.layers import dropout, linear
from ndgrad.ops.products import addmm
from ndgrad.ops.transcendental import sigmoid
from ndgrad.ops.trigonometric import tanh

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# ---- one time step --------------------------------------------------------------------------------------------
class _StepWeights(NamedTuple):
    """One layer and direction's weights, arranged for the step functions."""

    input_weight: Tensor  # W_ih: the input projection, applied to all steps at once
    input_bias: Tensor | None  # b_ih, plus b_hh wherever the hidden bias can be folded into it
    hidden_weight_t: Tensor  # W_hh^T
    hidden_bias: Tensor | None  # b_hh kept apart: only GRU's, whose reset gate multiplies it
    projection_t: Tensor | None  # W_hr^T of an LSTM with proj_size


def _step_weights(mode, weight_ih, weight_hh, bias_ih=None, bias_hh=None, weight_hr=None):
    hidden_bias = bias_hh if mode == "GRU" else None
    input_bias = bias_ih if bias_ih is None or hidden_bias is not None else bias_ih + bias_hh
    projection_t = None if weight_hr is None else weight_hr.t()
    return _StepWeights(weight_ih, input_bias, weight_hh.t(), hidden_bias, projection_t)


def _elman_step(activation, input_gates, state, weights):
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return (activation(addmm(input_gates, state[0], weights.hidden_weight_t)),)


def _lstm_step(input_gates, state, weights):
    """Gates i, f, g, o from one matmul; c' = f c + i g, h' = o tanh(c') (projected by W_hr when it exists)."""
    hidden, cell = state
    input_gate, forget_gate, cell_gate, output_gate = addmm(input_gates, hidden, weights.hidden_weight_t).chunk(4, 1)
    cell = sigmoid(forget_gate) * cell + sigmoid(input_gate) * tanh(cell_gate)
    hidden = sigmoid(output_gate) * tanh(cell)
    if weights.projection_t is not None:
        hidden = hidden.mm(weights.projection_t)
    return hidden, cell


def _gru_step(input_gates, state, weights):
    """r, z from the summed projections; n = tanh(x_n + r (h W_hn^T + b_hn)); h' = (1 - z) n + z h."""
    (hidden,) = state
    if weights.hidden_bias is None:
        hidden_gates = hidden.mm(weights.hidden_weight_t)
    else:
        hidden_gates = addmm(weights.hidden_bias, hidden, weights.hidden_weight_t)
    input_reset, input_update, input_new = input_gates.chunk(3, 1)
    hidden_reset, hidden_update, hidden_new = hidden_gates.chunk(3, 1)
    reset = sigmoid(input_reset + hidden_reset)
    update = sigmoid(input_update + hidden_update)
    new = tanh(input_new + reset * hidden_new)
    return (new + update * (hidden - new),)


_STEPS = {
    "RNN_TANH": partial(_elman_step, tanh),
    "RNN_RELU": partial(_elman_step, relu),
    "LSTM": _lstm_step,
    "GRU": _gru_step,
}


def _check_matmul_dtype(tensor, weight, has_bias):
    """The error torch's addmm (with a bias) or mm (without) raises when the operands' dtypes differ."""
    if tensor.dtype != weight.dtype:
        if has_bias:
            raise RuntimeError(
                f"mat1 and mat2 must have the same dtype, but got {tensor.dtype.title} and {weight.dtype.title}"
            )
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {tensor.dtype.cpp_name} != {weight.dtype.cpp_name}"
        )


# ---- a whole sequence ------------------------------------------------------------------------------------------
def _run_direction(step, gates, state, weights, batch_sizes, reverse):
    """Run ``step`` along time (backwards when ``reverse``); returns the outputs in time order and the final state.

    Only the first ``batch_sizes[t]`` rows take step ``t`` (all rows unless the input is packed): rows whose
    sequence ended keep their final state aside, and, going backwards, rows whose sequence has not begun yet join
    with their initial state when it does.
    """
    initial = state
    steps = range(len(gates) - 1, -1, -1) if reverse else range(len(gates))
    active = batch_sizes[steps[0]]
    if active < state[0].shape[0]:
        state = tuple(part[:active] for part in state)
    finished = []
    outputs = [None] * len(gates)
    for t in steps:
        size = batch_sizes[t]
        if size < active:
            finished.append(tuple(part[size:] for part in state))
            state = tuple(part[:size] for part in state)
        elif size > active:
            state = tuple(cat([part, start[active:size]]) for part, start in zip(state, initial))
        active = size
        state = step(gates[t], state, weights)
        outputs[t] = state[0]
    if finished:  # the pieces finished last hold the lowest rows
        state = tuple(cat([part, *reversed(pieces)]) for part, pieces in zip(state, zip(*finished)))
    return outputs, state


def _kernel_signature(name, hx):
    """The overloads of torch's fused op for one mode, which torch's RNN modules call with their settings."""
    settings = "Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional"
    return Signature((f"{name}(Tensor data, Tensor batch_sizes, {hx} hx, {settings})",
                      f"{name}(Tensor input, {hx} hx, {settings}, bool batch_first)"))


_KERNELS = {"LSTM": _kernel_signature("lstm", "Tensor[]"), "GRU": _kernel_signature("gru", "Tensor"),
            "RNN_TANH": _kernel_signature("rnn_tanh", "Tensor"), "RNN_RELU": _kernel_signature("rnn_relu", "Tensor")}


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the weights per layer and direction, the checks, and the time loop."""

    _torch_subclasses_define = ("forward",)  # see Note [method names] in module.py

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        _check_arguments(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        output_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else output_size * directions
            for direction in range(directions):
                shapes = {"weight_ih": (gate_size, layer_input_size), "weight_hh": (gate_size, output_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                suffix = "_reverse" if direction == 1 else ""
                names = [f"{kind}_l{layer}{suffix}" for kind in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, name, None) for name in self._flat_weights_names]

    def _first_weight(self):
        return getattr(self, self._flat_weights_names[0])

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op: there is no fused cuDNN weight buffer to lay the parameters out in."""

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # ---- checks, with torch's names and messages --------------------------------------------------------------
    def check_input(self, input, batch_sizes):
        weight_dtype = self._first_weight().dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). Convert input: "
                f"input.to({weight_dtype}), or convert model: model.to({input.dtype})"
            )
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )

    def _mini_batch(self, input, batch_sizes):
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def get_expected_hidden_size(self, input, batch_sizes):
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), self._mini_batch(input, batch_sizes), size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else hx.index_select(1, permutation)

    # ---- the forward pass ---------------------------------------------------------------------------------
    def _zero_state(self, input, batch_size):
        """The initial state when none is given: zeros, (h0, c0) for an LSTM."""
        directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * directions, batch_size, self.hidden_size, dtype=input.dtype, device=input.device)

    def _state_parts(self, hx):
        """The state as a tuple of tensors (one for RNN and GRU, h and c for LSTM), and back."""
        return (hx,)

    def _from_parts(self, parts):
        return parts[0]

    def _state_dims_error(self, parts, batched):
        kind = "batched 3-D" if batched else "unbatched 2-D"
        dims = 3 if batched else 2
        return RuntimeError(f"For {kind} input, hx should also be {dims}-D but got {parts[0].dim()}-D tensor")

    def _input_dims_error(self, dims):
        return ValueError(f"RNN: Expected input to be 2D or 3D, got {dims}D tensor instead")

    def forward(self, input, hx=None):
        packed = isinstance(input, PackedSequence)
        if packed:
            input, batch_sizes, sorted_indices, unsorted_indices = input
            is_batched = True
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise self._input_dims_error(input.dim())
            is_batched = input.dim() == 3
            if not is_batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
        if hx is None:
            hx = self._zero_state(input, self._mini_batch(input, batch_sizes))
        else:
            if not packed:
                parts = self._state_parts(hx)
                if any(part.dim() != (3 if is_batched else 2) for part in parts):
                    raise self._state_dims_error(parts, is_batched)
                if not is_batched:
                    hx = self._from_parts(tuple(part.unsqueeze(1) for part in parts))
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        arguments = (self._flat_weights, self.bias, self.num_layers, self.dropout, self.training, self.bidirectional)
        _KERNELS[self.mode].check((input, batch_sizes, hx, *arguments) if packed else
                                  (input, hx, *arguments, self.batch_first), {})  # torch's _VF op parses them
        parts = self._state_parts(hx)
        _check_matmul_dtype(parts[0], self._first_weight(), self.bias)
        if packed:
            output, parts = self._run(input, parts, batch_sizes.tolist(), packed=True)
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), self.permute_hidden(
                self._from_parts(parts), unsorted_indices
            )
        if self.batch_first:
            input = input.transpose(0, 1)
        output, parts = self._run(input, parts, [input.shape[1]] * input.shape[0], packed=False)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            parts = tuple(part.squeeze(1) for part in parts)
        return output, self._from_parts(parts)

    def _run(self, input, parts, batch_sizes, packed):
        """All layers and directions over a time-major ``input`` (steps, batch, features), or over packed data
        (rows, features) whose steps are ``batch_sizes`` rows each."""
        if not batch_sizes:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        step, join = _STEPS[self.mode], cat if packed else stack
        directions = 2 if self.bidirectional else 1
        initial = [part.unbind(0) for part in parts]
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                names = self._all_weights[index]  # weight_ih_l0, ..., or weight_hh_l1_reverse: the kind, then _l
                weights = _step_weights(self.mode, **{name[: name.index("_l")]: getattr(self, name) for name in names})
                gates = linear(input, weights.input_weight, weights.input_bias)
                gates = gates.split(batch_sizes) if packed else gates.unbind(0)
                state = tuple(part[index] for part in initial)
                steps, state = _run_direction(step, gates, state, weights, batch_sizes, reverse=direction == 1)
                outputs.append(join(steps))
                finals.append(state)
            input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.training and self.dropout > 0 and layer < self.num_layers - 1:
                input = dropout(input, self.dropout, True)
        return input, tuple(stack(part) for part in zip(*finals))


def _check_arguments(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size):
    if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        warn(
            "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers "
            f"greater than 1, but got dropout={dropout} and num_layers={num_layers}",
        )
    for name, value in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if mode not in _GATES:
        raise ValueError("Unrecognized RNN mode: " + mode)


def _refuse_projection(kwargs):
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    return kwargs


class RNN(RNNBase):
    """Elman RNN: h_t = tanh or relu(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh) (see torch.nn.RNN).

    RNN, GRU and LSTM take RNNBase's arguments after its ``mode``, as torch's pass them on (and so Python's errors
    for a wrong call name RNNBase.__init__, as torch's)."""

    def __init__(self, *args, **kwargs):
        _refuse_projection(kwargs)
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit (see torch.nn.GRU)."""

    def __init__(self, *args, **kwargs):
        _refuse_projection(kwargs)
        super().__init__("GRU", *args, **kwargs)

    def _input_dims_error(self, dims):
        return ValueError(f"GRU: Expected input to be 2D or 3D, got {dims}D instead")


class LSTM(RNNBase):
    """Long short-term memory, optionally with projected hidden states (see torch.nn.LSTM)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        return (self.num_layers * (2 if self.bidirectional else 1), self._mini_batch(input, batch_sizes),
                self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def _zero_state(self, input, batch_size):
        cell = super()._zero_state(input, batch_size)
        if self.proj_size == 0:
            return cell, cell
        return zeros(*cell.shape[:2], self.proj_size, dtype=input.dtype, device=input.device), cell

    def _state_parts(self, hx):
        return hx[0], hx[1]

    def _from_parts(self, parts):
        return parts

    def _state_dims_error(self, parts, batched):
        kind = "batched 3-D" if batched else "unbatched 2-D"
        got = f"({parts[0].dim()}-D, {parts[1].dim()}-D)"
        return RuntimeError(f"For {kind} input, hx and cx should also be {3 if batched else 2}-D but got {got} tensors")

    def _input_dims_error(self, dims):
        return ValueError(f"LSTM: Expected input to be 2D or 3D, got {dims}D instead")


# ---- cells: one step, the same math ----------------------------------------------------------------------------
class RNNCellBase(Module):
    """What the cells share: weight_ih, weight_hh, bias_ih, bias_hh and their initialisation."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            text += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _step(self, mode, input, parts, batched):
        """One step of ``mode`` on a batch: torch's shape checks of the cell kernels, then the step itself."""
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}")
        for label, part in enumerate(parts):
            if input.size(0) != part.size(0):
                raise RuntimeError(
                    f"Input batch size {input.size(0)} doesn't match hidden{label} batch size {part.size(0)}"
                )
            if part.size(1) != self.hidden_size:
                raise RuntimeError(
                    f"hidden{label} has inconsistent hidden_size: got {part.size(1)}, expected {self.hidden_size}"
                )
        _check_matmul_dtype(input, self.weight_ih, self.bias)
        _check_matmul_dtype(parts[0], self.weight_hh, self.bias)
        weights = _step_weights(mode, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        parts = _STEPS[mode](linear(input, weights.input_weight, weights.input_bias), parts, weights)
        return parts if batched else tuple(part.squeeze(0) for part in parts)

    def _batched(self, input, hx, hidden_name):
        """torch's dimension checks; the input (and state) with a batch dimension; whether it had one."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for label, part in enumerate(() if hx is None else hx):
            if part.dim() not in (1, 2):
                hidden = hidden_name.format(label)
                raise ValueError(f"{name}: Expected {hidden} to be 1D or 2D, got {part.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            return input, None, batched
        return input, hx if batched else tuple(part.unsqueeze(0) for part in hx), batched

    def _zeros(self, input):
        return zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN (see torch.nn.RNNCell)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._batched(input, None if hx is None else (hx,), "hidden")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        return self._step(mode, input, hx or (self._zeros(input),), batched)[0]


class LSTMCell(RNNCellBase):
    """One step of an LSTM; returns (h', c') (see torch.nn.LSTMCell)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._batched(input, hx, "hx[{}]")
        if isinstance(hx, Tensor):
            raise TypeError("lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor")
        if hx is None:
            hx = (self._zeros(input),) * 2
        return self._step("LSTM", input, hx, batched)


class GRUCell(RNNCellBase):
    """One step of a GRU (see torch.nn.GRUCell)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._batched(input, None if hx is None else (hx,), "hidden")
        return self._step("GRU", input, hx or (self._zeros(input),), batched)[0]
