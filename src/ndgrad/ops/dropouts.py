"""Dropout in training: of elements (dropout), of whole channels (dropout1d/2d/3d), and the self-normalising
variants that keep a SELU network's mean and variance (alpha_dropout, feature_alpha_dropout). Composites of a
random mask: the gradient is the mask, as in PyTorch (MulBackward0, AddBackward0)."""

import math

from ndgrad._argument_parser import parses
from ndgrad._warnings import warn
from ndgrad.ops._checks import constant_like

__all__ = [  # torch's own, of (input, p, train); torch.nn.functional's take ``training`` and ``inplace``
    "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout", "alpha_dropout_",
    "feature_alpha_dropout", "feature_alpha_dropout_",
]
FUNCTIONAL = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

SELU_ALPHA = 1.7580993408473766  # -scale * alpha of SELU: the value a dropped unit takes in alpha dropout


def _dropout(input, p, train, inplace, feature=False, alpha=False):
    """Keep each element (or each (sample, channel) plane, for ``feature``) with probability 1 - p."""
    from ndgrad._random import _RandomState

    if not 0 <= p <= 1:  # nan too
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        zero = constant_like(0.0, input)
        return input.mul_(zero) if inplace else input * zero
    if input.dtype.is_complex:  # torch draws the mask in input's dtype, and has no complex Bernoulli
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for '{input.dtype.title}'")
    if not input.dtype.is_floating_point:  # the float scale cannot go into an integer input
        # alpha dropout's integer mask first turns a bool input into a long one
        output = "Long" if alpha and input.dtype.name == "bool" else input.dtype.title
        raise RuntimeError(f"result type Float can't be cast to the desired output type {output}")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    # NOTE: the mask is drawn by ndgrad's generator on the host (manual_seed applies) and moved to input's device
    keep = (_RandomState.generator.random(shape) >= p).astype(float)
    if not alpha:
        noise = constant_like(keep / (1.0 - p), input)
        return input.mul_(noise) if inplace else input * noise
    scale = 1.0 / math.sqrt((SELU_ALPHA * SELU_ALPHA * p + 1) * (1 - p))
    shift = constant_like((keep - 1) * SELU_ALPHA * scale + SELU_ALPHA * scale * p, input)
    noise = constant_like(keep * scale, input)
    return (input.mul_(noise) if inplace else input * noise).add_(shift)


def _declared(name, **kind):
    """torch's op ``name`` (and its in-place form): ``(Tensor input, float p, bool train)``, as torch declares it."""

    @parses(f"{name}(Tensor input, float p, bool train)")
    def out_of_place(input, p, train):
        return _dropout(input, p, train, False, **kind)

    @parses(f"{name}_(Tensor input, float p, bool train)")
    def in_place(input, p, train):
        return _dropout(input, p, train, True, **kind)

    out_of_place.__name__ = out_of_place.__qualname__ = name
    in_place.__name__ = in_place.__qualname__ = f"{name}_"
    out_of_place.__doc__ = in_place.__doc__ = f"See torch.{name}."
    return out_of_place, in_place


dropout, dropout_ = _declared("dropout")
feature_dropout, feature_dropout_ = _declared("feature_dropout", feature=True)
alpha_dropout, alpha_dropout_ = _declared("alpha_dropout", alpha=True)
feature_alpha_dropout, feature_alpha_dropout_ = _declared("feature_alpha_dropout", feature=True, alpha=True)


# ---- torch.nn.functional's Python functions around them ---------------------------------------------------------
def _check_probability(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def functional_dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p), in training only."""
    _check_probability(p)
    return dropout_(input, p, training) if inplace else dropout(input, p, training)


def functional_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps zero mean and unit variance for SELU networks (see F.alpha_dropout)."""
    _check_probability(p)
    return alpha_dropout_(input, p, training) if inplace else alpha_dropout(input, p, training)


def functional_feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (see torch.nn.functional.feature_alpha_dropout)."""
    _check_probability(p)
    return feature_alpha_dropout_(input, p, training) if inplace else feature_alpha_dropout(input, p, training)


def _channels(input, p, training, inplace, batched):
    """feature_dropout of input, with a batch dim of 1 added and removed unless ``batched`` (in place, as
    PyTorch's: unsqueeze_, drop in place, squeeze_, so SqueezeBackward4 tops the graph)."""
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = feature_dropout_(input, p, training) if inplace else feature_dropout(input, p, training)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def _channels_warning(name, dims, spatial):
    if dims not in (spatial + 1, spatial + 2):
        warn(
            f"{name}: Received a {dims}-D input to {name}, which is deprecated and will result in an error in a "
            f"future release. To retain the behavior and silence this warning, please use dropout instead. Note that "
            f"{name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
            f"dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        )


def functional_dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) input (see torch.nn.functional.dropout1d)."""
    _check_probability(p)
    dims = input.dim()
    if dims not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {dims}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs).")
    return _channels(input, p, training, inplace, batched=dims == 3)


def functional_dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) input (see torch.nn.functional.dropout2d)."""
    _check_probability(p)
    dims = input.dim()
    _channels_warning("dropout2d", dims, 2)
    if dims == 3:
        warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired "
            "- input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a "
            "future release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To "
            "maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
        )
    return _channels(input, p, training, inplace, batched=True)


def functional_dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input (see torch.nn.functional.dropout3d)."""
    _check_probability(p)
    dims = input.dim()
    _channels_warning("dropout3d", dims, 3)
    return _channels(input, p, training, inplace, batched=dims == 5)
