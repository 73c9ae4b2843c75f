"""torch.nn.functional's pooling functions in Python, around torch's pooling ops (max_pooling, pooling): the
``return_indices`` dispatch, output sizes from ratios and defaults, unpooling's output size, and lp pooling."""

import math
from collections.abc import Iterable

from ndgrad.ops import max_pooling, pooling

__all__ = []
FUNCTIONAL = [
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "max_pool3d_with_indices", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices",
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d",
    "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
]


def _ntuple(value, n):
    """torch.nn.modules.utils' _single, _pair, _triple: an iterable as a tuple, anything else n times."""
    return tuple(value) if isinstance(value, Iterable) else (value,) * n


def _named(function, name):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"See torch.nn.functional.{name.lstrip('_')}."
    return function


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, name):
    """torch.nn.functional's dispatch on a flag (``return_indices``): ``if_true`` where it is set, ``if_false``
    otherwise; each keeps its own name, which Python's errors about the call give (_max_pool2d, ...)."""

    def dispatch(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    return _named(dispatch, name)


# ---- max pooling: an omitted stride is [], as torch.nn.functional passes it ------------------------------------
def _max_pools(nd, values, values_and_indices):
    def with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        if nd == 3:
            input.is_cuda  # noqa: B018 - torch's Python asks first (its AttributeError for a non-tensor)
        return values_and_indices(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)

    def without_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                        return_indices=False):
        return values(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)

    with_indices = _named(with_indices, f"max_pool{nd}d_with_indices")
    return with_indices, boolean_dispatch("return_indices", 6, False, with_indices,
                                          _named(without_indices, f"_max_pool{nd}d"), f"max_pool{nd}d")


max_pool1d_with_indices, max_pool1d = _max_pools(1, max_pooling.max_pool1d, max_pooling.max_pool1d_with_indices)
max_pool2d_with_indices, max_pool2d = _max_pools(2, max_pooling.max_pool2d, max_pooling.max_pool2d_with_indices)
max_pool3d_with_indices, max_pool3d = _max_pools(3, max_pooling.max_pool3d, max_pooling.max_pool3d_with_indices)


# ---- adaptive pooling ------------------------------------------------------------------------------------------
def _list_with_default(out_size, defaults):
    """torch.nn.modules.utils._list_with_default: None in an output size takes the input's size there."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def _adaptive_max_pools(nd, op):
    def with_indices(input, output_size, return_indices=False):
        if nd == 1:
            return op(input, output_size)
        return op(input, _list_with_default(output_size, input.size()))

    def without_indices(input, output_size, return_indices=False):
        return with_indices(input, output_size)[0]

    with_indices = _named(with_indices, f"adaptive_max_pool{nd}d_with_indices")
    return with_indices, boolean_dispatch("return_indices", 2, False, with_indices,
                                          _named(without_indices, f"_adaptive_max_pool{nd}d"),
                                          f"adaptive_max_pool{nd}d")


adaptive_max_pool1d_with_indices, adaptive_max_pool1d = _adaptive_max_pools(1, max_pooling.adaptive_max_pool1d)
adaptive_max_pool2d_with_indices, adaptive_max_pool2d = _adaptive_max_pools(2, max_pooling.adaptive_max_pool2d)
adaptive_max_pool3d_with_indices, adaptive_max_pool3d = _adaptive_max_pools(3, max_pooling.adaptive_max_pool3d)


def adaptive_avg_pool2d(input, output_size):
    """See torch.nn.functional.adaptive_avg_pool2d."""
    return pooling.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input, output_size):
    """See torch.nn.functional.adaptive_avg_pool3d."""
    return pooling.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


# ---- fractional max pooling: the output size from a ratio, the random samples drawn here -------------------------
def _fractional_max_pools(nd, op):
    name = f"fractional_max_pool{nd}d"

    def with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                     _random_samples=None):
        from ndgrad._random import rand

        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
        if output_size is None:
            if nd == 2 and len(output_ratio) > 2:  # NOTE: as torch's, a single number has no len() here
                raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
            ratio = _ntuple(output_ratio, nd)
            output_size = [int(input.size(d - nd) * ratio[d]) for d in range(nd)]
        if _random_samples is None:
            batch = 1 if input.dim() == nd + 1 else input.size(0)
            _random_samples = rand(batch, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device)
        return op(input, kernel_size, output_size, _random_samples)

    def without_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                        _random_samples=None):
        return with_indices(input, kernel_size, output_size, output_ratio, return_indices, _random_samples)[0]

    with_indices = _named(with_indices, f"{name}_with_indices")
    return with_indices, boolean_dispatch("return_indices", 4, False, with_indices,
                                          _named(without_indices, f"_{name}"), name)


fractional_max_pool2d_with_indices, fractional_max_pool2d = _fractional_max_pools(
    2, max_pooling.fractional_max_pool2d)
fractional_max_pool3d_with_indices, fractional_max_pool3d = _fractional_max_pools(
    3, max_pooling.fractional_max_pool3d)


# ---- max unpooling ----------------------------------------------------------------------------------------------
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch.nn.functional's default output size (the pooled input's), or output_size checked against it."""
    input_size = input.size()
    default = [(input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(len(kernel_size))]
    if output_size is None:
        result = default
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(f"output_size should be a sequence containing {len(kernel_size)} or "
                             f"{len(kernel_size) + 2} elements, but it has a length of '{len(output_size)}'")
        for d in range(len(kernel_size)):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
        result = output_size
    for d in range(len(kernel_size)):
        if not isinstance(result[d] >= 0, bool):  # torch._check_value's own error
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "ndgrad._check_tensor_all() to assert that all elements are true.")
        if not result[d] >= 0:  # nan fails too
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={result[d]}")
    return result


def _unpool_arguments(nd, input, kernel_size, stride, padding, output_size):
    kernel_size = _ntuple(kernel_size, nd)
    stride = _ntuple(stride, nd) if stride is not None else kernel_size
    padding = _ntuple(padding, nd)
    return stride, padding, _unpool_output_size(input, kernel_size, stride, padding, output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: max_unpool2d over a width of 1 (see torch.nn.functional.max_unpool1d)."""
    _, _, output_size = _unpool_arguments(1, input, kernel_size, stride, padding, output_size)
    output_size = output_size + [1] if isinstance(output_size, list) else output_size + (1,)
    return max_pooling.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), output_size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d (see torch.nn.functional.max_unpool2d)."""
    _, _, output_size = _unpool_arguments(2, input, kernel_size, stride, padding, output_size)
    return max_pooling.max_unpool2d(input, indices, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d (see torch.nn.functional.max_unpool3d)."""
    stride, padding, output_size = _unpool_arguments(3, input, kernel_size, stride, padding, output_size)
    return max_pooling.max_unpool3d(input, indices, output_size, stride, padding)


# ---- power-average pooling ------------------------------------------------------------------------------------
def _lp_pool(nd, max_pool, avg_pool, input, norm_type, kernel_size, stride, ceil_mode):
    """The composite torch builds; an infinite norm is max pooling of |input|."""
    from ndgrad.ops.activation import relu

    kernel = kernel_size if nd == 1 else _ntuple(kernel_size, nd)
    if nd > 1 and len(kernel) != nd:  # torch unpacks the kernel size into nd names
        raise ValueError(f"not enough values to unpack (expected {nd}, got {len(kernel)})" if len(kernel) < nd else
                         f"too many values to unpack (expected {nd})")
    if isinstance(norm_type, (int, float)):
        if norm_type == math.inf:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -math.inf:
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kernel if nd == 1 else math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """See torch.nn.functional.lp_pool1d."""
    return _lp_pool(1, max_pool1d, pooling.avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """See torch.nn.functional.lp_pool2d."""
    return _lp_pool(2, max_pool2d, pooling.avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """See torch.nn.functional.lp_pool3d."""
    return _lp_pool(3, max_pool3d, pooling.avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode)
