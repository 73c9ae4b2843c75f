"""ndgrad.special against torch.special: the same names; the same signatures (each function's documented one, and
the TypeError of a bad call, which spells out every overload); the non-differentiable functions' values over wide
ranges, special points and dtypes; and the refusals of derivatives torch does not define."""

import inspect
import re

import mpmath
import numpy as np
import pytest
import torch
import torch.special
from tests.closeness import assert_close

import ndgrad
import ndgrad.special

NAMES = sorted(torch.special.__all__)
TWO_TENSORS = {"xlogy", "xlog1py", "zeta", "gammainc", "gammaincc"}
POLYNOMIALS = [name for name in NAMES if "polynomial" in name]
NOT_DIFFERENTIABLE = [name for name in NAMES if "bessel" in name or name == "airy_ai"] + POLYNOMIALS


def test_names_match_torch():
    assert set(ndgrad.special.__all__) == set(torch.special.__all__)
    assert all(callable(getattr(ndgrad.special, name)) for name in NAMES)


def documented(name):
    """(name, default or None, keyword-only) per parameter of the first line of torch's docstring."""
    line = getattr(torch.special, name).__doc__.strip().splitlines()[0]
    parameters, keyword_only = [], False
    for part in re.match(r"\w+\((.*)\)", line).group(1).split(", "):
        if part == "*":
            keyword_only = True
            continue
        parameter, _, default = part.partition("=")
        parameters.append((parameter, default or None, keyword_only))
    return parameters


def declared(name):
    """The same for the first overload ndgrad declares (input and x are one parameter: torch documents input
    where its parser says x)."""
    overload = getattr(ndgrad.special, name).signature.overloads[0]
    rename = {"x": "input", "self": "input"}
    return [(rename.get(p.name, p.name), None if not p.optional else p.default, p.keyword_only)
            for p in overload.params]


# Where torch's docstring and its parser disagree, ndgrad follows the parser (test_bad_calls_raise_torchs_error holds
# it to the parser's words): special.round also takes ``decimals``, special.softmax takes ``dtype`` by position.
PARSER_NOT_DOCUMENTED = {
    "round": [("input", None, False), ("decimals", "0", True), ("out", None, True)],
    "softmax": [("input", None, False), ("dim", None, False), ("dtype", None, False)],
}


@pytest.mark.parametrize("name", NAMES)
def test_signature_matches_torch_documentation(name):
    def normalised(parameters):
        return [(n, None if d in (None, "None") else str(d), k) for n, d, k in parameters]

    expected = PARSER_NOT_DOCUMENTED.get(name) or documented(name)
    assert normalised(declared(name)) == normalised(expected)
    assert inspect.signature(getattr(ndgrad.special, name))  # inspectable, as a Python function


def bad_calls(name):
    """Calls torch refuses by its argument parser: a string where a tensor goes, and one argument too many."""
    if name == "polygamma":
        return [("a", torch.ones(2)), (1, torch.ones(2), 1)]
    if name in ("softmax", "log_softmax", "logsumexp"):
        return [("a", 0), (torch.ones(2), 0, None, 1)]
    if name == "multigammaln":
        return [("a", 2), (torch.ones(2), "p")]
    if name in TWO_TENSORS or name in POLYNOMIALS:
        return [("a", torch.ones(2)), (torch.ones(2), torch.ones(2), 1)]
    return [("a",), (torch.ones(2), "b", 1)]


def outcome(lib, name, args):
    args = [ndgrad.from_numpy(a.numpy()) if isinstance(a, torch.Tensor) and lib is ndgrad else a for a in args]
    try:
        getattr(lib.special, name)(*args)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error), str(error).replace("torch.", "ndgrad.")
    return None


@pytest.mark.parametrize("name", NAMES)
def test_bad_calls_raise_torchs_error(name):
    for args in bad_calls(name):
        expected = outcome(torch, name, args)
        assert expected is not None
        assert outcome(ndgrad, name, args) == expected


def wide_values(name):
    """Values across each function's regions (series, recurrence, asymptotic) and its special points."""
    finite = np.concatenate([-np.geomspace(1e-8, 300, 60)[::-1], [0.0, -0.0], np.geomspace(1e-8, 300, 60)])
    special_points = [np.inf, -np.inf, np.nan, 1e-300, 700.0, 750.0, -1.0, 1.0]
    return np.concatenate([finite, special_points])


BESSEL = [name for name in NOT_DIFFERENTIABLE if name not in POLYNOMIALS]
# torch's float64 J and Y are off by up to 4e-7 on [3, 12], its Ai by 1.4e-6 near -2.2 (against mpmath's 30 digits,
# which test_bessel_accuracy holds ndgrad's to)
TORCH_ERROR = {name: 1e-6 for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")} | {"airy_ai": 3e-6}
MPMATH = {
    "bessel_j0": lambda x: mpmath.besselj(0, x), "bessel_j1": lambda x: mpmath.besselj(1, x),
    "bessel_y0": lambda x: mpmath.bessely(0, x), "bessel_y1": lambda x: mpmath.bessely(1, x),
    "modified_bessel_i0": lambda x: mpmath.besseli(0, x), "modified_bessel_i1": lambda x: mpmath.besseli(1, x),
    "modified_bessel_k0": lambda x: mpmath.besselk(0, x), "modified_bessel_k1": lambda x: mpmath.besselk(1, x),
    "scaled_modified_bessel_k0": lambda x: mpmath.besselk(0, x) * mpmath.exp(x),
    "scaled_modified_bessel_k1": lambda x: mpmath.besselk(1, x) * mpmath.exp(x),
    "spherical_bessel_j0": lambda x: mpmath.sin(x) / x, "airy_ai": mpmath.airyai,
}


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_values_match_torch(name):
    x = wide_values(name)
    ours = getattr(ndgrad.special, name)(ndgrad.from_numpy(x.copy()))
    theirs = getattr(torch.special, name)(torch.from_numpy(x.copy()))
    # NOTE: an absolute tolerance near the zeros of J, Y and Ai, where both libraries' errors are absolute
    assert_close(ours, theirs, rtol=1e-12, atol=TORCH_ERROR.get(name, 1e-14))


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_accuracy(name):
    """Against mpmath (which comes with torch) at 30 digits, where each function is finite and nonzero."""
    x = wide_values(name)
    x = x[np.isfinite(x) & (x != 0) & (np.abs(x) <= 300)]
    if name.startswith(("bessel_y", "modified_bessel_k", "scaled")):
        x = x[x > 0]
    with mpmath.workdps(30):
        expected = np.array([float(MPMATH[name](mpmath.mpf(float(v)))) for v in x])
    ours = getattr(ndgrad.special, name)(ndgrad.from_numpy(x.copy())).numpy()
    np.testing.assert_allclose(ours, expected, rtol=1e-13, atol=1e-15 if name != "airy_ai" else 1e-13)


@pytest.mark.parametrize("name", BESSEL)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_bessel_dtypes_match_torch(name, dtype):
    x = np.array([0, 1, 2, 5, 30], dtype=dtype)
    ours = getattr(ndgrad.special, name)(ndgrad.from_numpy(x.copy()))
    theirs = getattr(torch.special, name)(torch.from_numpy(x.copy()))
    assert_close(ours, theirs)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values_match_torch(name):
    # NaN left out: torch's vectorised kernels give NaN elements the value of a neighbour
    x = np.array([-2.0, -1.0, -0.7, -0.25, 0.0, 0.3, 0.5, 0.9, 1.0, 1.5, 3.0, np.inf])
    for n in [-1, 0, 1, 2, 3, 6, 7, 12]:
        ours = getattr(ndgrad.special, name)(ndgrad.from_numpy(x.copy()), n)
        theirs = getattr(torch.special, name)(torch.from_numpy(x.copy()), n)
        assert_close(ours, theirs, rtol=1e-10, atol=1e-12, msg=f"n = {n}")


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_overloads_match_torch(name):
    """A tensor n (floats truncated, negative and NaN giving 0), a number x, integer tensors, float32."""
    n = np.array([2.7, -2.7, np.nan, 4.0, 0.0])
    x = np.array([0.3, 0.3, 0.3, -0.6, 2.0], dtype=np.float32)
    calls = [
        lambda lib, f: f(lib.from_numpy(x.astype(np.float64)), lib.from_numpy(n.copy())),
        lambda lib, f: f(0.5, lib.from_numpy(np.array([1, 2, 3]))),
        lambda lib, f: f(lib.from_numpy(np.array([1, 2, -1])), lib.from_numpy(np.array([2, 3, 1]))),
        lambda lib, f: f(lib.from_numpy(x.copy()), 3),
        lambda lib, f: f(lib.from_numpy(x.copy()), lib.from_numpy(np.array(3.0))),
    ]
    for index, make in enumerate(calls):
        ours = make(ndgrad, getattr(ndgrad.special, name))
        theirs = make(torch, getattr(torch.special, name))
        assert_close(ours, theirs, msg=f"call {index}")


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE)
def test_results_do_not_require_grad(name):
    args = (3,) if name in POLYNOMIALS else ()
    x = ndgrad.tensor([0.5, 1.5], dtype=ndgrad.float64, requires_grad=True)
    result = getattr(ndgrad.special, name)(x, *args)
    expected = getattr(torch.special, name)(torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True), *args)
    assert result.requires_grad is expected.requires_grad is False
    assert result.grad_fn is None


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE + ["entr", "i0e", "zeta", "gammainc"])
def test_complex_inputs_are_refused_as_by_torch(name):
    args = (2,) if name in POLYNOMIALS else (torch.ones(1, dtype=torch.float64),) if name in TWO_TENSORS else ()
    expected = outcome(torch, name, (torch.ones(1, dtype=torch.complex64), *args))
    assert expected is not None
    assert outcome(ndgrad, name, (torch.ones(1, dtype=torch.complex64), *args)) == expected


def first_argument_gradient(lib, name, other):
    x = lib.tensor([2.5, 3.0], dtype=lib.float64, requires_grad=True)
    result = getattr(lib.special, name)(x, other if not isinstance(other, list) else lib.tensor(other))
    try:
        result.sum().backward()
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(result.grad_fn).__name__, type(error), str(error)
    return type(result.grad_fn).__name__, None, None


@pytest.mark.parametrize("name, other", [("zeta", [1.5, 2.0]), ("zeta", 2.0), ("gammainc", [1.5, 2.0]),
                                         ("gammaincc", [1.5, 2.0])])
def test_no_derivative_in_the_first_argument(name, other):
    """zeta and the incomplete gamma functions record a node whose backward refuses the first argument."""
    ours = first_argument_gradient(ndgrad, name, other)
    assert ours == first_argument_gradient(torch, name, other)
    assert ours[1] is NotImplementedError


@pytest.mark.parametrize("name, other", [("zeta", [1.5, 2.0]), ("gammainc", [1.5, 2.0])])
def test_forward_ad_is_refused_as_by_torch(name, other):
    def refusal(lib, forward):
        with forward.dual_level():
            x = forward.make_dual(lib.tensor(other, dtype=lib.float64), lib.ones(2, dtype=lib.float64))
            try:
                getattr(lib.special, name)(lib.tensor([2.5, 3.0], dtype=lib.float64), x)
            except NotImplementedError as error:
                return str(error)
        return None

    import torch.autograd.forward_ad as torch_forward

    import ndgrad.autograd.forward_ad as ndgrad_forward

    expected = refusal(torch, torch_forward)
    assert expected is not None and refusal(ndgrad, ndgrad_forward) == expected


@pytest.mark.parametrize("name", ["entr", "erfcx", "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e", "logit", "ndtr",
                                  "expit", "gammaln", "psi", "round"])
def test_differentiable_at_special_points_match_torch(name):
    x = np.array([-np.inf, -40.0, -1.0, -0.0, 0.0, 1e-300, 0.5, 1.0, 40.0, 700.0, np.inf, np.nan])
    ours = getattr(ndgrad.special, name)(ndgrad.from_numpy(x.copy()))
    theirs = getattr(torch.special, name)(torch.from_numpy(x.copy()))
    assert_close(ours, theirs, rtol=1e-12, atol=0.0)


def test_incomplete_gamma_and_zeta_at_special_points_match_torch():
    values = np.array([-1.0, -1.5, 0.0, 0.5, 1.0, 1.5, 3.0, 30.0, 1e5, np.inf, np.nan])
    a, x = np.meshgrid(values, values, indexing="ij")
    for name in ("gammainc", "gammaincc", "zeta"):
        ours = getattr(ndgrad.special, name)(ndgrad.from_numpy(a.copy()), ndgrad.from_numpy(x.copy()))
        theirs = getattr(torch.special, name)(torch.from_numpy(a.copy()), torch.from_numpy(x.copy()))
        # torch's P(30, 30) is off by 6e-10 (mpmath's 0.52428301389368; ndgrad's 0.524283013893675)
        assert_close(ours, theirs, rtol=1e-9, atol=1e-300, msg=name)


def test_round_records_torchs_decimals_overload():
    x = ndgrad.tensor([0.26, 1.5], requires_grad=True)
    assert type(ndgrad.special.round(x).grad_fn).__name__ == "RoundBackward1"
    assert_close(ndgrad.special.round(x, decimals=1), torch.special.round(torch.tensor([0.26, 1.5]), decimals=1))


@pytest.mark.parametrize("a", [0.5, 9.5, 20.5, 30.0, 1e3, 1e5, 1e6])
def test_incomplete_gamma_keeps_its_digits_for_large_a(a):
    """Near x = a, where x^a e^-x / Gamma(a) is a ratio of huge numbers: against mpmath at 30 digits, and beyond
    where mpmath's series gives up, against torch's uniform expansion (good to ~1e-11 there)."""
    x = np.array([0.5, 0.9, 1.0, 1.1, 2.0]) * a
    if a <= 1e3:
        with mpmath.workdps(30):
            lower = [float(mpmath.gammainc(a, 0, v, regularized=True)) for v in x]
    else:
        lower = torch.special.gammainc(torch.tensor(np.full_like(x, a)), torch.tensor(x)).numpy()
    tolerance = 1e-12 if a <= 1e3 else 1e-10
    ours = ndgrad.special.gammainc(ndgrad.tensor(np.full_like(x, a)), ndgrad.tensor(x)).numpy()
    upper = ndgrad.special.gammaincc(ndgrad.tensor(np.full_like(x, a)), ndgrad.tensor(x)).numpy()
    np.testing.assert_allclose(ours, lower, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(upper, 1 - np.array(lower), rtol=tolerance, atol=tolerance)


def test_incomplete_gamma_refuses_what_it_cannot_compute():
    """For a beyond ~1e6 the series would stop short of converging: an error, never a wrong value."""
    with pytest.raises(NotImplementedError, match="Temme"):
        ndgrad.special.gammainc(ndgrad.tensor([1e9]), ndgrad.tensor([1e9]))
