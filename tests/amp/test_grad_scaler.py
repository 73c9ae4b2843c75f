"""GradScaler against torch: a training run with an inf injected (the scale's trajectory, the skipped steps, the
weights, the state_dict), and its other paths, warnings and errors."""

import numpy as np
import pytest
import torch

import ndgrad


def _train(lib, steps=7, bad_steps=(2, 5), unscale_first=False):
    """Linear -> tanh -> Linear under float16 autocast, scaled by a GradScaler growing every 2 good steps; on the
    bad steps the loss is multiplied by inf, so the gradients hold infs and NaNs and the step must be skipped."""
    rng = np.random.default_rng(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2))
    with lib.no_grad():
        for param in model.parameters():
            param.copy_(lib.tensor(rng.standard_normal(tuple(param.shape)).astype(np.float32)))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
    x, y = (lib.tensor(rng.standard_normal(shape).astype(np.float32)) for shape in ((8, 4), (8, 2)))
    record = {"scale": [], "returned": [], "stepped": [], "grad_after_unscale": []}
    for step in range(steps):
        optimizer.zero_grad()
        with lib.autocast("cpu", dtype=lib.float16):
            loss = lib.nn.functional.mse_loss(model(x), y)
        if step in bad_steps:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        if unscale_first:
            scaler.unscale_(optimizer)
            record["grad_after_unscale"].append(model[0].weight.grad.numpy().copy())
        before = model[0].weight.detach().numpy().copy()
        record["returned"].append(scaler.step(optimizer))
        record["stepped"].append(not np.array_equal(before, model[0].weight.detach().numpy()))
        scaler.update()
        record["scale"].append(scaler.get_scale())
    record["params"] = [p.detach().numpy().copy() for p in model.parameters()]
    record["state_dict"] = scaler.state_dict()
    return record


@pytest.mark.parametrize("unscale_first", [False, True])
def test_training_run_matches_torch(unscale_first):
    ours, theirs = _train(ndgrad, unscale_first=unscale_first), _train(torch, unscale_first=unscale_first)
    assert ours["scale"] == theirs["scale"]
    assert ours["returned"] == theirs["returned"]  # None on the skipped steps (SGD returns None as well)
    assert ours["stepped"] == theirs["stepped"] == [step not in (2, 5) for step in range(7)]
    assert ours["state_dict"] == theirs["state_dict"]
    assert list(ours["state_dict"]) == ["scale", "growth_factor", "backoff_factor", "growth_interval",
                                        "_growth_tracker"]
    for mine, reference in zip(ours["params"] + ours["grad_after_unscale"],
                               theirs["params"] + theirs["grad_after_unscale"]):
        np.testing.assert_allclose(mine, reference, rtol=1e-2, atol=1e-3, equal_nan=True)


def test_skipped_steps_leave_the_weights_as_they_were():
    """Against a plain run: the bad steps change nothing, so skipping them all equals never having them."""
    skipping, clean = _train(ndgrad, steps=3, bad_steps=(1,)), _train(ndgrad, steps=2, bad_steps=())
    assert skipping["scale"][-1] == 2.0**10 * 0.5  # 1024 held, halved by the bad step; one good step since
    for mine, reference in zip(skipping["params"], clean["params"]):
        np.testing.assert_allclose(mine, reference, rtol=1e-6)


SETUP = """
import numpy as np
weight = torch.nn.Parameter(torch.tensor([[1.0, -2.0], [0.5, 4.0]]))
optimizer = torch.optim.SGD([weight], lr=0.1)
scaler = torch.amp.GradScaler('cpu', init_scale=8.0, growth_factor=4.0, backoff_factor=0.25, growth_interval=3)
def backward(factor=1.0):
    optimizer.zero_grad()
    scaler.scale((weight * weight).sum() * factor).backward()
"""


def test_scale_unscale_step_update(same):
    same(SETUP + """
print(scaler.get_scale(), scaler.is_enabled(), scaler.state_dict())
backward()
print(weight.grad)
scaler.unscale_(optimizer)
print(weight.grad)
print(scaler.step(optimizer), weight)
scaler.update()
print(scaler.get_scale(), scaler._get_growth_tracker())
for factor in (1.0, 1.0, float('nan'), 1.0):
    backward(factor)
    print(scaler.step(optimizer))
    scaler.update()
    print(scaler.get_scale(), scaler._get_growth_tracker(), weight)
scaler.update(2.0)
print(scaler.get_scale())
scaler.update(torch.tensor(32.0))
print(scaler.get_scale(), scaler.state_dict())
""")


def test_scale_takes_nested_lists_and_tuples(same):
    same(SETUP + """
out = scaler.scale([torch.ones(2), (torch.ones(1), [torch.full((2,), 3.0)])])
print(type(out).__name__, type(out[1]).__name__, out)
print(list(scaler.scale(iter([torch.ones(1)]))))
scaler.scale([torch.ones(1), 3])
""")


def test_setters_and_state_dict_round_trip(same):
    same(SETUP + """
scaler.set_growth_factor(3.0); scaler.set_backoff_factor(0.125); scaler.set_growth_interval(7)
print(scaler.get_growth_factor(), scaler.get_backoff_factor(), scaler.get_growth_interval())
backward(); scaler.step(optimizer); scaler.update()
other = torch.amp.GradScaler('cpu')
other.load_state_dict(scaler.state_dict())
print(other.state_dict() == scaler.state_dict(), other.get_scale(), other._get_growth_tracker())
backward(); other.step(optimizer); other.update()
print(other.state_dict())
import pickle
print(pickle.loads(pickle.dumps(scaler)).state_dict())
""")


def test_disabled_scaler_passes_through(same):
    same(SETUP + """
off = torch.amp.GradScaler('cpu', enabled=False)
loss = (weight * weight).sum()
print(off.scale(loss) is loss, off.get_scale(), off.state_dict(), off.is_enabled(), off._get_growth_tracker())
loss.backward()
print(off.step(optimizer), weight)
print(off.unscale_(optimizer), off.update(), off.load_state_dict({}))
""")


ERRORS = [
    "scaler.step(optimizer)",
    "scaler.unscale_(optimizer)",
    "scaler.update()",
    "backward(); scaler.unscale_(optimizer); scaler.unscale_(optimizer)",
    "backward(); scaler.step(optimizer); scaler.unscale_(optimizer)",
    "backward(); scaler.step(optimizer); scaler.step(optimizer)",
    "backward(); scaler.step(optimizer, closure=lambda: 0)",
    "scaler.scale(torch.ones(1)); scaler.step(torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0))",
    "scaler.scale(torch.ones(1)); scaler.update()",
    "weight.grad = torch.ones(2, 2).half(); scaler.scale(torch.ones(1)); scaler.step(optimizer)",
    "backward(); scaler.step(optimizer); scaler.update(torch.tensor([1.0, 2.0]))",
    "backward(); scaler.step(optimizer); scaler.update(torch.tensor(1.0, requires_grad=True))",
    "scaler.scale(torch.ones(1)); scaler.update(4)",
    "scaler.load_state_dict({})",
    "backward(); scaler.unscale_(optimizer); import pickle; pickle.dumps(scaler)",
    "torch.amp.GradScaler('cpu', growth_factor=1.0)",
    "torch.amp.GradScaler('cpu', backoff_factor=1.0)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_are_torchs(same, code):
    same(SETUP + code + "\n")


@pytest.mark.skipif(ndgrad.cuda.is_available(), reason="torch's warnings for a machine without CUDA")
@pytest.mark.parametrize("code", [
    "scaler = torch.amp.GradScaler()",
    "scaler = torch.amp.GradScaler('cuda', enabled=False)",
    "scaler = torch.cuda.amp.GradScaler()",
    "scaler = torch.cpu.amp.GradScaler(init_scale=4.0)",
])
def test_cuda_without_a_gpu_and_deprecated_names_warn_as_torch(same, code):
    same(SETUP + code + """
loss = (weight * weight).sum()
print(scaler.is_enabled(), scaler.get_scale(), scaler.scale(loss) is loss)
scaler.scale(loss).backward()
print(scaler.step(optimizer), weight)
scaler.update()
""")


def test_step_returns_what_the_optimizer_returns_unless_skipped(same):
    same(SETUP + """
class Answering(torch.optim.SGD):
    def step(self, closure=None):
        super().step()
        return 42
optimizer = Answering([weight], lr=0.1)
for factor in (1.0, float('inf'), 1.0):
    backward(factor)
    print(scaler.step(optimizer), scaler.get_scale())
    scaler.update()
""")
