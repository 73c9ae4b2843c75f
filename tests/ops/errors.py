"""The comparison behind every test_errors_* file: one call, made with torch and with ndgrad, raises the same
exception type with the same message (torch's spelled with "ndgrad.")."""

import torch

import ndgrad
from ndgrad.autograd.hints import without_hint


def raised(call, lib):
    """What ``call`` raises with ``lib`` (a function of lib, or an expression using ``lib``): (type, message)."""
    try:
        call(lib) if callable(call) else eval(call, {"lib": lib})
    except Exception as error:  # noqa: BLE001 - whatever each library raises is the thing compared
        return type(error), without_hint(str(error)).replace("torch.", "ndgrad.")  # ndgrad's hint follows torch's
    return None


def assert_raises_like_torch(call, cut=None):
    """``cut``: compare messages only up to this text in torch's (where torch appends C++ context)."""
    theirs = raised(call, torch)
    assert theirs is not None, "torch accepts this call: the case is wrong"
    ours = raised(call, ndgrad)
    assert ours is not None, f"ndgrad accepts this call; torch raises {theirs}"
    if cut is not None:
        theirs = (theirs[0], theirs[1].split(cut)[0])
        ours = (ours[0], ours[1][: len(theirs[1])])
    assert ours == theirs


def assert_result_like_torch(call):
    """``call`` returns what torch returns: the same dtypes, shapes and values (a tuple of tensors element-wise)."""
    from tests.closeness import assert_close

    ours, theirs = _result(call, ndgrad), _result(call, torch)
    pairs = zip(ours, theirs, strict=True) if isinstance(theirs, (tuple, list)) else [(ours, theirs)]
    for a, b in pairs:
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        assert_close(a, b)


def _result(call, lib):
    return call(lib) if callable(call) else eval(call, {"lib": lib})
