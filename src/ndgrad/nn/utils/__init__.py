"""ndgrad.nn.utils: helpers around the layers (see torch.nn.utils)."""

from ndgrad.nn.utils import (
    clip_grad,
    convert_parameters,
    fusion,
    init,
    parametrizations,
    parametrize,
    rnn,
    spectral_norm,
    stateless,
    weight_norm,
)
from ndgrad.nn.utils.clip_grad import _clip_grads_with_norm_ as clip_grads_with_norm_
from ndgrad.nn.utils.clip_grad import _get_total_norm as get_total_norm
from ndgrad.nn.utils.clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_
from ndgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from ndgrad.nn.utils.fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from ndgrad.nn.utils.init import skip_init
from ndgrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F811 (torch's names)
from ndgrad.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: F811

__all__ = [
    "clip_grad", "convert_parameters", "fusion", "init", "rnn", "clip_grad_norm", "clip_grad_norm_",
    "clip_grads_with_norm_", "clip_grad_value_", "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
    "fuse_linear_bn_weights", "get_total_norm", "parameters_to_vector", "parametrizations", "parametrize",
    "remove_spectral_norm", "remove_weight_norm", "skip_init", "spectral_norm", "stateless", "vector_to_parameters",
    "weight_norm",
]
