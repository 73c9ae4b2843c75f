"""nn.utils.parametrize and nn.utils.parametrizations against torch: the class swap, repr, state_dict keys, values
and gradients through the parametrized tensor, assignment through right_inverse, caching, removal, and errors."""

import pytest

SETUP = """
import torch
nn = torch.nn
P = nn.utils.parametrize
PS = nn.utils.parametrizations
def weights(*shape, seed=0):
    return torch.tensor(np.random.default_rng(seed + sum(shape)).standard_normal(shape))
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
    def right_inverse(self, A):
        return A.triu()
class Scale(nn.Module):
    def forward(self, X):
        return 2 * X
class Wrong(nn.Module):
    def forward(self, X):
        return X[0]
def linear(n_in, n_out, bias=True):
    m = nn.Linear(n_in, n_out, bias=bias).double()
    with torch.no_grad():
        m.weight.copy_(weights(n_out, n_in))
        if bias:
            m.bias.copy_(weights(n_out, seed=1))
    return m
m = linear(3, 3)
x = weights(4, 3, seed=2)
"""

PARAMETRIZE = [
    "P.register_parametrization(m, 'weight', Symmetric()); print(m); print(type(m).__name__, type(m).__mro__[1])",
    "P.register_parametrization(m, 'weight', Symmetric()); print(list(m.state_dict()), [n for n, _ in"
    " m.named_parameters()]); print(m.weight, m.parametrizations.weight.original)",
    "P.register_parametrization(m, 'weight', Symmetric()); y = m(x); y.sum().backward();"
    " print(y, m.parametrizations.weight.original.grad, m.weight.grad_fn.name())",
    "P.register_parametrization(m, 'weight', Symmetric()); m.weight = weights(3, 3, seed=5); print(m.weight,"
    " m.parametrizations.weight.original)",
    "P.register_parametrization(m, 'weight', Symmetric()); print(P.is_parametrized(m), P.is_parametrized(m, 'weight'),"
    " P.is_parametrized(m, 'bias'), P.type_before_parametrizations(m))",
    "P.register_parametrization(m, 'weight', Symmetric()); P.register_parametrization(m, 'weight', Scale());"
    " print(m, m.weight)",
    "P.register_parametrization(m, 'weight', Symmetric()); P.register_parametrization(m, 'bias', Scale()); print(m);"
    " P.remove_parametrizations(m, 'weight'); print(m, type(m).__name__, m.weight)",
    "P.register_parametrization(m, 'weight', Symmetric()); P.remove_parametrizations(m, 'weight');"
    " print(type(m).__name__, m.weight, hasattr(m, 'parametrizations'), list(m.state_dict()))",
    "P.register_parametrization(m, 'weight', Symmetric());"
    " P.remove_parametrizations(m, 'weight', leave_parametrized=False); print(m.weight.detach())",
    "P.register_parametrization(m, 'weight', Symmetric()); sd = m.state_dict(); m2 = linear(3, 3);"
    " P.register_parametrization(m2, 'weight', Symmetric()); print(m2.load_state_dict(sd), m2.weight)",
    "P.register_parametrization(m, 'weight', Scale());\nwith P.cached():\n"
    "    a = m.weight; b = m.weight\nprint(a is b, m.weight is m.weight)",
    "P.register_parametrization(m, 'nope', Symmetric())",
    "P.register_parametrization(m, 'bias', Wrong())",
    "P.register_parametrization(m, 'bias', Wrong(), unsafe=True); print(m.bias)",
    "P.register_parametrization(m, 'weight', Symmetric()); P.register_parametrization(m, 'weight', Wrong())",
    "P.remove_parametrizations(m, 'weight')",
    "P.register_parametrization(m, 'weight', Scale()); m.weight = torch.zeros(3, 3)",
    "P.register_parametrization(m, 'weight', Scale()); import copy; c = copy.deepcopy(m); print(type(c).__name__,"
    " c.weight)",
    "P.register_parametrization(m, 'weight', Scale()); import pickle; pickle.dumps(m)",
    "P.ParametrizationList([], m.weight)",
    "m.register_buffer('buf', weights(3, 3, seed=7)); P.register_parametrization(m, 'buf', Symmetric());"
    " print(list(m.state_dict()), m.buf)",
    "t = linear(3, 3); P.register_parametrization(m, 'weight', Symmetric()); P.transfer_parametrizations_and_params(m,"
    " t); print(t, t.weight)",
]


@pytest.mark.parametrize("code", PARAMETRIZE)
def test_parametrize(same, code):
    same(SETUP + code)


WEIGHT_NORM = [
    "PS.weight_norm(m); print(m); print(list(m.state_dict())); p = m.parametrizations.weight;"
    " print(p.original0, p.original1, m.weight.detach())",
    "PS.weight_norm(m, dim=1); y = m(x); y.sum().backward(); p = m.parametrizations.weight;"
    " print(y, p.original0.grad, p.original1.grad)",
    "PS.weight_norm(m, dim=None); p = m.parametrizations.weight; print(p.original0, m.weight.detach())",
    "c = nn.Conv2d(2, 3, 2).double(); c.weight.data = weights(3, 2, 2, 2); PS.weight_norm(c, dim=2);"
    " print(c.parametrizations.weight.original0.shape, c.weight.detach())",
    "old = linear(3, 3); nn.utils.weight_norm(old); PS.weight_norm(m); print(m.load_state_dict(old.state_dict()));"
    " print(m.weight.detach())",
]


@pytest.mark.parametrize("code", WEIGHT_NORM)
def test_weight_norm_parametrization(same, code):
    same(SETUP + code)


ORTHOGONAL = [
    "PS.orthogonal(m); print(m); print(list(m.state_dict())); print(m.weight.detach())",
    "PS.orthogonal(m); y = m(x); y.sum().backward(); print(y, m.parametrizations.weight.original.grad)",
    "PS.orthogonal(m, orthogonal_map='cayley'); print(m.weight); m(x).sum().backward();"
    " print(m.parametrizations.weight.original.grad)",
    "PS.orthogonal(m, orthogonal_map='householder'); print(m.weight); m(x).sum().backward();"
    " print(m.parametrizations.weight.original.grad)",
    "r = linear(3, 5); PS.orthogonal(r); print(r.parametrizations.weight[0].orthogonal_map, r.weight.shape,"
    " (r.weight.T @ r.weight - torch.eye(3, dtype=torch.float64)).abs().max() < 1e-10)",
    "r = linear(5, 2); PS.orthogonal(r, orthogonal_map='matrix_exp'); w = r.weight;"
    " print(w.shape, (w @ w.T - torch.eye(2, dtype=torch.float64)).abs().max() < 1e-10)",
    "PS.orthogonal(m, use_trivialization=False); print(list(m.state_dict()), m.weight)",
    "PS.orthogonal(m); m.weight = weights(3, 3, seed=9); print(m.weight.detach())",
    "PS.orthogonal(m, orthogonal_map='qr')",
    "PS.orthogonal(m, 'bias')",
    "PS.orthogonal(m, 'nope')",
    "PS.orthogonal(m); m.weight = torch.zeros(2, 2, dtype=torch.float64)",
]


@pytest.mark.parametrize("code", ORTHOGONAL)
def test_orthogonal(same, code):
    same(SETUP + code)


SPECTRAL_NORM = [
    "PS.spectral_norm(m); print(m); print(list(m.state_dict()))",
    "PS.spectral_norm(m); s = m.parametrizations.weight[0]; s._u.copy_(weights(3, seed=3)); s._v.copy_(weights(3,"
    " seed=4)); y = m(x); y.sum().backward(); print(y, s._u, s._v, m.parametrizations.weight.original.grad)",
    "PS.spectral_norm(m, n_power_iterations=3); s = m.parametrizations.weight[0]; s._u.copy_(weights(3, seed=3));"
    " s._v.copy_(weights(3, seed=4)); m.eval(); print(m(x), s._u)",
    "PS.spectral_norm(m); print(torch.linalg.matrix_norm(m.weight, 2))",
    "c = nn.ConvTranspose1d(2, 4, 3).double(); c.weight.data = weights(2, 4, 3); PS.spectral_norm(c);"
    " print(c.parametrizations.weight[0].dim, c.parametrizations.weight[0]._u.shape)",
    "PS.spectral_norm(m, 'bias'); print(m.bias)",
    "PS.spectral_norm(m, dim=2)",
    "PS.spectral_norm(m, n_power_iterations=0)",
]


@pytest.mark.parametrize("code", SPECTRAL_NORM)
def test_spectral_norm_parametrization(same, code):
    same(SETUP + code)
