"""Padding, shuffles and interpolation (ops.resampling) against torch where the op table cannot reach: bad arguments
(the exception type and message), interpolate's area mode (adaptive average pooling), integer inputs, and the
deprecated upsample aliases with their warnings."""

import warnings

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .composites import assert_like_torch
from .errors import assert_raises_like_torch

F = "lib.nn.functional"
X3, X4, X5 = "lib.zeros(1, 2, 4)", "lib.zeros(1, 2, 6, 6)", "lib.zeros(1, 1, 4, 4, 4)"
ERRORS = [
    f"{F}.pad({X4}, (1,))",
    f"{F}.pad({X4}, (1, 1), mode='foo')",
    f"{F}.pad({X4}, (1, 1), mode='reflect')",
    f"{F}.pad({X4}, (7, 7, 1, 1), mode='reflect')",
    f"{F}.pad({X4}, (1, 1, 6, 2), mode='reflect')",
    f"{F}.pad({X4}, (1, 1, 7, 2), mode='circular')",
    f"{F}.pad({X4}, (-7, 1))",
    f"{F}.pad(lib.zeros(2, 0, 4), (5, 5), mode='reflect')",
    f"{F}.pad(lib.zeros(0, 3), (1, 1), mode='replicate')",
    f"{F}.pad(lib.zeros(0, 3, 0, 2), (1, 1, 1, 1), mode='replicate')",
    f"{F}.pad(lib.zeros(1, 1, 4, 4), (-9, -9, -9, -9), mode='replicate')",
    f"{F}.pad(lib.zeros(1, 1, 4, 4, 4), (-9,) * 6, mode='reflect')",
    f"{F}.pad({X4}, (1,) * 10)",
    f"{F}.pixel_shuffle({X4}, 4)",
    f"{F}.pixel_shuffle({X4}, 0)",
    f"{F}.pixel_shuffle(lib.zeros(6), 2)",
    f"{F}.pixel_unshuffle({X4}, 4)",
    f"{F}.pixel_unshuffle({X4}, 0)",
    f"{F}.channel_shuffle(lib.zeros(1, 5, 3), 2)",
    f"{F}.channel_shuffle(lib.zeros(1, 4, 3), 0)",
    f"{F}.channel_shuffle(lib.zeros(1, 4, 3), -2)",
    f"{F}.channel_shuffle(lib.zeros(4, 3), 2)",
    f"{F}.native_channel_shuffle(lib.zeros(1, 5, 3), 2)",
    f"{F}.interpolate({X4}, size=3, scale_factor=2)",
    f"{F}.interpolate({X4})",
    f"{F}.interpolate({X4}, scale_factor=2, mode='linear')",
    f"{F}.interpolate({X4}, scale_factor=2, align_corners=True)",
    f"{F}.interpolate({X4}, size=(3, 3, 3))",
    f"{F}.interpolate({X4}, size=(2.0, 2))",
    f"{F}.interpolate({X4}, scale_factor=(2, 2, 2))",
    f"{F}.interpolate({X4}, size=2, recompute_scale_factor=True)",
    f"{F}.interpolate({X3}, scale_factor=0.1)",
    f"{F}.interpolate({X4}, size=(0, 2), mode='bilinear')",
    f"{F}.interpolate({X5}, size=(0, 2, 2), mode='trilinear')",
    f"{F}.interpolate({X4}, size=10**12)",
    f"{F}.interpolate({X4}, size=2, antialias=True)",
    f"{F}.interpolate({X4}, size=2, mode='cubic')",
    f"{F}.interpolate(lib.zeros(4, 4), size=2)",
    f"{F}.interpolate({X5}, size=2, mode='bicubic')",
    f"{F}.interpolate({X3}, size=2, mode='trilinear')",
    f"{F}.interpolate({X5}, size=2, mode='bilinear')",
    f"{F}.interpolate(lib.zeros(1, 1, 4, 4, 4, 4), size=2, mode='area')",
    f"{F}.interpolate({X4}.long(), size=2)",
    f"{F}.interpolate({X4}.long(), size=2, mode='bilinear')",
    f"{F}.interpolate({X4}.long(), size=2, mode='bicubic')",
    f"{F}.interpolate({X3}.long(), size=2, mode='linear')",
    f"{F}.interpolate({X5}.bool(), size=2)",
    f"{F}.pad({X3}, (1, 1), value=1j)",
    f"{F}.pad({X3}.to(lib.complex128), (1, 2), value=0.5 + 1j)",
    f"{F}.pad({X3}, (1, 1), mode='reflect', value=1j)",
    f"{F}.pad({X3}, (1, 1), value='a')",
]


@pytest.mark.parametrize("call", ERRORS)
def test_error_matches_torch(call):
    assert_raises_like_torch(call)


def test_antialias_is_not_supported():
    with pytest.raises(NotImplementedError, match="antialias"):
        ndgrad.nn.functional.interpolate(ndgrad.zeros(1, 1, 4, 4), size=2, mode="bilinear", antialias=True)


def interpolate(**kwargs):
    return lambda lib, x: lib.nn.functional.interpolate(x, **kwargs)


AREA = [
    ("area_1d", (2, 3, 7), interpolate(size=3, mode="area")),
    ("area_2d", (1, 2, 5, 6), interpolate(scale_factor=0.6, mode="area")),
    ("area_3d", (1, 1, 3, 4, 5), interpolate(size=(2, 3, 2), mode="area")),
    ("area_mean", (1, 2, 4, 5), interpolate(size=1, mode="area")),
]


@pytest.mark.parametrize(("shape", "call"), [a[1:] for a in AREA], ids=[a[0] for a in AREA])
def test_area_matches_torch(shape, call):
    """Area interpolation is adaptive average pooling (AdaptiveAvgPool2DBackward0, SqueezeBackward1, ...)."""
    assert_like_torch(call, np.random.default_rng(0).standard_normal(shape))


def test_byte_input_nearest_matches_torch():
    values = np.random.default_rng(1).integers(0, 255, (1, 2, 3, 4)).astype(np.uint8)
    for mode in ("nearest", "nearest-exact"):
        ours, theirs = (lib.nn.functional.interpolate(lib.from_numpy(values), scale_factor=1.5, mode=mode)
                        for lib in (ndgrad, torch))
        assert ours.dtype is ndgrad.uint8
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(("name", "kwargs"), [("upsample", {"scale_factor": 2, "mode": "bilinear"}),
                                              ("upsample", {"size": 5}),
                                              ("upsample_nearest", {"scale_factor": 2}),
                                              ("upsample_bilinear", {"size": (3, 7)})])
def test_deprecated_upsample_aliases(name, kwargs):
    x = np.random.default_rng(2).standard_normal((1, 2, 3, 4))
    results = []
    for lib in (ndgrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = getattr(lib.nn.functional, name)(lib.from_numpy(x), **kwargs)
        results.append((out.numpy(), [(w.category, str(w.message)) for w in caught]))
    (ours, our_warnings), (theirs, their_warnings) = results
    assert_close(ours, theirs)
    assert our_warnings == their_warnings
