"""ndgrad.bfloat16 against torch.bfloat16: the dtype, promotion with every dtype, printing, finfo, conversions, a
representative set of ops (values within bfloat16's precision, result dtypes, gradients), saving; and the dtype
without ml_dtypes, in a fresh interpreter that cannot import it."""

import io
import itertools
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest
import torch

import ndgrad

ALL_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
             "complex64", "complex128"]
EPS = float(torch.finfo(torch.bfloat16).eps)


def name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


# ---- the dtype ------------------------------------------------------------------------------------------------
def test_dtype_attributes_match_torch():
    ours, theirs = ndgrad.bfloat16, torch.bfloat16
    for attribute in ("is_floating_point", "is_complex", "is_signed", "itemsize"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert repr(ours) == repr(theirs).replace("torch.", "ndgrad.")
    assert ndgrad.tensor([1.0], dtype=ndgrad.bfloat16).dtype == ndgrad.bfloat16


@pytest.mark.parametrize(("a", "b"), list(itertools.product(ALL_NAMES, ["bfloat16"])) +
                         list(itertools.product(["bfloat16"], ALL_NAMES)))
def test_promote_types_with_every_dtype(a, b):
    expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert name(ndgrad.promote_types(getattr(ndgrad, a), getattr(ndgrad, b))) == name(expected)


@pytest.mark.parametrize("other", ALL_NAMES)
def test_result_type_of_tensors_and_scalars(other):
    def operands(lib):
        return lib.ones(2, dtype=lib.bfloat16), lib.ones(2, dtype=getattr(lib, other)), lib.ones((), dtype=lib.bfloat16)

    (x, y, zero_d), (a, b, zero_a) = operands(torch), operands(ndgrad)
    assert name(ndgrad.result_type(a, b)) == name(torch.result_type(x, y))
    assert name(ndgrad.result_type(b, zero_a)) == name(torch.result_type(y, zero_d))
    for scalar in (2.5, 3, True, 1j):
        assert name(ndgrad.result_type(a, scalar)) == name(torch.result_type(x, scalar)), scalar


def test_finfo_matches_torch():
    ours, theirs = ndgrad.finfo(ndgrad.bfloat16), torch.finfo(torch.bfloat16)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("values", [[1.0, 2.5], [1.0, 2.0], 3.14159, [1e-5, 1e5], [[0.1, -2.0], [float("inf"), 3.0]],
                                    [], list(range(2000))])
def test_printing_matches_torch(values):
    theirs = repr(torch.tensor(values, dtype=torch.bfloat16)).replace("torch.", "ndgrad.")
    assert repr(ndgrad.tensor(values, dtype=ndgrad.bfloat16)) == theirs


def test_printing_with_grad():
    theirs = torch.tensor([0.3, 1.7], dtype=torch.bfloat16, requires_grad=True)
    ours = ndgrad.tensor([0.3, 1.7], dtype=ndgrad.bfloat16, requires_grad=True)
    assert repr(ours * 2) == repr(theirs * 2).replace("torch.", "ndgrad.")
    assert repr(ours) == repr(theirs).replace("torch.", "ndgrad.")


# ---- making and converting -------------------------------------------------------------------------------------
def made(lib):
    values = [0.1, -2.7, 3.3]
    return {
        "tensor": lib.tensor(values, dtype=lib.bfloat16),
        "to": lib.tensor(values).to(lib.bfloat16),
        "method": lib.tensor(values).bfloat16(),
        "zeros": lib.zeros(2, 3, dtype=lib.bfloat16),
        "full": lib.full((2,), 1.1, dtype=lib.bfloat16),
        "arange": lib.arange(4, dtype=lib.bfloat16),
        "legacy": lib.BFloat16Tensor(values),
        "back": lib.tensor(values).bfloat16().float(),
        "int_to": lib.tensor([1, 300]).to(lib.bfloat16),
        "module": lib.nn.Linear(2, 2).bfloat16().weight.detach().zero_() + 1,
    }


def test_creation_and_conversion_match_torch():
    for key, (ours, theirs) in zip(made(torch), zip(made(ndgrad).values(), made(torch).values())):
        assert name(ours.dtype) == name(theirs.dtype), key
        assert ours.tolist() == theirs.tolist(), key


def test_module_bfloat16_converts_floating_parameters_only():
    model = ndgrad.nn.Sequential(ndgrad.nn.Linear(3, 2), ndgrad.nn.BatchNorm1d(2)).bfloat16()
    reference = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2)).bfloat16()
    assert {k: name(v.dtype) for k, v in model.state_dict().items()} == \
        {k: name(v.dtype) for k, v in reference.state_dict().items()}
    assert ndgrad.nn.Linear(2, 2).bfloat16().weight.is_leaf


def test_numpy_refuses_as_torch():
    for lib in (torch, ndgrad):
        with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
            lib.ones(2, dtype=lib.bfloat16).numpy()
    array = np.ones(2, dtype=ml_dtypes.bfloat16)
    for function in ("from_numpy", "tensor"):
        with pytest.raises(TypeError) as expected:
            getattr(torch, function)(array)
        with pytest.raises(TypeError) as actual:
            getattr(ndgrad, function)(array)
        assert str(actual.value) == str(expected.value)


def test_save_and_load_keep_bfloat16():
    x = ndgrad.tensor([[0.1, 2.7], [-3.3, 1e5]], dtype=ndgrad.bfloat16)
    buffer = io.BytesIO()
    ndgrad.save({"x": x, "t": x.t(), "dtype": ndgrad.bfloat16}, buffer)
    buffer.seek(0)
    loaded = ndgrad.load(buffer)
    assert loaded["x"].dtype is ndgrad.bfloat16 and loaded["dtype"] is ndgrad.bfloat16
    assert loaded["x"].tolist() == x.tolist() and loaded["t"].tolist() == x.t().tolist()


# ---- ops -----------------------------------------------------------------------------------------------------
def _cross_entropy(lib, a):
    return lib.nn.functional.cross_entropy(a(4, 5), lib.tensor([0, 2, 4, 1]))


OPS = {
    "add": lambda lib, a: a(3, 4) + a(4),
    "add_scalar": lambda lib, a: a(3, 4) + 1.5,
    "add_int_tensor": lambda lib, a: a(3, 4) + lib.tensor([1, 2, 3, 4]),
    "mul": lambda lib, a: a(3, 4) * a(3, 4),
    "div": lambda lib, a: a(3, 4) / (a(3, 4).abs() + 0.5),
    "exp": lambda lib, a: a(3, 4).exp(),
    "tanh": lambda lib, a: a(3, 4).tanh(),
    "sigmoid": lambda lib, a: a(3, 4).sigmoid(),
    "relu": lambda lib, a: lib.relu(a(3, 4)),
    "matmul": lambda lib, a: a(3, 4) @ a(4, 2),
    "bmm": lambda lib, a: a(2, 3, 4) @ a(2, 4, 2),
    "sum": lambda lib, a: a(3, 40).sum(),
    "sum_dim": lambda lib, a: a(3, 40).sum(1),
    "mean": lambda lib, a: a(3, 40).mean(),
    "mean_dim": lambda lib, a: a(3, 40).mean(0),
    "softmax": lambda lib, a: lib.softmax(a(3, 6), 1),
    "log_softmax": lambda lib, a: lib.log_softmax(a(3, 6), 1),
    "linear": lambda lib, a: lib.nn.functional.linear(a(3, 4), a(2, 4), a(2)),
    "conv2d": lambda lib, a: lib.nn.functional.conv2d(a(2, 3, 6, 6), a(4, 3, 3, 3), a(4), padding=1),
    "cross_entropy": _cross_entropy,
    "einsum": lambda lib, a: lib.einsum("ij,jk->ik", a(3, 4), a(4, 2)),
    "hardsigmoid": lambda lib, a: lib.nn.functional.hardsigmoid(a(3, 4) * 4),
}


def _run(lib, op, seed):
    rng = np.random.default_rng(seed)
    leaves = []

    def a(*shape):
        values = rng.uniform(-1.5, 1.5, shape).astype(np.float32)
        leaves.append(lib.tensor(values.tolist(), dtype=lib.bfloat16, requires_grad=True))
        return leaves[-1]

    out = OPS[op](lib, a)
    weights = lib.tensor(rng.uniform(0.5, 1.5, tuple(out.shape)).astype(np.float32).tolist())
    (out.float() * weights).sum().backward()  # weights: a softmax's gradient under a plain sum is all zeros
    return out, leaves


def _assert_close(ours, theirs, what):
    theirs = theirs.detach().float().numpy()
    ours = np.asarray(ours.detach().float().tolist(), dtype=np.float32)
    # two roundings to bfloat16 apart at most, relative to the magnitudes involved
    tolerance = 2 * EPS * max(1.0, float(np.abs(theirs).max(initial=0)))
    np.testing.assert_allclose(ours, theirs, rtol=2 * EPS, atol=tolerance, err_msg=what)


@pytest.mark.parametrize("op", list(OPS))
def test_op_matches_torch_in_bfloat16(op):
    out, leaves = _run(ndgrad, op, 0)
    ref, ref_leaves = _run(torch, op, 0)
    assert name(out.dtype) == name(ref.dtype) == "bfloat16"
    if op != "einsum":  # ndgrad records einsum as one node in every dtype, torch as a view of its bmm
        assert type(out.grad_fn).__name__ == type(ref.grad_fn).__name__
    _assert_close(out, ref, "values")
    for index, (leaf, ref_leaf) in enumerate(zip(leaves, ref_leaves)):
        assert name(leaf.grad.dtype) == name(ref_leaf.grad.dtype) == "bfloat16"
        _assert_close(leaf.grad, ref_leaf.grad, f"gradient of input {index}")


def test_sum_accumulates_in_float32():
    """4096 ones summed in bfloat16 steps would stop growing at 256; torch (and ndgrad) accumulate in float32."""
    for lib in (torch, ndgrad):
        assert lib.ones(4096, dtype=lib.bfloat16).sum().item() == 4096


def test_refusals_are_torch_errors():
    """Where torch has no bfloat16 kernel, the same error, not NumPy's."""
    for function in ("complex", "polar"):
        with pytest.raises(RuntimeError) as expected:
            getattr(torch, function)(torch.ones(2, dtype=torch.bfloat16), torch.ones(2, dtype=torch.bfloat16))
        with pytest.raises(RuntimeError) as actual:
            getattr(ndgrad, function)(ndgrad.ones(2, dtype=ndgrad.bfloat16), ndgrad.ones(2, dtype=ndgrad.bfloat16))
        assert str(actual.value) == str(expected.value)


# ---- without ml_dtypes -----------------------------------------------------------------------------------------
WITHOUT_ML_DTYPES = """
import sys
sys.modules["ml_dtypes"] = None  # import ml_dtypes raises ImportError from here on
import ndgrad

d = ndgrad.bfloat16
assert hasattr(ndgrad, "bfloat16") and d == ndgrad.bfloat16 and d != ndgrad.float16
assert ndgrad.ones(2).dtype != d and d.is_floating_point and d.itemsize == 2
assert ndgrad.promote_types(d, ndgrad.float16) is ndgrad.float32 and ndgrad.promote_types(d, ndgrad.int64) is d
for make in (lambda: ndgrad.zeros(2, dtype=d), lambda: ndgrad.tensor([1.0], dtype=d), lambda: ndgrad.ones(2).to(d),
             lambda: ndgrad.ones(2).bfloat16(), lambda: ndgrad.nn.Linear(2, 2).bfloat16()):
    try:
        make()
    except RuntimeError as error:
        assert "pip install ndgrad[bfloat16]" in str(error), error
    else:
        raise AssertionError("a bfloat16 tensor was made without ml_dtypes")
assert (ndgrad.ones(2) * 2).sum().item() == 4.0  # the other dtypes do not notice
print("ok")
"""


def test_without_ml_dtypes_the_dtype_exists_and_tensors_say_what_to_install():
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(WITHOUT_ML_DTYPES)], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
