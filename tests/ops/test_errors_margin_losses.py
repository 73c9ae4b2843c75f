"""ndgrad.ops.margin_losses at its boundaries, against torch: the errors (type and message), and the losses PyTorch
builds from other ops (margin_ranking, hinge_embedding, cosine_embedding, triplet_margin with and without a distance
function), which the op table cannot list: values, grad_fn and derivatives (tests/ops/composites.py)."""

import numpy as np
import pytest

from .composites import assert_like_torch, constant
from .errors import assert_raises_like_torch


def F(lib):
    return lib.nn.functional


ERRORS = [
    ("soft_margin_target_grad", lambda lib: F(lib).soft_margin_loss(lib.ones(3), lib.ones(3, requires_grad=True))),
    ("soft_margin_broadcast", lambda lib: F(lib).soft_margin_loss(lib.ones(3), lib.ones(2))),
    ("cosine_embedding_target", lambda lib: F(lib).cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3),
                                                                          lib.ones(2, 1))),
    ("cosine_embedding_inputs", lambda lib: F(lib).cosine_embedding_loss(lib.ones(3), lib.ones(3), lib.ones(2))),
    ("triplet_margin", lambda lib: F(lib).triplet_margin_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3),
                                                              margin=0)),
    ("triplet_dims", lambda lib: F(lib).triplet_margin_loss(lib.ones(2, 3), lib.ones(3), lib.ones(2, 3))),
    ("triplet_distance_reduction", lambda lib: F(lib).triplet_margin_with_distance_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), reduction="avg")),
    ("triplet_distance_margin", lambda lib: F(lib).triplet_margin_with_distance_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), margin=-1.0)),
    ("triplet_distance_dims", lambda lib: F(lib).triplet_margin_with_distance_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(3))),
    ("margin_ranking_dims", lambda lib: F(lib).margin_ranking_loss(lib.ones(3), lib.ones(3), lib.ones(1, 3))),
    ("multi_margin_p", lambda lib: F(lib).multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 2]), p=3)),
    ("multi_margin_target_range", lambda lib: F(lib).multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 4, 2]))),
    ("multi_margin_target_size", lambda lib: F(lib).multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1]))),
    ("multi_margin_target_dtype", lambda lib: F(lib).multi_margin_loss(lib.ones(3, 4), lib.tensor([0.0, 1, 2]))),
    ("multi_margin_weight_size", lambda lib: F(lib).multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 2]),
                                                                      weight=lib.ones(3))),
    ("multi_margin_weight_dims", lambda lib: F(lib).multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 2]),
                                                                      weight=lib.ones(1, 4))),
    ("multi_margin_weight_dtype", lambda lib: F(lib).multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 2]),
                                                                       weight=lib.ones(4, dtype=lib.float64))),
    ("multi_margin_3d", lambda lib: F(lib).multi_margin_loss(lib.ones(2, 3, 4), lib.tensor([0, 1]))),
    ("multi_margin_reduction", lambda lib: F(lib).multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 2]),
                                                                    reduction="foo")),
    ("multilabel_margin_size", lambda lib: F(lib).multilabel_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 2]))),
    ("multilabel_margin_range", lambda lib: F(lib).multilabel_margin_loss(lib.ones(1, 4), lib.tensor([[0, 4, -1, 0]]))),
    ("multilabel_margin_dtype", lambda lib: F(lib).multilabel_margin_loss(lib.ones(3, 4), lib.zeros(3, 4))),
    ("multilabel_margin_3d", lambda lib: F(lib).multilabel_margin_loss(lib.ones(2, 2, 2), lib.zeros(2, 2, 2).long())),
]


@pytest.mark.parametrize("call", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


def draw(seed, shape, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def signs(values):
    return constant(np.asarray(values, dtype=np.float64))


# (id, inputs as arrays: float ones differentiated, call)
COMPOSITES = [
    ("margin_ranking", (draw(0, (5,)), draw(1, (5,)), signs([1, -1, 1, -1, 1])),
     lambda lib, x, y, t: F(lib).margin_ranking_loss(x, y, t, margin=0.3)),
    ("hinge_embedding", (draw(0, (5,)), signs([1, -1, 1, -1, -1])),
     lambda lib, x, t: F(lib).hinge_embedding_loss(x, t, margin=0.7, reduction="sum")),
    ("cosine_embedding", (draw(0, (3, 4)), draw(1, (3, 4)), signs([1, -1, -1])),
     lambda lib, x, y, t: F(lib).cosine_embedding_loss(x, y, t, margin=-0.5)),
    ("cosine_embedding_0d", (draw(0, (4,)), draw(1, (4,)), signs(1)),
     lambda lib, x, y, t: F(lib).cosine_embedding_loss(x, y, t, reduction="none")),
    ("triplet", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4))),
     lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n, margin=2.0)),
    ("triplet_swap_p1", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4))),
     lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n, margin=3.0, p=1, swap=True, reduction="none")),
    ("triplet_distance", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4))),
     lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(a, p, n, margin=2.0)),
    ("triplet_distance_cosine", (draw(0, (3, 4)), draw(1, (3, 4)), draw(2, (3, 4))),
     lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(
         a, p, n, distance_function=lambda x, y: 1 - F(lib).cosine_similarity(x, y), swap=True, reduction="sum")),
]


@pytest.mark.parametrize(("inputs", "call"), [c[1:] for c in COMPOSITES], ids=[c[0] for c in COMPOSITES])
def test_composites_match_torch(inputs, call):
    assert_like_torch(call, *inputs)
