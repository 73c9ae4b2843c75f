"""Dropout in training: of elements (dropout), of whole channels (dropout1d/2d/3d), and the self-normalising
variants that keep a SELU network's mean and variance (alpha_dropout, feature_alpha_dropout). Composites of a
random mask: the gradient is the mask, as in PyTorch (MulBackward0, AddBackward0)."""

import math

from ndgrad._warnings import warn
from ndgrad.ops._checks import constant_like

__all__ = []  # torch's top-level dropout functions take (input, p, train): only the torch.nn.functional forms here
FUNCTIONAL = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

SELU_ALPHA = 1.7580993408473766  # -scale * alpha of SELU: the value a dropped unit takes in alpha dropout


def _check_probability(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input, p, training, inplace, feature=False, alpha=False):
    """Keep each element (or each (sample, channel) plane, for ``feature``) with probability 1 - p."""
    from ndgrad._creation import _RandomState

    if p == 0 or not training or input.numel() == 0:
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


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p), in training only."""
    _check_probability(p)
    return _dropout(input, p, training, inplace)


def _channels_warning(name, input, spatial):
    if input.ndim not in (spatial + 1, spatial + 2):
        warn(
            f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and will result in an error in a "
            f"future release. To retain the behavior and silence this warning, please use dropout instead. Note that "
            f"{name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
            f"dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        )


def _unbatched(input, inplace, function):
    """``function`` on input with a batch dim of 1 added, then removed; in place, input itself changes shape."""
    if inplace:  # as PyTorch: unsqueeze_, drop in place, squeeze_ (SqueezeBackward4 tops the graph)
        return function(input.unsqueeze_(0)).squeeze_(0)
    return function(input.unsqueeze(0)).squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) input (see torch.nn.functional.dropout1d)."""
    _check_probability(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 2:
        return _unbatched(input, inplace, lambda x: _dropout(x, p, training, inplace, feature=True))
    return _dropout(input, p, training, inplace, feature=True)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) input (see torch.nn.functional.dropout2d)."""
    _check_probability(p)
    _channels_warning("dropout2d", input, 2)
    if input.ndim == 3:
        warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired "
            "- input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a "
            "future release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To "
            "maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
        )
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input (see torch.nn.functional.dropout3d)."""
    _check_probability(p)
    _channels_warning("dropout3d", input, 3)
    if input.ndim != 5:
        return _unbatched(input, inplace, lambda x: _dropout(x, p, training, inplace, feature=True))
    return _dropout(input, p, training, inplace, feature=True)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps zero mean and unit variance for SELU networks (see F.alpha_dropout)."""
    _check_probability(p)
    return _dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (see torch.nn.functional.feature_alpha_dropout)."""
    _check_probability(p)
    return _dropout(input, p, training, inplace, feature=True, alpha=True)
