"""ndgrad.nn.utils: helpers around the layers (see torch.nn.utils)."""

from ndgrad.nn.utils import clip_grad, convert_parameters, rnn
from ndgrad.nn.utils.clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_
from ndgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad", "convert_parameters", "rnn", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_",
    "parameters_to_vector", "vector_to_parameters",
]
