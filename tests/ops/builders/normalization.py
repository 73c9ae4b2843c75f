"""Sample builders for the ops of ndgrad.ops.normalization: layer_norm over one and two trailing dims, batch_norm
in training (with and without running statistics) and in eval, group_norm with 1, some and all channels a group."""

import numpy as np

from ndgrad.ops import normalization

from ..samples import Call, Case, S, T, draw


def layer_norm(shape, *names, **kwargs):
    text = f"F.layer_norm($, {shape}" + "".join(f", {n}=$" for n in names) + \
        "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"
    return Call(text, lambda lib, x, *wb: lib.nn.functional.layer_norm(x, shape, **dict(zip(names, wb)), **kwargs))


def layer_norm_cases(op, rng):
    return [
        Case(op, (draw(rng, (2, 3, 4)),), layer_norm((4,))),
        Case(op, (draw(rng, (2, 3)), draw(rng, (3,)), draw(rng, (3,))), layer_norm((3,), "weight", "bias")),
        Case(op, (draw(rng, (2, 3, 2), layout=S), draw(rng, (3, 2))), layer_norm((3, 2), "weight", eps=1e-3)),
        Case(op, (draw(rng, (4, 3), layout=T), draw(rng, (3,)), draw(rng, (3,))), layer_norm([3], "weight", "bias")),
        Case(op, (draw(rng, (5,)),), layer_norm([5])),
    ]


def batch_norm(training, running=None, affine=True, **kwargs):
    """F.batch_norm(x, rm, rv, w, b, training); ``running`` (mean, var) arrays are made fresh for each call."""
    text = f"F.batch_norm($, {'rm, rv' if running else 'None, None'}, {'$, $' if affine else 'None, None'}, " \
        f"training={training}" + "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"

    def call(lib, x, *wb):
        stats = [None, None] if running is None else [lib.tensor(np.asarray(a, dtype=np.float64)).to(x.dtype)
                                                      for a in running]
        return lib.nn.functional.batch_norm(x, *stats, *(wb or (None, None)), training=training, **kwargs)

    return Call(text, call)


STATS = ([0.5, -1.0, 0.25], [1.5, 0.5, 2.0])


def batch_norm_cases(op, rng):
    return [
        Case(op, (draw(rng, (4, 3)), draw(rng, (3,)), draw(rng, (3,))), batch_norm(True)),
        Case(op, (draw(rng, (2, 3, 4)),), batch_norm(True, affine=False)),
        Case(op, (draw(rng, (2, 3, 2), layout=S), draw(rng, (3,)), draw(rng, (3,))),
             batch_norm(True, STATS, momentum=0.3, eps=1e-3)),
        Case(op, (draw(rng, (4, 3), layout=T), draw(rng, (3,)), draw(rng, (3,))), batch_norm(False, STATS)),
        Case(op, (draw(rng, (2, 3, 2)),), batch_norm(False, STATS, affine=False, eps=0.1)),
    ]


def group_norm(groups, affine=True, **kwargs):
    text = f"F.group_norm($, {groups}" + (", $, $" if affine else "") + \
        "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"
    return Call(text, lambda lib, x, *wb: lib.nn.functional.group_norm(x, groups, *wb, **kwargs))


def group_norm_cases(op, rng):
    return [
        Case(op, (draw(rng, (2, 4, 3)), draw(rng, (4,)), draw(rng, (4,))), group_norm(2)),
        Case(op, (draw(rng, (3, 4)),), group_norm(1, affine=False)),
        Case(op, (draw(rng, (2, 3, 2), layout=S), draw(rng, (3,)), draw(rng, (3,))), group_norm(3, eps=1e-3)),
        Case(op, (draw(rng, (2, 4, 2, 2)),), group_norm(2, affine=False)),
    ]


BUILDERS = {
    normalization.NativeLayerNorm: layer_norm_cases,
    normalization.NativeBatchNorm: batch_norm_cases,
    normalization.NativeGroupNorm: group_norm_cases,
}
