"""ndgrad.fft against torch.fft where the op table cannot reach: bad arguments (exception type and message), the
dtypes each transform returns, the frequencies, and the shifts (which are rolls)."""

import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .errors import assert_raises_like_torch

X = "lib.ones(4, 6)"
Z = "lib.ones(4, 6, dtype=lib.complex64)"
ERRORS = [
    f"lib.fft.fft({X}, norm='bad')", f"lib.fft.ifftn({Z}, norm='Ortho')", f"lib.fft.fft({X}, n=0)",
    f"lib.fft.rfft({X}, n=-1)", f"lib.fft.fft({X}, dim=2)", f"lib.fft.fft({X}, n=3.0)", f"lib.fft.fft({X}, dim=(0,))",
    "lib.fft.fft(lib.tensor(1.0))", "lib.fft.fft(lib.ones(0))", "lib.fft.fft(lib.ones(3, dtype=lib.half))",
    f"lib.fft.rfft({Z})", f"lib.fft.ihfft({Z})", f"lib.fft.rfftn({Z})", f"lib.fft.rfft2({Z})", f"lib.fft.ihfftn({Z})",
    f"lib.fft.ihfft2({Z})", f"lib.fft.fftn({X}, s=(2, 3), dim=(0,))", f"lib.fft.fftn({X}, dim=(0, 0))",
    f"lib.fft.fftn({X}, s=(3, 4, 5))", f"lib.fft.fftn({X}, s=(0, 3))", f"lib.fft.fft2({X}, s=(3,))",
    "lib.fft.rfft2(lib.ones(4))", "lib.fft.irfft(lib.ones(1, dtype=lib.complex64))",
    "lib.fft.rfftfreq(7, dtype=lib.complex64)",
    f"lib.fft.rfftn({X}, dim=())", f"lib.fft.irfftn({Z}, dim=())", f"lib.fft.hfftn({Z}, dim=())",
    f"lib.fft.hfft2({Z}, s=(3, 0))", f"lib.fft.fftshift({X}, dim=5)", "lib.fft.ifftshift(lib.tensor(1.0))",
    "lib.fft.fftfreq(4, dtype=lib.int64)", "lib.fft.rfftfreq(4, dtype=lib.bool)",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)


RESULTS = [
    "lib.fft.fft(lib.arange(4))", "lib.fft.rfft(lib.arange(5, dtype=lib.int32))", "lib.fft.fft(lib.ones(3))",
    "lib.fft.ifft(lib.ones(3, dtype=lib.float64))", "lib.fft.irfft(lib.ones(3))", "lib.fft.hfft(lib.ones(3))",
    "lib.fft.ihfft(lib.arange(5.0))", "lib.fft.fftn(lib.tensor(1.0))", f"lib.fft.fftn({X}, dim=())",
    f"lib.fft.ifftn({Z}, dim=())", f"lib.fft.fftn({X}, s=3)", f"lib.fft.fftn({X}, s=(3, -1))",
    f"lib.fft.irfftn({Z}, s=(3, -1))", f"lib.fft.irfftn({Z}, s=(3, 1))", "lib.fft.fft(lib.tensor([True, False]))",
    f"lib.fft.fftshift({X} * lib.arange(6.0), dim=(0, 0))", "lib.fft.fftshift(lib.arange(10.0).reshape(2, 5))",
    "lib.fft.ifftshift(lib.arange(10.0).reshape(2, 5), dim=-1)", "lib.fft.ifftshift(lib.arange(7.0))",
    "lib.fft.fftfreq(5)", "lib.fft.fftfreq(0)", "lib.fft.fftfreq(4, d=0.5, dtype=lib.float64)",
    "lib.fft.rfftfreq(6, d=0.1)", "lib.fft.fftfreq(8, 3.0)", f"lib.fft.hfft({Z}, n=1)",
]


def outcome(lib, expression):
    result = eval(expression, {"lib": lib})
    return result.resolve_conj().numpy(), str(result.dtype).rsplit(".", 1)[-1], result.requires_grad


@pytest.mark.parametrize("expression", RESULTS)
def test_result_matches_torch(expression):
    ours, theirs = outcome(ndgrad, expression), outcome(torch, expression)
    assert ours[1:] == theirs[1:]
    assert_close(ours[0], theirs[0])


def test_frequencies_can_require_grad():
    assert repr(ndgrad.fft.fftfreq(4, requires_grad=True)) == repr(torch.fft.fftfreq(4, requires_grad=True)).replace(
        "torch.", "ndgrad.")


def test_shift_records_roll():
    x = ndgrad.arange(6.0, requires_grad=True)
    assert type(ndgrad.fft.fftshift(x).grad_fn).__name__ == type(
        torch.fft.fftshift(torch.arange(6.0, requires_grad=True)).grad_fn).__name__
