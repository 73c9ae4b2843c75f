"""The only per-op test knowledge besides the samplers: tolerance overrides and expected failures with a reason.

Keep it short. An xfail is strict: when the bug is fixed the test XPASSes and fails, so the entry is removed.
"""

import pytest
from tests.closeness import TOLERANCE

from ndgrad.ops import (
    activation,
    arithmetic,
    convolutions,
    ctc,
    embedding_bag,
    layers,
    margin_losses,
    normalization,
    products,
)

# Tolerances for values and gradients compared with torch: the suite's per dtype (tests/closeness.py), but for
# TOLERANCES[(op class, dtype name)], each with the reason it needs its own.
TOLERANCES = {}

# XFAILS[(op class, test function name)] = reason: known bugs not fixed yet.
XFAILS = {}

# NO_ORACLE[(op class, test function name)] = reason: torch cannot answer (the test is skipped; ndgrad's own
# result is still checked against finite differences in test_numerical).
NO_ORACLE = {
    (activation.Hardsigmoid, "test_second_derivatives"): "torch defines no double backward for hardsigmoid",
    (activation.Hardsigmoid, "test_third_derivatives"): "torch defines no double backward for hardsigmoid",
    # torch's third derivatives disagree with finite differences (of torch's own second derivative); ours agree
    (normalization.NativeLayerNorm, "test_third_derivatives"): "torch's third derivative of layer_norm is wrong",
    (normalization.NativeBatchNorm, "test_third_derivatives"): "torch's third derivative of batch_norm is wrong",
    **{(op, test): f"torch defines no double backward for {op.name}"
       for op in (margin_losses.MultiMarginLoss, margin_losses.MultilabelMarginLoss, ctc.CtcLoss, layers.Pdist)
       for test in ("test_second_derivatives", "test_third_derivatives")},
    # torch's cdist backward (_cdist_backward) has no derivative: "the derivative for '_cdist_backward' is not
    # implemented"; ours is checked against finite differences
    **{(products.Cdist, test): "torch defines no double backward for cdist"
       for test in ("test_second_derivatives", "test_third_derivatives")},
    # ctc_loss's backward is not a derivative of its forward (see ops/ctc.py) and, as in torch, has none of its own
    (ctc.CtcLoss, "test_gradgradcheck"): "ctc_loss has no double backward, in torch or ndgrad",
    **{(embedding_bag.EmbeddingBag, test): "torch defines no double backward for embedding_bag"
       for test in ("test_second_derivatives", "test_third_derivatives")},
}


# COMPLEX_NO_ORACLE[(op class, test function name, "complex" or "mixed")] = reason: as NO_ORACLE, for the complex
# (every input complex) or mixed (real and complex inputs) samples only.
COMPLEX_NO_ORACLE = {
    (arithmetic.PowTensor, "test_jvp_matches_torch", "mixed"):
        "torch's tangent of a complex base to a real exponent keeps only the real part of the exponent's term",
    # the node names still match torch's: the test's check that the op itself made the result is what cannot hold
    (convolutions.Convolution, "test_grad_fn", "complex"):
        "a complex convolution is three real ones (Gauss's trick, as in torch): its node is AddBackward0",
}


def tolerance(op, dtype="float64"):
    return TOLERANCES.get((op, dtype), TOLERANCE[dtype])


def marks(op, test, case=None):
    if (op, test) in NO_ORACLE:
        return [pytest.mark.skip(reason=NO_ORACLE[(op, test)])]
    if case is not None and (op, test, case.complex_kind) in COMPLEX_NO_ORACLE:
        return [pytest.mark.skip(reason=COMPLEX_NO_ORACLE[(op, test, case.complex_kind)])]
    reason = XFAILS.get((op, test))
    return [pytest.mark.xfail(reason=reason, strict=True)] if reason else []


def xfailed(op, test):
    """Hypothesis tests draw ops from a list and cannot mark one example: they leave these ops out."""
    return (op, test) in XFAILS or (op, test) in NO_ORACLE
