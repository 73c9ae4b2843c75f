"""Bad arguments to the splitting ops raise torch's exception type and message; and the pieces that end in a
basic slice (narrow, tensor_split, hsplit, ...), which the op table cannot route, match torch."""

import numpy as np
import pytest
import torch

import ndgrad

from .errors import assert_raises_like_torch


def x(lib):
    return lib.from_numpy(np.arange(12.0).reshape(3, 4))


def v(lib):
    return lib.from_numpy(np.arange(4.0))


def s(lib):
    return lib.tensor(1.5)


def x3(lib):
    return lib.from_numpy(np.arange(24.0).reshape(2, 3, 4))


ERRORS = {
    "unbind dim": lambda lib: lib.unbind(x(lib), 2),
    "unbind 0-d": lambda lib: lib.unbind(s(lib)),
    "unbind 0-d, negative dim": lambda lib: s(lib).unbind(-1),
    "split size 0": lambda lib: lib.split(x(lib), 0),
    "split negative size": lambda lib: lib.split(x(lib), -1),
    "split 0-d": lambda lib: lib.split(s(lib), 1),
    "split dim": lambda lib: x(lib).split(1, 2),
    "split sizes sum": lambda lib: lib.split(x(lib), [1, 1]),
    "split negative sizes": lambda lib: lib.split(x(lib), [4, -1]),
    "split sizes of 0-d": lambda lib: s(lib).split_with_sizes([1]),
    "chunk 0": lambda lib: lib.chunk(x(lib), 0),
    "chunk negative": lambda lib: lib.chunk(x(lib), -1),
    "chunk 0-d": lambda lib: lib.chunk(s(lib), 1),
    "tensor_split 0 sections": lambda lib: lib.tensor_split(x(lib), 0),
    "tensor_split 0-d": lambda lib: lib.tensor_split(s(lib), 1),
    "tensor_split float tensor": lambda lib: lib.tensor_split(x(lib), lib.tensor([1.0])),
    "tensor_split 2-d tensor": lambda lib: lib.tensor_split(x(lib), lib.tensor([[1]])),
    "tensor_split dim": lambda lib: x(lib).tensor_split(2, 2),
    "hsplit 0-d": lambda lib: lib.hsplit(s(lib), 1),
    "hsplit uneven": lambda lib: lib.hsplit(x(lib), 3),
    "hsplit uneven 1-d": lambda lib: v(lib).hsplit(3),
    "vsplit 1-d": lambda lib: lib.vsplit(v(lib), 2),
    "vsplit uneven": lambda lib: lib.vsplit(x(lib), 2),
    "dsplit 2-d": lambda lib: lib.dsplit(x(lib), 2),
    "dsplit uneven": lambda lib: lib.dsplit(x3(lib), 3),
    "narrow past the end": lambda lib: lib.narrow(x(lib), 0, 2, 2),
    "narrow negative length": lambda lib: lib.narrow(x(lib), 0, 0, -1),
    "narrow start": lambda lib: lib.narrow(x(lib), 0, 4, 0),
    "narrow negative start": lambda lib: lib.narrow(x(lib), 0, -4, 1),
    "narrow 0-d": lambda lib: lib.narrow(s(lib), 0, 0, 1),
    "narrow dim": lambda lib: x(lib).narrow(2, 1, 2),
    "unfold size": lambda lib: x(lib).unfold(1, 5, 1),
    "unfold step": lambda lib: x(lib).unfold(1, 2, 0),
    "unfold negative size": lambda lib: x(lib).unfold(1, -1, 1),
    "unfold dim": lambda lib: x(lib).unfold(2, 1, 1),
    "unfold 0-d size": lambda lib: s(lib).unfold(0, 2, 1),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(name):
    assert_raises_like_torch(ERRORS[name])


def output_nr(tensor):
    """torch.Tensor.output_nr; ndgrad keeps it private for now."""
    return tensor.output_nr if isinstance(tensor, torch.Tensor) else tensor._output_nr


# ---- functions whose pieces are basic slices (SliceBackward0), and edge cases of the table's ops ---------------
def outcome(lib, shape, call):
    """Each piece (values, grad_fn name, output_nr, whether a view) and the gradient of a weighted sum of all."""
    data = np.random.default_rng(0).uniform(-2, 2, shape)
    input = lib.from_numpy(data).requires_grad_()
    result = call(lib, input)
    pieces = result if isinstance(result, tuple) else (result,)
    described = [(p.detach().numpy().tolist(), type(p.grad_fn).__name__, output_nr(p), p._base is not None)
                 for p in pieces]
    weights = np.random.default_rng(1)
    total = sum((p * lib.from_numpy(weights.standard_normal(tuple(p.shape)))).sum() for p in pieces)
    if not pieces:
        return described, None
    (grad,) = lib.autograd.grad(total, (input,))
    return described, np.round(grad.numpy(), 10).tolist()


PIECES = {
    "tensor_split sections": ((3, 4), lambda lib, t: lib.tensor_split(t, 3, dim=1)),
    "tensor_split more sections than elements": ((3, 4), lambda lib, t: lib.tensor_split(t, 5)),
    "tensor_split indices": ((3, 4), lambda lib, t: lib.tensor_split(t, [2, 1, 5])),
    "tensor_split negative index": ((3, 4), lambda lib, t: t.tensor_split([-1], -1)),
    "tensor_split tensor indices": ((3, 4), lambda lib, t: lib.tensor_split(t, lib.tensor([1, 2]))),
    "tensor_split 0-d tensor": ((3, 4), lambda lib, t: lib.tensor_split(t, lib.tensor(2))),
    "hsplit": ((3, 4), lambda lib, t: lib.hsplit(t, 2)),
    "hsplit indices": ((3, 4), lambda lib, t: t.hsplit([1, 3])),
    "hsplit 1-d": ((4,), lambda lib, t: lib.hsplit(t, 2)),
    "vsplit": ((4, 3), lambda lib, t: lib.vsplit(t, [1])),
    "dsplit": ((2, 3, 4), lambda lib, t: lib.dsplit(t, 2)),
    "narrow": ((3, 4), lambda lib, t: lib.narrow(t, 1, 1, 2)),
    "narrow negative start": ((3, 4), lambda lib, t: t.narrow(0, -1, 1)),
    "narrow tensor start": ((3, 4), lambda lib, t: lib.narrow(t, -1, lib.tensor(1), 3)),
    "narrow empty": ((3, 4), lambda lib, t: lib.narrow(t, 0, 3, 0)),
    "chunk of an empty dim": ((0, 3), lambda lib, t: lib.chunk(t, 3)),
    "split of an empty dim": ((0, 3), lambda lib, t: lib.split(t, 2)),
    "chunk into fewer pieces": ((6,), lambda lib, t: lib.chunk(t, 4)),
    "unbind of an empty dim": ((3, 0), lambda lib, t: lib.unbind(t, 1)),
    "unfold of 0-d, size 0": ((), lambda lib, t: t.unfold(0, 0, 1)),
    "unfold, size 0": ((3, 4), lambda lib, t: t.unfold(1, 0, 1)),
}


@pytest.mark.parametrize("name", list(PIECES))
def test_pieces_match_torch(name):
    shape, call = PIECES[name]
    assert outcome(ndgrad, shape, call) == outcome(torch, shape, call)
