"""In-place arithmetic that records nothing (an optimizer's ``p -= lr * p.grad``) lets the op's NumPy ufunc write
straight into the tensor (Op.apply_'s ``_writes_in_place``). Each program runs in ndgrad and torch: the values,
the version counters and the errors must agree, and where the shortcut applies, ``Tensor._write`` (the copy of
an out-of-place result) must not run at all."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad._tensor import Tensor


def sgd_step(lib):
    p = lib.tensor(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    (p * p).sum().backward()
    with lib.no_grad():
        p -= 0.1 * p.grad
        p.mul_(0.5)
        p.add_(p.grad)
        p /= 3.0
    return p, p._version


def through_a_view(lib):
    base = lib.arange(12.0).reshape(3, 4)
    row = base[1]
    row += lib.ones(4)
    row.sub_(2.5)
    return base, base._version, row._version


def grad_enabled_no_history(lib):
    x, y = lib.linspace(0.0, 1.0, 5), lib.linspace(1.0, 2.0, 5)
    x.mul_(y)
    x.div_(y + 1)
    x += x  # the input is the written tensor itself
    return x, x._version


def half_precision(lib):
    x = lib.full((4,), 60000.0, dtype=lib.float16)
    x *= 2.0  # beyond float16: inf, with no NumPy warning
    return x, x._version


PROGRAMS = [sgd_step, through_a_view, grad_enabled_no_history, half_precision]


def _flat(result):
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_writes_in_place_as_torch_computes(program, monkeypatch):
    theirs = _flat(program(torch))

    def copy_refused(self, array):
        raise AssertionError("the out-of-place result was copied: the ufunc did not write in place")

    monkeypatch.setattr(Tensor, "_write", copy_refused)
    ours = _flat(program(ndgrad))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if isinstance(b, int):
            assert a == b  # versions: one count per write, as torch's
        else:
            assert_close(a.detach(), b.detach())


def _error(call, lib):
    try:
        call(lib)
    except Exception as error:
        return type(error).__name__, str(error)
    return None


REFUSED = {
    "partial overlap": lambda lib: (lambda x: x[1:].add_(x[:-1]))(lib.arange(6.0)),
    "repeated elements": lambda lib: lib.ones(1).expand(3).add_(1.0),
    "inference tensor outside inference mode": lambda lib: _inference_tensor(lib).mul_(2.0),
    "leaf that requires grad": lambda lib: lib.ones(3, requires_grad=True).mul_(2.0),
}


def _inference_tensor(lib):
    with lib.inference_mode():
        return lib.ones(3)


@pytest.mark.parametrize("name", REFUSED)
def test_refusals_as_torch(name):
    theirs = _error(REFUSED[name], torch)
    assert theirs is not None
    assert _error(REFUSED[name], ndgrad) == theirs


def test_other_dtypes_and_shapes_take_the_general_path():
    """Broadcasting, another dtype and an int tensor compute as torch does (these are not the shortcut's)."""
    for lib_call in (
        lambda lib: lib.ones(2, 3).add_(lib.arange(3.0)),
        lambda lib: lib.ones(3).add_(lib.arange(3.0, dtype=lib.float64)),
        lambda lib: lib.arange(3).mul_(2),
        lambda lib: lib.ones(3).add_(2.0, alpha=3),
    ):
        ours, theirs = lib_call(ndgrad), lib_call(torch)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert_close(ours, theirs)
