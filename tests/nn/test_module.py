"""Module's own API against torch.nn.Module: registration by assignment and its errors, traversal, modes,
gradients, conversion, lookup by dotted name, printing and __dir__. Each snippet runs with both libraries."""

import pytest

NET = """
import torch
nn = torch.nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer('steps', torch.zeros(2))
        self.register_buffer('cache', torch.ones(1), persistent=False)
        self.block = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        self.shared = self.fc
        self.scale = nn.Parameter(torch.tensor(2.0))
    def forward(self, x):
        return self.block(self.fc(x)) * self.scale
net = Net()
"""


@pytest.mark.parametrize("code", [
    "print(net)",
    "print([name for name, _ in net.named_parameters()])",
    "print([name for name, _ in net.named_parameters(remove_duplicate=False)])",
    "print([name for name, _ in net.named_parameters(prefix='model', recurse=False)])",
    "print([tuple(p.shape) for p in net.parameters()])",
    "print([name for name, _ in net.named_buffers()], [tuple(b.shape) for b in net.buffers(recurse=False)])",
    "print([name for name, _ in net.named_children()], [type(m).__name__ for m in net.children()])",
    "print([name for name, _ in net.named_modules()])",
    "print([name for name, _ in net.named_modules(remove_duplicate=False, prefix='root')])",
    "print([type(m).__name__ for m in net.modules()])",
    "print(list(net.state_dict()))",
    "print(net.training, net.eval() is net, net.training, net.block[1].training, net.train().block[0].training)",
    "net.train(0)",
    "print(net.requires_grad_(False) is net, [p.requires_grad for p in net.parameters()])",
    "print(net.get_submodule('block.0'), net.get_submodule('') is net)",
    "net.get_submodule('block.5')",
    "net.get_submodule('fc.weight')",
    "print(net.get_parameter('block.0.bias').shape, net.get_buffer('steps'))",
    "net.get_parameter('steps')",
    "net.get_parameter('fc.nothing')",
    "net.get_buffer('scale')",
    "net.set_submodule('block.1', nn.Tanh()); print(net.block)",
    "net.set_submodule('block.new', nn.Tanh(), strict=True)",
    "net.set_submodule('', nn.Tanh())",
    "net.set_submodule('fc', 3)",
    "net.set_submodule('scale', nn.Tanh())",
    "print(sorted(set(dir(net)) & {'fc', 'steps', 'cache', 'block', 'scale', 'shared', 'training', 'forward', 'x'}))",
    "print([k for k in dir(net.block) if k[0].isdigit()], dir(net) == sorted(dir(net)))",
    "del net.fc; del net.steps; del net.scale; print(list(net.state_dict()), hasattr(net, 'fc'))",
    "net.nothing",
    "del net.nothing",
    "print(net.apply(lambda m: print(type(m).__name__)) is net)",
    "y = net(torch.ones(4, 3)); y.sum().backward(); print(net.fc.weight.grad is not None); net.zero_grad();"
    " print(net.fc.weight.grad, net.scale.grad)",
    "net(torch.ones(4, 3)).sum().backward(); net.zero_grad(set_to_none=False); print(net.fc.bias.grad)",
    "print(net._get_name(), net.extra_repr() == '', net.block._get_name())",
])
def test_module_api(same, code):
    same(NET + code)


@pytest.mark.parametrize("code", [
    "net.fc.weight = torch.ones(2, 3)",
    "net.fc = 3",
    "net.steps = 5",
    "net.steps = None; print(net.steps, list(net.state_dict()))",
    "net.fc = None; print(net)",
    "net.fc.weight = None; print(list(net.fc.state_dict()))",
    "net.fc.weight = nn.Parameter(torch.ones(2, 3) * 2); print(net.fc.weight)",
    "net.fc.bias = nn.Parameter(torch.ones(2)) * 2",
    "net.steps = torch.arange(2.); print(net.state_dict()['steps'])",
    "net.cache = torch.arange(3.); print(list(net.state_dict()), net.cache)",
    "net.extra = nn.Parameter(torch.ones(1)); net.steps = nn.Parameter(torch.zeros(2)); print(list(net.state_dict()))",
    "net.fc = nn.Parameter(torch.ones(1)); print(net)",
    "net.scale = nn.ReLU(); print(list(net.state_dict()), net)",
    "net.register_buffer('fc', torch.ones(1))",
    "net.register_buffer('a.b', torch.ones(1))",
    "net.register_buffer('', torch.ones(1))",
    "net.register_buffer(3, torch.ones(1))",
    "net.register_buffer('x', 3)",
    "net.register_buffer('x', [1.0])",
    "net.register_parameter('fc', None)",
    "net.register_parameter('a.b', None)",
    "net.register_parameter('', None)",
    "net.register_parameter(1.5, None)",
    "net.register_parameter('w', torch.ones(2))",
    "net.register_parameter('w', nn.Parameter(torch.ones(2)) * 1)",
    "net.register_parameter('w', None); print(net.w, list(net.state_dict()))",
    "net.add_module('steps', nn.ReLU())",
    "net.add_module('a.b', nn.ReLU())",
    "net.add_module('', nn.ReLU())",
    "net.add_module(7, nn.ReLU())",
    "net.add_module('m', torch.ones(1))",
    "net.add_module('m', 'relu')",
    "net.register_module('m', nn.ReLU()); print(net.m)",
    "net.add_module('m', None); print(net)",
])
def test_assignment_rules(same, code):
    same(NET + code)


@pytest.mark.parametrize("code", [
    "class M(nn.Module):\n    def __init__(self):\n        self.w = nn.Parameter(torch.ones(1))\nM()",
    "class M(nn.Module):\n    def __init__(self):\n        self.m = nn.ReLU()\nM()",
    "class M(nn.Module):\n    def __init__(self):\n        self.register_buffer('b', torch.ones(1))\nM()",
    "class M(nn.Module):\n    def __init__(self):\n        self.register_parameter('b', None)\nM()",
    "nn.Module(3)",
    "nn.Module(a=3)",
    "nn.Module()(torch.ones(1))",
    "print(nn.Module(), repr(nn.Sequential()))",
])
def test_construction_errors(same, code):
    same("import torch\nnn = torch.nn\n" + code)


@pytest.mark.parametrize("code", [
    "net.double(); print(net.fc.weight.dtype, net.steps.dtype, net.fc.weight.grad)",
    "w = net.fc.weight; net.to(torch.float64); print(w is net.fc.weight, w.dtype, net.steps.dtype)",
    "net.to(dtype=torch.float64).half(); print(net.fc.bias.dtype, net.scale.dtype)",
    "net.to(torch.ones(1, dtype=torch.float64)); print(net.fc.weight.dtype)",
    "net.to('cpu', torch.float64, non_blocking=True); print(net.fc.weight.dtype)",
    "net.to(torch.int64)",
    "net.register_buffer('count', torch.tensor(3)); net.double(); print(net.count.dtype, net.count)",
    "net.register_buffer('count', torch.tensor(3)); net.to(torch.float64); print(net.count.dtype)",
    "net(torch.ones(1, 3)).sum().backward(); net.double(); print(net.fc.weight.grad.dtype,"
    " net.fc.weight.requires_grad)",
    "print(net.float() is net, net.cpu() is net, net.type(torch.float64) is net, net.fc.weight.dtype)",
    "w = net.fc.weight; net.to_empty(device='cpu');"
    " print(net.fc.weight is w, w.shape, w.requires_grad, net.steps.shape)",
])
def test_conversion(same, code):
    same(NET + code)


def test_cuda_without_a_gpu_fails_as_torch_does(same):
    same(NET + "print(nn.ReLU().cuda()); net.cuda()")


def test_parameter(same):
    same("""
import torch
p = torch.nn.Parameter(torch.ones(2, 2))
print(p, repr(p), str(p), p.requires_grad, p.is_leaf, type(p).__name__)
q = torch.nn.Parameter(torch.arange(3.0), requires_grad=False)
print(q, q.requires_grad)
print(torch.nn.Parameter(), isinstance(p, torch.Tensor))
y = p * 2
print(type(y).__name__, y.grad_fn.name())
print(type(p.data).__name__, type(p.detach()).__name__)
x = torch.zeros(2); r = torch.nn.Parameter(x); x.add_(1); print(r, r._version)
import copy
c = copy.deepcopy(p); print(type(c).__name__, c, c is p)
import pickle
print(pickle.loads(pickle.dumps(p)))
torch.nn.Parameter(torch.tensor([1, 2]))
""")


def test_deepcopy_and_pickle_of_a_module(same):
    same(NET + """
import copy, pickle
net.fc.weight.grad = torch.ones(2, 3)
twin = copy.deepcopy(net)
print(twin, twin.fc.weight is net.fc.weight, twin.shared is twin.fc, twin.fc.weight.grad)
print(torch.equal(twin.fc.weight, net.fc.weight))
again = pickle.loads(pickle.dumps(net))
print(list(again.state_dict()), type(again.fc.weight).__name__)
""")
