"""torch's older weight_norm and spectral_norm (forward pre-hooks on weight_g/weight_v and weight_orig/weight_u/
weight_v) against torch: keys, values, gradients, power iteration only in training, removal, warnings, errors."""

import pytest

SETUP = """
import torch
nn = torch.nn
u = nn.utils
def weights(*shape, seed=0):
    return torch.tensor(np.random.default_rng(seed + sum(shape)).standard_normal(shape))
m = nn.Linear(3, 4).double()
with torch.no_grad():
    m.weight.copy_(weights(4, 3)); m.bias.copy_(weights(4, seed=1))
x = weights(2, 3, seed=2)
def fix_uv(module, name='weight'):
    getattr(module, name + '_u').copy_(weights(*getattr(module, name + '_u').shape, seed=3))
    getattr(module, name + '_v').copy_(weights(*getattr(module, name + '_v').shape, seed=4))
"""

WEIGHT_NORM = [
    "u.weight_norm(m); print(m, list(m.state_dict()), m.weight_g, m.weight_v, m.weight.detach())",
    "u.weight_norm(m, dim=1); y = m(x); y.sum().backward(); print(y, m.weight_g.grad, m.weight_v.grad)",
    "u.weight_norm(m, dim=None); print(m.weight_g)",
    "u.weight_norm(m); u.weight_norm(m)",
    "u.weight_norm(m, name='bias'); print(m.bias_g, m.bias.detach())",
    "u.weight_norm(m); m(x); u.remove_weight_norm(m); print(m.weight, list(m.state_dict()), m._forward_pre_hooks)",
    "u.remove_weight_norm(m)",
    "c = nn.Conv1d(2, 3, 2).double(); c.weight.data = weights(3, 2, 2); u.weight_norm(c, dim=2); print(c.weight_g)",
]


@pytest.mark.parametrize("code", WEIGHT_NORM)
def test_weight_norm(same, code):
    same(SETUP + code)


SPECTRAL_NORM = [
    "u.spectral_norm(m); print(m, list(m.state_dict()), m.weight_u.shape, m.weight_v.shape)",
    "u.spectral_norm(m); fix_uv(m); y = m(x); y.sum().backward(); print(y, m.weight_u, m.weight_v,"
    " m.weight_orig.grad)",
    "u.spectral_norm(m, n_power_iterations=4); fix_uv(m); m.eval(); print(m(x), m.weight_u)",
    "u.spectral_norm(m); fix_uv(m); m(x); m(x); print(m.weight_u, m.weight.detach())",
    "u.spectral_norm(m, eps=1e-3, dim=1); fix_uv(m); print(m(x), m.weight_v)",
    "u.spectral_norm(m); u.spectral_norm(m)",
    "u.spectral_norm(m, n_power_iterations=0)",
    "m.bias = None; u.spectral_norm(m, 'bias')",
    "u.spectral_norm(m); fix_uv(m); m(x); u.remove_spectral_norm(m); print(m.weight, list(m.state_dict()),"
    " m._forward_pre_hooks, len(m._state_dict_hooks))",
    "u.remove_spectral_norm(m)",
    "c = nn.ConvTranspose2d(2, 3, 2).double(); u.spectral_norm(c); print(c.weight_u.shape, c.weight_v.shape)",
    "u.spectral_norm(m); fix_uv(m); sd = m.state_dict(); print(sd._metadata); n = nn.Linear(3, 4).double();"
    " u.spectral_norm(n); print(n.load_state_dict(sd)); print(n.weight_u, n(x))",
    "u.spectral_norm(m); fix_uv(m); m(x); sd = m.state_dict(); sd['weight'] = m.weight.detach(); del sd['weight_v'];"
    " sd._metadata[''].pop('spectral_norm'); n = nn.Linear(3, 4).double(); u.spectral_norm(n);"
    " print(n.load_state_dict(sd)); print((n.weight_v - m.weight_v).abs().max() < 1e-8)",
]


@pytest.mark.parametrize("code", SPECTRAL_NORM)
def test_spectral_norm(same, code):
    same(SETUP + code)
