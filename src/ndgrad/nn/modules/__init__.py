"""The layers of ndgrad.nn, one module per family as in torch.nn.modules; each family lists its names in __all__."""

from ndgrad.nn.modules import (
    activation,
    attention,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    lazy,
    linear,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)
from ndgrad.nn.modules.module import Module

__all__ = ["Module"]
for _family in (
    activation, attention, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold, instancenorm,
    lazy, linear, loss, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling,
):
    globals().update({name: getattr(_family, name) for name in _family.__all__})
    __all__ += _family.__all__
del _family
