"""Module hooks against torch: forward pre-hooks and hooks (with_kwargs, prepend, always_call, replacing
arguments and results), handles that remove, the global hooks, and full backward (pre-)hooks."""

import pytest

SETUP = """
import torch
nn = torch.nn
torch.manual_seed(0)
fc = nn.Linear(3, 2)
fc.weight.data = torch.tensor([[0.5, -1.0, 0.25], [1.5, 0.5, -0.75]])
fc.bias.data = torch.tensor([0.1, -0.2])
x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]], requires_grad=True)
log = []
"""


@pytest.mark.parametrize("code", [
    # forward pre-hooks: see args, replace them (a non-tuple is wrapped), with kwargs
    "h = fc.register_forward_pre_hook(lambda m, args: log.append(len(args))); fc(x); h.remove(); fc(x); print(log)",
    "fc.register_forward_pre_hook(lambda m, args: args[0] * 0); print(fc(x))",
    "fc.register_forward_pre_hook(lambda m, args: (args[0] * 0,)); print(fc(x))",
    "fc.register_forward_pre_hook(lambda m, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True); print(fc(x))",
    "fc.register_forward_pre_hook(lambda m, args, kwargs: args, with_kwargs=True); fc(x)",
    "fc.register_forward_pre_hook(lambda m, args, kwargs: 5, with_kwargs=True); fc(x)",
    # forward hooks: replace the output, order, prepend, kwargs
    "fc.register_forward_hook(lambda m, args, out: out.sum()); print(fc(x))",
    "fc.register_forward_hook(lambda m, a, o: log.append(1)); fc.register_forward_hook(lambda m, a, o: log.append(2),"
    " prepend=True); fc.register_forward_pre_hook(lambda m, a: log.append(0)); fc(x); print(log)",
    "fc.register_forward_hook(lambda m, args, kwargs, out: log.append((len(args), sorted(kwargs))), with_kwargs=True);"
    " fc(input=x); print(log)",
    "h = fc.register_forward_hook(lambda m, a, kw, o: o * 2, with_kwargs=True); print(fc(x)); h.remove(); print(fc(x))",
    "with fc.register_forward_hook(lambda m, a, o: o * 0): print(fc(x))\nprint(fc(x))",
    # always_call: runs when forward raises
    "fc.register_forward_hook(lambda m, a, o: log.append('always'), always_call=True)\n"
    "fc.register_forward_hook(lambda m, a, o: log.append('normal'))\n"
    "try:\n    fc(torch.ones(2, 4))\nexcept RuntimeError as e:\n    print(log)",
    "fc.register_forward_hook(lambda m, a, o: 1 / 0, always_call=True)\nfc(torch.ones(2, 4))",
    # nested modules: hooks of children run inside the parent's call
    "net = nn.Sequential(fc, nn.ReLU())\nfor name, m in net.named_modules():\n"
    "    m.register_forward_pre_hook(lambda m, a, name=name: log.append('pre ' + name))\n"
    "    m.register_forward_hook(lambda m, a, o, name=name: log.append('post ' + name))\nnet(x); print(log)",
])
def test_forward_hooks(same, code):
    same(SETUP + code)


@pytest.mark.parametrize("code", [
    "h = nn.modules.module.register_module_forward_pre_hook(lambda m, a: log.append(type(m).__name__))\n"
    "nn.Sequential(fc, nn.Tanh())(x); h.remove(); fc(x); print(log)",
    "h = nn.modules.module.register_module_forward_hook(lambda m, a, o: o * 2)\nprint(fc(x)); h.remove(); print(fc(x))",
    "h = nn.modules.module.register_module_forward_hook(lambda m, a, kw, o: log.append(sorted(kw)), with_kwargs=True)\n"
    "fc(input=x); h.remove(); print(log)",
    "h = nn.modules.module.register_module_full_backward_hook(lambda m, gi, go: log.append(type(m).__name__))\n"
    "nn.Sequential(fc, nn.Tanh())(x).sum().backward(); h.remove(); print(log)",
])
def test_global_hooks(same, code):
    same(SETUP + code)


@pytest.mark.parametrize("code", [
    # grad_input and grad_output as torch sees them
    "def hook(m, gi, go):\n    log.append([None if g is None else g.tolist() for g in gi + go])\n"
    "fc.register_full_backward_hook(hook); fc(x).pow(2).sum().backward(); print(log); print(x.grad)",
    # replacing grad_input changes what flows to x
    "fc.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,)); fc(x).sum().backward(); print(x.grad)",
    "fc.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0])); fc(x).sum().backward()",
    # pre-hooks replace grad_output
    "fc.register_full_backward_pre_hook(lambda m, go: (go[0] * 0 + 1,)); fc(x).pow(2).sum().backward();"
    " print(x.grad, fc.bias.grad)",
    "fc.register_full_backward_pre_hook(lambda m, go: (go[0], go[0])); fc(x).sum().backward()",
    "fc.register_full_backward_pre_hook(lambda m, go: log.append('pre'));"
    " fc.register_full_backward_hook(lambda m, gi, go: log.append('post')); fc(x).sum().backward(); print(log)",
    # no input requires grad: grad_input is all None and must stay so
    "fc.register_full_backward_hook(lambda m, gi, go: log.append(gi)); fc(x.detach()).sum().backward(); print(log)",
    "fc.register_full_backward_hook(lambda m, gi, go: (torch.ones(2, 3),)); fc(x.detach()).sum().backward()",
    # several inputs and outputs, some not tensors
    "class Two(nn.Module):\n    def forward(self, a, b, k):\n        return a * b * k, a - b\n"
    "m = Two()\nm.register_full_backward_hook(lambda m, gi, go: log.append((len(gi), gi[2], len(go))))\n"
    "y = torch.ones(2, requires_grad=True)\nu, v = m(x[0, :2], y,"
    " 3.0)\n(u.sum() + v.sum()).backward()\nprint(log, y.grad)",
    "h = fc.register_full_backward_hook(lambda m, gi, go: log.append(1)); h.remove(); fc(x).sum().backward();"
    " print(log)",
    "fc.register_full_backward_hook(lambda m, gi, go: None); print(fc(x).grad_fn.name(),"
    " fc(x.detach()).grad_fn.name())",
])
def test_backward_hooks(same, code):
    same(SETUP + code)
