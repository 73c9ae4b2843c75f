"""Learning-rate schedulers against torch: the lr (and cycled momentum) sequence over 40 steps for every schedule
and its options, state_dict contents and a mid-run reload, closed-form epochs, warnings and errors."""

import pytest
import torch

import ndgrad

from .oracle import assert_same_structure

STEPS = 40
SCHEDULES = [
    "StepLR(opt, step_size=3, gamma=0.5)",
    "MultiStepLR(opt, milestones=[2, 5, 5, 11], gamma=0.3)",
    "ExponentialLR(opt, gamma=0.9)",
    "CosineAnnealingLR(opt, T_max=7, eta_min=0.01)",
    "CosineAnnealingLR(opt, T_max=10)",
    "LambdaLR(opt, lr_lambda=lambda epoch: 0.95 ** epoch)",
    "LambdaLR(opt, lr_lambda=[lambda epoch: 1 / (epoch + 1), lambda epoch: 0.9 ** epoch])",
    "MultiplicativeLR(opt, lr_lambda=lambda epoch: 0.9)",
    "LinearLR(opt, start_factor=0.25, end_factor=0.9, total_iters=8)",
    "LinearLR(opt)",
    "ConstantLR(opt, factor=0.5, total_iters=4)",
    "PolynomialLR(opt, total_iters=12, power=2.0)",
    "SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=5), S.ExponentialLR(opt, gamma=0.9)], [5])",
    "SequentialLR(opt, [S.ConstantLR(opt, factor=0.2, total_iters=3), S.CosineAnnealingLR(opt, T_max=6), "
    "S.StepLR(opt, step_size=4)], milestones=[4, 10])",
    "ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=3), S.ExponentialLR(opt, gamma=0.95)])",
    "ChainedScheduler([S.StepLR(opt, 5), S.LinearLR(opt, total_iters=10)], optimizer=opt)",
    "CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)",
    "CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3, step_size_down=5, mode='triangular2')",
    "CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, mode='exp_range', gamma=0.97, base_momentum=0.5)",
    "CyclicLR(opt, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 0.5 ** x, scale_mode='iterations', "
    "cycle_momentum=False)",
    "OneCycleLR(opt, max_lr=0.5, total_steps=40)",
    "OneCycleLR(opt, max_lr=[0.5, 1.0], epochs=4, steps_per_epoch=10, anneal_strategy='linear', three_phase=True)",
    "OneCycleLR(opt, max_lr=0.3, total_steps=45, cycle_momentum=False, pct_start=0.5, div_factor=10.0, "
    "final_div_factor=100.0)",
    "OneCycleLR(opt, max_lr=0.3, total_steps=50, base_momentum=[0.7, 0.8], max_momentum=0.99)",
    "CosineAnnealingWarmRestarts(opt, T_0=5)",
    "CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)",
    "ReduceLROnPlateau(opt, patience=2)",
    "ReduceLROnPlateau(opt, mode='max', factor=0.5, patience=1, threshold=0.1, threshold_mode='abs', cooldown=2)",
    "ReduceLROnPlateau(opt, factor=0.5, patience=0, min_lr=[0.02, 0.1], eps=0.01)",
    "ReduceLROnPlateau(opt, mode='max', patience=3, threshold_mode='rel', threshold=0.5, min_lr=0.05)",
]
WITH_ADAM = [  # schedules that cycle momentum: with Adam they cycle beta1
    "CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)",
    "OneCycleLR(opt, max_lr=0.5, total_steps=40)",
]
METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.51, 0.52, 0.53, 0.4, 0.41] * 4


def _optimizer(lib, name):
    params = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    if name == "Adam":
        return lib.optim.Adam([{"params": params[:1]}, {"params": params[1:], "lr": 0.5}], lr=0.1)
    return lib.optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.5}], lr=0.1, momentum=0.9)


def _scheduler(lib, opt, code):
    return eval("S." + code, {"S": lib.optim.lr_scheduler, "opt": opt})


def _advance(scheduler, opt, steps, start=0):
    """Step optimizer then scheduler; record the lrs, momenta and betas after each step."""
    record = []
    for step in range(start, start + steps):
        opt.step()
        if type(scheduler).__name__ == "ReduceLROnPlateau":
            scheduler.step(METRICS[step])
        else:
            scheduler.step()
        groups = opt.param_groups
        record.append((scheduler.get_last_lr(), [g.get("momentum") for g in groups], [g.get("betas") for g in groups]))
    return record


def _run(lib, code, optimizer="SGD", reload_at=None):
    opt = _optimizer(lib, optimizer)
    scheduler = _scheduler(lib, opt, code)
    first = [(scheduler.get_last_lr(), [group["lr"] for group in opt.param_groups])]
    if reload_at is None:
        return first + _advance(scheduler, opt, STEPS), scheduler
    record = first + _advance(scheduler, opt, reload_at)
    saved_optimizer, saved_scheduler = opt.state_dict(), scheduler.state_dict()
    opt = _optimizer(lib, optimizer)
    scheduler = _scheduler(lib, opt, code)
    opt.load_state_dict(saved_optimizer)
    scheduler.load_state_dict(saved_scheduler)
    return record + _advance(scheduler, opt, STEPS - reload_at, start=reload_at), scheduler


@pytest.mark.parametrize("code", SCHEDULES)
def test_schedule_matches_torch(code):
    expected, torch_scheduler = _run(torch, code)
    actual, scheduler = _run(ndgrad, code)
    assert actual == expected
    assert_same_structure(scheduler.state_dict(), torch_scheduler.state_dict(), tolerance=0)


@pytest.mark.parametrize("code", WITH_ADAM)
def test_momentum_cycles_adams_beta1(code):
    assert _run(ndgrad, code, optimizer="Adam")[0] == _run(torch, code, optimizer="Adam")[0]


@pytest.mark.parametrize("code", SCHEDULES)
def test_state_dict_reload_mid_run(code):
    expected, _ = _run(torch, code, reload_at=15)
    actual, _ = _run(ndgrad, code, reload_at=15)
    assert actual == expected


def test_lambda_state_dict_keeps_callable_objects(same):
    same("""
class Decay:
    def __init__(self, rate):
        self.rate = rate
    def __call__(self, epoch):
        return self.rate ** epoch
p = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([p], lr=1.0)
sched = torch.optim.lr_scheduler.LambdaLR(opt, [Decay(0.5)])
opt.step(); sched.step()
saved = sched.state_dict()
print(saved)
other = torch.optim.lr_scheduler.LambdaLR(opt, [Decay(0.9)])
other.load_state_dict(saved)
print(other.lr_lambdas[0].rate, other.last_epoch)
cyc = torch.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0, scale_fn=Decay(0.7))
print(sorted(cyc.state_dict()), cyc.state_dict()['_scale_fn_custom'])
""")


def test_closed_form_epochs_warn(same):
    same("""
p = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([p], lr=1.0)
S = torch.optim.lr_scheduler
for sched in (S.StepLR(opt, 3, gamma=0.5), S.MultiStepLR(opt, [2, 4]), S.ExponentialLR(opt, 0.5),
              S.CosineAnnealingLR(opt, 10), S.LinearLR(opt), S.ConstantLR(opt), S.PolynomialLR(opt),
              S.LambdaLR(opt, lambda e: 1 / (e + 1))):
    opt.step()
    sched.step(7)
    print(type(sched).__name__, sched.get_last_lr(), sched.last_epoch)
""")


def test_warm_restarts_with_fractional_epochs(same):
    same("""
p = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([p], lr=1.0)
sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3)
for epoch in (0.5, 1.5, 2.0, 3.25, 9.0, 8.5, 20.0):
    sched.step(epoch)
    print(sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch)
sched.step(-1)
""")


def test_order_warnings(same):
    same("""
p = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([p], lr=1.0)
sched = torch.optim.lr_scheduler.StepLR(opt, 2)
sched.step()
sched.step()
print(opt.step)
other = torch.optim.SGD([p], lr=1.0)
s2 = torch.optim.lr_scheduler.ExponentialLR(other, 0.5)
other.step = lambda closure=None: None
s2.step()
print(s2.get_lr())
""")


def test_tensor_learning_rate_is_filled_in_place(same):
    same("""
p = torch.zeros(1, requires_grad=True)
lr = torch.tensor(0.5)
opt = torch.optim.SGD([p], lr=lr)
sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
for _ in range(3):
    opt.step(); sched.step()
print(opt.param_groups[0]['lr'] is lr, lr, sched.get_last_lr(), sched.base_lrs, opt.param_groups[0]['initial_lr'])
""")


def test_resuming_needs_initial_lr(same):
    same("""
p = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([p], lr=1.0)
torch.optim.lr_scheduler.StepLR(opt, 2, last_epoch=3)
""")


@pytest.mark.parametrize("code", [
    "S.StepLR(object(), 2)",
    "S.ConstantLR(opt, factor=1.5)",
    "S.LinearLR(opt, start_factor=0)",
    "S.LinearLR(opt, end_factor=2)",
    "S.LambdaLR(opt, [lambda e: 1, lambda e: 2])",
    "S.MultiplicativeLR(opt, 3)",
    "S.SequentialLR(opt, [], [])",
    "S.SequentialLR(opt, [S.StepLR(opt, 2)], [3])",
    "S.SequentialLR(opt, [S.StepLR(opt, 2), 5], [3])",
    "S.SequentialLR(opt, [S.StepLR(opt, 2), S.ReduceLROnPlateau(opt)], [3])",
    "S.SequentialLR(opt, [S.StepLR(opt, 2), S.StepLR(torch.optim.SGD([p]), 2)], [3])",
    "S.ChainedScheduler([])",
    "S.ChainedScheduler([S.StepLR(opt, 2), S.StepLR(torch.optim.SGD([p]), 2)])",
    "S.ReduceLROnPlateau(opt, factor=1.0)",
    "S.ReduceLROnPlateau(opt, mode='middle')",
    "S.ReduceLROnPlateau(opt, threshold_mode='log')",
    "S.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2])",
    "S.ReduceLROnPlateau(object())",
    "r = S.ReduceLROnPlateau(opt, min_lr=[0.1], patience=0); opt.add_param_group({'params': [q]}); r.step(1); "
    "r.step(2)",
    "r = S.ReduceLROnPlateau(opt, patience=0); opt.add_param_group({'params': [q]}); r.step(1); r.step(2, epoch=5); "
    "print(r.get_last_lr(), r.last_epoch, r.state_dict())",
    "S.CyclicLR(opt, 0.1, [0.2, 0.3])",
    "S.CyclicLR(opt, 0.1, 0.2, mode='square')",
    "S.CyclicLR(torch.optim.Adagrad([q]), 0.1, 0.2)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=0)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=2.0)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=2, eta_min='0')",
    "S.OneCycleLR(opt, 0.1)",
    "S.OneCycleLR(opt, 0.1, total_steps=0)",
    "S.OneCycleLR(opt, 0.1, epochs=2.0, steps_per_epoch=3)",
    "S.OneCycleLR(opt, 0.1, epochs=2, steps_per_epoch=-3)",
    "S.OneCycleLR(opt, 0.1, total_steps=10, pct_start=1)",
    "S.OneCycleLR(opt, 0.1, total_steps=10, anneal_strategy='exp')",
    "S.OneCycleLR(torch.optim.Adagrad([q]), 0.1, total_steps=10)",
    "s = S.OneCycleLR(opt, 0.1, total_steps=3)\nfor _ in range(4):\n    opt.step(); s.step()",
    "S.StepLR(opt, 2).get_lr()",
])
def test_errors(same, code):
    same("p = torch.zeros(1, requires_grad=True)\nq = torch.zeros(1, requires_grad=True)\n"
         "opt = torch.optim.SGD([p], lr=1.0, momentum=0.9)\nS = torch.optim.lr_scheduler\n" + code)
