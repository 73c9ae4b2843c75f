"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode as calls, context managers and decorators;
nesting; and the flag being per thread (threads do not see each other's mode, and can run backward at once)."""

import threading

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

LIBS = pytest.mark.parametrize("lib", [torch, ndgrad], ids=["torch", "ndgrad"])


def test_context_managers_and_nesting(same):
    expected = same(
        """
x = torch.ones(2, requires_grad=True)
print(torch.is_grad_enabled(), (x * 2).requires_grad)
with torch.no_grad():
    print(torch.is_grad_enabled(), (x * 2).requires_grad, (x * 2).grad_fn)
    with torch.enable_grad():
        print(torch.is_grad_enabled(), (x * 2).requires_grad)
        with torch.no_grad():
            print(torch.is_grad_enabled())
        print(torch.is_grad_enabled())
    with torch.set_grad_enabled(True):
        print(torch.is_grad_enabled())
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
"""
    )
    assert expected.stdout.splitlines() == [
        "True True", "False False None", "True True", "False", "True", "True", "False", "True",
    ]


def test_mode_restored_when_the_block_raises(same):
    expected = same(
        """
try:
    with torch.no_grad():
        raise ValueError('boom')
except ValueError:
    pass
print(torch.is_grad_enabled())
try:
    with torch.no_grad():
        with torch.enable_grad():
            raise KeyError
except KeyError:
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
"""
    )
    assert expected.stdout == "True\nTrue\nTrue"


def test_decorators_with_and_without_parentheses(same):
    expected = same(
        """
x = torch.ones(2, requires_grad=True)

@torch.no_grad()
def f():
    return torch.is_grad_enabled(), (x * 2).requires_grad

@torch.no_grad
def f2():
    return torch.is_grad_enabled()

@torch.enable_grad()
def g():
    return (x * 2).requires_grad

@torch.enable_grad
def g2():
    return torch.is_grad_enabled()

@torch.set_grad_enabled(False)
def h():
    return torch.is_grad_enabled()

print(f(), f2(), torch.is_grad_enabled())
with torch.no_grad():
    print(g(), g2(), torch.is_grad_enabled())
print(torch.is_grad_enabled(), h(), torch.is_grad_enabled())
print(f.__name__, g2.__name__, h.__name__)
"""
    )
    assert expected.stdout.splitlines()[:3] == ["(False, False) False True", "True True False", "True False True"]


def test_decorated_function_keeps_mode_per_call(same):
    """Each call enters the mode afresh; recursion and exceptions inside leave the caller's mode intact."""
    same(
        """
@torch.no_grad()
def depth(n):
    if n == 0:
        raise RuntimeError('bottom')
    return depth(n - 1)

try:
    depth(3)
except RuntimeError as e:
    print(e, torch.is_grad_enabled())
print(depth.__wrapped__ is not None)
"""
    )


def test_decorated_generator_runs_each_step_in_mode(same):
    expected = same(
        """
@torch.no_grad()
def gen():
    yield torch.is_grad_enabled()
    yield torch.is_grad_enabled()
    return 'done'

for value in gen():
    print(value, torch.is_grad_enabled())
g = gen()
next(g); next(g)
try:
    next(g)
except StopIteration as stop:
    print(stop.value)
"""
    )
    assert expected.stdout == "False True\nFalse True\ndone"


def test_set_grad_enabled_as_a_call(same):
    expected = same(
        """
x = torch.ones(2, requires_grad=True)
mode = torch.set_grad_enabled(False)
print(torch.is_grad_enabled(), (x * 2).requires_grad, type(mode).__name__)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
with torch.set_grad_enabled(True):
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
torch.set_grad_enabled(True)
"""
    )
    assert expected.stdout == "False False set_grad_enabled\nTrue\nFalse\nTrue\nTrue\nFalse"
    assert ndgrad.is_grad_enabled()


def test_inference_mode(same):
    expected = same(
        """
x = torch.ones(2, requires_grad=True)
print(torch.is_inference_mode_enabled())
with torch.inference_mode():
    y = x * 2
    print(torch.is_grad_enabled(), torch.is_inference_mode_enabled(), y.requires_grad, y.grad_fn)
    with torch.inference_mode(False):
        print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
    print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
with torch.no_grad():
    with torch.inference_mode(False):
        print(torch.is_grad_enabled())
    with torch.inference_mode():
        with torch.enable_grad():
            print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())

@torch.inference_mode()
def k():
    return torch.is_inference_mode_enabled(), torch.is_grad_enabled()

@torch.inference_mode
def k2():
    return torch.is_inference_mode_enabled(), torch.is_grad_enabled()

@torch.inference_mode(False)
def k3():
    return torch.is_inference_mode_enabled(), torch.is_grad_enabled()

print(k(), k2(), k3(), k2.__name__)
"""
    )
    assert expected.stdout.splitlines()[1] == "False True False None"


def test_backward_works_inside_no_grad_for_graph_built_outside(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
with torch.no_grad():
    y.backward()
    print(x.grad, torch.is_grad_enabled())
"""
    )


def test_engine_restores_mode_after_backward():
    x = ndgrad.tensor([1.0], requires_grad=True)
    with ndgrad.no_grad():
        pass
    (x * x).sum().backward(create_graph=True)
    assert ndgrad.is_grad_enabled()
    with ndgrad.no_grad():
        (x * 3).sum()
    y = (x.exp()).sum()
    with ndgrad.no_grad():
        y.backward()
        assert not ndgrad.is_grad_enabled()


# ---- threads ------------------------------------------------------------------------------------------------------
def _in_thread(function):
    result, errors = {}, []

    def target():
        try:
            result["value"] = function()
        except BaseException as error:  # noqa: BLE001 - reported in the main thread
            errors.append(error)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=30)
    if errors:
        raise errors[0]
    return result["value"]


@LIBS
def test_new_thread_starts_with_grad_enabled(lib):
    with lib.no_grad():
        inside = _in_thread(lambda: (lib.is_grad_enabled(), (lib.ones(1, requires_grad=True) * 2).requires_grad))
        assert not lib.is_grad_enabled()
    assert inside == (True, True)


@LIBS
def test_new_thread_does_not_inherit_inference_mode(lib):
    with lib.inference_mode():
        assert _in_thread(lambda: (lib.is_inference_mode_enabled(), lib.is_grad_enabled())) == (False, True)


@LIBS
def test_mode_set_in_a_thread_does_not_leak_out(lib):
    _in_thread(lambda: lib.set_grad_enabled(False))
    assert lib.is_grad_enabled()


@LIBS
def test_two_threads_toggling_modes_do_not_interfere(lib):
    barrier = threading.Barrier(2, timeout=30)
    observed = {"off": [], "on": []}

    def worker(name, mode):
        x = lib.ones(2, requires_grad=True)
        for _ in range(50):
            with lib.set_grad_enabled(mode):
                barrier.wait()  # both threads are now inside their own mode at the same time
                observed[name].append((lib.is_grad_enabled(), (x * 2).requires_grad))
                barrier.wait()

    threads = [threading.Thread(target=worker, args=a) for a in (("off", False), ("on", True))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert observed["off"] == [(False, False)] * 50
    assert observed["on"] == [(True, True)] * 50
    assert lib.is_grad_enabled()


def test_concurrent_backward_on_separate_graphs():
    """Two threads build and differentiate their own graphs at once; each gets its own, correct gradient."""
    rng = np.random.default_rng(0)
    values = [rng.uniform(-1, 1, 16) for _ in range(2)]
    barrier = threading.Barrier(2, timeout=30)
    results = [None, None]

    def worker(slot):
        grads = []
        for step in range(30):
            x = ndgrad.tensor(values[slot], dtype=ndgrad.float64, requires_grad=True)
            barrier.wait()
            y = x
            for _ in range(20):
                y = (y * (slot + 1.5)).tanh() + y * 0.5
            (y * step).sum().backward()
            grads.append(x.grad.numpy().copy())
        results[slot] = grads

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)

    for slot in range(2):
        for step in (0, 7, 29):
            x = torch.tensor(values[slot], dtype=torch.float64, requires_grad=True)
            y = x
            for _ in range(20):
                y = (y * (slot + 1.5)).tanh() + y * 0.5
            (y * step).sum().backward()
            assert_close(results[slot][step], x.grad)


def test_no_grad_in_one_thread_does_not_stop_recording_in_another():
    started, release = threading.Event(), threading.Event()

    def hold_no_grad():
        with ndgrad.no_grad():
            started.set()
            release.wait(timeout=30)

    thread = threading.Thread(target=hold_no_grad)
    thread.start()
    try:
        started.wait(timeout=30)
        x = ndgrad.ones(2, requires_grad=True)
        assert ndgrad.is_grad_enabled() and (x * 2).requires_grad
    finally:
        release.set()
        thread.join(timeout=30)
