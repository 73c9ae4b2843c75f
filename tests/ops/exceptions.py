"""The only per-op test knowledge besides the samplers: tolerance overrides and expected failures with a reason.

Keep it short. An xfail is strict: when the bug is fixed the test XPASSes and fails, so the entry is removed.
"""

import pytest
from tests.closeness import TOLERANCE

from ndgrad.ops import (
    OP_TABLE,
    activation,
    arithmetic,
    classification_losses,
    complex_numbers,
    convolutions,
    ctc,
    decompositions,
    eigen,
    embedding_bag,
    layers,
    lu,
    margin_losses,
    matrix_functions,
    max_pooling,
    normalization,
    products,
    reduction,
    resampling,
    scan,
    selection,
    solvers,
    sorting,
    special_functions,
    spectral,
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
    # forward AD through zeta and the incomplete gamma functions raises, in torch and (with its words) in ndgrad
    **{(op, test): f"torch defines no forward AD for {op.name}"
       for op in (special_functions.Zeta, special_functions.ZetaScalarSelf, special_functions.Igamma,
                  special_functions.Igammac)
       for test in ("test_jvp_finite_differences", "test_jvp_agrees_with_vjp")},
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


# ---- singular points (test_singular_points.py) ---------------------------------------------------------------------
SINGULAR_OPS = OP_TABLE

# Ops that pick one of several equal elements: at ties only their values and tie-summed gradients are compared.
PICKS_AMONG_TIES = {
    sorting.Sort, sorting.Topk, selection.MaxDim, selection.MinDim, selection.Median, selection.Nanmedian,
    selection.MedianDim, selection.NanmedianDim, selection.Mode, selection.Kthvalue, scan.Cummax, scan.Cummin,
    max_pooling.MaxPool2DWithIndices, max_pooling.MaxPool3DWithIndices, max_pooling.AdaptiveMaxPool2D,
    max_pooling.AdaptiveMaxPool3D, max_pooling.FractionalMaxPool2D, max_pooling.FractionalMaxPool3D,
}

_LAPACK_FAMILIES = {module.__name__ for module in (solvers, decompositions, eigen, lu, matrix_functions)}
_LAPACK = "LAPACK's answer for a non-finite matrix is the library's own: torch's MKL may never return, NumPy raises"
_FFTS = (spectral.FftC2C, spectral.FftR2C, spectral.FftC2R)
# SINGULAR_POINTS[(op class, point)] = reason: a point where torch's answer is not one to match (the test is
# skipped): its library's own, a crash, or an artifact of how its kernel happens to work.
SINGULAR_POINTS = {
    **{(op, point): _LAPACK for op in OP_TABLE if op.__module__ in _LAPACK_FAMILIES
       for point in ("infinities", "minus infinities", "nan", "zeros against infinities", "infinities against zeros")},
    **{(op, point): "an FFT of infinities is inf or NaN by the butterflies of its library (MKL in torch, pocketfft "
       "in NumPy)" for op in _FFTS for point in ("infinities", "nan")},
    **{(op, "empty"): "torch's MKL FFT fails on an empty batch (DFTI: Inconsistent configuration parameters)"
       for op in _FFTS},
    **{(op, "one value"): "a repeated eigenvalue: the eigenvectors are not unique, and what torch gives depends on "
       "LAPACK's choice of them" for op in (eigen.LinalgEig, decompositions.LinalgEigh)},
    **{(op, point): "torch's mean comes out of its Welford updates, in which an infinity makes the later steps "
       "NaN: whether it is NaN depends on where the infinities sit" for op in (reduction.VarMean, reduction.StdMean)
       for point in ("infinities", "minus infinities")},
    **{(op, "empty"): "torch's mean over no samples is uninitialised memory (not the NaN of 0 / 0)"
       for op in (margin_losses.MultiMarginLoss, margin_losses.MultilabelMarginLoss)},
    **{(op, "nan"): "torch's elu_backward at NaN is its kernel's: its vector loops blend both sides' slopes into NaN "
       "(all of them on the scalar-only CPU path, float64 on AVX2), its scalar tail and AVX2's float32 loop take the "
       "positive side's, so the answer depends on the CPU, the dtype and where the NaN sits"
       for op in (activation.Elu, activation.Celu, activation.EluInPlace, activation.CeluInPlace)},
    (selection.Mode, "nan"): "torch's mode sorts with a comparison that NaN breaks: its value and index then depend "
    "on the sort's order of work",
    (classification_losses.BinaryCrossEntropy, "negative zeros"): "the second derivative is +-inf at x = -0.: "
    "which infinity is an accident of how torch's kernels take 1 / -0.",
    (layers.Pdist, "empty"): "torch's pdist backward crashes (segmentation fault) on an empty input",
    (resampling.PixelShuffle, "empty"): "torch's own backward fails on an empty input (a gradient of the wrong shape)",
    (resampling.PixelUnshuffle, "empty"): "torch returns an empty input unshuffled, in its own shape (and its "
    "backward then fails)",
    (complex_numbers.ViewAsReal, "empty"): "torch refuses NumPy's empty cotangent (its strides are 0, and "
    "view_as_complex wants the last one 1)",
}

# NOISY_SECOND_DERIVATIVES[(op class, point)] = reason: the values and gradients are compared, the second derivatives
# not: both libraries' are rounding noise there, which other CPUs round otherwise.
NOISY_SECOND_DERIVATIVES = {
    (op, "one value"): "every element equal: the variance is 0, and the second derivative is each library's "
    "rounding of x - mean (about 1e-17) times 1 / sqrt(eps)^3"
    for op in (normalization.NativeBatchNorm, normalization.NativeLayerNorm, normalization.NativeGroupNorm)
}

# SINGULAR_XFAILS[(op class, point)] = reason: known differences not fixed yet. The test xfails where the difference
# shows (only some of an op's samples may show it) and passes elsewhere;
# test_singular_xfails_still_fail fails once none shows it any more, so that the entry goes.
SINGULAR_XFAILS = {
    (normalization.NativeBatchNorm, "zeros against infinities"): "with an infinite weight, the second derivative "
    "in grad: torch's double backward applies the weight after the batch mean, ndgrad's differentiated rule before "
    "it (inf - inf)",
}
