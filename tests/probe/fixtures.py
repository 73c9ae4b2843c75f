"""The names a probe expression can use, built afresh for each call (in-place calls and setters change them) and
only when the expression asks for one. Every value is made through the library's public API from literals."""

import math
import types
from types import SimpleNamespace

import numpy as np

# Small deterministic tensors: name -> (nested values, dtype name, requires_grad). Values are chosen so that the
# valid calls of the corpus are defined (x lies in (0, 1) for the probability losses, m is symmetric positive
# definite for cholesky, i holds valid class indices for a (2, 3) input).
_M = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]
LITERALS = {
    "x": ([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], "float32", False),
    "y": ([[1.0, -2.0, 0.5], [3.0, -0.5, 2.0]], "float32", False),
    "v": ([1.0, 2.0, 3.0], "float32", False),
    "m": (_M, "float32", False),
    "bm": ([_M, [[2.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 3.0]]], "float32", False),
    "img": (
        [[[[(r * 4 + c) / 16 - 0.5 + ch for c in range(4)] for r in range(4)] for ch in range(2)]],
        "float32",
        False,
    ),
    "seq": ([[[(t + ch * 5) / 10 for t in range(5)] for ch in range(2)]], "float32", False),
    "vol": (
        [[[[[(d * 16 + r * 4 + c) / 32 for c in range(4)] for r in range(4)] for d in range(2)]]],
        "float32",
        False,
    ),
    "s": (0.5, "float32", False),
    "e": ([], "float32", False),
    "w": ([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], "float32", True),
    "xd": ([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], "float64", False),
    "h": ([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], "float16", False),
    "i": ([[0, 1, 2], [2, 1, 0]], "int64", False),
    "idx": ([0, 2], "int64", False),
    "ti": (1, "int64", False),
    "u8": ([[0, 1, 2], [3, 4, 5]], "uint8", False),
    "k": ([[True, False, True], [False, True, False]], "bool", False),
    "tb": (True, "bool", False),
    "z": ([[1 + 1j, 2 - 1j, 0.5j], [1.0, -1j, 2 + 0j]], "complex64", False),
}

# What kind of tensor each name holds; the variation generator picks wrong-dtype replacements from it.
TENSOR_KINDS = {name: dtype.rstrip("0123456789") for name, (_, dtype, _) in LITERALS.items()}
TENSOR_KINDS.update(yw="float", loss="float")


def _literal(lib, name):
    values, dtype, requires_grad = LITERALS[name]
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def after(_effect, value):
    """``after(call(), value)``: evaluate a call for what it does, then answer ``value``."""
    return value


def _step(lib):
    def step(optimizer, times=2):
        """Run ``times`` optimiser steps on the loss sum(p**2) over its parameters; answer the parameters."""
        params = [p for group in optimizer.param_groups for p in group["params"]]

        def closure():
            optimizer.zero_grad()
            total = sum((p * p).sum() for p in params)
            total.backward()
            return total

        for _ in range(times):
            optimizer.step(closure)
        return [p.detach().clone() for p in params]

    return step


def lrs(scheduler, metric=None, epochs=3):
    """The learning rates a scheduler sets over a few epochs (``metric`` for ReduceLROnPlateau)."""
    rates = []
    for _ in range(epochs):
        scheduler.optimizer.step()
        scheduler.step() if metric is None else scheduler.step(metric)
        rates.append([group["lr"] for group in scheduler.optimizer.param_groups])
    return rates


def batches(loader):
    """Every batch a DataLoader yields."""
    return list(loader)


def _functions(lib):
    """autograd.Function subclasses, right and wrong, built for one library."""
    Function = lib.autograd.Function

    class Double(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Legacy(Function):
        def forward(self, t):
            return t * 2

    def saves_str(ctx, t):
        ctx.save_for_backward("x")
        return t * 2

    def dirty_not_returned(ctx, t):
        ctx.mark_dirty(t)
        return t * 2

    wrong = {  # name -> (base, the method that is wrong, its rule)
        "TwoGrads": (Double, "backward", lambda ctx, grad: (grad, grad)),
        "ScalarGrad": (Double, "backward", lambda ctx, grad: grad.sum()),
        "WrongShapeGrad": (Double, "backward", lambda ctx, grad: lib.ones(3, 2)),
        "StrGrad": (Double, "backward", lambda ctx, grad: "x"),
        "IntGrad": (Double, "backward", lambda ctx, grad: lib.ones(2, 3, dtype=lib.int64)),
        "SavesStr": (Double, "forward", saves_str),
        "ReturnsNumber": (Double, "forward", lambda ctx, t: 1.5),
        "DirtyNotReturned": (Double, "forward", dirty_not_returned),
        "NoBackward": (Function, "forward", Double.forward),
    }
    built = {
        name: types.new_class(name, (base,), exec_body=lambda body, m=method, r=rule: body.update({m: staticmethod(r)}))
        for name, (base, method, rule) in wrong.items()
    }
    return SimpleNamespace(Double=Double, Legacy=Legacy, **built)


# Names built from other names, in the order they may depend on each other.
_DERIVED = {
    "yw": lambda ns: ns["w"] * 2,
    "loss": lambda ns: (ns["w"] * 2).sum(),
    "opt": lambda ns: ns["lib"].optim.SGD([ns["w"]], lr=0.1),
    "ds": lambda ns: ns["lib"].utils.data.TensorDataset(ns["x"], ns["idx"]),
    "lin": lambda ns: ns["lib"].nn.Linear(3, 2),
    "step": lambda ns: _step(ns["lib"]),
    "fn": lambda ns: _functions(ns["lib"]),
}


class Namespace(dict):
    """The globals of one evaluation: fixtures appear on first use, so a call pays only for what it names."""

    def __init__(self, lib):
        super().__init__(
            lib=lib,
            F=lib.nn.functional,
            nn=lib.nn,
            optim=lib.optim,
            lr_scheduler=lib.optim.lr_scheduler,
            data=lib.utils.data,
            fwd=lib.autograd.forward_ad,
            np=np,
            nan=math.nan,
            inf=math.inf,
            after=after,
            lrs=lrs,
            batches=batches,
        )

    def __missing__(self, name):
        if name in LITERALS:
            value = _literal(self["lib"], name)
        elif name in _DERIVED:
            value = _DERIVED[name](self)
        else:
            raise KeyError(name)
        self[name] = value
        return value
