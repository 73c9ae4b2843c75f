"""torch.nn.functional's mirror: each op module lists its torch.nn.functional names (``FUNCTIONAL``).

Where torch.nn.functional's function is Python around torch's op (``inplace``, ``return_indices``, a reduction given
by name, another argument order), the op module has both: torch's op as ``name`` and torch.nn.functional's function
as ``functional_name``, which takes the public name here, so that Python's own errors name it as torch's do.
"""

from ndgrad.ops import (
    activation,
    attention,
    classification_losses,
    convolutions,
    ctc,
    dropouts,
    embedding_bag,
    functional_pooling,
    grid_sampling,
    layers,
    margin_losses,
    max_pooling,
    more_activations,
    normalization,
    pooling,
    regression_losses,
    resampling,
    softmaxes,
)

__all__ = []
for _module in (activation, softmaxes, regression_losses, classification_losses, margin_losses, ctc, attention,
                layers, dropouts, embedding_bag, more_activations, normalization, convolutions, max_pooling, pooling,
                functional_pooling, resampling, grid_sampling):
    for _name in _module.FUNCTIONAL:
        _function = getattr(_module, f"functional_{_name}", None)
        if _function is None:
            _function = getattr(_module, _name)
        else:  # torch.nn.functional's own function, found here by pickle (a saved Transformer's activation)
            if _function.__name__.startswith("functional_"):  # a name of its own (torch's _threshold) stays
                _function.__name__ = _function.__qualname__ = _name
            _function.__module__ = __name__
            globals()[_function.__name__] = _function
        globals()[_name] = _function
    __all__ += _module.FUNCTIONAL
