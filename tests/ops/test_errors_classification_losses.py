"""ndgrad.ops.classification_losses at its boundaries, against torch: the errors (type and message), and the
losses PyTorch builds from other ops (kl_div, cross_entropy with label smoothing or class probabilities,
multilabel_soft_margin_loss), which the op table cannot list: values, grad_fn and derivatives."""

import numpy as np
import pytest

from .composites import assert_like_torch, constant
from .errors import assert_raises_like_torch


def F(lib):
    return lib.nn.functional


ERRORS = [
    ("reduction_nll", lambda lib: F(lib).nll_loss(lib.ones(2, 3), lib.tensor([0, 1]), reduction="avg")),
    ("nll_target_out_of_bounds", lambda lib: F(lib).nll_loss(lib.ones(3, 4), lib.tensor([0, 1, 5]))),
    ("cross_entropy_negative_target", lambda lib: F(lib).cross_entropy(lib.ones(3, 4), lib.tensor([0, 1, -1]))),
    ("nll_batch_size", lambda lib: F(lib).nll_loss(lib.ones(3, 4), lib.tensor([0, 1]))),
    ("nll_float_target", lambda lib: F(lib).nll_loss(lib.ones(3, 4), lib.tensor([0.0, 1.0, 1.0]))),
    ("nll_weight_size", lambda lib: F(lib).nll_loss(lib.ones(3, 4), lib.tensor([0, 1, 1]), weight=lib.ones(3))),
    ("nll_weight_dtype", lambda lib: F(lib).nll_loss(lib.ones(3, 4, dtype=lib.float64), lib.tensor([0, 1, 1]),
                                                     weight=lib.ones(4))),
    ("nll_0d", lambda lib: F(lib).nll_loss(lib.tensor(1.0), lib.tensor(0))),
    ("nll_spatial_target", lambda lib: F(lib).nll_loss(lib.ones(3, 4, 2), lib.tensor([0, 1, 1]))),
    ("cross_entropy_long_probabilities", lambda lib: F(lib).cross_entropy(lib.ones(3, 4), lib.ones(3, 4).long())),
    ("cross_entropy_probabilities_ignore_index",
     lambda lib: F(lib).cross_entropy(lib.ones(3, 4), lib.ones(3, 4), ignore_index=1)),
    ("cross_entropy_label_smoothing", lambda lib: F(lib).cross_entropy(lib.ones(3, 4), lib.tensor([0, 1, 1]),
                                                                       label_smoothing=1.5)),
    ("bce_logits_size", lambda lib: F(lib).binary_cross_entropy_with_logits(lib.ones(3, 4), lib.ones(3))),
    ("bce_size", lambda lib: F(lib).binary_cross_entropy(lib.ones(3, 4) / 2, lib.ones(4))),
    ("bce_range", lambda lib: F(lib).binary_cross_entropy(lib.ones(3) * 2, lib.ones(3))),
    *[(f"bce_logits_complex_{name}", lambda lib, target=target, weights=weights:
       F(lib).binary_cross_entropy_with_logits(lib.ones(2, 3), lib.ones(2, 3, dtype=getattr(lib, target)),
                                               **{k: lib.ones(3, dtype=getattr(lib, d)) for k, d in weights.items()}))
      for name, target, weights in [
          ("target_pos_weight", "complex128", {"pos_weight": "float32"}),
          ("target64_pos_weight", "complex64", {"pos_weight": "float64"}),
          ("pos_weight", "float32", {"pos_weight": "complex128"}),
          ("weight", "float32", {"weight": "complex64"}),
          ("target_weight", "complex128", {"weight": "float32", "pos_weight": "float64"})]],
    ("kl_div_reduction", lambda lib: F(lib).kl_div(lib.ones(3), lib.ones(3), reduction="avg")),
    ("multilabel_soft_margin_reduction",
     lambda lib: F(lib).multilabel_soft_margin_loss(lib.ones(2, 3), lib.ones(2, 3), reduction="avg")),
]


@pytest.mark.parametrize("call", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


def draw(seed, shape, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def classes(lib, values, like):
    return lib.tensor(values, dtype=like.dtype)


# (id, inputs as arrays: float ones differentiated, integer ones fixed, call)
COMPOSITES = [
    ("kl_div", (draw(0, (3, 4)), draw(1, (3, 4), 0.1, 1)), lambda lib, x, y: F(lib).kl_div(x, y)),
    ("kl_div_none", (draw(0, (3, 4)), draw(1, (3, 4), 0.1, 1)),
     lambda lib, x, y: F(lib).kl_div(x, y, reduction="none")),
    ("kl_div_batchmean", (draw(0, (3, 4)), draw(1, (3, 4), 0.1, 1)),
     lambda lib, x, y: F(lib).kl_div(x, y, reduction="batchmean")),
    ("kl_div_log_target", (draw(0, (3, 4)), draw(1, (3, 4))),
     lambda lib, x, y: F(lib).kl_div(x, y, reduction="sum", log_target=True)),
    ("cross_entropy_smoothing", (draw(0, (3, 4)), np.array([0, 3, 1])),
     lambda lib, x, t: F(lib).cross_entropy(x, t, label_smoothing=0.2)),
    ("cross_entropy_smoothing_weight", (draw(0, (3, 4)), np.array([0, -100, 1])),
     lambda lib, x, t: F(lib).cross_entropy(x, t, weight=classes(lib, [0.5, 1.0, 2.0, 1.5], x), label_smoothing=0.3)),
    ("cross_entropy_smoothing_none", (draw(0, (2, 3, 2)), np.array([[0, 2], [1, 1]])),
     lambda lib, x, t: F(lib).cross_entropy(x, t, reduction="none", label_smoothing=0.1, ignore_index=2)),
    ("cross_entropy_smoothing_sum", (draw(0, (4,)), np.array(2)),
     lambda lib, x, t: F(lib).cross_entropy(x, t, reduction="sum", label_smoothing=0.5)),
    ("cross_entropy_probabilities", (draw(0, (3, 4)), draw(1, (3, 4), 0, 1)),
     lambda lib, x, p: F(lib).cross_entropy(x, p)),
    ("cross_entropy_probabilities_none", (draw(0, (2, 3, 2)), draw(1, (2, 3, 2), 0, 1)),
     lambda lib, x, p: F(lib).cross_entropy(x, p, reduction="none", label_smoothing=0.2)),
    ("cross_entropy_probabilities_weight", (draw(0, (3, 4)), draw(1, (3, 4), 0, 1)),
     lambda lib, x, p: F(lib).cross_entropy(x, p, weight=classes(lib, [0.5, 1.0, 2.0, 1.5], x), reduction="sum")),
    ("multilabel_soft_margin", (draw(0, (3, 4)), constant(np.random.default_rng(1).integers(0, 2, (3, 4)))),
     lambda lib, x, t: F(lib).multilabel_soft_margin_loss(x, t)),
    ("multilabel_soft_margin_weight", (draw(0, (3, 4)), draw(1, (3, 4), 0, 1), draw(2, (4,), 0.5, 2)),
     lambda lib, x, t, w: F(lib).multilabel_soft_margin_loss(x, t, w, reduction="none")),
    ("multilabel_soft_margin_1d", (draw(0, (5,)), draw(1, (5,), 0, 1)),
     lambda lib, x, t: F(lib).multilabel_soft_margin_loss(x, t, reduction="sum")),
]


@pytest.mark.parametrize(("inputs", "call"), [c[1:] for c in COMPOSITES], ids=[c[0] for c in COMPOSITES])
def test_composites_match_torch(inputs, call):
    assert_like_torch(call, *inputs)
