"""A backward that builds no graph carries raw arrays and lets a leaf adopt the array it receives (see Note [array
rules] in ndgrad.autograd.engine). What must hold, against torch: a gradient that someone else still holds (the
caller's seed, a hook's keepsake, another leaf's gradient) is never adopted, so writing one .grad in place changes
nothing else; and the tools that watch a pass see it only when they are on."""

import numpy as np
import pytest
import torch

import ndgrad
from ndgrad.autograd import observers


def _both(program):
    """Run ``program(lib)`` on ndgrad and on torch; it returns a list of tensors, compared value by value."""
    ours, theirs = program(ndgrad), program(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


def test_one_gradient_for_two_leaves_is_not_shared():
    def program(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        (a + b).sum().backward()  # add's rule hands the same gradient to both inputs
        a.grad.mul_(10)
        return [a.grad, b.grad]

    _both(program)


def test_the_callers_seed_is_not_adopted():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        seed = lib.tensor([0.5, 0.25])
        x.backward(seed)  # a leaf as the root: its AccumulateGrad receives the seed itself
        x.grad.add_(1)
        return [x.grad, seed]

    _both(program)


def test_a_gradient_a_hook_keeps_is_not_adopted():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        kept = []
        x.register_hook(lambda grad: kept.append(grad))
        (x * 3).sum().backward()
        x.grad.add_(1)
        return [x.grad, kept[0]]

    _both(program)


def test_a_fresh_gradient_is_adopted_and_accumulation_adds_into_it():
    x = ndgrad.tensor(np.ones((3, 4)), requires_grad=True)
    w = ndgrad.tensor(np.full((4, 2), 2.0))
    (x @ w).sum().backward()
    adopted = x.grad
    (x @ w).sum().backward()
    assert x.grad is adopted  # accumulated in place, as torch does
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 4), 8.0))


def test_gradients_of_0d_ops_are_arrays_in_grad():
    """NumPy computes 0-d results as scalars; .grad is still a tensor over a 0-d array."""
    x = ndgrad.tensor(2.0, requires_grad=True)
    (x * x * 3).backward()
    assert type(x.grad.numpy()) is np.ndarray and x.grad.item() == 12.0


def test_the_plain_pass_consults_no_watch(monkeypatch):
    def refuse(*args):
        raise AssertionError("the engine consulted a watch with no tool on")

    monkeypatch.setattr(observers.PassWatch, "node_starting", refuse)
    monkeypatch.setattr(observers.PassWatch, "node_ran", refuse)
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    (x.sin() * x).sum().backward()
    with pytest.raises(AssertionError, match="consulted a watch"):
        ndgrad.autograd.grad((x.sin() * x).sum(), x)  # capture is a watch


def test_the_collector_is_paused_during_a_pass_and_restored_after():
    import gc

    seen = []
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda grad: seen.append(gc.isenabled()))
    assert gc.isenabled()
    (x * 2).sum().backward()
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        (x * 2).sum().backward()
        assert not gc.isenabled()  # the user's choice stays
    finally:
        gc.enable()


@pytest.mark.parametrize("seed", [[1.0, 2.0, 3.0, 4.0], [float("inf"), float("nan"), 3.0, -float("inf")]])
def test_relu_gradient_with_non_finite_values_is_torch_s(seed):
    """relu's array rule multiplies by the mask only when every gradient is finite (inf * 0 would be nan)."""
    def program(lib):
        x = lib.tensor([-1.0, 0.0, 2.0, float("nan")], requires_grad=True)
        x.relu().backward(lib.tensor(seed))
        return [x.grad]

    ours, theirs = program(ndgrad), program(torch)
    np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
