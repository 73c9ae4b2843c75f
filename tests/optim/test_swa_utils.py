"""optim.swa_utils against torch: AveragedModel (running mean, EMA, custom avg_fn, use_buffers), update_bn, SWALR
learning rates, state_dict, and the errors."""

import pytest

SETUP = """
import torch
nn = torch.nn
swa = torch.optim.swa_utils
def weights(*shape, seed=0):
    return torch.tensor(np.random.default_rng(seed + sum(shape)).standard_normal(shape))
model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2)).double()
def set_weights(k):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(weights(*p.shape, seed=10 * k + i))
def step(k):
    set_weights(k)
    model(weights(4, 3, seed=k))
set_weights(100)
"""

AVERAGING = [
    "avg = swa.AveragedModel(model); print(avg); print(list(avg.state_dict()))",
    "avg = swa.AveragedModel(model)\nfor k in range(3):\n    step(k); avg.update_parameters(model)\n"
    "print(list(avg.parameters()), avg.n_averaged, avg.module[1].running_mean)",
    "avg = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))\nfor k in range(3):\n"
    "    step(k); avg.update_parameters(model)\nprint(list(avg.parameters()))",
    "avg = swa.AveragedModel(model, avg_fn=swa.get_ema_avg_fn(0.5), use_buffers=True)\nfor k in range(3):\n"
    "    step(k); avg.update_parameters(model)\nprint(list(avg.parameters()), list(avg.buffers()))",
    "avg = swa.AveragedModel(model, avg_fn=swa.get_swa_avg_fn(), use_buffers=True)\nfor k in range(3):\n"
    "    step(k); avg.update_parameters(model)\nprint(list(avg.buffers()), avg(weights(2, 3)))",
    "avg = swa.AveragedModel(model, multi_avg_fn=swa.get_swa_multi_avg_fn(), use_buffers=True)\nfor k in range(3):\n"
    "    step(k); avg.update_parameters(model)\nprint(list(avg.buffers()))",
    "swa.AveragedModel(model, avg_fn=swa.get_swa_avg_fn(), multi_avg_fn=swa.get_swa_multi_avg_fn())",
    "swa.get_ema_avg_fn(1.5)",
    "swa.get_ema_multi_avg_fn(-0.1)",
    "loader = [weights(4, 3, seed=s) for s in range(3)]; swa.update_bn(loader, model); print(model[1].running_mean,"
    " model[1].running_var, model[1].momentum, model.training)",
    "loader = [(weights(4, 3, seed=s), 0) for s in range(2)]; model.eval(); swa.update_bn(loader, model);"
    " print(model[1].running_mean, model.training)",
    "print(swa.update_bn([weights(2, 3)], nn.Linear(3, 1)))",
]


@pytest.mark.parametrize("code", AVERAGING)
def test_averaged_model_and_update_bn(same, code):
    same(SETUP + code)


SCHEDULER = [
    "opt = torch.optim.SGD(model.parameters(), lr=0.5); s = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=3)\n"
    "for _ in range(5):\n    opt.step(); s.step(); print(s.get_last_lr())",
    "opt = torch.optim.SGD(model.parameters(), lr=0.5); s = swa.SWALR(opt, 0.05, anneal_epochs=4,"
    " anneal_strategy='linear')\nfor _ in range(5):\n    opt.step(); s.step(); print(opt.param_groups[0]['lr'])",
    "opt = torch.optim.SGD(model.parameters(), lr=0.5); s = swa.SWALR(opt, 0.05, anneal_epochs=0); opt.step();"
    " s.step(); print(s.get_last_lr())",
    "opt = torch.optim.SGD([{'params': model[0].parameters()}, {'params': model[1].parameters(), 'lr': 0.1}], lr=0.5);"
    " s = swa.SWALR(opt, [0.01, 0.02], anneal_epochs=2); opt.step(); s.step(); print(s.get_last_lr())",
    "opt = torch.optim.SGD(model.parameters(), lr=0.5); s = swa.SWALR(opt, 0.05); print(sorted(s.state_dict()));"
    " s.get_lr()",
    "opt = torch.optim.SGD(model.parameters(), lr=0.5); swa.SWALR(opt, 0.05, anneal_strategy='exp')",
    "opt = torch.optim.SGD(model.parameters(), lr=0.5); swa.SWALR(opt, 0.05, anneal_epochs=-1)",
    "opt = torch.optim.SGD(model.parameters(), lr=0.5); swa.SWALR(opt, [0.1, 0.2])",
    "opt = torch.optim.SGD(model.parameters(), lr=0.5); s = swa.SWALR(opt, 0.05, 3); opt.step(); s.step();"
    " d = s.state_dict(); t = swa.SWALR(torch.optim.SGD(model.parameters(), lr=0.5), 0.1);"
    " t.load_state_dict(d); print(t.anneal_func.__name__, t.anneal_epochs)",
]


@pytest.mark.parametrize("code", SCHEDULER)
def test_swalr(same, code):
    same(SETUP + code)
