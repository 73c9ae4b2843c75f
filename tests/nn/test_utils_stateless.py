"""nn.utils.stateless.functional_call, skip_init, the conv/linear + batch norm fusions, get_total_norm and
clip_grads_with_norm_, against torch: outputs, gradients, the module left as it was, warnings and errors."""

import pytest

SETUP = """
import torch
nn = torch.nn
u = nn.utils
torch.manual_seed(0)
def weights(*shape):
    return torch.tensor(np.random.default_rng(sum(shape)).standard_normal(shape))
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(weights(3))
        self.b = self.a
        self.register_buffer("count", torch.zeros(()))
    def forward(self, x):
        self.count.add_(1)
        return x * self.a + self.b
net = nn.Sequential(nn.Linear(3, 2).double(), nn.Tanh(), nn.Linear(2, 1).double())
with torch.no_grad():
    for p in net.parameters():
        p.copy_(weights(*p.shape))
x = weights(4, 3)
"""

FUNCTIONAL_CALL = [
    "w = weights(2, 3).requires_grad_(); y = u.stateless.functional_call(net, {'0.weight': w}, x);"
    " y.sum().backward(); print(y, w.grad, net[0].weight.grad, net[0].weight)",
    "y = u.stateless.functional_call(net, {'0.weight': torch.zeros(2, 3, dtype=torch.float64)}, (x,)); print(y)",
    "print(u.stateless.functional_call(net, {}, kwargs={'input': x}))",
    "u.stateless.functional_call(net, {'0.weight': weights(2, 3)}, x, strict=True)",
    "u.stateless.functional_call(net, {'0.weight': weights(2, 3), 'nope': x}, x, strict=True)",
    "m = Tied(); print(u.stateless.functional_call(m, {'a': torch.ones(3, dtype=torch.float64)}, x[0]), m.a)",
    "m = Tied(); print(u.stateless.functional_call(m, {'a': torch.ones(3, dtype=torch.float64)}, x[0],"
    " tie_weights=False))",
    "m = Tied(); u.stateless.functional_call(m, {'a': torch.ones(3), 'b': torch.zeros(3)}, x[0])",
    "m = Tied(); d = {'count': torch.zeros(())}; u.stateless.functional_call(m, d, x[0]); print(d, m.count)",
]


@pytest.mark.parametrize("code", FUNCTIONAL_CALL)
def test_functional_call(same, code):
    same(SETUP + code)


OTHERS = [
    "m = u.skip_init(nn.Linear, 3, 2, bias=False); print(m, m.weight.shape, m.weight.requires_grad)",
    "u.skip_init(nn.Tanh)",
    "u.skip_init(int, 3)",
    "conv = nn.Conv2d(2, 3, 3).double(); bn = nn.BatchNorm2d(3).double(); bn.running_mean.copy_(weights(3));"
    " bn.running_var.copy_(weights(3).abs() + 0.5); bn.weight.data = weights(3); conv.eval(); bn.eval();"
    " f = u.fuse_conv_bn_eval(conv, bn); i = weights(1, 2, 4, 4);"
    " print(f, (f(i) - bn(conv(i))).abs().max() < 1e-12, f.weight.requires_grad, type(f.bias).__name__)",
    "conv = nn.ConvTranspose1d(2, 3, 3, bias=False).double(); bn = nn.BatchNorm1d(3, affine=False).double();"
    " bn.running_var.copy_(weights(3).abs()); conv.eval(); bn.eval(); f = u.fuse_conv_bn_eval(conv, bn, True);"
    " i = weights(1, 2, 4); print((f(i) - bn(conv(i))).abs().max() < 1e-12, f.bias.shape)",
    "u.fuse_conv_bn_eval(nn.Conv1d(1, 1, 1), nn.BatchNorm1d(1))",
    "conv = nn.Conv1d(1, 1, 1).eval(); u.fuse_conv_bn_eval(conv, nn.BatchNorm1d(1, track_running_stats=False).eval())",
    "lin = nn.Linear(3, 2).double().eval(); bn = nn.BatchNorm1d(2).double().eval(); bn.running_mean.copy_(weights(2));"
    " f = u.fuse_linear_bn_eval(lin, bn); print((f(x) - bn(lin(x))).abs().max() < 1e-12, f)",
    "u.fuse_linear_bn_eval(nn.Linear(3, 2).eval(), nn.BatchNorm1d(3).eval())",
    "w, b = u.fuse_linear_bn_weights(weights(2, 3), None, weights(2), weights(2).abs(), 1e-3, weights(2), weights(2));"
    " print(w, b)",
    "w, b = u.fuse_conv_bn_weights(weights(2, 1, 3), weights(2), weights(2), weights(2).abs(), 1e-5, None, None);"
    " print(w, b)",
    "print(u.get_total_norm([weights(3), weights(2, 2)]), u.get_total_norm(weights(3), norm_type=1),"
    " u.get_total_norm([]), u.get_total_norm([weights(2)], 'inf'))",
    "t = weights(2); t[0] = float('inf'); u.get_total_norm([t], error_if_nonfinite=True)",
    "p = nn.Parameter(weights(3)); p.grad = weights(3); u.clip_grads_with_norm_([p], 1.0, torch.tensor(4.0,"
    " dtype=torch.float64)); print(p.grad); u.clip_grads_with_norm_(p, 10.0, torch.tensor(1.0)); print(p.grad)",
    "print(u.clip_grads_with_norm_([], 1.0, torch.tensor(1.0)), u.get_total_norm.__name__,"
    " u.clip_grads_with_norm_.__name__)",
]


@pytest.mark.parametrize("code", OTHERS)
def test_skip_init_fusion_and_norms(same, code):
    same(SETUP + code)
