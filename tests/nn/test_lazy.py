"""The nn.Lazy* modules and nn.parameter.UninitializedParameter/UninitializedBuffer against torch: repr and state
before the first forward, the shapes and class after it, outputs with torch's weights, loading, and errors."""

import pytest

SETUP = """
import torch
nn = torch.nn
def weights(*shape, seed=0):
    return torch.tensor(np.random.default_rng(seed + sum(shape)).standard_normal(shape)).float()
def show(m, x):
    before = (repr(m), m.has_uninitialized_params(), list(m.state_dict()))
    y = m(x)
    print(*before, sep='\\n')
    print(type(m).__name__, m, [(k, tuple(v.shape), type(v).__name__) for k, v in m.state_dict().items()],
          tuple(y.shape), hasattr(m, '_initialize_hook'))
"""

CASES = [
    "show(nn.LazyLinear(3), weights(2, 5))",
    "show(nn.LazyLinear(3, bias=False), weights(4, 2, 5))",
    "show(nn.LazyLinear(3), weights(5))",
    "show(nn.LazyConv1d(4, 3), weights(2, 3, 7))",
    "show(nn.LazyConv2d(4, 3, stride=2, padding=1, groups=2, bias=False), weights(2, 6, 7, 7))",
    "show(nn.LazyConv3d(2, 2), weights(3, 4, 4, 4))",
    "show(nn.LazyConvTranspose1d(4, 3, stride=2), weights(2, 3, 5))",
    "show(nn.LazyConvTranspose2d(4, 3, groups=2), weights(1, 2, 5, 5))",
    "show(nn.LazyConvTranspose3d(2, 2, output_padding=1, stride=2), weights(1, 3, 2, 2, 2))",
    "show(nn.LazyBatchNorm1d(), weights(4, 3))",
    "show(nn.LazyBatchNorm2d(affine=False, momentum=0.5), weights(4, 3, 2, 2))",
    "show(nn.LazyBatchNorm3d(track_running_stats=False), weights(2, 3, 2, 2, 2))",
    "show(nn.LazyInstanceNorm1d(), weights(2, 3, 4))",
    "show(nn.LazyInstanceNorm2d(affine=False, track_running_stats=False), weights(2, 3, 4, 4))",
    "show(nn.LazyInstanceNorm3d(), weights(2, 3, 2, 2, 2))",
    "m = nn.LazyBatchNorm1d().double(); print(m.running_mean, m.weight); m(weights(4, 3).double());"
    " print(m.running_mean, m.running_mean.dtype, m.weight)",
    "m = nn.LazyLinear(2).double(); m(weights(3, 4).double()); print(m.weight.dtype, m.weight.requires_grad)",
    "m = nn.LazyLinear(2); m.load_state_dict({'weight': weights(2, 3), 'bias': weights(2)});"
    " print(m.weight, type(m).__name__); print(m(weights(1, 3)))",
    "m = nn.LazyConv2d(4, 3, groups=2); m(weights(1, 3, 5, 5))",
    "nn.LazyConv2d(4, 3)(weights(3, 5))",
    "nn.LazyLinear(2).weight.shape",
    "p = nn.parameter.UninitializedParameter(); print(repr(p), p.requires_grad, type(p).__module__,"
    " isinstance(p, nn.Parameter), nn.parameter.is_lazy(p))",
    "b = nn.parameter.UninitializedBuffer(); print(repr(b), b.requires_grad, nn.parameter.is_lazy(b));"
    " b.materialize((2, 3)); print(type(b).__name__, b.shape, nn.parameter.is_lazy(b))",
    "p = nn.parameter.UninitializedParameter(dtype=torch.float64); p.materialize((3,)); print(type(p).__name__,"
    " p.shape, p.dtype, p.requires_grad)",
    "import copy; m = copy.deepcopy(nn.LazyLinear(2)); print(m.weight, m.has_uninitialized_params())",
    "nn.utils.weight_norm(nn.LazyLinear(2))",
    "nn.utils.spectral_norm(nn.LazyLinear(2))",
    "m = nn.LazyLinear(2); m(weights(1, 3)); print(m.has_uninitialized_params() if hasattr(m,"
    " 'has_uninitialized_params') else 'gone')",
]


@pytest.mark.parametrize("code", CASES)
def test_lazy(same, code):
    same(SETUP + code)
