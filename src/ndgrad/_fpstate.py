"""NumPy's floating-point error state while ndgrad computes: quiet, as PyTorch is (log(0) is -inf, not a warning).

Note [floating-point error state]: NumPy reports division by zero, overflow and invalid values (inf - inf, 0 / 0)
through its error state, by default with a RuntimeWarning, which ``-W error`` turns into an exception. ndgrad's
array code runs with every report off, while the user's own NumPy code keeps the state the user set: ``silence()``
turns the reports off in the calling thread and returns a token, ``restore(token)`` brings back what was there
(always in a ``finally``). ``Op.apply`` does this around an op's casts and forward, ``push_tangents`` around a jvp,
the engine once around a whole backward (so hooks and Function.backward that it calls see the quiet state too),
``Tensor._write`` around a write; ``@silenced`` covers the other entry points that compute on raw arrays
(creation, random fills, printing, optimizer steps, LBFGS's closure included, gradcheck, the anomaly and trace
summaries). In NumPy >= 2 the state is a context variable: the pair is one ``ContextVar.set`` and one ``reset``
(~0.1 us) of a state made once here (with the buffer size NumPy had when ndgrad was imported). NumPy 1.x keeps it
in per-thread settings, which ``np.geterrobj``/``np.seterrobj`` swap (~0.3 us); a NumPy with neither gets
``np.errstate``, entered and left by hand. CuPy reports nothing of this kind: GPU arrays need nothing more.
``np.mean`` of no elements warns outside the error state, so kernels take means from ``mean_array``.
"""

import functools

import numpy as np

__all__ = ["silence", "restore", "silenced", "mean_array"]

try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj  # NumPy >= 2.0
except ImportError:
    _extobj_contextvar = None

if _extobj_contextvar is not None:
    silence = functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore"))
    restore = _extobj_contextvar.reset
elif hasattr(np, "seterrobj"):  # NumPy 1.x: [buffer size, error mask, callback]; the mask 0 reports nothing

    def silence():
        state = np.geterrobj()
        np.seterrobj([state[0], 0, state[2]])
        return state

    restore = np.seterrobj
else:

    def silence():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore(state):
        state.__exit__(None, None, None)


def silenced(function):
    """``function`` run with NumPy's floating-point reports off (see Note [floating-point error state])."""

    @functools.wraps(function)
    def run_silenced(*args, **kwargs):
        token = silence()
        try:
            return function(*args, **kwargs)
        finally:
            restore(token)

    return run_silenced


def mean_array(xp, x, axis=None, keepdims=False, dtype=None):
    """``xp.mean``, where a mean of no elements is nan with no "Mean of empty slice" warning, as in PyTorch."""
    if x.size:
        return xp.mean(x, axis=axis, keepdims=keepdims, dtype=dtype)
    return xp.sum(x, axis=axis, keepdims=keepdims, dtype=dtype) / 0  # 0 / 0: nan where a mean is due
