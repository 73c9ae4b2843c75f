"""The check behind functions the op table cannot list (composites: their grad_fn belongs to another op). One call,
made with torch and with ndgrad, compared as the op table compares ops: values in float64 and float32, the grad_fn
name, the VJP, second derivatives and forward mode against torch, and finite differences on ndgrad alone."""

import warnings

import numpy as np
import torch
from tests.closeness import TOLERANCE, assert_close

import ndgrad
from ndgrad.autograd import forward_ad as ndgrad_forward
from ndgrad.autograd import gradcheck, gradgradcheck

from .samples import TINY, Input


def constant(values, dtype="float64"):
    """An input of these values that is never differentiated (a target, a mask, indices)."""
    return Input(np.asarray(values), fixed=dtype)


def _as_input(array):
    """A samples.Input: float arrays are differentiated, integer and bool arrays are fixed."""
    if isinstance(array, Input):
        return array
    array = np.asarray(array)
    return Input(array) if array.dtype.kind == "f" else Input(array, fixed=array.dtype.name)


def _leaves(lib, inputs, dtype, requires_grad=True):
    tensors = [lib.from_numpy(np.array(i.array(dtype))) for i in inputs]
    return [t.requires_grad_() if requires_grad and not i.fixed else t for t, i in zip(tensors, inputs)]


def _numpy(tensor, like=None):
    if tensor is None:
        return np.zeros(like.shape)
    force = {"force": True} if isinstance(tensor, torch.Tensor) else {}  # torch's ZeroTensor gradients
    return np.array(tensor.detach().numpy(**force), dtype=np.float64)


def _first(result):
    return result[0] if isinstance(result, tuple) else result


def _call(call, lib, tensors):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(lib, *tensors)


def _derivatives(lib, call, inputs, seed, second):
    """Output, grad_fn name, VJP for a random cotangent and the gradient of <VJP, w> (second order)."""
    tensors = _leaves(lib, inputs, np.float64)
    wrt = [t for t, i in zip(tensors, inputs) if not i.fixed]
    out = _first(_call(call, lib, tensors))
    rng = np.random.default_rng(seed)
    cotangent = lib.from_numpy(rng.standard_normal(tuple(out.shape)))
    grads = lib.autograd.grad(out, wrt, cotangent, create_graph=second, allow_unused=True)
    results = [_numpy(out), type(out.grad_fn).__name__, [_numpy(g, w) for g, w in zip(grads, wrt)]]
    if second:
        weights = [lib.from_numpy(rng.standard_normal(tuple(w.shape))) for w in wrt]
        terms = [(g * w).sum() for g, w in zip(grads, weights) if g is not None and g.requires_grad]
        seconds = [None] * len(wrt)
        if terms:
            seconds = lib.autograd.grad(sum(terms[1:], terms[0]), wrt, allow_unused=True)
        results.append([_numpy(g, w) for g, w in zip(seconds, wrt)])
    return results


def _tangent(lib, forward, call, inputs, seed):
    rng = np.random.default_rng(seed)
    tensors = _leaves(lib, inputs, np.float64, requires_grad=False)
    with forward.dual_level():
        duals = [t if i.fixed else forward.make_dual(t, lib.from_numpy(rng.standard_normal(tuple(t.shape))))
                 for t, i in zip(tensors, inputs)]
        tangent = forward.unpack_dual(_first(_call(call, lib, duals))).tangent
        return None if tangent is None else _numpy(tangent)


def assert_like_torch(call, *arrays, grad_fn=True, second=True, forward=True, numerical=True, seed=0):
    """``call(lib, *tensors)`` on both libraries. ``second``/``forward``: False where torch has no such derivative."""
    inputs = [_as_input(a) for a in arrays]
    ours, theirs = (_derivatives(lib, call, inputs, seed, second) for lib in (ndgrad, torch))
    assert_close(ours[0], theirs[0])
    if grad_fn:
        assert ours[1] == theirs[1]
    for order in range(2, len(ours)):
        for a, b in zip(ours[order], theirs[order]):
            assert_close(a, b)
    single = [_numpy(_first(_call(call, lib, _leaves(lib, inputs, np.float32, False)))) for lib in (ndgrad, torch)]
    assert_close(*single, **TOLERANCE["float32"])  # float32 results, read as float64 by _numpy
    if forward:
        assert_close(_tangent(ndgrad, ndgrad_forward, call, inputs, seed),
                     _tangent(torch, torch.autograd.forward_ad, call, inputs, seed))
    if numerical and sum(int(np.prod(i.shape)) for i in inputs if not i.fixed) <= TINY:
        assert_finite_differences(call, inputs, second)


def assert_finite_differences(call, inputs, second=True):
    """gradcheck (and gradgradcheck) of ndgrad's derivatives with respect to the differentiable inputs."""
    tensors = _leaves(ndgrad, [_as_input(i) for i in inputs], np.float64)
    wrt = [t for t in tensors if t.requires_grad]

    def differentiable(*values):
        given = iter(values)
        return _call(call, ndgrad, [next(given) if t.requires_grad else t for t in tensors])

    assert gradcheck(differentiable, wrt)
    if second:
        assert gradgradcheck(differentiable, wrt)
