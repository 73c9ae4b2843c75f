"""detect_anomaly(check_forward=True), ndgrad's addition: the first recorded forward op whose result has a NaN or Inf
that its inputs did not have raises FloatingPointError, naming the op, the user's line and the inputs' statistics.
torch is the oracle for the values (the op really makes the NaN there) and for the statistics printed."""

import re
import warnings

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad.autograd.anomaly_mode import is_anomaly_check_forward_enabled


@pytest.fixture(autouse=True)
def _anomaly_off():
    warnings.simplefilter("ignore", UserWarning)  # "Anomaly Detection has been enabled", tested in test_anomaly
    yield
    ndgrad.autograd.set_detect_anomaly(False)


def _x(lib):
    return lib.tensor([1.0, -2.0, 0.0, 3.0], requires_grad=True)


# (program, the op named, the line the error names); each makes its first NaN/Inf in its last line
def log_of_a_negative(lib):
    y = _x(lib) * 2
    return lib.log(y)


def zero_over_zero(lib):
    x = _x(lib)
    return (x * 0) / (x * 0)


def exp_overflow(lib):
    x = _x(lib)
    return (x * 100).exp()


def sqrt_through_a_custom_line(lib):
    h = _x(lib) - 1
    return h.sqrt()


def custom_function_reciprocal(lib):
    class Reciprocal(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.no_grad():
                return 1 / x

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = _x(lib) * 1
    return Reciprocal.apply(x)


PROGRAMS = {
    custom_function_reciprocal: ("ReciprocalBackward", "return Reciprocal.apply(x)"),
    log_of_a_negative: ("log (LogBackward0)", "return lib.log(y)"),
    zero_over_zero: ("div (DivBackward0)", "return (x * 0) / (x * 0)"),
    exp_overflow: ("exp (ExpBackward0)", "return (x * 100).exp()"),
    sqrt_through_a_custom_line: ("sqrt (SqrtBackward0)", "return h.sqrt()"),
}


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda program: program.__name__)
def test_the_first_op_that_makes_nan_or_inf_raises_with_the_user_line(program):
    reference = program(torch).detach().numpy()
    assert not np.isfinite(reference).all()  # torch makes the NaN/Inf at this very op
    np.testing.assert_array_equal(program(ndgrad).detach().numpy(), reference)  # silent without check_forward
    op, source = PROGRAMS[program]
    with ndgrad.autograd.detect_anomaly(check_forward=True), pytest.raises(FloatingPointError) as raised:
        program(ndgrad)
    message = str(raised.value)
    first, code = message.splitlines()[:2]
    assert re.fullmatch(rf"ndgrad: {re.escape(op)} made the first NaN/Inf of the forward pass, at "
                        r"test_first_nan\.py:\d+", first)
    assert code.strip() == source


def test_the_statistics_are_those_of_the_inputs_as_torch_computes_them():
    y = _x(torch).detach() * 2
    with ndgrad.autograd.detect_anomaly(check_forward=True), pytest.raises(FloatingPointError) as raised:
        log_of_a_negative(ndgrad)
    expected = (
        f"  input 0: shape {list(y.shape)}, ndgrad.float32, min {y.min().item():.4g}, max {y.max().item():.4g}, "
        f"mean {y.mean().item():.4g}; NaN 0, Inf 0, zeros {(y == 0).sum().item()}, negatives {(y < 0).sum().item()} "
        f"(of {y.numel()})"
    )
    result = torch.log(y)
    finite = result[result.isfinite()]
    expected_result = (
        f"  result: shape [4], ndgrad.float32, min {finite.min().item():.4g}, max {finite.max().item():.4g}, "
        f"mean {finite.mean().item():.4g}; NaN {result.isnan().sum().item()}, Inf {result.isinf().sum().item()}, "
        f"zeros {(result == 0).sum().item()}, negatives {(result < 0).sum().item()} (of 4)"
    )
    assert str(raised.value).splitlines()[3:] == [expected, expected_result]


def test_an_op_whose_inputs_already_had_nan_or_inf_does_not_raise_again():
    x = ndgrad.tensor([1.0, float("nan")], requires_grad=True)
    scores = ndgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    mask = ndgrad.tensor([[False, True], [False, False]])
    with ndgrad.autograd.detect_anomaly(check_forward=True):
        y = (x * 2).exp()  # the NaN came in with x
        masked = scores.masked_fill(mask, float("-inf"))  # an Inf handed in on purpose
        probabilities = masked.softmax(dim=1)
    reference = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).masked_fill(torch.tensor([[False, True], [False, False]]),
                                                                    float("-inf")).softmax(dim=1)
    assert_close(probabilities, reference)
    assert np.isnan(y.detach().numpy()[1])


def test_torch_s_own_anomaly_mode_is_unchanged_and_check_forward_is_off_by_default():
    with ndgrad.autograd.detect_anomaly():
        assert not is_anomaly_check_forward_enabled()
        y = log_of_a_negative(ndgrad)  # no error in forward, as in torch
    assert np.isnan(y.detach().numpy()).any()
    with ndgrad.autograd.set_detect_anomaly(True, check_nan=False, check_forward=True):
        assert is_anomaly_check_forward_enabled() and not ndgrad.is_anomaly_check_nan_enabled()
        with pytest.raises(FloatingPointError):
            log_of_a_negative(ndgrad)
    assert not is_anomaly_check_forward_enabled() and not ndgrad.is_anomaly_enabled()


def test_check_forward_needs_anomaly_mode_itself_on():
    ndgrad.autograd.set_detect_anomaly(False, check_forward=True)
    y = log_of_a_negative(ndgrad)  # anomaly detection is off: nothing is checked
    assert np.isnan(y.detach().numpy()).any()
