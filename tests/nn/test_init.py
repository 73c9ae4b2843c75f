"""nn.init against torch: the errors and warnings are torch's; the random fills (ndgrad's generator differs)
are checked by their bounds and moments, the deterministic ones by value."""

import math

import numpy as np
import pytest
import torch

import ndgrad
from ndgrad.nn import init


@pytest.mark.parametrize("code", [
    "print(torch.nn.init.calculate_gain('linear'), torch.nn.init.calculate_gain('conv_transpose2d'))",
    "print(torch.nn.init.calculate_gain('tanh'), torch.nn.init.calculate_gain('relu'),"
    " torch.nn.init.calculate_gain('selu'))",
    "print(torch.nn.init.calculate_gain('leaky_relu'), torch.nn.init.calculate_gain('leaky_relu', 0.2))",
    "print(torch.nn.init.calculate_gain('leaky_relu', 3), torch.nn.init.calculate_gain('sigmoid'))",
    "torch.nn.init.calculate_gain('leaky_relu', True)",
    "torch.nn.init.calculate_gain('leaky_relu', '0.1')",
    "torch.nn.init.calculate_gain('swish')",
    "print(torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(5, 3, 2, 4)))",
    "torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(5))",
    "torch.nn.init.kaiming_uniform_(torch.empty(3, 4), mode='fan_avg')",
    "torch.nn.init.kaiming_normal_(torch.empty(3))",
    "torch.nn.init.kaiming_normal_(torch.empty(3, 4), nonlinearity='swish')",
    "print(torch.nn.init.kaiming_uniform_(torch.empty(0, 4)))",
    "print(torch.nn.init.kaiming_normal_(torch.empty(2, 0)))",
    "torch.nn.init.xavier_uniform_(torch.empty(3))",
    "torch.nn.init.uniform_(torch.empty(3), 1.0, 0.0)",
    "torch.nn.init.normal_(torch.empty(3), 0.0, -1.0)",
    "torch.nn.init.uniform_(torch.empty(3, dtype=torch.long))",
    "torch.nn.init.normal_(torch.empty(3, dtype=torch.int32))",
    "print(torch.nn.init.constant_(torch.empty(2, 2), 0.5), torch.nn.init.ones_(torch.empty(2)),"
    " torch.nn.init.zeros_(torch.empty(2)))",
    "print(torch.nn.init.eye_(torch.empty(2, 3)), torch.nn.init.eye_(torch.empty(3, 2, requires_grad=True)))",
    "torch.nn.init.eye_(torch.empty(2, 2, 2))",
    "print(torch.nn.init.dirac_(torch.empty(2, 2, 3)), torch.nn.init.dirac_(torch.empty(4, 2, 3, 2), groups=2).sum())",
    "print(torch.nn.init.dirac_(torch.empty(3, 3, 1, 3, 2)).nonzero())",
    "torch.nn.init.dirac_(torch.empty(2, 2))",
    "torch.nn.init.dirac_(torch.empty(3, 2, 2), groups=2)",
    "torch.nn.init.orthogonal_(torch.empty(3))",
    "print(torch.nn.init.orthogonal_(torch.empty(0, 3)))",
    "torch.nn.init.sparse_(torch.empty(2, 2, 2), 0.5)",
    "torch.nn.init.trunc_normal_(torch.empty(3), mean=5.0).shape",
    "w = torch.ones(2, 2, requires_grad=True); print(torch.nn.init.uniform_(w) is w, w.grad_fn, w.requires_grad)",
    "w = torch.ones(2, 2, requires_grad=True); torch.nn.init.zeros_(w); print(w, w._version)",
    "torch.nn.init.uniform(torch.empty(2))",
    "torch.nn.init.xavier_normal(torch.empty(2, 2)).shape",
])
def test_against_torch(same, code):
    same("import torch\n" + code)


N = 200_000


@pytest.fixture(autouse=True)
def _seeded():
    ndgrad.manual_seed(0)
    torch.manual_seed(0)


def assert_std(values, expected, kurtosis=3.0):
    """The sample std within 5 standard errors of ``expected`` (the error depends on the distribution's kurtosis)."""
    relative_error = math.sqrt((kurtosis - 1) / (4 * values.size))
    assert abs(values.std() / expected - 1) < 5 * relative_error


def uniform_bounds(tensor, bound):
    values = tensor.numpy()
    assert values.min() >= -bound and values.max() <= bound
    assert values.min() < -0.99 * bound and values.max() > 0.99 * bound
    assert abs(values.mean()) < 5 * bound / math.sqrt(3 * values.size)
    assert_std(values, bound / math.sqrt(3), kurtosis=1.8)


@pytest.mark.parametrize("shape, a, mode, nonlinearity", [
    ((400, 500), 0, "fan_in", "leaky_relu"),
    ((100, 50, 3, 3), math.sqrt(5), "fan_out", "leaky_relu"),
    ((300, 700), 0, "fan_in", "relu"),
])
def test_kaiming(shape, a, mode, nonlinearity):
    expected_fan = torch.nn.init._calculate_correct_fan(torch.empty(shape), mode)
    gain = torch.nn.init.calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(expected_fan)
    uniform_bounds(init.kaiming_uniform_(ndgrad.empty(shape), a, mode, nonlinearity), math.sqrt(3) * std)
    assert_std(init.kaiming_normal_(ndgrad.empty(shape), a, mode, nonlinearity).numpy(), std)


def test_xavier_uniform_and_normal():
    fan_in, fan_out = 600, 400
    std = 1.5 * math.sqrt(2.0 / (fan_in + fan_out))
    uniform_bounds(init.xavier_uniform_(ndgrad.empty(fan_out, fan_in), gain=1.5), math.sqrt(3) * std)
    assert_std(init.xavier_normal_(ndgrad.empty(fan_out, fan_in), 1.5).numpy(), std)


def test_uniform_normal_and_trunc_normal_moments():
    uniform = init.uniform_(ndgrad.empty(N, dtype=ndgrad.float64), -2.0, 3.0).numpy()
    assert uniform.min() >= -2.0 and uniform.max() < 3.0
    np.testing.assert_allclose([uniform.mean(), uniform.var()], [0.5, 25 / 12], rtol=0.02)
    normal = init.normal_(ndgrad.empty(N), 1.0, 0.5).numpy()
    np.testing.assert_allclose([normal.mean(), normal.std()], [1.0, 0.5], rtol=0.01)
    truncated = init.trunc_normal_(ndgrad.empty(N), mean=0.5, std=2.0, a=-1.0, b=3.0).numpy()
    assert truncated.min() >= -1.0 and truncated.max() <= 3.0
    reference = torch.nn.init.trunc_normal_(torch.empty(N), mean=0.5, std=2.0, a=-1.0, b=3.0).numpy()
    np.testing.assert_allclose([truncated.mean(), truncated.std()], [reference.mean(), reference.std()], rtol=0.02)


def test_orthogonal():
    for rows, cols in ((5, 3), (3, 5), (4, 4)):
        w = init.orthogonal_(ndgrad.empty(rows, cols, dtype=ndgrad.float64), gain=2.0).numpy()
        product = w.T @ w if rows >= cols else w @ w.T
        np.testing.assert_allclose(product, 4.0 * np.eye(min(rows, cols)), atol=1e-12)
    folded = init.orthogonal_(ndgrad.empty(3, 2, 2, dtype=ndgrad.float64)).numpy().reshape(3, 4)
    np.testing.assert_allclose(folded @ folded.T, np.eye(3), atol=1e-12)


def test_sparse():
    w = init.sparse_(ndgrad.empty(10, 300), sparsity=0.25, std=0.5).numpy()
    np.testing.assert_array_equal((w == 0).sum(axis=0), math.ceil(0.25 * 10))
    assert_std(w[w != 0], 0.5)


def test_layers_default_initialisation_uses_torchs_bounds():
    linear = ndgrad.nn.Linear(400, 300)
    uniform_bounds(linear.weight.detach(), 1 / math.sqrt(400))
    bias = linear.bias.detach().numpy()
    assert abs(bias).max() <= 1 / math.sqrt(400) and abs(bias).max() > 0.9 / math.sqrt(400)
    conv = ndgrad.nn.Conv2d(16, 300, 3, groups=4)
    uniform_bounds(conv.weight.detach(), 1 / math.sqrt(4 * 9))
    assert abs(conv.bias.detach().numpy()).max() <= 1 / math.sqrt(4 * 9)
    bilinear = ndgrad.nn.Bilinear(50, 60, 70)
    uniform_bounds(bilinear.weight.detach(), 1 / math.sqrt(50))
    embedding = ndgrad.nn.Embedding(1000, 200, padding_idx=3).weight.detach().numpy()
    assert (embedding[3] == 0).all()
    assert_std(np.delete(embedding, 3, axis=0), 1.0)
    norm = ndgrad.nn.BatchNorm2d(3)
    assert norm.weight.tolist() == [1.0] * 3 and norm.bias.tolist() == [0.0] * 3
    assert ndgrad.nn.PReLU(2, init=0.1).weight.tolist() == pytest.approx([0.1, 0.1])
