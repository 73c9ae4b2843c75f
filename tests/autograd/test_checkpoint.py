"""ndgrad.utils.checkpoint against torch.utils.checkpoint: gradients, grad_fn, errors and warnings, RNG replay, and
the memory it saves."""

import inspect
import tracemalloc

import numpy as np
import pytest
import torch
import torch.utils.checkpoint

import ndgrad
from ndgrad.utils.checkpoint import checkpoint

MODES = ["use_reentrant=True", "use_reentrant=False"]

SETUP = """
x = torch.tensor([0.1, -0.7, 0.3], dtype=torch.float64, requires_grad=True)
w = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64, requires_grad=True)
calls = []
def f(a, n, b=None):
    calls.append(1)
    return (a * w).sin() * n, (a * 2).exp().sum(), n
"""


def test_signature_matches_torch():
    ours = inspect.signature(checkpoint).parameters
    theirs = inspect.signature(torch.utils.checkpoint.checkpoint).parameters
    assert list(ours) == list(theirs)
    assert [p.kind for p in ours.values()] == [p.kind for p in theirs.values()]
    assert [p.default for n, p in ours.items() if n != "context_fn"] == [
        p.default for n, p in theirs.items() if n != "context_fn"
    ]


@pytest.mark.parametrize("mode", MODES)
def test_gradients_grad_fn_and_recomputation_match_torch(same, mode):
    same(SETUP + f"""
y, s, n = torch.utils.checkpoint.checkpoint(f, x, 3, {mode})
print(type(y.grad_fn).__name__, type(s.grad_fn).__name__, n, len(calls))
(y.sum() + s).backward()
print(len(calls), x.grad, w.grad)
""")


def test_gradients_equal_the_unchecked_run():
    for mode in (True, False):
        x = ndgrad.tensor([0.1, -0.7, 0.3], dtype=ndgrad.float64, requires_grad=True)
        w = ndgrad.tensor([1.5, -0.5, 2.0], dtype=ndgrad.float64, requires_grad=True)

        def f(a, w=w):
            return ((a * w).tanh() @ w).exp()

        checkpoint(f, x, use_reentrant=mode).backward()  # reentrant checkpoints refuse autograd.grad
        checked = (x.grad, w.grad)
        x.grad = w.grad = None
        f(x).backward()
        for a, b in zip(checked, (x.grad, w.grad)):
            assert np.array_equal(a.numpy(), b.numpy())


def test_non_reentrant_kwargs_grad_and_double_backward(same):
    same(SETUP + """
y, s, _ = torch.utils.checkpoint.checkpoint(f, x, 2, use_reentrant=False, b=5)
g, = torch.autograd.grad(y.sum() + s, x, create_graph=True)
print(g, torch.autograd.grad(g.sum(), (x, w)))
""")


def test_non_reentrant_reaches_parameters_when_no_input_requires_grad(same):
    same(SETUP + """
y, s, _ = torch.utils.checkpoint.checkpoint(f, x.detach(), 2, use_reentrant=False)
y.sum().backward()
print(y.requires_grad, w.grad)
""")


def test_reentrant_warns_when_no_input_requires_grad(same):
    same(SETUP + """
y, s, _ = torch.utils.checkpoint.checkpoint(f, x.detach(), 2, use_reentrant=True)
print(y.requires_grad, y.grad_fn)
""")


@pytest.mark.parametrize("code", [
    "torch.utils.checkpoint.checkpoint(f, x, 2)",
    "torch.utils.checkpoint.checkpoint(f, x, 2, use_reentrant=True, b=1, c=2)",
    "torch.utils.checkpoint.checkpoint(f, x, 2, use_reentrant=True, debug=True)",
    "torch.utils.checkpoint.checkpoint(f, x, 2, use_reentrant=False, determinism_check='all')",
    "torch.autograd.grad(torch.utils.checkpoint.checkpoint(f, x, 2, use_reentrant=True)[0].sum(), x)",
    "y = torch.utils.checkpoint.checkpoint(f, x, 2, use_reentrant=True)[0].sum(); y.backward(inputs=[x])",
])
def test_warnings_and_errors_match_torch(same, code):
    same(SETUP + code)


@pytest.mark.parametrize("mode", MODES)
def test_second_backward_needs_retain_graph(same, mode):
    same(SETUP + f"""
y = torch.utils.checkpoint.checkpoint(f, x, 2, {mode})[0].sum()
y.backward(retain_graph=True)
y.backward()
print(x.grad, len(calls))
y.backward()
""")


@pytest.mark.parametrize("mode", MODES)
def test_input_modified_in_place_is_detected(same, mode):
    same(SETUP + f"""
z = x * 1
y = torch.utils.checkpoint.checkpoint(f, z, 2, {mode})[0]
z.add_(1)
y.sum().backward()
""")


def test_recomputation_with_other_shapes_fails_the_determinism_check(same):
    code = SETUP + """
def g(a):
    calls.append(1)
    return (a[:2] if len(calls) > 1 else a).exp()
torch.utils.checkpoint.checkpoint(g, x, use_reentrant=False{}).sum().backward()
print(x.grad)
"""
    same(code.format(""))
    same(code.format(", determinism_check='none'").replace("print(x.grad)", ""))


@pytest.mark.parametrize("mode", [True, False])
def test_random_numbers_are_replayed(mode):
    x = ndgrad.ones(200, dtype=ndgrad.float64, requires_grad=True)

    def dropout(a):
        return a * (ndgrad.rand(200, dtype=ndgrad.float64) > 0.5) * 2

    y = checkpoint(dropout, x, use_reentrant=mode)
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), y.detach().numpy())  # the mask of the forward, as d(x * 2m)/dx = 2m
    x.grad = None
    y = checkpoint(dropout, x, use_reentrant=mode, preserve_rng_state=False)
    y.sum().backward()
    assert not np.array_equal(x.grad.numpy(), y.detach().numpy())


def _memory_after_forward(checkpointed, layers=8, size=(256, 256)):
    """Bytes still allocated once the forward of a chain of layers has returned, and the gradients."""
    rng = np.random.default_rng(0)
    weights = [ndgrad.from_numpy(rng.standard_normal((size[1], size[1])) / 16).requires_grad_() for _ in range(layers)]
    x = ndgrad.from_numpy(rng.standard_normal(size)).requires_grad_()

    def layer(h, w):
        return (h @ w).tanh().sin().exp().tanh()

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        h = x
        for w in weights:
            h = checkpoint(layer, h, w, use_reentrant=False) if checkpointed else layer(h, w)
        held = tracemalloc.get_traced_memory()[0] - before
        h.sum().backward()
    finally:
        tracemalloc.stop()
    return held, [w.grad.numpy() for w in weights]


def test_checkpointing_keeps_only_the_layer_boundaries():
    plain, plain_grads = _memory_after_forward(False)
    checked, checked_grads = _memory_after_forward(True)
    activation = 256 * 256 * 8
    assert plain >= 8 * 3 * activation  # every layer keeps its tanh, exp and tanh results for backward
    assert checked <= 8 * 1.2 * activation  # only each layer's output, the next one's input
    for a, b in zip(plain_grads, checked_grads):
        assert np.array_equal(a, b)
