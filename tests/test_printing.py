"""repr() of tensors: every case compares ndgrad's text with what torch itself prints for the same values."""

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

try:
    import ndgrad  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ndgrad import _dtype, _printing  # noqa: E402
from ndgrad._printing import set_printoptions, tensor_repr  # noqa: E402


@dataclass
class Device:
    type: str = "cpu"
    name: str = "cpu"

    def __str__(self):
        return self.name


@dataclass
class StandIn:
    """Exactly the attributes of a Tensor that tensor_repr may use."""

    _data: np.ndarray
    dtype: object
    requires_grad: bool = False
    is_leaf: bool = True
    grad_fn: object = None
    device: Device = field(default_factory=Device)


def stand_in_for(t, device=None):
    """A stand-in holding the same values, dtype and autograd state as the torch tensor t."""
    # the repr shows the grad_fn's class name (torch's CopySlices says a C++ name from name(), not in the repr)
    grad_fn = type(type(t.grad_fn).__name__, (), {})() if t.grad_fn is not None else None
    dtype = _dtype._BY_NAME[str(t.dtype).removeprefix("torch.")]
    return StandIn(t.detach().numpy().copy(), dtype, t.requires_grad, t.is_leaf, grad_fn, device or Device())


def torch_text(t):
    return repr(t).replace("torch.", "ndgrad.")


def check(t):
    assert tensor_repr(stand_in_for(t)) == torch_text(t)


@pytest.fixture(autouse=True)
def default_options():
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    _dtype.set_default_dtype(_dtype.float32)


def _grad_leaf():
    return torch.tensor([0.0, 2.0, 8.0], requires_grad=True)


def _mul_result():
    return torch.tensor([[1.5, -2.0], [3.25, 4.0]], requires_grad=True) * 2


def _mean_result():
    return (torch.tensor([1.0, 8.0], requires_grad=True) * 1.0).mean()


nan, inf = math.nan, math.inf
T = torch.tensor


def seeded():
    return torch.Generator().manual_seed(0)


CASES = {
    "0d_float": lambda: T(4.5),
    "0d_int_valued": lambda: T(2.0),
    "0d_int": lambda: T(7),
    "0d_bool": lambda: T(True),
    "0d_nan": lambda: T(nan),
    "0d_neg_inf": lambda: T(-inf),
    "0d_tiny": lambda: T(1e-10),
    "0d_huge": lambda: T(123456789.0),
    "0d_float64": lambda: T(0.1, dtype=torch.float64),
    "0d_float16": lambda: T(3.0, dtype=torch.float16),
    "0d_neg_zero": lambda: T(-0.0),
    "1d_float": lambda: T([0.5, -1.25, 3.0]),
    "1d_int_valued": lambda: T([1.0, 2.0]),
    "1d_zero_and_hundred": lambda: T([0.0, 100.0]),
    "1d_neg_zero": lambda: T([-0.0, 1.0]),
    "1d_nan_inf": lambda: T([nan, inf, -inf]),
    "1d_nan_and_fraction": lambda: T([nan, 1.5, 0.0]),
    "1d_all_zero": lambda: torch.zeros(4),
    "1d_small_sci": lambda: T([1e-5, 1.0]),
    "1d_boundary_1e-4": lambda: T([1e-4, 1.0]),
    "1d_large_sci": lambda: T([1e10, 1.0]),
    "1d_ratio_1000": lambda: T([1000.0, 1.0]),
    "1d_ratio_1001": lambda: T([1001.0, 1.0]),
    "1d_above_1e8": lambda: T([1e8 + 8, 1e6]),
    "1d_int_valued_sci": lambda: T([1e8, 1.0]),
    "1d_float64_big_fixed": lambda: torch.arange(7.0, dtype=torch.float64) * 1.5 + 1e6,
    "1d_float16": lambda: T([1.5, 2.0, 65504.0], dtype=torch.float16),
    "1d_float16_fraction": lambda: T([0.1, -0.3], dtype=torch.float16),
    "1d_int32": lambda: T([1, -20, 300], dtype=torch.int32),
    "1d_int64": lambda: T([1, -20, 300]),
    "1d_uint8": lambda: T([0, 255], dtype=torch.uint8),
    "1d_int8": lambda: T([-128, 5], dtype=torch.int8),
    "1d_int16": lambda: T([7], dtype=torch.int16),
    "1d_bool": lambda: T([True, False, True]),
    "1d_wraps_float": lambda: torch.arange(30.0) * 1.5,
    "1d_wraps_int": lambda: torch.arange(60),
    "1d_wraps_sci": lambda: torch.linspace(-1e-6, 3e3, 25),
    "1d_summarised_float": lambda: torch.arange(2000.0),
    "1d_summarised_int": lambda: torch.arange(2000),
    "1d_summarised_bool": lambda: torch.arange(1500) % 3 == 0,
    "1d_1001_elements": lambda: torch.linspace(-1, 1, 1001),
    "1d_1000_elements": lambda: torch.linspace(-1, 1, 1000),
    "2d_float": lambda: T([[1.5, 2.0], [-3.0, 4.125]]),
    "2d_int_valued": lambda: torch.arange(12.0).reshape(3, 4),
    "2d_bool": lambda: T([[True], [False]]),
    "2d_wide_rows": lambda: torch.arange(60.0).reshape(2, 30) / 7,
    "2d_summarised": lambda: torch.arange(2000.0).reshape(40, 50),
    "2d_summarised_column": lambda: torch.arange(3000.0, dtype=torch.float64).reshape(3000, 1),
    "2d_summarised_int": lambda: torch.arange(3000).reshape(1000, 3),
    "2d_float64_fixed_wraps_suffix": lambda: (
        torch.arange(10.0, dtype=torch.float64).reshape(1, 10) * 1.5 + 1e5
    ),
    "3d_float": lambda: torch.arange(24.0).reshape(2, 3, 4),
    "3d_random": lambda: torch.randn(2, 3, 4, generator=seeded()),
    "3d_summarised": lambda: torch.arange(5000.0).reshape(10, 10, 50),
    "4d_int": lambda: torch.arange(120).reshape(2, 3, 4, 5)[:, :, :2],
    "5d_float": lambda: torch.arange(32.0).reshape(2, 2, 2, 2, 2) / 3,
    "empty_1d": lambda: torch.zeros(0),
    "empty_2d": lambda: torch.zeros(0, 3),
    "empty_3d": lambda: torch.zeros(2, 3, 0),
    "empty_float64": lambda: torch.zeros(0, 3, dtype=torch.float64),
    "empty_int64": lambda: T([], dtype=torch.int64),
    "empty_bool": lambda: torch.zeros(0, dtype=torch.bool),
    "empty_requires_grad": lambda: torch.zeros(2, 0, requires_grad=True),
    "requires_grad_leaf": _grad_leaf,
    "grad_fn_mul": _mul_result,
    "grad_fn_mean": _mean_result,
    "grad_fn_float64_wraps": lambda: (torch.arange(7.0, dtype=torch.float64) + 1e6).requires_grad_() * 2,
    "grad_fn_summarised": lambda: torch.arange(5000.0).reshape(10, 10, 50).requires_grad_() * 1,
    "complex": lambda: T([[1 + 2j, -3.5 - 0j], [0j, 1e5j]]),
    "complex_0d": lambda: T(-0.0 + 0j),
    "complex_wraps": lambda: torch.randn(20, dtype=torch.complex64, generator=seeded()),
    "complex_summarised": lambda: torch.arange(2000.0) * (1 + 1j),
    "complex128": lambda: T([1.5 - 2j], dtype=torch.complex128),
    "complex_requires_grad": lambda: T([1 + 2j, 3 - 1j], requires_grad=True),
    "complex_grad_fn": lambda: T([1 + 2j, 3 - 1j], requires_grad=True) * (2 - 0.5j),
    "complex_0d_grad_fn": lambda: T(1 + 1j, requires_grad=True).abs(),
    "complex_small_sci": lambda: T([1e-5 + 2j, 3 - 1j]),
    "complex_large_sci": lambda: T([1e10 + 2j, 3 - 1j]),
    "complex_parts_apart": lambda: T([0.1 + 2000j, 3 - 1j]),
    "complex_int_valued": lambda: T([1 + 2j, -3j, 4 + 0j]),
    "complex_nan_inf": lambda: T([complex(nan, 1), complex(inf, -1), complex(0.5, -inf)]),
    "complex_tiny_imaginary": lambda: T([1 + 1e-10j, 1 + 1j]),
    "complex128_wraps": lambda: torch.randn(12, dtype=torch.complex128, generator=seeded()) * 1000,
    "complex_2d_wraps": lambda: torch.randn(3, 9, dtype=torch.complex64, generator=seeded()),
    "complex_empty": lambda: torch.zeros(0, 2, dtype=torch.complex64),
    "complex_3d": lambda: (torch.arange(12.0) - 5.5j).reshape(2, 3, 2),
}


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name):
    check(CASES[name]())


OPTION_SETS = [
    dict(precision=2),
    dict(precision=0),
    dict(precision=8),
    dict(threshold=5),
    dict(threshold=0),
    dict(edgeitems=1),
    dict(edgeitems=0),
    dict(threshold=0, edgeitems=0),
    dict(linewidth=20),
    dict(linewidth=0),
    dict(linewidth=200),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(profile="short"),
    dict(profile="full"),
    dict(profile="short", precision=6),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
@pytest.mark.parametrize("name", CASES)
def test_matches_torch_under_print_options(options, name):
    torch.set_printoptions(**options)
    set_printoptions(**options)
    check(CASES[name]())


def test_sci_mode_resets_when_omitted():
    for lib in (torch, _printing):
        lib.set_printoptions(sci_mode=True)
        lib.set_printoptions(precision=3)
    check(T([1.0, 2.5]))
    assert _printing.PRINT_OPTS.sci_mode is None


def test_unknown_profile_is_ignored():
    torch.set_printoptions(profile="no-such-profile", precision=2)
    set_printoptions(profile="no-such-profile", precision=2)
    check(T([1.125, 3.0]))


@pytest.mark.parametrize("name", CASES)
def test_matches_torch_with_float64_default(name):
    torch.set_default_dtype(torch.float64)
    _dtype.set_default_dtype(_dtype.float64)
    t = CASES[name]()
    check(t)
    check(t.to(torch.float32) if t.is_floating_point() else t)


class FakeCupyArray:
    """Looks like a CuPy array to tensor_repr: only .get() gives the values."""

    __module__ = "cupy._core.core"

    def __init__(self, values):
        self._values = values

    def get(self):
        return self._values


DEVICE_CASES = ["1d_float", "2d_wide_rows", "empty_int64", "grad_fn_float64_wraps", "3d_summarised"]


@pytest.mark.parametrize("name", DEVICE_CASES)
def test_device_suffix(monkeypatch, name):
    # A cpu tensor prints its device once both libraries are told that the default device is another one.
    monkeypatch.setattr(torch._C, "_get_default_device", lambda: "meta")
    monkeypatch.setattr(_printing, "_DEFAULT_DEVICE_TYPE", "meta")
    t = CASES[name]()
    expected = torch_text(t)
    assert "device='cpu'" in expected
    assert tensor_repr(stand_in_for(t)) == expected
    # A cuda tensor holds a CuPy array and names itself cuda:0.
    monkeypatch.setattr(_printing, "_DEFAULT_DEVICE_TYPE", "cpu")
    on_gpu = stand_in_for(t, Device("cuda", "cpu"))
    on_gpu._data = FakeCupyArray(on_gpu._data)
    assert tensor_repr(on_gpu) == expected
    on_gpu.device = Device("cuda", "cuda:0")
    if "\n" not in expected:  # same length change on one line: the substitution cannot move a line break
        assert tensor_repr(on_gpu) == expected.replace("device='cpu'", "device='cuda:0'")


@settings(max_examples=100, deadline=None)
@given(
    parts=st.integers(0, 2).flatmap(lambda ndim: st.tuples(*[_magnitude_arrays_of(np.float32, ndim)] * 2)),
    requires_grad=st.booleans(),
)
def test_random_complex_match_torch(parts, requires_grad):
    """Real and imaginary parts of unrelated magnitudes (and NaN, infinities): each part picks its own notation."""
    real, imag = parts
    shape = np.broadcast_shapes(real.shape, imag.shape)
    t = torch.complex(torch.from_numpy(np.broadcast_to(real, shape).copy()),
                      torch.from_numpy(np.broadcast_to(imag, shape).copy()))
    check(t.requires_grad_() if requires_grad else t)


def _magnitude_arrays_of(dtype, ndim):
    """Arrays of ``dtype`` and ``ndim`` dims (sides 1 or 3, so any two broadcast) of varied magnitudes."""
    shapes = st.tuples(*[st.sampled_from([1, 3])] * ndim)
    elements = st.one_of(st.floats(-10, 10, width=16), st.sampled_from([0.0, nan, inf, 1e-4, 1000.0, 1e9]))
    return shapes.flatmap(lambda shape: hnp.arrays(np.float64, shape, elements=elements).map(
        lambda base: _spread(base, dtype)))


def _spread(base, dtype):
    """``base`` scaled by powers of ten picked by its own values (nan and inf stay as they are)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(base * 10.0 ** np.round(base % 5 - 2)).astype(dtype)


def _magnitude_arrays():
    dtypes = st.sampled_from([np.float32, np.float64, np.float16])
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=7)
    finite = st.floats(-10, 10, allow_nan=False, width=16)
    special = st.sampled_from([0.0, -0.0, nan, inf, -inf, 1.0, -3.0, 1e-4, 1000.0])
    elements = st.one_of(finite, finite.map(round), special)

    @st.composite
    def draw(draw_):
        dtype = draw_(dtypes)
        base = draw_(hnp.arrays(np.float64, draw_(shapes), elements=elements))
        exponents = draw_(hnp.arrays(np.int64, base.shape, elements=st.integers(-12, 12)))
        spread = draw_(st.booleans())
        scale = 10.0 ** (exponents if spread else draw_(st.integers(-12, 12)))
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray((base * scale).astype(dtype))

    return draw()


@settings(max_examples=400, deadline=None)
@given(values=_magnitude_arrays(), requires_grad=st.booleans())
def test_random_floats_match_torch(values, requires_grad):
    t = torch.from_numpy(values)
    if requires_grad and values.dtype != np.float16:
        t = t.clone().requires_grad_()
    check(t)


@settings(max_examples=50, deadline=None)
@given(
    values=hnp.arrays(
        np.float32,
        st.sampled_from([(1001,), (40, 30), (3, 20, 20), (2, 2, 300)]),
        elements=st.floats(-1e4, 1e4, width=32),
    ),
)
def test_random_summarised_match_torch(values):
    check(torch.from_numpy(values))
