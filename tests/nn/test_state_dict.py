"""state_dict and load_state_dict against torch: keys, values, metadata, keep_vars, prefixes, the errors on
missing / unexpected keys and on shape mismatches, strict=False, assign=True, extra state and the hooks."""

import pytest

SETUP = """
import torch
from collections import OrderedDict
nn = torch.nn
torch.manual_seed(0)
net = nn.Sequential(OrderedDict(fc=nn.Linear(3, 2), norm=nn.BatchNorm1d(2), head=nn.Linear(2, 1, bias=False)))
state = net.state_dict()
"""


@pytest.mark.parametrize("code", [
    "print(list(state), type(state).__name__)",
    "print(dict(state._metadata))",
    "print(state['norm.num_batches_tracked'], state['norm.running_var'], state['fc.weight'].requires_grad)",
    "print(state['fc.weight'].grad_fn, net.state_dict(keep_vars=True)['fc.weight'].requires_grad)",
    "print(type(net.state_dict(keep_vars=True)['fc.bias']).__name__, type(state['fc.bias']).__name__)",
    "print(list(net.fc.state_dict(prefix='model.')))",
    "print(list(net.state_dict(prefix='p.')), list(net.state_dict(prefix='p.')._metadata))",
    "d = OrderedDict(); print(net.state_dict(destination=d) is d, list(d), hasattr(d, '_metadata'))",
    "print(list(net.state_dict(None, 'x.')))",
    "print(net.load_state_dict(state))",
    "print(net.load_state_dict(dict(state)), net.load_state_dict(state, strict=True).missing_keys)",
    "del state['fc.bias']; net.load_state_dict(state)",
    "state['extra'] = torch.ones(1); state['fc.extra'] = torch.ones(1); net.load_state_dict(state)",
    "del state['head.weight']; state['x.y'] = torch.ones(1); print(net.load_state_dict(state, strict=False))",
    "r = net.load_state_dict({}, strict=False); print(r, r.missing_keys, r.unexpected_keys)",
    "state['fc.weight'] = torch.ones(3, 3); state['norm.running_mean'] = torch.ones(5); net.load_state_dict(state)",
    "state['fc.weight'] = torch.ones(3, 3); del state['fc.bias']; state['z'] = torch.ones(1);"
    " net.load_state_dict(state)",
    "state['fc.weight'] = [[1.0]]; net.load_state_dict(state)",
    "net.load_state_dict([1, 2])",
    "state['fc.bias'] = torch.tensor([5, 6]); net.load_state_dict(state); print(net.fc.bias, net.fc.bias.dtype)",
    "state['fc.bias'] = torch.tensor([5., 6.], dtype=torch.float64); w = net.fc.bias; net.load_state_dict(state);"
    " print(net.fc.bias is w, net.fc.bias.dtype, net.fc.bias)",
    "state['fc.bias'] = torch.tensor([5., 6.], dtype=torch.float64); w = net.fc.bias;"
    " net.load_state_dict(state, assign=True); print(net.fc.bias is w, net.fc.bias.dtype, net.fc.bias.requires_grad,"
    " type(net.fc.bias).__name__)",
    "net.fc.weight.requires_grad_(False); net.load_state_dict(state, assign=True); print(net.fc.weight.requires_grad)",
    "state['norm.num_batches_tracked'] = torch.tensor([7]); net.load_state_dict(state);"
    " print(net.norm.num_batches_tracked)",
    "net.head.weight = None; print(list(net.state_dict())); net.load_state_dict(state)",
    "net.norm.register_buffer('tmp', torch.ones(1), persistent=False); print(list(net.state_dict()));"
    " print(net.load_state_dict(state))",
    "del state._metadata; print(net.load_state_dict(state))",
    "del state['norm.num_batches_tracked']; state._metadata['norm']['version'] = 1; print(net.load_state_dict(state))",
    "del state['norm.num_batches_tracked']; net.load_state_dict(state)",
    "m = nn.InstanceNorm1d(2); s = {'running_mean': torch.ones(2), 'running_var': torch.ones(2)}; m.load_state_dict(s)",
    "net.load_state_dict(nn.Linear(3, 2).state_dict())",
])
def test_state_dict(same, code):
    same(SETUP + code)


def test_extra_state(same):
    same(SETUP + """
class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0
        self.fc = nn.Linear(1, 1)
    def get_extra_state(self):
        return {'count': self.count}
    def set_extra_state(self, state):
        self.count = state['count']
a, b = Counter(), Counter()
a.count = 5
print(list(a.state_dict()), a.state_dict()['_extra_state'])
print(b.load_state_dict(a.state_dict()), b.count)
s = a.state_dict(); del s['_extra_state']
b.load_state_dict(s)
""")


def test_state_dict_hooks(same):
    same(SETUP + """
calls = []
h1 = net.fc.register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(('pre', prefix, keep_vars)))
h2 = net.register_state_dict_post_hook(lambda m, sd, prefix, meta: calls.append(('post', prefix, len(sd))))
net.state_dict()
h3 = net.register_load_state_dict_post_hook(lambda m, keys: calls.append(('load', keys.missing_keys)))
h4 = net.fc.register_load_state_dict_pre_hook(
    lambda m, sd, prefix, meta, strict, missing, unexpected, errors: calls.append(('load_pre', prefix, sorted(sd))))
net.load_state_dict(state)
h1.remove(); h2.remove(); h3.remove(); h4.remove()
net.state_dict(); net.load_state_dict(state)
print(calls)
net.register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
net.state_dict()
""")


def test_load_post_hook_must_not_return(same):
    same(SETUP + "net.register_load_state_dict_post_hook(lambda m, keys: 1); net.load_state_dict(state)")


def test_round_trip_through_save_and_load(same, tmp_path):
    same(SETUP + f"""
net.norm.running_mean.add_(3)
torch.save(net.state_dict(), {str(tmp_path / 'net.pt')!r})
other = nn.Sequential(OrderedDict(fc=nn.Linear(3, 2), norm=nn.BatchNorm1d(2), head=nn.Linear(2, 1, bias=False)))
print(other.load_state_dict(torch.load({str(tmp_path / 'net.pt')!r})))
print(other.norm.running_mean, torch.equal(other.fc.weight, net.fc.weight))
""")
