"""Parameters as one flat vector and back (see torch.nn.utils.convert_parameters)."""

from ndgrad._tensor import Tensor
from ndgrad.nn.modules.module import typename
from ndgrad.ops import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_same_device(parameters):
    """Yield the parameters, refusing (as PyTorch does) a mix of devices."""
    first = None
    for param in parameters:
        if first is None:
            first = param.device
        elif param.device != first:
            raise TypeError("Found two parameters on different devices, this is currently not supported.")
        yield param


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated, in order (see torch.nn.utils.parameters_to_vector)."""
    return cat([param.view(-1) for param in _check_same_device(parameters)])


def vector_to_parameters(vec, parameters):
    """Give each parameter its slice of ``vec`` as its data (see torch.nn.utils.vector_to_parameters)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected ndgrad.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in _check_same_device(parameters):
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count
