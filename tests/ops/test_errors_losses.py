"""ndgrad.ops.losses at its boundaries, against torch: the errors (type and message), and the losses PyTorch
builds from other ops (l1_loss, kl_div, cross_entropy with label smoothing or class probabilities, the weighted
forms, margin_ranking_loss, hinge_embedding_loss): values, grad_fn, first and second derivatives."""

import warnings

import numpy as np
import pytest
import torch

import ndgrad

from .errors import assert_raises_like_torch


def F(lib):
    return lib.nn.functional


ERRORS = [
    ("reduction", lambda lib: F(lib).mse_loss(lib.ones(3), lib.ones(3), reduction="foo")),
    ("reduction_nll", lambda lib: F(lib).nll_loss(lib.ones(2, 3), lib.tensor([0, 1]), reduction="avg")),
    ("mse_broadcast", lambda lib: F(lib).mse_loss(lib.ones(3, 4), lib.ones(2, 4))),
    ("mse_weight_size", lambda lib: F(lib).mse_loss(lib.ones(3), lib.ones(3), weight=lib.ones(2))),
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
    ("smooth_l1_negative_beta", lambda lib: F(lib).smooth_l1_loss(lib.ones(3), lib.ones(3), beta=-1.0)),
    ("huber_zero_delta", lambda lib: F(lib).huber_loss(lib.ones(3), lib.ones(3), delta=0.0)),
    ("kl_div_reduction", lambda lib: F(lib).kl_div(lib.ones(3), lib.ones(3), reduction="avg")),
    ("soft_margin_target_grad", lambda lib: F(lib).soft_margin_loss(lib.ones(3), lib.ones(3, requires_grad=True))),
    ("soft_margin_broadcast", lambda lib: F(lib).soft_margin_loss(lib.ones(3), lib.ones(2))),
    ("cosine_embedding_target", lambda lib: F(lib).cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3),
                                                                          lib.ones(2, 1))),
    ("cosine_embedding_inputs", lambda lib: F(lib).cosine_embedding_loss(lib.ones(3), lib.ones(3), lib.ones(2))),
    ("triplet_margin", lambda lib: F(lib).triplet_margin_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3),
                                                              margin=0)),
    ("triplet_dims", lambda lib: F(lib).triplet_margin_loss(lib.ones(2, 3), lib.ones(3), lib.ones(2, 3))),
    ("poisson_reduction", lambda lib: F(lib).poisson_nll_loss(lib.ones(3), lib.ones(3), reduction="avg")),
    ("gaussian_negative_var", lambda lib: F(lib).gaussian_nll_loss(lib.ones(3), lib.ones(3), -lib.ones(3))),
    ("gaussian_negative_float_var", lambda lib: F(lib).gaussian_nll_loss(lib.ones(3), lib.ones(3), -1.0)),
    ("gaussian_var_size", lambda lib: F(lib).gaussian_nll_loss(lib.ones(3, 4), lib.ones(3, 4), lib.ones(2, 2))),
    ("gaussian_reduction", lambda lib: F(lib).gaussian_nll_loss(lib.ones(3), lib.ones(3), lib.ones(3),
                                                                reduction="avg")),
    ("margin_ranking_dims", lambda lib: F(lib).margin_ranking_loss(lib.ones(3), lib.ones(3), lib.ones(1, 3))),
]


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("call", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


def draw(seed, shape, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def w(lib, values):
    return lib.tensor(values, dtype=lib.float64)


# (id, inputs as arrays (integer arrays are not differentiated), call)
COMPOSITES = [
    ("l1", (draw(0, (3, 4)), draw(1, (3, 4))), lambda lib, x, y: F(lib).l1_loss(x, y)),
    ("l1_none", (draw(0, (3, 4)), draw(1, (3, 4))), lambda lib, x, y: F(lib).l1_loss(x, y, reduction="none")),
    ("l1_weight", (draw(0, (3, 4)), draw(1, (3, 4))),
     lambda lib, x, y: F(lib).l1_loss(x, y, weight=w(lib, draw(2, (3, 4), 0.5, 2)))),
    ("mse_weight", (draw(0, (3, 4)), draw(1, (3, 4))),
     lambda lib, x, y: F(lib).mse_loss(x, y, weight=w(lib, draw(2, (3, 4), 0.5, 2)))),
    ("huber_weight", (draw(0, (3, 4)), draw(1, (3, 4))),
     lambda lib, x, y: F(lib).huber_loss(x, y, weight=w(lib, draw(2, (3, 4), 0.5, 2)))),
    ("smooth_l1_beta_0", (draw(0, (3, 4)), draw(1, (3, 4))), lambda lib, x, y: F(lib).smooth_l1_loss(x, y, beta=0.0)),
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
     lambda lib, x, t: F(lib).cross_entropy(x, t, weight=w(lib, [0.5, 1.0, 2.0, 1.5]), label_smoothing=0.3)),
    ("cross_entropy_smoothing_none", (draw(0, (2, 3, 2)), np.array([[0, 2], [1, 1]])),
     lambda lib, x, t: F(lib).cross_entropy(x, t, reduction="none", label_smoothing=0.1, ignore_index=2)),
    ("cross_entropy_smoothing_sum", (draw(0, (4,)), np.array(2)),
     lambda lib, x, t: F(lib).cross_entropy(x, t, reduction="sum", label_smoothing=0.5)),
    ("cross_entropy_probabilities", (draw(0, (3, 4)), draw(1, (3, 4), 0, 1)),
     lambda lib, x, p: F(lib).cross_entropy(x, p)),
    ("cross_entropy_probabilities_none", (draw(0, (2, 3, 2)), draw(1, (2, 3, 2), 0, 1)),
     lambda lib, x, p: F(lib).cross_entropy(x, p, reduction="none", label_smoothing=0.2)),
    ("cross_entropy_probabilities_weight", (draw(0, (3, 4)), draw(1, (3, 4), 0, 1)),
     lambda lib, x, p: F(lib).cross_entropy(x, p, weight=w(lib, [0.5, 1.0, 2.0, 1.5]), reduction="sum")),
    ("margin_ranking", (draw(0, (5,)), draw(1, (5,))),
     lambda lib, x, y: F(lib).margin_ranking_loss(x, y, w(lib, [1, -1, 1, -1, 1]), margin=0.3)),
    ("hinge_embedding", (draw(0, (5,)),),
     lambda lib, x: F(lib).hinge_embedding_loss(x, w(lib, [1, -1, 1, -1, -1]), margin=0.7, reduction="sum")),
    ("cosine_embedding", (draw(0, (3, 4)), draw(1, (3, 4))),
     lambda lib, x, y: F(lib).cosine_embedding_loss(x, y, w(lib, [1, -1, -1]), margin=-0.5)),
    ("cosine_embedding_0d", (draw(0, (4,)), draw(1, (4,))),
     lambda lib, x, y: F(lib).cosine_embedding_loss(x, y, w(lib, 1), reduction="none")),
    ("triplet", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4))),
     lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n, margin=2.0)),
    ("triplet_swap_p1", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4))),
     lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n, margin=3.0, p=1, swap=True, reduction="none")),
    ("poisson", (draw(0, (3, 4)), draw(1, (3, 4), 0, 3)), lambda lib, x, y: F(lib).poisson_nll_loss(x, y)),
    ("poisson_full", (draw(0, (3, 4), 0.5, 3), draw(1, (3, 4), 0.5, 3)),
     lambda lib, x, y: F(lib).poisson_nll_loss(x, y, log_input=False, full=True, reduction="sum")),
    ("gaussian", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4), 0.5, 2)),
     lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v)),
    ("gaussian_homoscedastic", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3,), 0.5, 2)),
     lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v, full=True, reduction="none")),
    ("gaussian_float_var", (draw(0, (3, 4)), draw(1, (3, 4))),
     lambda lib, x, y: F(lib).gaussian_nll_loss(x, y, 0.5, reduction="sum")),
]


def run(lib, inputs, call):
    tensors = [lib.from_numpy(a.copy()) for a in inputs]
    tensors = [t.requires_grad_() if t.dtype == lib.float64 else t for t in tensors]
    wrt = [t for t in tensors if t.requires_grad]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = call(lib, *tensors)
    cotangent = lib.from_numpy(np.random.default_rng(5).standard_normal(tuple(y.shape)))
    grads = lib.autograd.grad(y, wrt, cotangent, create_graph=True)
    total = sum((g * g).sum() for g in grads)
    second = lib.autograd.grad(total, wrt, allow_unused=True) if total.requires_grad else [None] * len(wrt)
    force = {"force": True} if lib is torch else {}  # torch's second derivative of abs is a ZeroTensor
    second = [np.zeros(t.shape) if g is None else g.numpy(**force) for g, t in zip(second, wrt)]
    return y.detach().numpy(), type(y.grad_fn).__name__, [g.detach().numpy() for g in grads], second


@pytest.mark.parametrize(("inputs", "call"), [c[1:] for c in COMPOSITES], ids=[c[0] for c in COMPOSITES])
def test_composites_match_torch(inputs, call):
    """Values, grad_fn, first and second derivatives: the composites get no op-table entry of their own."""
    (y, node, grads, second), (y_ref, node_ref, grads_ref, second_ref) = (run(lib, inputs, call)
                                                                          for lib in (ndgrad, torch))
    np.testing.assert_allclose(y, y_ref, rtol=1e-10, atol=1e-12)
    assert node == node_ref
    for ours, theirs in zip(grads + second, grads_ref + second_ref):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_legacy_reduction_arguments_warn_and_apply():
    x, y = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    for size_average, reduce in [(False, None), (None, False), (True, True)]:
        results = []
        for lib in (ndgrad, torch):
            with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
                results.append(F(lib).mse_loss(lib.from_numpy(x), lib.from_numpy(y), size_average, reduce).numpy())
        np.testing.assert_allclose(*results)


def test_size_mismatch_warns():
    with pytest.warns(UserWarning, match="Using a target size"):
        F(ndgrad).mse_loss(ndgrad.ones(3, 4), ndgrad.ones(4))
