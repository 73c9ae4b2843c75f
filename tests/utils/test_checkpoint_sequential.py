"""utils.checkpoint.checkpoint_sequential against torch: outputs and gradients of an nn.Sequential or a list of
functions in segments, both variants, the use_reentrant warning and the keyword errors."""

import pytest

SETUP = """
import torch
checkpoint_sequential = torch.utils.checkpoint.checkpoint_sequential
nn = torch.nn
def weights(*shape, seed=0):
    return torch.tensor(np.random.default_rng(seed + sum(shape)).standard_normal(shape))
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 2)).double()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(weights(*p.shape, seed=i))
x = weights(5, 3).requires_grad_()
def run(y):
    y.sum().backward()
    print(y, x.grad, net[0].weight.grad, net[4].bias.grad)
"""


@pytest.mark.parametrize("code", [
    "run(checkpoint_sequential(net, 2, x, use_reentrant=False))",
    "run(checkpoint_sequential(net, 3, x, use_reentrant=True))",
    "run(checkpoint_sequential(net, 1, x, use_reentrant=False))",
    "run(checkpoint_sequential(list(net), 5, x, use_reentrant=False))",
    "run(checkpoint_sequential(net, 2, x))",
    "run(checkpoint_sequential(net, 2, x, use_reentrant=False, preserve_rng_state=False))",
    "checkpoint_sequential(net, 2, x, use_reentrant=False, foo=1, bar=2)",
])
def test_checkpoint_sequential(same, code):
    same(SETUP + code)
