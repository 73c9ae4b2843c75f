"""Bad arguments to the shape ops raise torch's exception type and message; and the deprecation warnings of
Tensor.T, mT, mH, H and adjoint match torch's."""

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
    "diagonal same dims": lambda lib: lib.diagonal(x(lib), 0, 1, 1),
    "diagonal same dims, negative": lambda lib: lib.diagonal(x(lib), 0, -1, 1),
    "diagonal dim": lambda lib: lib.diagonal(x(lib), 0, 0, 2),
    "diagonal of 1-d": lambda lib: lib.diagonal(v(lib)),
    "movedim repeated source": lambda lib: lib.movedim(x3(lib), (0, -3), (1, 2)),
    "movedim repeated destination": lambda lib: lib.movedim(x3(lib), (0, 1), (-2, 1)),
    "movedim lengths": lambda lib: lib.movedim(x3(lib), (0, 1), (1,)),
    "movedim dim": lambda lib: lib.movedim(x3(lib), 3, 0),
    "moveaxis dim": lambda lib: lib.moveaxis(x3(lib), 0, -4),
    "swapaxes dim": lambda lib: lib.swapaxes(x3(lib), 3, 0),
    "swapdims dim": lambda lib: x3(lib).swapdims(0, -4),
    "unflatten sizes": lambda lib: lib.unflatten(x(lib), 1, (3, 2)),
    "unflatten sizes with -1": lambda lib: lib.unflatten(x(lib), 1, (-1, 3)),
    "unflatten no sizes": lambda lib: lib.unflatten(x(lib), 1, ()),
    "unflatten dim": lambda lib: x(lib).unflatten(2, (2, 2)),
    "broadcast_to too few": lambda lib: lib.broadcast_to(x(lib).float(), (3,)),
    "broadcast_to sizes": lambda lib: lib.broadcast_to(x(lib), (2, 4)),
    "H of 3-d": lambda lib: x3(lib).H,
    "H of 1-d": lambda lib: v(lib).H,
    "mH of 1-d": lambda lib: v(lib).mH,
    "mT of 1-d": lambda lib: v(lib).mT,
    "adjoint of 1-d": lambda lib: v(lib).adjoint(),
    "adjoint function of 1-d": lambda lib: lib.adjoint(v(lib)),
    "select index": lambda lib: lib.select(x(lib), 1, 4),
    "select negative index": lambda lib: x(lib).select(-2, -4),
    "select dim": lambda lib: x(lib).select(2, 0),
    "select negative dim": lambda lib: lib.select(x(lib), -3, 0),
    "select of 0-d": lambda lib: s(lib).select(0, 0),
    "select of an empty dim": lambda lib: lib.zeros(0, 3).select(0, 0),
    "reshape of nothing with -1": lambda lib: lib.zeros(0).reshape(-1, 0, 2),
    "view of nothing with -1": lambda lib: lib.zeros(2, 0).view(0, -1),
    "reshape with -1 and 0": lambda lib: x(lib).reshape(-1, 0),
}

# torch appends its C++ stack trace to these messages; ndgrad gives the first lines.
MESSAGE_HAS_TRACE = {
    "unflatten of 0-d": lambda lib: lib.unflatten(s(lib), 0, (1,)),
    "unflatten two -1": lambda lib: lib.unflatten(x(lib), 1, (-1, -1)),
    "unflatten nothing with -1 and 0": lambda lib: lib.zeros(2, 0).unflatten(1, (0, -1)),
}


@pytest.mark.parametrize("name", list(ERRORS) + list(MESSAGE_HAS_TRACE))
def test_error_matches_torch(name):
    if name in MESSAGE_HAS_TRACE:  # torch appends a C++ stack trace
        assert_raises_like_torch(MESSAGE_HAS_TRACE[name], cut="\nException raised from")
    else:
        assert_raises_like_torch(ERRORS[name])


WARNS = {
    "T of 0-d": lambda lib: s(lib).T,
    "T of 1-d": lambda lib: v(lib).T,
    "T of 3-d": lambda lib: x3(lib).T,
    "mT of 0-d": lambda lib: s(lib).mT,
    "mH of 0-d": lambda lib: s(lib).mH,
    "H of 0-d": lambda lib: s(lib).H,
    "adjoint of 0-d": lambda lib: s(lib).adjoint(),
}


def caught(lib, call):
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        result = call(lib)
    return [str(r.message).split(" (Triggered internally")[0] for r in records], result


@pytest.mark.parametrize("name", list(WARNS))
def test_warning_matches_torch(name):
    """torch warns once per process: run ours first so a torch warning used up elsewhere shows as a failure
    of the comparison of results only, then compare messages when torch gives one."""
    ours, result = caught(ndgrad, WARNS[name])
    theirs, expected = caught(torch, WARNS[name])
    assert len(ours) == 1
    if theirs:
        assert ours == [m.replace("torch.", "ndgrad.") for m in theirs]
    assert result.shape == expected.shape
    assert type(result.grad_fn).__name__ == type(expected.grad_fn).__name__
