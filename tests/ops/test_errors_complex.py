"""What torch refuses on complex tensors, ndgrad refuses alike (exception type and message): the complex versions of
the op table's samples that torch rejects, in the forward or when differentiating, and the functions and in-place
forms outside the table."""

import numpy as np
import pytest

import ndgrad
from ndgrad.autograd import gradcheck
from ndgrad.ops import OP_TABLE

from .errors import assert_raises_like_torch
from .samples import first, random_like, rejected_complex_samples

# torch's engine checks that a gradient arriving at a real input is real. Most of torch's rules take the real part
# themselves; where one does not (where, masked_fill, index_fill, logaddexp with a real and a complex operand), the
# check fails with this internal assertion. ndgrad's engine takes the real part (see Note [complex gradients]),
# which finite differences confirm below.
TORCH_ENGINE_CHECK = "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex)"

REFUSED = [
    pytest.param(op, case, outcome, id=f"{op.__name__}-{i}: {case}")
    for op in OP_TABLE
    for i, (case, outcome) in enumerate(rejected_complex_samples(op))
]


def refusal(call):
    """(exception type name, message) of what ``call`` raises, or None."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the refusal is what is compared
        return type(error).__name__, str(error).replace("torch.", "ndgrad.")
    return None


@pytest.mark.parametrize("op, case, outcome", REFUSED)
def test_op_table_complex_refusals(op, case, outcome):
    phase, error_type, message = outcome
    inputs = case.tensors(ndgrad, np.float64)
    if phase == "forward":
        assert refusal(lambda: case.run(ndgrad, inputs)) == (error_type.__name__, message.replace("torch.", "ndgrad."))
        return
    out = first(case.run(ndgrad, inputs))
    cotangent = ndgrad.from_numpy(random_like(np.random.default_rng(0), tuple(out.shape), out.dtype))
    if message.startswith(TORCH_ENGINE_CHECK):
        assert gradcheck(lambda *xs: first(case.run(ndgrad, xs)), inputs)
        return
    backward = refusal(lambda: ndgrad.autograd.grad(out, case.differentiable(inputs), cotangent, allow_unused=True))
    assert backward == (error_type.__name__, message.replace("torch.", "ndgrad."))


Z = "lib.tensor([1 + 2j, -0.5 + 1j, 0.25 - 1j])"  # a complex tensor
W = "lib.tensor([0.5 - 1j, 1 + 1j, -2 + 0.5j])"
R = "lib.tensor([1.0, -2.0, 0.5])"
ERRORS = [
    # in-place forms and overloads the table does not sample
    f"{Z}.abs_()", f"{Z}.absolute_()", f"{Z}.sign_()", f"{Z}.floor_()", f"{Z}.ceil_()", f"{Z}.trunc_()",
    f"lib.fix({Z})", f"{Z}.round_()", f"{Z}.round_(decimals=1)", f"{Z}.frac_()", f"{Z}.clamp_(0, 1)",
    f"lib.clip({Z}, max=1)", f"{Z}.clamp_min_(0.5)", f"lib.clamp_max({Z}, {W})", f"lib.clamp({Z}, {R}, {R})",
    f"{Z}.remainder_(2)", f"{Z}.fmod_(2)", f"lib.fmod({R}, {Z})", f"{Z}.floor_divide_(2)", f"{Z} // 2",
    f"lib.div({Z}, 2, rounding_mode='floor')", f"{Z}.div_(2, rounding_mode='trunc')", f"{Z}.hypot_({W})",
    f"{Z}.atan2_({W})", f"lib.atan2({R}, {Z})", f"{Z}.erf_()", f"{Z}.erfc_()", f"{Z}.erfinv_()", f"{Z}.lgamma_()",
    f"{Z}.digamma_()", f"lib.polygamma(2, {Z})", f"{Z}.polygamma_(1)", f"{Z}.xlogy_({W})", f"lib.xlogy(2.0, {Z})",
    f"lib.relu_({Z})", f"lib.nn.functional.relu6({Z})", f"lib.nn.functional.hardtanh_({Z})", f"lib.selu({Z})",
    f"lib.selu_({Z})", f"lib.nn.functional.gelu({Z}, approximate='tanh')",
    f"lib.nn.functional.silu({Z}.requires_grad_())", f"lib.nan_to_num({Z}.requires_grad_())",
    # orderings: complex numbers have none
    f"{Z} < 1", f"{Z} <= {W}", f"{R} > {Z}", f"{Z} >= 1j", f"lib.lt({Z}, {W})", f"{Z}.lt_(1)", f"{Z}.ge_({W})",
    f"lib.maximum({R}, {Z})", f"lib.minimum({Z}, {W})", f"lib.fmax({Z}, {W})", f"lib.fmin({R}, {Z})",
    f"lib.max({Z}, {W})", f"lib.argmax({Z})", f"lib.argmin({Z}, 0)", f"lib.isposinf({Z})", f"lib.isneginf({Z})",
    f"lib.nanmean({Z})", f"lib.nansum({Z})", f"lib.cummin({Z}, 0)",
    f"lib.bitwise_and({Z}, {W})", f"lib.bitwise_not({Z})",
    # the products refuse mixed dtypes
    f"lib.einsum('i,i->', {Z}, {R})", f"lib.inner({Z}, {R})", f"lib.tensordot({R}, {Z}, 1)",
    f"lib.linalg.vecdot({Z}, {R})", f"lib.linalg.multi_dot([{Z}, {R}])", f"lib.vdot({Z}, {R})",
    f"lib.vdot({Z}, {Z}[:2])", f"lib.vdot({Z}[None], {Z})",
    # casts, conversions and fills
    f"float({Z}[0])", f"int({Z}[1])", f"{Z}[0].__index__()", "lib.tensor([1 + 2j], dtype=lib.float32)",
    "lib.tensor(1 + 2j, dtype=lib.int64)", "lib.full((2,), 1 + 1j, dtype=lib.float32)", "lib.ones(2).fill_(1j)",
    "lib.zeros(2, dtype=lib.int32).fill_(1j)", "lib.zeros(2, dtype=lib.float16).fill_(2j)",
    # backward: a complex scalar needs an explicit gradient; a gradient is complex exactly when its output is
    "(lib.tensor(1.0, requires_grad=True) * (1 + 1j)).backward()",
    "lib.tensor([1.0, 2.0], requires_grad=True).mul(2).backward(lib.tensor([1 + 1j, 1 + 0j]))",
    "(lib.tensor([1.0, 2.0], requires_grad=True) * 1j).backward(lib.tensor([1.0, 1.0]))",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)
