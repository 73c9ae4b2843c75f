"""ndgrad.ops.statistics against torch: quantile, nanquantile, cov, corrcoef, bincount, histc: values, dtypes, shapes
and errors, and the gradients of the differentiable ones (the VJP, second derivatives and forward mode against torch,
finite differences on ndgrad)."""

import warnings

import numpy as np
import pytest

import ndgrad

from .composites import assert_like_torch, constant
from .errors import assert_raises_like_torch, assert_result_like_torch

RESULTS = [
    'lib.bincount(lib.tensor([1,1,3]))',
    'lib.bincount(lib.tensor([1,1,3]), minlength=6)',
    'lib.bincount(lib.tensor([1,1,3]), weights=lib.tensor([0.5,1,2]))',
    'lib.bincount(lib.tensor([1,1,3]), weights=lib.tensor([0.5,1,2], dtype=lib.float64))',
    'lib.bincount(lib.tensor([1,1,3]), weights=lib.tensor([1,2,3]))',
    'lib.bincount(lib.tensor([], dtype=lib.int64))',
    'lib.bincount(lib.tensor([1,2], dtype=lib.uint8))',
    'lib.tensor([1,2,2]).bincount()',
    'lib.quantile(lib.tensor([1.,2,3,4]), 0.3)',
    "lib.quantile(lib.tensor([1.,float('nan')]), 0.3)",
    "lib.nanquantile(lib.tensor([1.,float('nan'), 3]), 0.5)",
    'lib.quantile(lib.tensor([[1.,2],[3,4]]), lib.tensor([0.3,0.6]), dim=1, keepdim=True)',
    'lib.quantile(lib.tensor([[1.,2],[3,4]]), lib.tensor([0.3,0.6]), dim=0)',
    'lib.quantile(lib.tensor([[1.,2],[3,4]]), lib.tensor(0.3), dim=-1)',
    'lib.quantile(lib.tensor(3.), 0.5)',
    'lib.quantile(lib.tensor(3.), 0.5, dim=0, keepdim=True)',
    'lib.quantile(lib.tensor([[1.,2],[3,4]]), 0.5, keepdim=True)',
    'lib.quantile(lib.tensor([[1.,2],[3,4]]), lib.tensor([0.5, 0.2]), keepdim=True)',
    "lib.quantile(lib.tensor([1.,2,3,4]), lib.tensor([0.,0.3,0.5,0.9,1.]), interpolation='midpoint')",
    "lib.quantile(lib.tensor([1.,2,3,4]), lib.tensor([0.,0.3,0.5,0.9,1.]), interpolation='nearest')",
    "lib.quantile(lib.tensor([1.,2,3,4, 5]), lib.tensor([0.125, 0.375, 0.625]), interpolation='nearest')",
    "lib.quantile(lib.tensor([1.,2,3,4]), lib.tensor([0.,0.3,0.5,0.9,1.]), interpolation='lower')",
    "lib.quantile(lib.tensor([1.,2,3,4]), lib.tensor([0.,0.3,0.5,0.9,1.]), interpolation='higher')",
    "lib.nanquantile(lib.tensor([[float('nan')]*2,[3,4]]), 0.5, dim=1)",
    "lib.quantile(lib.tensor([[float('nan'), 1],[3,4]]), 0.5, dim=1)",
    'lib.tensor([[5., 1],[3,4]]).quantile(0.25, 0)',
    'lib.cov(lib.tensor([[1.,2,3],[2,0,1]]))',
    'lib.cov(lib.tensor([1,2,4]))',
    'lib.cov(lib.tensor([1.,2,4]), correction=0, fweights=lib.tensor([1,2,1]), aweights=lib.tensor([0.5,1,1]))',
    'lib.cov(lib.tensor([[1.,2,4], [0, 3, 1]]), correction=2, aweights=lib.tensor([0.5,1,1]))',
    'lib.cov(lib.tensor([[1.,2,4], [0, 3, 1]]), fweights=lib.tensor([3,1,1]))',
    'lib.cov(lib.tensor([1.]))',
    'lib.tensor([[1.,2,3],[2,0,1]]).cov(correction=0)',
    'lib.corrcoef(lib.tensor([[1.,2,3],[2,0,1]]))',
    'lib.corrcoef(lib.tensor([1.,2,3]))',
    'lib.corrcoef(lib.tensor([1,2,3]))',
    'lib.tensor([[1.,2,3],[2,0,1], [5, 1, 1]]).corrcoef()',
    'lib.histc(lib.tensor([1., 2, 1]), bins=4, min=0, max=3)',
    'lib.histc(lib.tensor([1., 2, 1, 7, -1]), bins=4, min=0, max=3)',
    'lib.histc(lib.tensor([1., 2, 1]))',
    'lib.histc(lib.tensor([1., 1]), bins=3)',
    'lib.histc(lib.tensor([1., 2], dtype=lib.float64), bins=3)',
    'lib.tensor([1., 2, 2.5]).histc(5)',
]


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cov's warning for no degrees of freedom, in both
        assert_result_like_torch(expression)


ERRORS = [
    'lib.bincount(lib.tensor([-1,1]))',
    'lib.bincount(lib.tensor([1.,1]))',
    'lib.bincount(lib.tensor([[1,1]]))',
    'lib.bincount(lib.tensor([1,1]), minlength=-1)',
    'lib.bincount(lib.tensor([1,1]), weights=lib.tensor([1.]))',
    'lib.bincount(lib.tensor([True]))',
    'lib.quantile(lib.tensor([1.,2,3,4]), 1.3)',
    'lib.quantile(lib.tensor([1.,2,3,4]), lib.tensor([0.3, 1.2]))',
    'lib.quantile(lib.tensor([1,2]), 0.3)',
    'lib.quantile(lib.tensor([1.,2]), lib.tensor([0.3], dtype=lib.float64))',
    "lib.quantile(lib.tensor([1.,2]), 0.3, interpolation='foo')",
    'lib.quantile(lib.tensor([]), 0.3)',
    'lib.quantile(lib.tensor([[1.,2],[3,4]]), lib.tensor([[0.3]]))',
    'lib.quantile(lib.tensor([1.,2], dtype=lib.float16), 0.3)',
    'lib.cov(lib.tensor([[[1.]]]))',
    'lib.cov(lib.tensor([1.,2,4]), fweights=lib.tensor([1.,2,1]))',
    'lib.cov(lib.tensor([1.,2,4]), fweights=lib.tensor([-1,2,1]))',
    'lib.cov(lib.tensor([1.,2,4]), aweights=lib.tensor([-1.,2,1]))',
    'lib.cov(lib.tensor([1.,2,4]), aweights=lib.tensor([1,2,1]))',
    'lib.cov(lib.tensor([1.,2,4]), aweights=lib.tensor([1.,2]))',
    'lib.cov(lib.tensor([1.,2,4]), aweights=lib.tensor([[1.,2, 3]]))',
    'lib.histc(lib.tensor([1, 2]))',
    'lib.histc(lib.tensor([1., 2]), bins=0)',
    'lib.histc(lib.tensor([1., 2]), min=3, max=1)',
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


def test_cov_warns_without_degrees_of_freedom():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        ndgrad.cov(ndgrad.tensor([1.0]))


def test_bincount_with_weights_records_no_derivative():
    weights = ndgrad.tensor([0.5, 1.0, 2.0], requires_grad=True)
    counts = ndgrad.bincount(ndgrad.tensor([1, 1, 3]), weights)
    assert type(counts.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::bincount is not implemented"):
        counts.sum().backward()


RNG = np.random.default_rng(7)
QUANTILE_CALLS = [
    ((5,), {"q": 0.3}),
    ((3, 4), {"q": 0.5, "dim": 1}),
    ((3, 4), {"q": 0.25, "dim": 0, "keepdim": True}),
    ((2, 3, 4), {"q": [0.1, 0.5, 0.9], "dim": -1}),
    ((2, 3), {"q": [0.2, 0.8], "keepdim": True}),
    ((3, 4), {"q": [0.3, 0.7], "dim": 1, "interpolation": "midpoint"}),
    ((3, 4), {"q": 0.4, "dim": 0, "interpolation": "lower"}),
    ((3, 4), {"q": 0.4, "dim": 0, "interpolation": "higher"}),
    ((3, 5), {"q": [0.125, 0.6], "dim": 1, "interpolation": "nearest"}),
]


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize(("shape", "kwargs"), QUANTILE_CALLS, ids=str)
def test_quantile_gradients_match_torch(name, shape, kwargs):
    kwargs = dict(kwargs)
    q = kwargs.pop("q")

    def call(lib, x):
        return getattr(lib, name)(x, lib.tensor(q, dtype=x.dtype) if isinstance(q, list) else q, **kwargs)

    # distinct values: the sort has no ties, so torch's and ndgrad's choice at a tie never matters
    values = RNG.permutation(np.prod(shape)).reshape(shape) / 3.0 - 1.0
    assert_like_torch(call, values, grad_fn=False)


def test_nanquantile_gradient_skips_nan():
    assert_like_torch(lambda lib, x: lib.nanquantile(x, 0.4, dim=1),
                      np.array([[1.0, np.nan, 3.0, 0.5], [np.nan, np.nan, 2.0, -1.0]]), grad_fn=False, numerical=False)


@pytest.mark.parametrize("kwargs", [{}, {"correction": 0}, {"correction": 2}], ids=str)
def test_cov_gradients_match_torch(kwargs):
    assert_like_torch(lambda lib, x: lib.cov(x, **kwargs), RNG.standard_normal((3, 5)))
    assert_like_torch(lambda lib, x: lib.cov(x, **kwargs), RNG.standard_normal(6))


def test_cov_with_weights_gradients_match_torch():
    def call(lib, x, fweights, aweights):
        return lib.cov(x, fweights=fweights, aweights=aweights)

    assert_like_torch(call, RNG.standard_normal((2, 4)), constant([1, 3, 2, 1], "int64"),
                      RNG.uniform(0.5, 2.0, 4))


def test_corrcoef_gradients_match_torch():
    assert_like_torch(lambda lib, x: lib.corrcoef(x), RNG.standard_normal((3, 5)))
