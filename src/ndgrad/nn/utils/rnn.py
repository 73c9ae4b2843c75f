"""Variable-length sequences for the recurrent layers (see torch.nn.utils.rnn): PackedSequence and the functions that
pack, pad and unpad, built on differentiable ops (index_select, slice copies) so gradients flow through them."""

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ndgrad._creation import as_tensor, full
from ndgrad._dtype import float16, float32, float64, int8, int16, int32, int64, uint8
from ndgrad._ranges import arange
from ndgrad._tensor import Tensor
from ndgrad.ops.sorting import sort

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
    "unpad_sequence", "pack_sequence", "unpack_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """A batch of sequences, longest first, their steps stacked in ``data`` (see torch.nn.utils.rnn.PackedSequence).

    ``batch_sizes[t]`` is how many sequences are still running at step ``t``; ``sorted_indices`` orders the batch by
    decreasing length and ``unsorted_indices`` restores the caller's order.
    """

    __module__ = "ndgrad.nn.utils.rnn"

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in "
                "nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """Convert ``data`` as Tensor.to does; the permutations follow it to its device."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices, unsorted_indices = (
            None if indices is None else indices.to(data.device) for indices in self[2:]
        )
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=float64)

    def float(self):
        return self.to(dtype=float32)

    def half(self):
        return self.to(dtype=float16)

    def long(self):
        return self.to(dtype=int64)

    def int(self):
        return self.to(dtype=int32)

    def short(self):
        return self.to(dtype=int16)

    def char(self):
        return self.to(dtype=int8)

    def byte(self):
        return self.to(dtype=uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    return permutation.argsort()


def _host(tensor):
    """A small index tensor's values as a NumPy array (lengths, batch sizes)."""
    return np.asarray(tensor.cpu().numpy())


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch of sequences with the given lengths (see torch.nn.utils.rnn.pack_padded_sequence)."""
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=int64)
    else:
        lengths = as_tensor(lengths, dtype=int64, device="cpu")
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.dim() != 1 or lengths.device.type != "cpu":
        raise RuntimeError(
            f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D {lengths.device.type} "
            f"{lengths.dtype.title} tensor"
        )
    steps, batch_size = (input.shape[1], input.shape[0]) if batch_first else input.shape[:2]
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    counts = _host(lengths)
    if counts.shape[0] != batch_size:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {counts.shape[0]} (batch_size={batch_size})"
        )
    if counts[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if np.any(counts[1:] > counts[:-1]):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
            "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if you "
            "do not need ONNX exportability."
        )
    if counts[0] > steps:
        raise RuntimeError(f"Expected lengths to be at most the padded length {steps}, but got {counts[0]}")
    # NOTE: row-major order over (step, sequence) of the "still running" mask is exactly the packed order.
    running = np.arange(counts[0])[:, None] < counts[None, :]
    step, sequence = np.nonzero(running)
    rows = sequence * steps + step if batch_first else step * batch_size + sequence
    flat = input.reshape(steps * batch_size, *input.shape[2:])
    data = flat.index_select(0, as_tensor(rows, device=input.device))
    batch_sizes = as_tensor(running.sum(1), dtype=int64, device="cpu")
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo pack_padded_sequence: (padded batch, lengths) (see torch.nn.utils.rnn.pad_packed_sequence)."""
    data, batch_sizes, _, unsorted_indices = sequence
    sizes = _host(batch_sizes)
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
        steps = total_length
    # step t's rows are copied in one slice each, as torch does (so the result's node is CopySlices)
    padded = full((steps, int(sizes[0]), *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    for step, rows in enumerate(data.split(sizes.tolist())):
        padded[step, : rows.shape[0]] = rows
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = as_tensor((sizes[None, :] > np.arange(sizes[0])[:, None]).sum(1), dtype=int64, device="cpu")
    if unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, unsorted_indices)
        lengths = lengths[unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of different lengths into one padded tensor (see torch.nn.utils.rnn.pad_sequence)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            f"pad_sequence: Expected iterable for input sequences, but got arg of type: {type(sequences)}"
        )
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    longest = max(item.shape[0] for item in sequences)
    layout = (len(sequences), longest) if batch_first else (longest, len(sequences))
    padded = full((*layout, *first.shape[1:]), padding_value, dtype=first.dtype, device=first.device)
    for index, item in enumerate(sequences):
        length = item.shape[0]
        start = longest - length if padding_side == "left" else 0
        # copy_ into the window, as PyTorch's kernel does (with copy_'s broadcasting errors, not setitem's)
        if batch_first:
            padded[index, start : start + length].copy_(item)
        else:
            padded[start : start + length, index].copy_(item)
    return padded


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into its sequences (see torch.nn.utils.rnn.unpad_sequence)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    steps = arange(padded_sequences.shape[1], device=lengths.device)
    return [item[steps < length] for item, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences of different lengths (see torch.nn.utils.rnn.pack_sequence)."""
    lengths = as_tensor([item.size(0) for item in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds (see torch.nn.utils.rnn.unpack_sequence)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
