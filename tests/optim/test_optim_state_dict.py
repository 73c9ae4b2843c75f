"""state_dict / load_state_dict against torch: the format (integer ids, per-parameter state, groups), a checkpoint
round trip mid-run that continues on torch's trajectory, dtype casting, the checks and the hooks."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .oracle import TRAJECTORY, assert_same_structure, both, trajectory

CONFIGS = {
    "SGD": {"lr": 0.1, "momentum": 0.9, "nesterov": True},
    "Adam": {"lr": 0.1, "amsgrad": True},
    "AdamW": {"lr": 0.1},
    "RMSprop": {"lr": 0.01, "centered": True, "momentum": 0.5},
    "Adagrad": {"lr": 0.1, "lr_decay": 0.01},
    "Adadelta": {"weight_decay": 0.1},
    "Adamax": {"lr": 0.1},
    "NAdam": {"lr": 0.1},
    "RAdam": {"lr": 0.1},
}
GROUPS = [((0, 2), {}), ((1,), {"lr": 0.01})]


@pytest.mark.parametrize("name", CONFIGS)
def test_round_trip_mid_run_continues_on_torchs_trajectory(name):
    uninterrupted, _ = trajectory(torch, name, CONFIGS[name], groups=GROUPS)
    expected, torch_optimizer = trajectory(torch, name, CONFIGS[name], groups=GROUPS, reload_at=20)
    # NOTE: loading casts NAdam's float32 mu_product to the parameters' float64, so torch itself moves by rounding.
    np.testing.assert_allclose(expected, uninterrupted, rtol=0, atol=1e-12)
    actual, ndgrad_optimizer = trajectory(ndgrad, name, CONFIGS[name], groups=GROUPS, reload_at=20)
    assert_close(actual, expected, **TRAJECTORY)
    assert_same_structure(ndgrad_optimizer.state_dict(), torch_optimizer.state_dict())


@pytest.mark.parametrize("name", CONFIGS)
def test_state_dict_format(name):
    _, _, torch_optimizer, ndgrad_optimizer = both(name, CONFIGS[name], groups=GROUPS, steps=3)
    ours, theirs = ndgrad_optimizer.state_dict(), torch_optimizer.state_dict()
    assert_same_structure(ours, theirs)
    assert ours["param_groups"][1]["params"] == [2]


def test_printed_state_dict(same):
    same("""
p = torch.tensor([1., -2., 3.], requires_grad=True)
q = torch.tensor(0.5, requires_grad=True)
opt = torch.optim.Adam([{'params': [p]}, {'params': [q], 'lr': 0.1}], amsgrad=True)
print(opt.state_dict())
for g in ([0.5, -1., 2.], [1., 1., -1.]):
    p.grad = torch.tensor(g)
    opt.step()
print(opt.state_dict())
print(opt.state[p])
print(torch.optim.Adagrad([p], initial_accumulator_value=0.5).state_dict())
""")


def test_loaded_state_is_shared_and_cast_to_the_parameter_dtype(same):
    same("""
p = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
p.grad = torch.tensor([1., 1.], dtype=torch.float64)
opt.step()
saved = opt.state_dict()
again = torch.optim.SGD([p], lr=0.5, momentum=0.9)
again.load_state_dict(saved)
print(again.state[p]['momentum_buffer'] is opt.state[p]['momentum_buffer'], again.param_groups[0]['lr'])
q = torch.tensor([1., 2.], requires_grad=True)
other = torch.optim.SGD([q], lr=0.5, momentum=0.9)
other.load_state_dict(saved)
print(other.state[q])
""")


def test_step_counters_and_old_float_steps(same):
    same("""
p = torch.tensor([1., 2.], requires_grad=True)
opt = torch.optim.NAdam([p])
p.grad = torch.tensor([1., 1.])
opt.step()
saved = opt.state_dict()
saved['state'][0]['step'] = 4.0
saved['state'][0]['mu_product'] = 0.5
opt.load_state_dict(saved)
print(opt.state[p]['step'], opt.state[p]['mu_product'])
torch.set_default_dtype(torch.float64)
try:
    r = torch.optim.RAdam([p])
    r.step()
    print(r.state[p]['step'].dtype)
finally:
    torch.set_default_dtype(torch.float32)
""")


@pytest.mark.parametrize("saved_groups", ["[{'params': [p]}, {'params': [q]}]", "[p, q]"])
def test_load_checks_the_group_sizes(same, saved_groups):
    same(f"""
p = torch.zeros(2, requires_grad=True)
q = torch.zeros(3, requires_grad=True)
torch.optim.Adam([p]).load_state_dict(torch.optim.Adam({saved_groups}).state_dict())
""")


def test_state_dict_hooks(same):
    same("""
p = torch.zeros(2, requires_grad=True)
opt = torch.optim.SGD([p], lr=0.1)
log = []
opt.register_state_dict_pre_hook(lambda o: log.append('pre'))
opt.register_state_dict_post_hook(lambda o, sd: {**sd, 'extra': 1})
opt.register_state_dict_pre_hook(lambda o: log.append('first'), prepend=True)
print(sorted(opt.state_dict()), log)
def shrink(o, sd):
    sd['param_groups'][0]['lr'] = 0.25
opt.register_load_state_dict_pre_hook(shrink)
handle = opt.register_load_state_dict_post_hook(lambda o: log.append(o.param_groups[0]['lr']))
opt.load_state_dict(opt.state_dict())
handle.remove()
opt.load_state_dict(opt.state_dict())
print(log)
""")


def test_deepcopy_and_pickle_carry_parameters_and_state(same):
    same("""
import copy, pickle
p = torch.tensor([1., 2.], requires_grad=True)
opt = torch.optim.Adam([p], lr=0.1)
p.grad = torch.tensor([1., -1.])
opt.step()
clone = copy.deepcopy(opt)
q = clone.param_groups[0]['params'][0]
print(q is p, q, clone.state[q]['step'], list(clone.state) == [q])
clone.step()
print(q, p)
again = pickle.loads(pickle.dumps(opt))
r = again.param_groups[0]['params'][0]
r.grad = torch.tensor([1., 1.])
again.step()
print(r, again.state[r]['exp_avg'], again)
""")
