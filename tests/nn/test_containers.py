"""Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict against torch: indexing, slicing,
mutation, their errors, registration (what parameters() and state_dict() see) and printing."""

import pytest

SETUP = """
import torch
from collections import OrderedDict
nn = torch.nn
a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
"""


@pytest.mark.parametrize("code", [
    "s = nn.Sequential(a, b, c); print(s, len(s), s[0] is a, s[-1] is c, type(s[1:]).__name__, s[1:], s[::2])",
    "s = nn.Sequential(OrderedDict([('first', a), ('act', b)])); print(s, s.first is a, s[1] is b,"
    " list(s.state_dict()))",
    "s = nn.Sequential(a, b); s.append(c); s.insert(1, nn.Tanh()); s.insert(-1, nn.Sigmoid()); print(s)",
    "s = nn.Sequential(a, b); s.extend([c, nn.Tanh()]); print(s)",
    "s = nn.Sequential(a, b, c); s[1] = nn.Tanh(); s[-1] = nn.Identity(); print(s)",
    "s = nn.Sequential(a, b, c); del s[0]; print(s); del s[-1]; print(s)",
    "s = nn.Sequential(a, b, c, nn.Tanh()); del s[1:3]; print(s)",
    "s = nn.Sequential(a, b, c); print(s.pop(1), s)",
    "s = nn.Sequential(a, b); t = nn.Sequential(c); print(s + t, len(s))",
    "s = nn.Sequential(a, b); s += nn.Sequential(c); print(s)",
    "s = nn.Sequential(a, b); print(s * 2, 2 * s)",
    "s = nn.Sequential(a, b); s *= 3; print(s, len(s))",
    "nn.Sequential(a) + [b]",
    "s = nn.Sequential(a); s += 3",
    "nn.Sequential(a) * 0",
    "nn.Sequential(a) * 1.5",
    "nn.Sequential(a, b)[2]",
    "nn.Sequential(a, b)[-3]",
    "nn.Sequential(a, b)['x']",
    "s = nn.Sequential(a); s[3] = b",
    "s = nn.Sequential(a); s.insert(5, b)",
    "s = nn.Sequential(a); s.insert(0, 3)",
    "nn.Sequential(a, 3)",
    "s = nn.Sequential(a, b, c); print(s(torch.ones(4, 2)).shape, [n for n, _ in s.named_parameters()])",
    "print(nn.Sequential(), nn.Sequential()(torch.ones(1)), [k for k in dir(nn.Sequential(a)) if k[0].isdigit()])",
    "s = nn.Sequential(a, b, c); print(list(s), [type(m).__name__ for m in reversed(list(s))])",
])
def test_sequential(same, code):
    same(SETUP + code)


@pytest.mark.parametrize("code", [
    "m = nn.ModuleList([a, b, c]); print(m, len(m), m[0] is a, m[-1] is c, m[1:], type(m[:1]).__name__)",
    "m = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU(), nn.Linear(2, 2)]); print(m)",
    "m = nn.ModuleList([nn.Sequential(nn.Linear(1, 1), nn.ReLU()) for _ in range(2)]); print(m)",
    "print(nn.ModuleList(), nn.ModuleList(None))",
    "m = nn.ModuleList([a]); m.append(b); m.extend([c]); m.insert(1, nn.Tanh()); m += [nn.Sigmoid()]; print(m)",
    "m = nn.ModuleList([a, b]) + nn.ModuleList([c]); print(m)",
    "m = nn.ModuleList([a, b, c]); m[1] = nn.Tanh(); del m[0]; print(m, m.pop(0), m)",
    "m = nn.ModuleList([a, b, c, nn.Tanh()]); del m[::2]; print(m)",
    "nn.ModuleList([a])[1]",
    "nn.ModuleList([a])[-2]",
    "nn.ModuleList([a]).extend(3)",
    "nn.ModuleList([a, 3])",
    "nn.ModuleList([a])(torch.ones(1))",
    "m = nn.ModuleList([a, c]); print([n for n, _ in m.named_parameters()], list(m.state_dict()))",
    "m = nn.ModuleList([a, a]); print(len(list(m.parameters())), m)",
])
def test_module_list(same, code):
    same(SETUP + code)


@pytest.mark.parametrize("code", [
    "d = nn.ModuleDict({'b': b, 'a': a}); print(d, len(d), list(d), d['a'] is a, 'b' in d, 'z' in d)",
    "d = nn.ModuleDict([('x', a), ('y', b)]); print(list(d.keys()), [type(v).__name__ for v in d.values()])",
    "d = nn.ModuleDict(); d['c'] = c; d.update({'a': a}); d.update([['b', b]]); print(d, list(d.items())[0][0])",
    "d = nn.ModuleDict({'a': a, 'b': b}); print(d.pop('a') is a, d); del d['b']; print(d); d.clear(); print(len(d))",
    "nn.ModuleDict({'a': a})['z']",
    "nn.ModuleDict(3)",
    "nn.ModuleDict([3])",
    "nn.ModuleDict([('a', a, b)])",
    "nn.ModuleDict({'a.b': a})",
    "nn.ModuleDict({'a': 3})",
    "d = nn.ModuleDict({'lin': a}); print(list(d.state_dict()), [n for n, _ in d.named_modules()])",
])
def test_module_dict(same, code):
    same(SETUP + code)


@pytest.mark.parametrize("code", [
    "p = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(2, 3, dtype=torch.float64), 'text']); print(p)",
    "p = nn.ParameterList([torch.ones(2)]); print(type(p[0]).__name__, p[0].requires_grad, len(p),"
    " list(p.state_dict()))",
    "p = nn.ParameterList(); p.append(torch.ones(1)); p.extend([torch.zeros(2)]); p += [torch.ones(3)];"
    " print(p, p[-1])",
    "p = nn.ParameterList([torch.ones(1), torch.ones(2), torch.ones(3)]); print(p[1:], type(p[::2]).__name__)",
    "p = nn.ParameterList([torch.ones(1)]); p[0] = torch.zeros(4); print(p[0])",
    "nn.ParameterList([torch.ones(1)])[1]",
    "nn.ParameterList([torch.ones(1)]).extend(torch.ones(3))",
    "nn.ParameterList([torch.ones(1)]).extend(5)",
    "nn.ParameterList([torch.ones(1)])(1)",
    "p = nn.ParameterList([torch.ones(2), torch.ones(3)]); print([n for n, _ in p.named_parameters()], list(p))",
])
def test_parameter_list(same, code):
    same(SETUP + code)


@pytest.mark.parametrize("code", [
    "d = nn.ParameterDict({'w': torch.ones(2), 'b': nn.Parameter(torch.zeros(1, 3)), 'n': 5}); print(d)",
    "d = nn.ParameterDict({'z': torch.ones(1), 'a': torch.ones(2)}); print(list(d), list(d.state_dict()))",
    "d = nn.ParameterDict(OrderedDict(z=torch.ones(1), a=torch.ones(2))); print(list(d), list(reversed(d)))",
    "d = nn.ParameterDict([('x', torch.ones(1))]); d['y'] = torch.ones(2); print(type(d['y']).__name__,"
    " len(d), 'y' in d)",
    "d = nn.ParameterDict({'a': torch.ones(1), 'b': torch.ones(2)}); print(d.pop('a'), d.popitem()[0], len(d))",
    "d = nn.ParameterDict({'a': torch.ones(1)}); print(d.get('a').shape, d.get('q', 7), d.setdefault('n',"
    " torch.ones(3)).shape)",
    "d = nn.ParameterDict({'a': torch.ones(1)}); e = d.copy(); print(e['a'] is d['a'], list(d.fromkeys(['u', 'v'])))",
    "d = nn.ParameterDict({'a': torch.ones(1)}) | nn.ParameterDict({'b': torch.ones(2)}); print(list(d))",
    "d = nn.ParameterDict({'a': torch.ones(1)}); d |= nn.ParameterDict({'b': torch.ones(2)}); d.clear(); print(len(d))",
    "d = nn.ParameterDict({'a': torch.ones(1)}); print(list(d.keys()), [v.shape for v in d.values()],"
    " [k for k, _ in d.items()])",
    "nn.ParameterDict({'a': torch.ones(1)})[1]",
    "nn.ParameterDict(3)",
    "nn.ParameterDict([('a',)])",
    "nn.ParameterDict({'a': torch.ones(1)})(1)",
])
def test_parameter_dict(same, code):
    same(SETUP + code)
