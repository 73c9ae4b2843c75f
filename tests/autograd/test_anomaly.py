"""Anomaly detection against PyTorch: the switches, the NaN check in backward, and the warning that shows the
forward call which created the failing node."""

import re

import pytest
import torch

import ndgrad
from ndgrad.autograd import anomaly_mode

_OUTER_FRAMES = re.compile(r'(?<=error:\n).*?(?=  File "<snippet>")', re.DOTALL)


@pytest.fixture
def same(run):
    """As conftest's ``same``, but the forward stacks in anomaly warnings are compared from the snippet's frames
    on: the frames above differ by one line (the test harness calls torch first, then ndgrad)."""

    def compare(code):
        expected, actual = run(torch, code), run(ndgrad, code)
        for outcome in (expected, actual):
            outcome.warnings = [(kind, _OUTER_FRAMES.sub("", text)) for kind, text in outcome.warnings]
        assert actual.agrees_with(expected), f"\n--- code:\n{code}\n--- torch:\n{expected}\n--- ndgrad:\n{actual}"
        return expected

    return compare


@pytest.fixture(autouse=True)
def _anomaly_off():
    yield
    torch.autograd.set_detect_anomaly(False)
    ndgrad.autograd.set_detect_anomaly(False)


def _flags(lib):
    if lib is torch:
        return torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()
    return anomaly_mode.is_anomaly_enabled(), anomaly_mode.is_anomaly_check_nan_enabled()


@pytest.mark.parametrize("lib", [torch, ndgrad])
def test_switches(lib):
    seen = [_flags(lib)]
    mode = lib.autograd.set_detect_anomaly(True, check_nan=False)
    seen += [_flags(lib), (mode.prev, mode.prev_check_nan)]
    lib.autograd.set_detect_anomaly(False)
    seen.append(_flags(lib))
    with lib.autograd.set_detect_anomaly(True):
        seen.append(_flags(lib))
    seen.append(_flags(lib))
    with pytest.warns(UserWarning, match="^Anomaly Detection has been enabled. This mode will increase the runtime"):
        detector = lib.autograd.detect_anomaly(check_nan=False)
    seen.append(_flags(lib))  # creating it warns, entering it switches on
    with detector:
        seen.append(_flags(lib))
    seen.append(_flags(lib))
    assert seen == [
        (False, True), (True, False), (False, True), (False, True), (True, True), (False, True), (False, True),
        (True, False), (False, True),
    ]


# A hook makes the gradient NaN without any NumPy warning; MulBackward0 then returns NaN in its 1st output.
NAN = """
x = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([3., 4.], requires_grad=True)
def forward(x, w):
    y = x * w
    y.register_hook(lambda g: g * float('nan'))
    return y.sum()
with torch.autograd.detect_anomaly({args}):
    out = forward(x, w)
    out.backward()
print(x.grad, w.grad)
"""


def test_nan_in_backward_raises_and_warns_with_the_forward_trace(same):
    expected = same(NAN.format(args=""))
    assert expected.error == ("RuntimeError", "Function 'MulBackward0' returned nan values in its 0th output.")
    message = expected.warnings[-1][1]
    assert message.startswith("Error detected in MulBackward0. Traceback of forward call that caused the error:")
    assert message.endswith(':\n  File "<snippet>", line 9, in <module>\n  File "<snippet>", line 5, in forward')


def test_check_nan_off_lets_nan_through(same):
    assert same(NAN.format(args="check_nan=False")).error is None


def test_nan_passes_silently_without_anomaly_mode(same):
    same(NAN.replace("with torch.autograd.detect_anomaly({args}):", "if True:"))


def test_any_error_in_backward_warns_and_in_place_hint_changes(same):
    expected = same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    a = x.exp()
    with torch.no_grad():
        a.mul_(2)
    try:
        a.sum().backward()
    except RuntimeError as e:
        print(e)
    b = x.sin()
    b.register_hook(lambda g: 1 / 0)
    b.sum().backward()
"""
    )
    assert "Good luck!" in expected.stdout and expected.error[0] == "ZeroDivisionError"
    assert [w[1].split(".")[0] for w in expected.warnings] == ["Error detected in ExpBackward0"] * 1 + [
        "Error detected in SinBackward0"
    ]


def test_node_made_without_anomaly_mode_has_no_trace(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
y.register_hook(lambda g: g * float('nan'))
out = y.sum()
print(out.grad_fn.metadata)
with torch.autograd.set_detect_anomaly(True):
    out.backward()
"""
    )


def test_metadata_holds_the_forward_trace(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    y = x.exp()
print(list(y.grad_fn.metadata), y.grad_fn.metadata['traceback_'][-1])
"""
    )


def _double_backward_headers(lib):
    import warnings

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.set_detect_anomaly(True):
            y = x.sin()
            (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)  # made by SinBackward0's backward
            g.register_hook(lambda grad: grad * float("nan"))
            with pytest.raises(RuntimeError, match="returned nan values"):
                g.sum().backward()
    return [str(w.message).lstrip("\n").split(".")[0] for w in caught]


def test_double_backward_names_the_node_whose_backward_made_the_failing_one():
    """The stack of a node made during backward passes through each library's own files: compare the headers."""
    headers = _double_backward_headers(torch)
    assert headers[-1] == "Previous calculation was induced by SinBackward0"
    assert _double_backward_headers(ndgrad) == headers
