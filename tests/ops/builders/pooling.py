"""Sample builders for the ops of ndgrad.ops.pooling: pooling windows (stride, padding, dilation, ceil_mode), the
padding modes, pixel shuffle and interpolation, each with a tiny case for finite differences."""

import numpy as np

from ndgrad.ops import pooling

from ..samples import Call, Case, Input, draw


def nn(text, fn):
    """lib.nn.functional.<text>: ``fn(F, x)`` calls it with either library's functional module."""
    return Call(f"F.{text}", lambda lib, x: fn(lib.nn.functional, x))


def cases(op, rng, calls):
    """One case per (shape, layout, call) triple."""
    return [Case(op, (draw(rng, shape, op.domain, layout),), nn(text, fn)) for shape, layout, text, fn in calls]


C, T, S = "contiguous", "transposed", "strided"


def max_pool_cases(op, rng):
    calls = [
        ((1, 2, 4, 4), C, "max_pool2d($, 2)", lambda F, x: F.max_pool2d(x, 2)),
        ((2, 2, 5, 6), C, "max_pool2d($, 3, 2, 1, ceil_mode=True)",
         lambda F, x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True)),
        ((2, 6, 7), C, "max_pool2d($, (3, 2), (2, 1), (1, 0), dilation=(2, 1))",
         lambda F, x: F.max_pool2d(x, (3, 2), (2, 1), (1, 0), dilation=(2, 1))),
        ((1, 2, 5, 5), S, "max_pool2d($, 2, 1, return_indices=True)",
         lambda F, x: F.max_pool2d(x, 2, 1, return_indices=True)),
    ]
    ties = Input(np.array([[[[1.0, 1.0, 0.5], [1.0, -1.0, 2.0], [2.0, 0.0, 2.0]]]]))
    return cases(op, rng, calls) + [Case(op, (ties,), nn("max_pool2d($, 2, 1)", lambda F, x: F.max_pool2d(x, 2, 1)),
                                         smooth=False)]


def adaptive_max_cases(op, rng):
    calls = [
        ((1, 2, 4, 5), C, "adaptive_max_pool2d($, (2, 3))", lambda F, x: F.adaptive_max_pool2d(x, (2, 3))),
        ((2, 7, 5), T, "adaptive_max_pool2d($, (3, None), True)",
         lambda F, x: F.adaptive_max_pool2d(x, (3, None), True)),
        ((2, 2, 6, 6), C, "adaptive_max_pool2d($, 4)", lambda F, x: F.adaptive_max_pool2d(x, 4)),
    ]
    ties = Input(np.array([[[1.0, 1.0, 0.5, 2.0], [1.0, -1.0, 2.0, 2.0]]]))
    return cases(op, rng, calls) + [
        Case(op, (ties,), nn("adaptive_max_pool2d($, 2)", lambda F, x: F.adaptive_max_pool2d(x, 2)), smooth=False)]


def avg_pool_cases(op, rng):
    return cases(op, rng, [
        ((1, 2, 4, 4), C, "avg_pool2d($, 2)", lambda F, x: F.avg_pool2d(x, 2)),
        ((2, 2, 5, 6), C, "avg_pool2d($, 3, 2, 1, ceil_mode=True)", lambda F, x: F.avg_pool2d(x, 3, 2, 1, True)),
        ((2, 2, 5, 6), T, "avg_pool2d($, 3, 2, 1, True, count_include_pad=False)",
         lambda F, x: F.avg_pool2d(x, 3, 2, 1, True, count_include_pad=False)),
        ((2, 5, 6), S, "avg_pool2d($, (2, 3), 1, (1, 0), divisor_override=4)",
         lambda F, x: F.avg_pool2d(x, (2, 3), 1, (1, 0), divisor_override=4)),
    ])


def adaptive_avg_cases(op, rng):
    return cases(op, rng, [
        ((1, 2, 4, 5), C, "adaptive_avg_pool2d($, (2, 3))", lambda F, x: F.adaptive_avg_pool2d(x, (2, 3))),
        ((2, 7, 5), T, "adaptive_avg_pool2d($, (3, None))", lambda F, x: F.adaptive_avg_pool2d(x, (3, None))),
        ((2, 2, 6, 6), C, "adaptive_avg_pool2d($, 4)", lambda F, x: F.adaptive_avg_pool2d(x, 4)),
    ])


def pad_call(pad, **kwargs):
    text = f"pad($, {pad}{''.join(f', {k}={v!r}' for k, v in kwargs.items())})"
    return text, lambda F, x: F.pad(x, pad, **kwargs)


def pad_cases(modes, shapes):
    """Builder: ``modes`` x (shape, pad) pairs, the first of each tiny."""
    def build(op, rng):
        return cases(op, rng, [(shape, layout, *pad_call(pad, **({"mode": mode} if mode else {})))
                               for mode in modes for shape, layout, pad in shapes])
    return build


def constant_pad_cases(op, rng):
    return pad_cases([None], [((2, 3, 4), C, (1, 2)), ((2, 3, 4), T, (1, -1, 2, 0)), ((3, 4), S, (0, 1, -1, 2)),
                              ((2, 2, 3), C, (1, 1, 1, 1, 1, 0))])(op, rng) + cases(op, rng, [
        ((2, 3), C, *pad_call((1, 2), value=1.5)), ((2, 3), C, *pad_call((2, 1), mode="constant", value=-1.0))])


ONE_D = [((2, 5), C, (2, 3)), ((2, 3, 5), T, (1, -1))]
TWO_D = [((1, 4, 5), C, (1, 2, 2, 0)), ((2, 2, 4, 5), S, (2, 1, -1, 3))]
THREE_D = [((1, 3, 3, 4), C, (1, 0, 2, 1, 0, 2)), ((1, 2, 3, 3, 4), C, (1, 2, 1, 1, 2, 0))]


def shuffle_cases(op, rng):
    if op is pooling.PixelShuffle:
        return cases(op, rng, [((1, 4, 2, 3), C, "pixel_shuffle($, 2)", lambda F, x: F.pixel_shuffle(x, 2)),
                               ((2, 2, 9, 2, 2), S, "pixel_shuffle($, 3)", lambda F, x: F.pixel_shuffle(x, 3))])
    return cases(op, rng, [((1, 2, 4, 4), C, "pixel_unshuffle($, 2)", lambda F, x: F.pixel_unshuffle(x, 2)),
                           ((2, 1, 6, 3), T, "pixel_unshuffle($, 3)", lambda F, x: F.pixel_unshuffle(x, 3))])


def interpolate_call(**kwargs):
    text = f"interpolate($, {', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"
    return text, lambda F, x: F.interpolate(x, **kwargs)


def interpolate_cases(shapes, mode, forms):
    def build(op, rng):
        return cases(op, rng, [(shape, layout, *interpolate_call(mode=mode, **form))
                               for i, (shape, layout) in enumerate(shapes) for form in (forms[1:2] if i else forms)])
    return build


NEAREST = [{"scale_factor": 2}, {"size": 5}, {"scale_factor": 0.6}]
LINEAR = [{"scale_factor": 1.7}, {"size": 5, "align_corners": True},
          {"scale_factor": 0.6, "recompute_scale_factor": True}]

BUILDERS = {
    pooling.MaxPool2DWithIndices: max_pool_cases,
    pooling.AdaptiveMaxPool2D: adaptive_max_cases,
    pooling.AvgPool2D: avg_pool_cases,
    pooling.AdaptiveAvgPool2D: adaptive_avg_cases,
    pooling.ConstantPadNd: constant_pad_cases,
    pooling.ReflectionPad1D: pad_cases(["reflect"], ONE_D),
    pooling.ReflectionPad2D: pad_cases(["reflect"], TWO_D),
    pooling.ReflectionPad3D: pad_cases(["reflect"], THREE_D),
    pooling.ReplicationPad1D: pad_cases(["replicate"], ONE_D),
    pooling.ReplicationPad2D: pad_cases(["replicate"], TWO_D),
    pooling.ReplicationPad3D: pad_cases(["replicate"], THREE_D),
    pooling.CircularPad: pad_cases(["circular"], ONE_D[:1] + TWO_D[1:] + THREE_D[1:]),
    pooling.PixelShuffle: shuffle_cases,
    pooling.PixelUnshuffle: shuffle_cases,
    pooling.UpsampleNearest1D: interpolate_cases([((1, 2, 4), C), ((2, 3, 5), T)], "nearest", NEAREST),
    pooling.UpsampleNearest2D: interpolate_cases([((1, 1, 3, 4), C), ((2, 2, 3, 5), S)], "nearest", NEAREST),
    pooling.UpsampleNearestExact1D: interpolate_cases([((1, 2, 4), C)], "nearest-exact", NEAREST),
    pooling.UpsampleNearestExact2D: interpolate_cases([((1, 1, 3, 4), C)], "nearest-exact", NEAREST),
    pooling.UpsampleLinear1D: interpolate_cases([((1, 2, 4), C), ((2, 3, 5), T)], "linear", LINEAR),
    pooling.UpsampleBilinear2D: interpolate_cases([((1, 1, 3, 4), C), ((2, 2, 3, 5), S)], "bilinear", LINEAR),
}
