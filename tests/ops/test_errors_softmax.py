"""ndgrad.ops.softmaxes at its boundaries, against torch: the errors (type and message), integer inputs with and
without a dtype, the implicit dim of F.softmax, and softmin's node."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .errors import assert_raises_like_torch

ERRORS = [
    ("softmax_long", lambda lib: lib.nn.functional.softmax(lib.tensor([1, 2]), 0)),
    ("log_softmax_long", lambda lib: lib.log_softmax(lib.tensor([1, 2]), 0)),
    ("softmin_long", lambda lib: lib.nn.functional.softmin(lib.tensor([1, 2]), 0)),
    ("softmax_long_to_long", lambda lib: lib.tensor([1, 2]).softmax(0, dtype=lib.int64)),
    ("softmax_dim_out_of_range", lambda lib: lib.tensor([1.0, 2.0]).softmax(2)),
    ("softmax_0d_dim_out_of_range", lambda lib: lib.nn.functional.softmax(lib.tensor(1.0), 1)),
    ("log_softmax_dim_out_of_range", lambda lib: lib.log_softmax(lib.ones(2, 3), -3)),
    ("log_softmax_float_dim", lambda lib: lib.log_softmax(lib.ones(2, 3), 0.5)),
    ("gumbel_softmax_complex", lambda lib: lib.nn.functional.gumbel_softmax(lib.ones(2, 3, dtype=lib.complex128))),
    ("gumbel_softmax_long_hard", lambda lib: lib.nn.functional.gumbel_softmax(lib.ones(2, 3).long(), hard=True)),
    # torch names another kernel for the other dims than the last
    *[(f"{name}_{dtype}_dim{dim}", lambda lib, name=name, dtype=dtype, dim=dim:
       getattr(lib.nn.functional, name)(lib.ones(2, 3, dtype=getattr(lib, dtype)), dim))
      for name in ("softmax", "log_softmax", "softmin") for dtype in ("int64", "bool") for dim in (0, -2, 1, -1)],
]


@pytest.mark.parametrize("call", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


def run(lib, call, dtype="float64"):
    x = lib.from_numpy(np.random.default_rng(0).uniform(-2, 2, (2, 3, 4)).astype(dtype)).requires_grad_()
    y = call(lib, x)
    (g,) = lib.autograd.grad(y, x, lib.ones_like(y) * lib.arange(4).to(y.dtype))
    return y.detach().numpy(), str(y.dtype).split(".")[1], type(y.grad_fn).__name__, g.numpy()


CALLS = [
    ("softmax_implicit_dim", lambda lib, x: lib.nn.functional.softmax(x)),
    ("log_softmax_implicit_dim", lambda lib, x: lib.nn.functional.log_softmax(x[0])),
    ("softmin_implicit_dim", lambda lib, x: lib.nn.functional.softmin(x)),
    ("softmin_dtype", lambda lib, x: lib.nn.functional.softmin(x, 2, dtype=lib.float64)),
    ("log_softmax_dtype", lambda lib, x: lib.log_softmax(x, -1, dtype=lib.float64)),
    ("softmax_method_dtype", lambda lib, x: x.softmax(1, lib.float64)),
]


@pytest.mark.filterwarnings("ignore:Implicit dimension")
@pytest.mark.parametrize("call", [c[1] for c in CALLS], ids=[c[0] for c in CALLS])
def test_forms_match_torch(call):
    ours, theirs = run(ndgrad, call, "float32"), run(torch, call, "float32")
    assert_close(ours[0], theirs[0])
    assert ours[1:3] == theirs[1:3]
    assert_close(ours[3], theirs[3])


def test_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        ndgrad.nn.functional.softmax(ndgrad.ones(2, 3))


def test_integer_input_with_dtype():
    for lib in (ndgrad, torch):
        y = lib.softmax if lib is torch else lib.nn.functional.softmax
        assert y(lib.tensor([1, 2, 3]), 0, dtype=lib.float64).dtype == lib.float64


def test_extreme_values():
    x = [[1000.0, -1000.0, float("-inf")], [float("-inf"), float("-inf"), 0.0]]
    for name in ("softmax", "log_softmax"):
        ours = getattr(ndgrad.nn.functional, name)(ndgrad.tensor(x), 1).numpy()
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x), 1).numpy()
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_samples_the_softmax_categorical(hard):
    """The argmax of gumbel_softmax is a draw from softmax(logits); ``hard`` gives its one-hot, with the soft
    sample's gradient (the straight-through estimator). Different random numbers than torch: checked by statistics."""
    logits = ndgrad.tensor([[1.0, 0.0, -1.0, 2.0]], dtype=ndgrad.float64).expand(20000, 4).requires_grad_()
    ndgrad.manual_seed(0)
    sample = ndgrad.nn.functional.gumbel_softmax(logits, tau=0.5, hard=hard)
    assert type(sample.grad_fn).__name__ == ("AddBackward0" if hard else "SoftmaxBackward0")
    values = sample.detach().numpy()
    np.testing.assert_allclose(values.sum(1), 1.0)
    frequencies = np.bincount(values.argmax(1), minlength=4) / len(values)
    np.testing.assert_allclose(frequencies, torch.softmax(torch.tensor([1.0, 0.0, -1.0, 2.0]), 0), atol=0.01)
    weights = ndgrad.from_numpy(np.random.default_rng(0).standard_normal((20000, 4)))
    (grad,) = ndgrad.autograd.grad((sample * weights).sum(), logits)
    ndgrad.manual_seed(0)
    soft = ndgrad.nn.functional.gumbel_softmax(logits, tau=0.5)
    (soft_grad,) = ndgrad.autograd.grad((soft * weights).sum(), logits)
    np.testing.assert_allclose(grad.numpy(), soft_grad.numpy())
    if hard:
        assert set(np.unique(values)) == {0.0, 1.0}


def test_gumbel_softmax_eps_is_deprecated():
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        ndgrad.nn.functional.gumbel_softmax(ndgrad.ones(2, 3), eps=1e-5)
