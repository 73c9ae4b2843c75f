"""Sample builders for the ops of ndgrad.ops.pooling: average pooling windows in 2 and 3 dims (stride, padding,
ceil_mode, count_include_pad, divisor_override) and adaptive windows, each with a tiny case for finite differences.
The case helpers here serve the other pooling and resampling builders too."""

from ndgrad.ops import pooling

from ..samples import Call, Case, draw


def nn(text, fn):
    """lib.nn.functional.<text>: ``fn(F, x)`` calls it with either library's functional module."""
    return Call(f"F.{text}", lambda lib, x: fn(lib.nn.functional, x))


def cases(op, rng, calls):
    """One case per (shape, layout, call) triple."""
    return [Case(op, (draw(rng, shape, op.domain, layout),), nn(text, fn)) for shape, layout, text, fn in calls]


C, T, S = "contiguous", "transposed", "strided"


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


def avg_pool3d_cases(op, rng):
    return cases(op, rng, [
        ((1, 1, 2, 4, 4), C, "avg_pool3d($, 2)", lambda F, x: F.avg_pool3d(x, 2)),
        ((2, 2, 3, 5, 4), C, "avg_pool3d($, (2, 3, 2), (1, 2, 2), (1, 1, 0), True)",
         lambda F, x: F.avg_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), True)),
        ((2, 4, 5, 6), T, "avg_pool3d($, 3, 2, 1, count_include_pad=False, divisor_override=5)",
         lambda F, x: F.avg_pool3d(x, 3, 2, 1, count_include_pad=False, divisor_override=5)),
    ])


def adaptive_avg3d_cases(op, rng):
    return cases(op, rng, [
        ((1, 1, 2, 3, 5), C, "adaptive_avg_pool3d($, (1, 2, 3))", lambda F, x: F.adaptive_avg_pool3d(x, (1, 2, 3))),
        ((2, 5, 4, 3), S, "adaptive_avg_pool3d($, (3, None, 2))", lambda F, x: F.adaptive_avg_pool3d(x, (3, None, 2))),
    ])


BUILDERS = {
    pooling.AvgPool2D: avg_pool_cases,
    pooling.AvgPool3D: avg_pool3d_cases,
    pooling.AdaptiveAvgPool2D: adaptive_avg_cases,
    pooling.AdaptiveAvgPool3D: adaptive_avg3d_cases,
}
