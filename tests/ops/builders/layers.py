"""Sample builders for the ops of ndgrad.ops.layers: F.linear's 2-d form with a bias (AddmmBackward0), embedding
with repeats and padding_idx (scale_grad_by_freq: tests/ops/test_errors_layers.py), pairwise_distance and pdist
over p."""

import numpy as np

from ndgrad.ops import layers

from ..samples import C, Call, Case, Input, S, T, draw


def linear_cases(op, rng):
    call = Call("F.linear($, $, $)", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b))
    return [
        Case(op, (draw(rng, (2, 3)), draw(rng, (4, 3)), draw(rng, (4,))), call),
        Case(op, (draw(rng, (5, 3), layout=T), draw(rng, (2, 3), layout=S), draw(rng, (2,))), call),
        Case(op, (draw(rng, (3, 2)), draw(rng, (4, 2), layout=T), draw(rng, (1,))), call),
        Case(op, (draw(rng, (1, 4)), draw(rng, (3, 4)), draw(rng, ())), call),
    ]


def _trilinear(lib, x1, weight, x2):
    """The node under F.bilinear's view: torch._trilinear as torch's bilinear calls it, or ours."""
    if lib.__name__ == "torch":
        return lib._trilinear(x1, weight, x2, [1, 3], [0], [1, 2], [2, 3])
    return layers.trilinear(x1, weight, x2)


def trilinear_cases(op, rng):
    call = Call("_trilinear($, $, $)", _trilinear)
    return [
        Case(op, (draw(rng, (2, 3)), draw(rng, (4, 3, 2)), draw(rng, (2, 2))), call),
        Case(op, (draw(rng, (3, 2), layout=T), draw(rng, (2, 2, 3), layout=S), draw(rng, (3, 3))), call),
        Case(op, (draw(rng, (1, 4)), draw(rng, (1, 4, 3)), draw(rng, (1, 3))), call),
    ]


def embedding(indices, **kwargs):
    text = f"F.embedding({indices}, $" + "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"
    return Call(text, lambda lib, w: lib.nn.functional.embedding(lib.tensor(indices), w, **kwargs))


def embedding_cases(op, rng):
    return [
        Case(op, (draw(rng, (4, 3)),), embedding([1, 3, 0])),
        Case(op, (draw(rng, (5, 2)),), embedding([[1, 2, 1], [4, 1, 0]])),
        Case(op, (draw(rng, (5, 3), layout=T),), embedding(2)),
        # padding_idx: torch's gradient skips rows the forward reads (not a derivative): checked against torch only
        Case(op, (draw(rng, (4, 3)),), embedding([[0, 2], [2, 3]], padding_idx=2), smooth=False),
        Case(op, (draw(rng, (4, 3)),), embedding([0, 3, 3, 1], padding_idx=-1), smooth=False),
    ]


def distance(**kwargs):
    text = "F.pairwise_distance($, $" + "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"
    return Call(text, lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y, **kwargs))


def pairwise_distance_cases(op, rng):
    return [
        Case(op, (draw(rng, (3, 4)), draw(rng, (3, 4))), distance()),
        Case(op, (draw(rng, (3, 4), layout=T), draw(rng, (4,))), distance(p=1.0)),
        Case(op, (draw(rng, (2, 3, 2), layout=S), draw(rng, (3, 2))), distance(p=3.0, keepdim=True)),
        Case(op, (draw(rng, (5,)), draw(rng, (5,))), distance(p=1.5, eps=0.0)),
        Case(op, (draw(rng, (2, 3)), draw(rng, (2, 3), layout=C)), distance(p=float("inf"))),
    ]


def pdist(p):
    return Call(f"F.pdist($, {p!r})", lambda lib, x: lib.nn.functional.pdist(x, p))


def pdist_cases(op, rng):
    ties = Input(np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 2.0], [0.0, 1.0, 2.0]]))  # equal rows, equal |differences|
    return [Case(op, (draw(rng, shape, layout=layout),), pdist(p))
            for shape, layout, p in [((4, 3), C, 2), ((5, 2), T, 1), ((3, 4), C, 3), ((4, 2), S, float("inf")),
                                     ((3, 3), C, 0.5), ((4, 3), C, 0), ((1, 3), C, 2), ((2, 5), C, 2.5)]] + [
        Case(op, (ties,), pdist(p), smooth=False) for p in (2, 1, float("inf"))]


BUILDERS = {
    layers.Pdist: pdist_cases,
    layers.Addmm: linear_cases,
    layers.Embedding: embedding_cases,
    layers.Norm: pairwise_distance_cases,
    layers.Trilinear: trilinear_cases,
}
