"""Sample builders for the ops of ndgrad.ops.max_pooling: sliding windows in 2 and 3 dims (stride, padding,
dilation, ceil_mode, ties), adaptive and fractional windows, and unpooling at indices a max pooling could give."""

import numpy as np

from ndgrad.ops import max_pooling as M

from ..samples import Call, Case, Input, draw, fixed
from .pooling import C, S, T, cases, nn


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


def max_pool3d_cases(op, rng):
    calls = [
        ((1, 1, 2, 4, 4), C, "max_pool3d($, 2)", lambda F, x: F.max_pool3d(x, 2)),
        ((2, 2, 3, 5, 4), C, "max_pool3d($, (2, 3, 2), (1, 2, 2), (1, 1, 0), ceil_mode=True)",
         lambda F, x: F.max_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), ceil_mode=True)),
        ((2, 4, 5, 6), T, "max_pool3d($, (2, 2, 3), 1, dilation=(2, 1, 2), return_indices=True)",
         lambda F, x: F.max_pool3d(x, (2, 2, 3), 1, dilation=(2, 1, 2), return_indices=True)),
    ]
    return cases(op, rng, calls)


def adaptive_max3d_cases(op, rng):
    return cases(op, rng, [
        ((1, 1, 2, 3, 5), C, "adaptive_max_pool3d($, (1, 2, 3))", lambda F, x: F.adaptive_max_pool3d(x, (1, 2, 3))),
        ((2, 5, 4, 3), S, "adaptive_max_pool3d($, (3, None, 2), True)",
         lambda F, x: F.adaptive_max_pool3d(x, (3, None, 2), True)),
    ])


def window_indices(rng, pooled_shape, kernel, size):
    """Indices a max pooling with stride = kernel could give: one position inside each window, in its plane."""
    nd = len(kernel)
    index = 0
    for dim in range(nd):
        starts = np.arange(pooled_shape[-nd + dim]) * kernel[dim]
        shape = [1] * len(pooled_shape)
        shape[len(pooled_shape) - nd + dim] = pooled_shape[-nd + dim]
        position = starts.reshape(shape) + rng.integers(0, kernel[dim], pooled_shape)
        index = index * size[dim] + position
    return fixed(index)


def unpool_call(name, *args, **kwargs):
    text = f"F.{name}($, $, {', '.join(map(repr, args))}" + "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"
    return Call(text, lambda lib, x, i: getattr(lib.nn.functional, name)(x, i, *args, **kwargs))


def max_unpool2d_cases(op, rng):
    return [
        Case(op, (draw(rng, (1, 2, 2, 3)), window_indices(rng, (1, 2, 2, 3), (2, 2), (4, 6))),
             unpool_call("max_unpool2d", 2)),
        Case(op, (draw(rng, (2, 3, 2)), window_indices(rng, (2, 3, 2), (2, 3), (6, 7))),
             unpool_call("max_unpool2d", (2, 3), output_size=(6, 7))),
    ]


def max_unpool3d_cases(op, rng):
    return [
        Case(op, (draw(rng, (1, 1, 2, 2, 2)), window_indices(rng, (1, 1, 2, 2, 2), (2, 2, 2), (4, 4, 4))),
             unpool_call("max_unpool3d", 2)),
        Case(op, (draw(rng, (2, 1, 2, 3)), window_indices(rng, (2, 1, 2, 3), (1, 2, 2), (1, 4, 7))),
             unpool_call("max_unpool3d", (1, 2, 2), output_size=(1, 4, 7))),
    ]


def fractional(name, samples, *args, **kwargs):
    """F.fractional_max_pool2d/3d with these _random_samples, made in the input's dtype as torch requires."""
    text = f"F.{name}($, {', '.join(map(repr, args))}" + "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"
    return Call(text, lambda lib, x: getattr(lib.nn.functional, name)(
        x, *args, _random_samples=lib.tensor(samples, dtype=x.dtype), **kwargs))


def fractional_cases(op, rng):
    nd = 2 if op is M.FractionalMaxPool2D else 3
    name = f"fractional_max_pool{nd}d"
    if nd == 2:
        forms = [((1, 2, 4, 5), 2, {"output_size": 3}), ((2, 2, 7, 6), (3, 2), {"output_size": (4, 5)}),
                 ((2, 9, 8), 2, {"output_ratio": (0.5, 0.7), "return_indices": True})]
    else:
        forms = [((1, 1, 2, 3, 4), (1, 2, 2), {"output_size": (1, 1, 2)}),
                 ((2, 2, 5, 6, 7), (2, 3, 2), {"output_size": (3, 3, 4)}),
                 ((2, 6, 5, 4), 2, {"output_ratio": 0.5, "return_indices": True})]
    cases = []
    for shape, kernel, kwargs in forms:
        samples = rng.random(((shape[0] if len(shape) == nd + 2 else 1), shape[-nd - 1], nd)).round(3).tolist()
        cases.append(Case(op, (draw(rng, shape),), fractional(name, samples, kernel, **kwargs)))
    return cases


BUILDERS = {
    M.MaxPool2DWithIndices: max_pool_cases,
    M.MaxPool3DWithIndices: max_pool3d_cases,
    M.AdaptiveMaxPool2D: adaptive_max_cases,
    M.AdaptiveMaxPool3D: adaptive_max3d_cases,
    M.FractionalMaxPool2D: fractional_cases,
    M.FractionalMaxPool3D: fractional_cases,
    M.MaxUnpool2D: max_unpool2d_cases,
    M.MaxUnpool3D: max_unpool3d_cases,
}
