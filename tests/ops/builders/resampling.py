"""Sample builders for the ops of ndgrad.ops.resampling: the padding modes, pixel and channel shuffle, and
interpolation in every mode and rank (size, scale_factor with and without recompute_scale_factor, align_corners),
each with a tiny case for finite differences."""

from ndgrad.ops import resampling

from .pooling import C, S, T, cases


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
    if op is resampling.PixelShuffle:
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
CUBIC = LINEAR + [{"size": (2, 7)}, {"scale_factor": (0.5, 2.5), "align_corners": True}]
ONE, TWO, THREE = [((1, 2, 4), C), ((2, 3, 5), T)], [((1, 1, 3, 4), C), ((2, 2, 3, 5), S)], [((1, 1, 2, 2, 3), C),
                                                                                            ((2, 1, 3, 2, 4), T)]


def channel_shuffle_cases(op, rng):
    return cases(op, rng, [((1, 6, 2), C, "channel_shuffle($, 3)", lambda F, x: F.channel_shuffle(x, 3)),
                           ((2, 4, 3, 2), S, "channel_shuffle($, 2)", lambda F, x: F.channel_shuffle(x, 2)),
                           ((2, 3, 2, 1, 2), C, "channel_shuffle($, 1)", lambda F, x: F.channel_shuffle(x, 1))])


R = resampling
BUILDERS = {
    R.ConstantPadNd: constant_pad_cases,
    R.ReflectionPad1D: pad_cases(["reflect"], ONE_D),
    R.ReflectionPad2D: pad_cases(["reflect"], TWO_D),
    R.ReflectionPad3D: pad_cases(["reflect"], THREE_D),
    R.ReplicationPad1D: pad_cases(["replicate"], ONE_D),
    R.ReplicationPad2D: pad_cases(["replicate"], TWO_D),
    R.ReplicationPad3D: pad_cases(["replicate"], THREE_D),
    R.CircularPad: pad_cases(["circular"], ONE_D[:1] + TWO_D[1:] + THREE_D[1:]),
    R.PixelShuffle: shuffle_cases,
    R.PixelUnshuffle: shuffle_cases,
    R.ChannelShuffle: channel_shuffle_cases,
    R.UpsampleNearest1D: interpolate_cases(ONE, "nearest", NEAREST),
    R.UpsampleNearest2D: interpolate_cases(TWO, "nearest", NEAREST),
    R.UpsampleNearest3D: interpolate_cases(THREE, "nearest", NEAREST),
    R.UpsampleNearestExact1D: interpolate_cases(ONE[:1], "nearest-exact", NEAREST),
    R.UpsampleNearestExact2D: interpolate_cases(TWO[:1], "nearest-exact", NEAREST),
    R.UpsampleNearestExact3D: interpolate_cases(THREE[:1], "nearest-exact", NEAREST),
    R.UpsampleLinear1D: interpolate_cases(ONE, "linear", LINEAR),
    R.UpsampleBilinear2D: interpolate_cases(TWO, "bilinear", LINEAR),
    R.UpsampleTrilinear3D: interpolate_cases(THREE, "trilinear", LINEAR),
    R.UpsampleBicubic2D: interpolate_cases(TWO, "bicubic", CUBIC),
}
