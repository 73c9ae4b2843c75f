"""What training mode changes, against torch: batch norm's running statistics over several steps (momentum,
momentum=None as a cumulative average, untracked statistics) and then eval mode; dropout's masks in training
(by their statistics, the generators differ) and the identity in eval mode, switched through a whole tree."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad


@pytest.fixture(autouse=True)
def _seeded():
    ndgrad.manual_seed(0)


def copy_into(ours, theirs):
    ours.load_state_dict({k: ndgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


@pytest.mark.parametrize("constructor", [
    "BatchNorm1d(3)",
    "BatchNorm1d(3, momentum=None)",
    "BatchNorm2d(3, momentum=0.5, affine=False)",
    "BatchNorm2d(3, track_running_stats=False)",
    "InstanceNorm1d(3, track_running_stats=True, momentum=0.3)",
])
def test_running_statistics_over_steps(constructor):
    torch.manual_seed(0)
    theirs = eval("torch.nn." + constructor).double()
    ours = eval("ndgrad.nn." + constructor).double()
    copy_into(ours, theirs)
    rng = np.random.default_rng(0)
    shape = (4, 3, 2, 2) if "2d" in constructor else (4, 3, 5)
    for step in range(4):
        ours.train(step < 3)
        theirs.train(step < 3)
        batch = rng.standard_normal(shape) * (step + 1) + step
        out_t, out_n = theirs(torch.tensor(batch)), ours(ndgrad.tensor(batch))
        assert_close(out_n, out_t)
        state_t = theirs.state_dict()
        for name, value in ours.state_dict().items():
            assert_close(value, state_t[name], msg=name)


def test_a_tree_switches_mode_together():
    net = ndgrad.nn.Sequential(ndgrad.nn.Linear(4, 4), ndgrad.nn.Dropout(0.5), ndgrad.nn.BatchNorm1d(4))
    x = ndgrad.randn(8, 4)
    net.eval()
    assert [m.training for m in net.modules()] == [False] * 4
    assert ndgrad.equal(net(x), net(x))
    net.train()
    assert all(m.training for m in net.modules())


@pytest.mark.parametrize("p", [0.0, 0.3, 0.75, 1.0])
def test_dropout_masks_and_scaling(p):
    x = ndgrad.ones(200, 500, requires_grad=True)
    dropout = ndgrad.nn.Dropout(p)
    y = dropout(x)
    values = y.detach().numpy()
    kept = values != 0
    if p < 1:
        np.testing.assert_allclose(values[kept], 1 / (1 - p))
    assert abs(kept.mean() - (1 - p)) < 0.01
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # the gradient goes through the same mask and scale
    dropout.eval()
    assert dropout(x) is x or ndgrad.equal(dropout(x), x)


def test_dropout_inplace_and_eval_match_torch(same):
    same("""
import torch
d = torch.nn.Dropout(0.5, inplace=True)
x = torch.ones(3)
d.eval()
print(d(x) is x, d(x))
y = torch.ones(2, 3) * 2
d.train()
out = d(y)
print(out is y, y.shape, sorted(set(y.flatten().tolist()) - {0.0, 4.0}))
print(torch.nn.Dropout(0.0)(torch.ones(2)), torch.nn.Dropout(1.0)(torch.ones(2)))
""")


@pytest.mark.parametrize("name, shape", [("Dropout1d", (50, 40, 7)), ("Dropout2d", (30, 40, 3, 3)),
                                         ("Dropout3d", (20, 40, 2, 2, 2))])
def test_channel_dropout_zeroes_whole_channels(name, shape):
    if not hasattr(ndgrad.nn.functional, name.lower()):
        pytest.skip(f"ndgrad.nn.functional has no {name.lower()} yet")
    y = getattr(ndgrad.nn, name)(0.4)(ndgrad.ones(*shape)).numpy()
    per_channel = y.reshape(shape[0], shape[1], -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 1 / 0.6).all(-1)).all()
    assert abs((per_channel == 0).all(-1).mean() - 0.4) < 0.05


@pytest.mark.parametrize("name, shape", [("AlphaDropout", (400, 500)), ("FeatureAlphaDropout", (100, 2000, 1))])
def test_alpha_dropout_keeps_the_standard_moments(name, shape):
    """On standard-normal inputs, alpha dropout keeps mean 0 and variance 1; a fraction p of the values (whole
    channels for the feature form) all take one value, as in torch."""
    x = np.random.default_rng(0).standard_normal(shape)
    ours = getattr(ndgrad.nn, name)(0.3)(ndgrad.tensor(x)).numpy()
    theirs = getattr(torch.nn, name)(0.3)(torch.tensor(x)).numpy()
    assert abs(ours.mean()) < 0.02 and abs(ours.std() - 1) < 0.02
    values, counts = np.unique(ours, return_counts=True)
    their_values, their_counts = np.unique(theirs, return_counts=True)
    assert_close(values[counts.argmax()], their_values[their_counts.argmax()])
    assert abs(counts.max() / ours.size - 0.3) < 0.02


def test_a_small_training_run_prints_what_torch_prints(same):
    """Modules, a loss, clipping and an optimiser together: losses per step, eval output and the printed model."""
    same("""
import torch
nn = torch.nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.0), nn.BatchNorm1d(8), nn.Linear(8, 3))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).view(p.shape) * (0.5 + 0.1 * i))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
x = torch.linspace(-2, 2, 40).view(10, 4)
y = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
for step in range(5):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(step, round(loss.item(), 5))
model.eval()
print(model(x[:2]))
print(model)
""")
