"""Sample builders for torch.cdist (ndgrad.ops.products.Cdist): the p-norms 0, 1, 2, inf and fractional ones,
batches that broadcast, and the compute modes that keep PyTorch on the direct computation (small inputs, or p != 2;
the matrix-product form of p = 2 is another op, EuclideanDist, checked in tests/ops/test_linalg.py)."""

from ndgrad.ops import products

from ..samples import Call, Case, T, draw


def cdist_cases(op, rng):
    def cdist(p=2.0, compute_mode=None):
        arguments = {"p": p} if compute_mode is None else {"p": p, "compute_mode": compute_mode}
        text = ", ".join(["cdist($, $"] + [f"{k}={v!r}" for k, v in arguments.items()]) + ")"
        return Call(text, lambda lib, a, b: lib.cdist(a, b, **arguments))

    pairs = [((3, 4), (2, 4)), ((2, 3, 2), (1, 2, 2)), ((2, 1, 2, 2), (2, 2, 2))]
    calls = [cdist(p) for p in (0.0, 1.0, 2.0, float("inf"), 1.5, 3.0, 0.5)]
    return [Case(op, (draw(rng, a), draw(rng, b)), call) for a, b in pairs for call in calls[:4]] + [
        Case(op, (draw(rng, (3, 2)), draw(rng, (4, 2))), call) for call in calls[4:]
    ] + [
        Case(op, (draw(rng, (3, 2)), draw(rng, (2, 2))), cdist(2.0, "donot_use_mm_for_euclid_dist")),
        Case(op, (draw(rng, (3, 2)), draw(rng, (2, 2))), cdist(2.0, "use_mm_for_euclid_dist_if_necessary")),
        Case(op, (draw(rng, (3, 2)), draw(rng, (2, 2))), cdist(1.0, "use_mm_for_euclid_dist")),
        Case(op, (draw(rng, (4, 3), layout=T), draw(rng, (2, 3), layout=T)), cdist()),
    ]


BUILDERS = {products.Cdist: cdist_cases}
