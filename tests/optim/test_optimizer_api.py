"""The Optimizer API against torch: argument checks and their messages, parameter groups, repr, zero_grad, step
hooks, closures, the foreach/fused/capturable/differentiable flags, and in-place semantics of a step."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ndgrad

NAMES = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "LBFGS"]
CHECKED = {  # the hyperparameters each optimizer validates
    "SGD": ["lr", "momentum", "weight_decay", "dampening"],
    "Adam": ["lr", "eps", "weight_decay", "beta0", "beta1"],
    "AdamW": ["lr", "eps", "weight_decay", "beta0", "beta1"],
    "RMSprop": ["lr", "alpha", "eps", "weight_decay", "momentum"],
    "Adagrad": ["lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"],
    "Adadelta": ["lr", "rho", "eps", "weight_decay"],
    "Adamax": ["lr", "eps", "weight_decay", "beta0", "beta1"],
    "NAdam": ["lr", "eps", "weight_decay", "momentum_decay", "beta0", "beta1"],
    "RAdam": ["lr", "eps", "weight_decay", "beta0", "beta1"],
    "LBFGS": ["lr"],
}


def _construct(lib, name, argument, value):
    """Build the optimizer with one argument set; its repr, or the (type, message) of what it raised."""
    param = lib.zeros(2, requires_grad=True)
    kwargs = {"betas": (value, 0.999) if argument == "beta0" else (0.9, value)} if "beta" in argument else {
        argument: value
    }
    try:
        return repr(getattr(lib.optim, name)([param], **kwargs))
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return type(error).__name__, str(error)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from([(name, argument) for name in NAMES for argument in CHECKED[name]]),
    st.one_of(st.floats(-2, 2), st.sampled_from([-1.0, 0.0, 1.0, -0.0, math.inf, -math.inf, math.nan, -1, 0, 1])),
)
def test_hyperparameter_checks_match_torch(case, value):
    name, argument = case
    expected = _construct(torch, name, argument, value)
    assert _construct(ndgrad, name, argument, value) == (expected.replace("torch", "ndgrad") if isinstance(
        expected, str) else expected)


@pytest.mark.parametrize("code", [
    "torch.optim.SGD([p], lr=torch.tensor([0.1, 0.2]))",
    "torch.optim.SGD([p], lr=0.1, nesterov=True)",
    "torch.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)",
    "torch.optim.Adam([p], betas=(0, 0.9))",
    "torch.optim.Adam([p], betas=(torch.tensor(0.9), 0.99))",
    "print(torch.optim.Adam([p], betas=(torch.tensor(0.9), torch.tensor([0.99]))).param_groups[0]['betas'])",
    "torch.optim.Adam([p], lr=torch.tensor(0.1), foreach=True)",
    "torch.optim.Adam([p], betas=(torch.tensor(0.9), torch.tensor(0.99)), foreach=True)",
    "print(torch.optim.Adamax([p], betas=[0.5, 0.9]))",
    "print(torch.optim.LBFGS([p]))",
    "torch.optim.LBFGS([{'params': [p]}, {'params': [torch.zeros(1, requires_grad=True)]}])",
    "torch.optim.SGD([p], capturable=True)",
    "torch.optim.RMSprop([p], fused=True)",
])
def test_constructor_arguments(same, code):
    same("p = torch.zeros(2, requires_grad=True)\n" + code)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
@pytest.mark.parametrize("flags", ["fused=True, foreach=True", "fused=True, differentiable=True"])
def test_refused_flag_combinations(same, name, flags):
    same(f"p = torch.zeros(2, requires_grad=True)\ntorch.optim.{name}([p], {flags})")


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_capturable_needs_an_accelerator(same, name):
    same(f"""
p = torch.zeros(2, requires_grad=True)
opt = torch.optim.{name}([p], capturable=True)
opt.step()
print(opt.state)
p.grad = torch.ones(2)
opt.step()
""")


@pytest.mark.parametrize("name", NAMES[:-1])
def test_differentiable_step_on_a_leaf_is_an_inplace_error(same, name):
    same(f"""
p = torch.zeros(2, requires_grad=True)
opt = torch.optim.{name}([p], differentiable=True)
p.grad = torch.ones(2)
with torch.no_grad():
    opt.step()
print(p.detach())
opt.step()
""")


# ---- parameter groups --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("code", [
    "torch.optim.SGD([])",
    "torch.optim.SGD(p)",
    "torch.optim.SGD([p, 3])",
    "torch.optim.SGD([p * 2])",
    "torch.optim.SGD([{'params': [p]}, {'params': [q, p]}])",
    "torch.optim.SGD([{'params': {p}}])",
    "torch.optim.SGD([{'params': [p]}, {'params': [('q', q)]}])",
    "torch.optim.SGD([('p', p), q])",
    "torch.optim.SGD([p]).add_param_group([q])",
    "torch.optim.SGD([p]).add_param_group({'params': p})",
    "opt = torch.optim.SGD([p], lr=0.5); opt.add_param_group({'params': q, 'lr': 0.1, 'extra': 1}); print(opt)",
    "print(torch.optim.SGD([('p', p), ('q', q)]).param_groups[0]['param_names'])",
    "print(torch.optim.SGD([('p', p)]).state_dict())",
    "opt = torch.optim.SGD([p, p]); opt.add_param_group({'params': [q]}); print(opt.state_dict())",
    "print(torch.optim.SGD([torch.tensor(2., requires_grad=True) * 1]))",
])
def test_param_group_checks(same, code):
    same("p = torch.zeros(2, requires_grad=True)\nq = torch.ones(3, requires_grad=True)\n" + code)


def test_required_hyperparameters_and_custom_optimizers(same):
    same("""
required = __import__(torch.__name__ + '.optim.optimizer', fromlist=['Optimizer']).required
print(repr(required))
class Plain(torch.optim.Optimizer):
    def __init__(self, params, lr=required):
        super().__init__(params, {'lr': lr})
    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group['params']:
                p.add_(p.grad, alpha=-group['lr'])
p = torch.ones(2, requires_grad=True)
opt = Plain([{'params': [p], 'lr': 0.5}])
log = []
opt.register_step_post_hook(lambda o, args, kwargs: log.append('post'))
p.grad = torch.tensor([1., 2.])
opt.step()
print(p, log, opt)
Plain([p])
""")


def test_repr(same):
    same("""
p = torch.zeros(2, requires_grad=True)
q = torch.zeros(2, requires_grad=True)
for name in ['SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'Adadelta', 'Adamax', 'NAdam', 'RAdam']:
    print(getattr(torch.optim, name)([{'params': [p]}, {'params': [q], 'lr': 0.5}]))
print(torch.optim.Adam([p], lr=torch.tensor(0.01)))
""")


# ---- zero_grad, steps, hooks -------------------------------------------------------------------------------------
def test_zero_grad(same):
    same("""
p = torch.ones(2, requires_grad=True)
q = torch.ones(2, requires_grad=True)
opt = torch.optim.SGD([p, q], lr=0.1)
(p * q).sum().backward()
opt.zero_grad(set_to_none=False)
print(p.grad, q.grad)
opt.zero_grad()
print(p.grad, q.grad)
x = torch.ones(2, requires_grad=True)
p.grad = x * 2
print(p.grad.requires_grad)
opt.zero_grad(set_to_none=False)
print(p.grad, p.grad.requires_grad, p.grad.grad_fn)
""")


def test_step_is_an_inplace_write_autograd_sees(same):
    same("""
p = torch.tensor([1., 2.], requires_grad=True)
opt = torch.optim.Adam([p], lr=0.1)
v = p._version
loss = (p * p).sum()
loss.backward(retain_graph=True)
opt.step()
print(p._version > v, p.grad_fn, p.is_leaf)
loss.backward()
""")


def test_parameters_without_grad_are_skipped(same):
    same("""
p = torch.tensor([1., 2.], requires_grad=True)
q = torch.tensor([3., 4.], requires_grad=True)
opt = torch.optim.Adam([p, q], lr=0.1, weight_decay=0.5)
p.grad = torch.tensor([1., -1.])
opt.step()
print(p, q, list(opt.state[p]), q in opt.state)
""")


def test_closure_runs_with_grad_and_its_loss_is_returned(same):
    same("""
p = torch.tensor([1., 2.], requires_grad=True)
opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
def closure():
    opt.zero_grad()
    loss = (p ** 2).sum()
    loss.backward()
    return loss
with torch.no_grad():
    print(opt.step(closure))
print(p)
""")


def test_step_hooks(same):
    same("""
optimizer_module = __import__(torch.__name__ + '.optim.optimizer', fromlist=['Optimizer'])
p = torch.tensor([1., 2.], requires_grad=True)
opt = torch.optim.SGD([p], lr=0.1)
log = []
def pre(o, args, kwargs):
    log.append(('pre', len(args), dict(kwargs)))
    return args, {'closure': lambda: log.append('closure') or 7}
h1 = opt.register_step_pre_hook(pre)
h2 = opt.register_step_post_hook(lambda o, args, kwargs: log.append(('post', sorted(kwargs))))
h3 = optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k: log.append('global pre'))
h4 = optimizer_module.register_optimizer_step_post_hook(lambda o, a, k: log.append('global post'))
p.grad = torch.ones(2)
print(opt.step())
for h in (h1, h2, h3, h4):
    h.remove()
opt.step()
print(log, p)
opt.register_step_pre_hook(lambda o, a, k: 5)
opt.step()
""")


def test_lbfgs_needs_a_closure(same):
    same("""
p = torch.tensor([1., 2.], requires_grad=True)
torch.optim.LBFGS([p]).step()
""")
