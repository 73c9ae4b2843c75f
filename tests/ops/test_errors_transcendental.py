"""ndgrad.ops.transcendental (with trigonometric and special, which it re-exports) at its boundaries, against
torch: the errors (type and message), values at the edges of each function's domain (inf, nan, poles), the special
functions over wide ranges, square (a pow, as torch records it), and the names the modules export."""

import math

import numpy as np
import pytest
import torch

import ndgrad
from ndgrad.ops import special, transcendental, trigonometric

# (id, code, exception type torch raises)
ERRORS = [
    ("atan2_number_other", "torch.atan2(torch.ones(2), 2.0)", "TypeError"),
    ("atan2_number_input", "torch.atan2(2.0, torch.ones(2))", "TypeError"),
    ("atan2_method_number", "torch.ones(2).atan2(2)", "TypeError"),
    ("atan2_in_place_number", "torch.ones(2).atan2_(1.0)", "TypeError"),
    ("atan2_shapes", "torch.atan2(torch.ones(2), torch.ones(3))", "RuntimeError"),
    ("logaddexp_number", "torch.logaddexp(torch.ones(2), 2.0)", "TypeError"),
    ("logaddexp_ints", "torch.logaddexp(torch.tensor([1, 2]), torch.tensor([3, 4]))", "NotImplementedError"),
    ("logaddexp_bools", "torch.logaddexp(torch.tensor([True]), torch.tensor([False]))", "NotImplementedError"),
    ("xlogy_two_numbers", "torch.xlogy(2.0, 3.0)", "TypeError"),
    ("xlogy_in_place_int", "torch.tensor([1, 2]).xlogy_(2.5)", "RuntimeError"),
    ("polygamma_negative_n", "torch.polygamma(-1, torch.ones(2))", "RuntimeError"),
    ("polygamma_float_n", "torch.polygamma(1.0, torch.ones(2))", "TypeError"),
    ("polygamma_in_place_negative_n", "torch.ones(2).polygamma_(-2)", "RuntimeError"),
    ("exp_int_in_place", "torch.tensor([1, 2]).exp_()", "RuntimeError"),
    ("sqrt_int_in_place", "torch.sqrt_(torch.tensor([1, 2]))", "RuntimeError"),
    ("sigmoid_int_in_place", "torch.tensor([1, 2]).sigmoid_()", "RuntimeError"),
    ("erfinv_int_in_place", "torch.tensor([1, 2]).erfinv_()", "RuntimeError"),
    ("exp_leaf_in_place", "x = torch.ones(3, requires_grad=True)\nx.exp_()", "RuntimeError"),
    ("lgamma_leaf_in_place", "x = torch.ones(3, requires_grad=True)\nx.lgamma_()", "RuntimeError"),
    ("polygamma_leaf_in_place", "x = torch.ones(3, requires_grad=True)\nx.polygamma_(1)", "RuntimeError"),
    ("square_leaf_in_place", "x = torch.ones(3, requires_grad=True)\ntorch.square_(x)", "RuntimeError"),
    (
        "asinh_in_place_backward",
        "x = torch.ones(3, requires_grad=True)\ny = x * 1\ny.asinh_()\nprint(y.grad_fn.name())\ny.sum().backward()",
        "NotImplementedError",
    ),
    (
        "acosh_in_place_backward",
        "x = torch.full((3,), 2.0, requires_grad=True)\ny = x * 1\ntorch.acosh_(y)\ny.sum().backward()",
        "NotImplementedError",
    ),
    (
        "atanh_in_place_backward",
        "x = torch.full((3,), 0.5, requires_grad=True)\ny = x * 1\ny.atanh_()\ny.sum().backward()",
        "NotImplementedError",
    ),
    (
        "saved_result_modified",
        "x = torch.ones(3, requires_grad=True)\ny = x.exp2()\ny.add_(1)\ny.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_input_modified",
        "x = torch.ones(3, requires_grad=True)\ny = x * 1\nz = y.erf()\ny.mul_(2)\nz.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_other_modified",
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\nz = torch.atan2(x, y)\ny.mul_(2)\nz.sum().backward()",
        "RuntimeError",
    ),
]


@pytest.mark.parametrize(("code", "error_type"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_matches_torch(same, code, error_type):
    expected = same(code)
    assert expected.error is not None and expected.error[0] == error_type, expected


def test_result_saved_by_an_in_place_op_is_version_checked(same):
    same("x = torch.ones(3, requires_grad=True)\ny = x * 1\ny.exp_()\ny.mul_(2)\ny.sum().backward()")


IN_PLACE = [
    "y = x * 1\ny.sin_()\ny.mul_(2)\ny.sum().backward()\nprint(x.grad)",  # sin_ keeps the old values it needs
    "y = x * 1\nz = y.exp_()\nprint(z is y, y.grad_fn.name())\n(y * y).sum().backward()\nprint(x.grad)",
    "y = x * 1\ntorch.sigmoid_(y)\nz = torch.tanh_(y * 1)\nz.sum().backward()\nprint(x.grad)",
    "y = x * 1\ny.xlogy_(2.0)\nprint(y.grad_fn.name())\ny.sum().backward()\nprint(x.grad)",
    "y = x * 1\ny.square_()\nprint(y.grad_fn.name())\ny.sum().backward()\nprint(x.grad)",
    "with torch.no_grad():\n    x.mul_(0.5).erf_()\nprint(x, x.grad_fn)",
    "print(torch.tensor([1, 2]).square_(), torch.tensor([1., 4.]).rsqrt_())",
]


@pytest.mark.parametrize("code", IN_PLACE)
def test_in_place_forms_match_torch(same, code):
    same("x = torch.tensor([0.5, 1.5, 2.0], dtype=torch.float64, requires_grad=True)\n" + code)


PRINTED = [
    "print(torch.square(torch.tensor([True, False])), torch.tensor([1, 2]).square().dtype)",
    "x = torch.tensor([1.5, -2.], requires_grad=True)\ny = torch.square(x)\nprint(y, y.grad_fn.name())\n"
    "y.sum().backward()\nprint(x.grad)",
    "print(torch.exp2(torch.tensor([1, 2])), torch.sinc(torch.tensor([0, 1])), torch.erfinv(torch.tensor([True])))",
    "print(torch.lgamma(torch.tensor([1, 3])), torch.digamma(torch.tensor([1, 2])), torch.polygamma(1, torch.ones(2)))",
    "print(torch.logaddexp(torch.tensor([1, 2]), torch.tensor([0.5, 1.0])), torch.atan2(torch.tensor([1]), "
    "torch.tensor([2])))",
    "print(torch.xlogy(torch.tensor([0, 2, 1]), 3), torch.xlogy(2, torch.tensor([1, 2])), "
    "torch.xlogy(True, torch.tensor([1., 2.])))",
    "print(torch.xlogy(torch.tensor([1., 2.], dtype=torch.float16), 2.5).dtype)",
    "x = torch.tensor([0., 1.], requires_grad=True)\ntorch.sinc(x).sum().backward()\nprint(x.grad)",
    "x = torch.tensor([0., 2.], requires_grad=True)\ny = torch.tensor([3., 0.5], requires_grad=True)\n"
    "torch.xlogy(x, y).sum().backward()\nprint(x.grad, y.grad)",
]


@pytest.mark.parametrize("code", PRINTED)
def test_printed_results_match_torch(same, code):
    same(code)


EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.5, 0.5, -0.5, 1e-300, -1e-300, 30.0, -30.0, 800.0, -800.0, math.inf,
         -math.inf, math.nan]
UNARY_NAMES = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "erfinv", "lgamma",
    "digamma", "sinc",
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", UNARY_NAMES)
def test_values_at_the_edges_match_torch(name, dtype):
    """inf, nan, signed zeros, poles, overflow: the same as torch, and as silent (NumPy would warn for some)."""
    values = np.array(EDGES, dtype=dtype)
    ours = getattr(ndgrad, name)(ndgrad.from_numpy(values.copy()))
    theirs = getattr(torch, name)(torch.from_numpy(values.copy()))
    rtol = 1e-12 if dtype == "float64" else 1e-5  # torch computes float32 in float32, ndgrad some in float64
    torch.testing.assert_close(torch.from_numpy(ours.numpy()), theirs, equal_nan=True, rtol=rtol, atol=0)


def test_special_functions_match_torch_over_wide_ranges():
    """float64, far outside the op tests' samples: tiny, huge and negative arguments, near erfinv's ends."""
    rng = np.random.default_rng(0)
    wide = np.concatenate([rng.uniform(-30, 30, 4000), 10.0 ** rng.uniform(-10, 10, 1000), rng.uniform(0, 3, 1000)])
    unit = np.concatenate([rng.uniform(-1, 1, 4000), 1 - 10.0 ** rng.uniform(-15, -1, 500)])
    checks = [("erf", wide, 1e-14), ("erfc", wide, 1e-13), ("erfinv", unit, 1e-12), ("lgamma", wide, 1e-9),
              ("digamma", wide, 1e-9)]
    for name, values, rtol in checks:
        ours = getattr(ndgrad, name)(ndgrad.from_numpy(values.copy())).numpy()
        theirs = getattr(torch, name)(torch.from_numpy(values.copy())).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-300, err_msg=name)
    positive = wide[wide > 0]
    for n in (1, 2, 3, 6):
        ours = ndgrad.polygamma(n, ndgrad.from_numpy(positive.copy())).numpy()
        theirs = torch.polygamma(n, torch.from_numpy(positive.copy())).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-8 if n == 1 else 1e-12, err_msg=f"polygamma({n})")


def test_special_functions_are_accurate():
    """Identities that hold to the last bits: erf(erfinv(y)) = y, lgamma(n) = log((n-1)!), the digamma recurrence,
    and polygamma(1, 1) = pi^2 / 6 (torch's own trigamma is good to about 1e-9 only)."""
    y = np.linspace(-0.999, 0.999, 2001)
    x = ndgrad.erfinv(ndgrad.from_numpy(y)).numpy()
    np.testing.assert_allclose([math.erf(v) for v in x], y, rtol=4e-16, atol=1e-300)
    n = np.arange(1.0, 40.0)
    np.testing.assert_allclose(ndgrad.lgamma(ndgrad.from_numpy(n)).numpy(), [math.lgamma(v) for v in n], rtol=1e-15)
    z = np.linspace(0.1, 20, 500)
    psi = ndgrad.digamma(ndgrad.from_numpy(z)).numpy()
    np.testing.assert_allclose(ndgrad.digamma(ndgrad.from_numpy(z + 1)).numpy(), psi + 1 / z, rtol=1e-13, atol=1e-14)
    trigamma_one = ndgrad.polygamma(1, ndgrad.ones(1, dtype=ndgrad.float64)).item()
    assert trigamma_one == pytest.approx(math.pi**2 / 6, rel=1e-15)


def test_float32_inputs_keep_their_dtype():
    x = ndgrad.tensor([0.25, 0.5], dtype=ndgrad.float32)
    for name in ("erf", "erfc", "erfinv", "lgamma", "digamma", "sinc", "rsqrt"):
        assert getattr(ndgrad, name)(x).dtype is ndgrad.float32, name
    assert ndgrad.polygamma(2, x).dtype is ndgrad.float32
    assert ndgrad.xlogy(x, 2.0).dtype is ndgrad.float32 and ndgrad.xlogy(2.0, x).dtype is ndgrad.float32


def test_exported_names_are_torch_names():
    """torch.<name> for every name the modules export, torch.Tensor.<name> for every method they define."""
    modules = (transcendental, trigonometric, special)
    assert [name for module in modules for name in module.__all__ if not hasattr(torch, name)] == []
    assert set(trigonometric.__all__) | set(special.__all__) | set(transcendental.__all__) <= set(dir(ndgrad))
    mixins = (transcendental.TranscendentalMethods, trigonometric.TrigonometricMethods, special.SpecialMethods)
    methods = [name for mixin in mixins for name in vars(mixin) if not name.startswith("__")]
    assert [name for name in methods if not hasattr(torch.Tensor, name)] == []
    assert all(hasattr(ndgrad, name) and hasattr(ndgrad.Tensor, name) for name in ("erfinv", "xlogy", "polygamma"))
