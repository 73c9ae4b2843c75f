"""Bad arguments to the joining ops raise torch's exception type and message; and the joining functions built
from other ops (several outputs, several inputs, tensor repeats), which the op table cannot route, match torch."""

import warnings

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
    "cat of nothing": lambda lib: lib.cat([]),
    "cat of a tensor": lambda lib: lib.cat(x(lib)),
    "cat of a generator": lambda lib: lib.cat(t for t in (x(lib), x(lib))),
    "cat of 0-d": lambda lib: lib.cat([s(lib), s(lib)]),
    "cat of 0-d after empty": lambda lib: lib.cat([lib.ones(0), s(lib)]),
    "cat ndim": lambda lib: lib.cat([x(lib), x3(lib)]),
    "cat sizes": lambda lib: lib.cat([x(lib), lib.ones(3, 5, dtype=lib.float64)]),
    "cat sizes, dim 1": lambda lib: lib.cat([x(lib), lib.ones(2, 5, dtype=lib.float64)], 1),
    "cat sizes after an empty": lambda lib: lib.cat([lib.ones(0), x(lib), lib.ones(0, 5)]),
    "cat dim": lambda lib: lib.cat([x(lib), x(lib)], 2),
    "cat dim, negative": lambda lib: lib.cat([x(lib), x(lib)], -3),
    "concatenate dim": lambda lib: lib.concatenate([x(lib), x(lib)], axis=2),
    "stack of nothing": lambda lib: lib.stack([]),
    "stack of a tensor": lambda lib: lib.stack(x(lib)),
    "stack shapes": lambda lib: lib.stack([x(lib), x(lib).t()]),
    "stack dim": lambda lib: lib.stack([x(lib), x(lib)], 3),
    "stack dim, negative": lambda lib: lib.stack([x(lib), x(lib)], -4),
    "hstack of nothing": lambda lib: lib.hstack([]),
    "hstack ndim": lambda lib: lib.hstack([s(lib), x(lib)]),
    "vstack of nothing": lambda lib: lib.vstack([]),
    "dstack of nothing": lambda lib: lib.dstack([]),
    "column_stack of nothing": lambda lib: lib.column_stack([]),
    "flip repeated dim": lambda lib: lib.flip(x(lib), (0, -2)),
    "flip dim": lambda lib: lib.flip(x(lib), (2,)),
    "flip int": lambda lib: lib.flip(x(lib), 0),
    "fliplr 1-d": lambda lib: lib.fliplr(v(lib)),
    "flipud 0-d": lambda lib: lib.flipud(s(lib)),
    "roll shifts and dims": lambda lib: lib.roll(x(lib), (1, 2), (0,)),
    "roll shifts without dims": lambda lib: lib.roll(x(lib), (1, 2)),
    "roll no shifts": lambda lib: lib.roll(x(lib), ()),
    "roll 0-d dim": lambda lib: lib.roll(s(lib), 1, -1),
    "roll dim": lambda lib: lib.roll(x(lib), 1, 2),
    "rot90 one dim": lambda lib: lib.rot90(x(lib), 1, [0]),
    "rot90 three dims": lambda lib: lib.rot90(x(lib), 1, (0, 1, 1)),
    "rot90 same dims": lambda lib: lib.rot90(x(lib), 1, [0, -2]),
    "rot90 1-d": lambda lib: lib.rot90(v(lib)),
    "rot90 dim": lambda lib: lib.rot90(x(lib), 1, [0, 2]),
    "repeat too few": lambda lib: x(lib).repeat(2),
    "repeat negative": lambda lib: x(lib).repeat(2, -1),
    "tile negative": lambda lib: lib.tile(x(lib), (-1,)),
    "repeat_interleave negative": lambda lib: lib.repeat_interleave(x(lib), -1),
    "repeat_interleave dim": lambda lib: lib.repeat_interleave(x(lib), 2, dim=2),
    "repeat_interleave 0-d dim": lambda lib: lib.repeat_interleave(s(lib), 3, dim=0),
    "repeat_interleave output_size": lambda lib: lib.repeat_interleave(x(lib), 2, dim=0, output_size=5),
    "repeat_interleave repeats size": lambda lib: lib.repeat_interleave(x(lib), lib.tensor([1, 2]), dim=0),
    "repeat_interleave repeats, no dim": lambda lib: lib.repeat_interleave(x(lib), lib.tensor([1, 2])),
    "repeat_interleave 2-d repeats": lambda lib: lib.repeat_interleave(x(lib), lib.tensor([[1, 2]]), dim=0),
    "repeat_interleave float repeats": lambda lib: lib.repeat_interleave(x(lib), lib.tensor([1.0, 2, 3]), dim=0),
    "repeat_interleave negative repeats": lambda lib: lib.repeat_interleave(x(lib), lib.tensor([1, -2, 3]), dim=0),
    "diag 3-d": lambda lib: lib.diag(x3(lib)),
    "diag 0-d": lambda lib: lib.diag(s(lib)),
    "diag_embed same dims": lambda lib: lib.diag_embed(x(lib), 0, 0, -3),
    "diag_embed dim": lambda lib: lib.diag_embed(x(lib), 0, 0, 3),
    "diag_embed 0-d": lambda lib: lib.diag_embed(s(lib)),
    "tril 1-d": lambda lib: lib.tril(v(lib)),
    "triu 0-d": lambda lib: lib.triu(s(lib)),
    "tril_ 1-d": lambda lib: v(lib).tril_(),
    "broadcast_tensors shapes": lambda lib: lib.broadcast_tensors(x(lib), lib.ones(3)),
    "broadcast_tensors of a list": lambda lib: lib.broadcast_tensors([x(lib), v(lib)]),
    "meshgrid of nothing": lambda lib: lib.meshgrid(indexing="ij"),
    "meshgrid indexing": lambda lib: lib.meshgrid(v(lib), v(lib), indexing="ab"),
    "meshgrid dtypes": lambda lib: lib.meshgrid(v(lib), v(lib).float(), indexing="ij"),
}

# torch prints the offending tensor in its legacy format here; ndgrad prints it its own way.
MESSAGE_DIFFERS = {"meshgrid of a matrix": lambda lib: lib.meshgrid(x(lib), v(lib), indexing="ij")}


@pytest.mark.parametrize("name", list(ERRORS) + list(MESSAGE_DIFFERS))
def test_error_matches_torch(name):
    if name in MESSAGE_DIFFERS:  # torch prints the tensor inside the message in its own legacy format
        assert_raises_like_torch(MESSAGE_DIFFERS[name], cut=":")
    else:
        assert_raises_like_torch(ERRORS[name])


def output_nr(tensor):
    """torch.Tensor.output_nr; ndgrad keeps it private for now."""
    return tensor.output_nr if isinstance(tensor, torch.Tensor) else tensor._output_nr


# ---- functions that end in another module's op, or return several tensors --------------------------------------
def leaves(lib, shapes, dtypes=None):
    rng = np.random.default_rng(0)
    dtypes = dtypes or ["float64"] * len(shapes)
    return [lib.from_numpy(rng.uniform(-2, 2, shape).astype(dtype)).requires_grad_()
            for shape, dtype in zip(shapes, dtypes)]


def outcome(lib, shapes, call, dtypes=None):
    """Outputs (values, dtype, grad_fn name, output_nr, whether a view, whether an input itself) and the
    gradients of a weighted sum of all outputs."""
    inputs = leaves(lib, shapes, dtypes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = call(lib, *inputs)
    outputs = result if isinstance(result, tuple) else (result,)
    described = [(o.detach().numpy().tolist(), str(o.dtype).split(".")[1], type(o.grad_fn).__name__,
                  output_nr(o), o._base is not None,
                  any(o is i for i in inputs)) for o in outputs]
    weights = np.random.default_rng(1)
    total = sum((o * lib.from_numpy(weights.standard_normal(tuple(o.shape)))).sum()
                for o in outputs if o.requires_grad)
    grads = lib.autograd.grad(total, inputs, allow_unused=True)
    return described, [None if g is None else np.round(g.numpy(), 10).tolist() for g in grads]


COMPOSITES = {
    "broadcast_tensors": ([(3, 1), (4,), (3, 4)], lambda lib, *ts: lib.broadcast_tensors(*ts)),
    "broadcast_tensors of one": ([(3, 1)], lambda lib, *ts: lib.broadcast_tensors(*ts)),
    "meshgrid ij": ([(3,), (4,), ()], lambda lib, *ts: lib.meshgrid(*ts, indexing="ij")),
    "meshgrid xy": ([(3,), (4,), (2,)], lambda lib, *ts: lib.meshgrid(list(ts), indexing="xy")),
    "meshgrid default": ([(3,), (2,)], lambda lib, *ts: lib.meshgrid(*ts)),
    "atleast_1d of several": ([(), (3,), (2, 3)], lambda lib, *ts: lib.atleast_1d(*ts)),
    "atleast_2d of a list": ([(), (3,), (2, 3)], lambda lib, *ts: lib.atleast_2d(list(ts))),
    "atleast_3d of a tuple": ([(), (3,), (2, 3), (1, 2, 3)], lambda lib, *ts: lib.atleast_3d(ts)),
    "hstack of 0-d": ([(), ()], lambda lib, *ts: lib.hstack(ts)),
    "vstack of 1-d": ([(3,), (3,)], lambda lib, *ts: lib.vstack(ts)),
    "row_stack": ([(3,), (2, 3)], lambda lib, *ts: lib.row_stack(ts)),
    "dstack of 1-d": ([(3,), (3,)], lambda lib, *ts: lib.dstack(ts)),
    "column_stack of 0-d and 1-d": ([(), ()], lambda lib, *ts: lib.column_stack(ts)),
    "cat float32 and float64": ([(2, 3), (1, 3)], lambda lib, *ts: lib.cat(ts)),
    "stack float32 and float64": ([(2, 3), (2, 3)], lambda lib, *ts: lib.stack(ts, 1)),
    "cat with empty of another dtype": ([(2, 3), (0,)], lambda lib, *ts: lib.cat(ts, 1)),
    "cat of empties": ([(0,), (0,)], lambda lib, *ts: lib.cat(ts, 3)),
    "repeat_interleave, no dim": ([(2, 3)], lambda lib, t: lib.repeat_interleave(t, 2)),
    "repeat_interleave of 0-d": ([()], lambda lib, t: t.repeat_interleave(3)),
    "repeat_interleave tensor repeats": ([(3, 2)], lambda lib, t: lib.repeat_interleave(t, lib.tensor([2, 0, 1]), 0)),
    "repeat_interleave one repeat": ([(3, 2)], lambda lib, t: t.repeat_interleave(lib.tensor([2]), dim=1)),
    "repeat_interleave 0-d repeats": ([(3, 2)], lambda lib, t: lib.repeat_interleave(t, lib.tensor(2))),
    "repeat_interleave output_size": ([(3, 2)], lambda lib, t: lib.repeat_interleave(t, 2, 0, output_size=6)),
    "tile of 0-d": ([()], lambda lib, t: lib.tile(t, ())),
}
DTYPES = {
    "cat float32 and float64": ["float32", "float64"],
    "stack float32 and float64": ["float64", "float32"],
    "cat with empty of another dtype": ["float32", "float64"],
}


@pytest.mark.parametrize("name", list(COMPOSITES))
def test_composite_matches_torch(name):
    shapes, call = COMPOSITES[name]
    assert outcome(ndgrad, shapes, call, DTYPES.get(name)) == outcome(torch, shapes, call, DTYPES.get(name))


def test_repeat_interleave_of_counts():
    for lib in (torch, ndgrad):
        counts = lib.repeat_interleave(lib.tensor([2, 0, 3]))
        assert counts.tolist() == [0, 0, 2, 2, 2] and counts.dtype == lib.int64


def test_integer_and_bool_dtypes():
    for make in (
        lambda lib: lib.cat([lib.ones(2, dtype=lib.bool), lib.ones(1, dtype=lib.int32)]),
        lambda lib: lib.cat([lib.ones(2, dtype=lib.int64), lib.ones(1, dtype=lib.float32)]),
        lambda lib: lib.stack([lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int32)]),
        lambda lib: lib.tril(lib.ones(3, 3, dtype=lib.bool)),
        lambda lib: lib.flip(lib.arange(6).reshape(2, 3), (1,)),
        lambda lib: lib.roll(lib.arange(6), 2),
        lambda lib: lib.diag(lib.arange(3)),
        lambda lib: lib.arange(4).repeat(2),
    ):
        ours, theirs = make(ndgrad), make(torch)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        assert ours.tolist() == theirs.tolist()


def test_meshgrid_warns_without_indexing():
    """torch warns once per process (and an earlier test may have used that up), so only ndgrad is run here."""
    with pytest.warns(UserWarning, match="^ndgrad.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.$"):
        ndgrad.meshgrid(v(ndgrad), v(ndgrad))
