"""Scaled dot-product attention (F.scaled_dot_product_attention), composed as PyTorch's math kernel composes it:
scaled matmul, additive mask, a softmax that leaves fully masked rows at zero, dropout, matmul with the values."""

import math

from ndgrad._argument_parser import parses
from ndgrad._dtype import bool_
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops.dropouts import dropout
from ndgrad.ops.softmaxes import safe_softmax

__all__ = []  # torch has it only in torch.nn.functional
FUNCTIONAL = ["scaled_dot_product_attention"]


def _check(query, key, value, attn_mask, dropout_p, is_causal):
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{query.dtype.cpp_name} key.dtype: {key.dtype.cpp_name} and value.dtype: "
                           f"{value.dtype.cpp_name} instead.")
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if attn_mask is not None and attn_mask.dtype.name not in ("bool", "float32", query.dtype.name):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {attn_mask.dtype.cpp_name} and  query.dtype: {query.dtype.cpp_name} "
                           "instead.")
    if query.dtype.is_complex:  # torch's math path reaches its softmax, which has no complex kernel
        raise NotImplementedError(f"\"softmax_lastdim_kernel_impl\" not implemented for '{query.dtype.title}'")
    if not query.dtype.is_floating_point:  # the math path scales query in float, then multiplies (mm for 2-d)
        if query.ndim == 2:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: float != {query.dtype.cpp_name}")
        raise RuntimeError(f"expected scalar type Float but found {query.dtype.title}")
    if dropout_p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p:g}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")


def _grouped(query, key, value):
    """Grouped-query attention: each key/value head serves a group of query heads (dim -3), so it is repeated."""
    heads = query.shape[-3]
    if heads % key.shape[-3] or heads % value.shape[-3]:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return key.repeat_interleave(heads // key.shape[-3], -3), value.repeat_interleave(heads // value.shape[-3], -3)


def _additive(mask, dtype):
    """A bool mask (True: attend) as 0 / -inf, added to the scores."""
    from ndgrad._creation import zeros

    return zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill_(mask.logical_not(), -math.inf)


@parses("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
        "float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False)")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value over the last two dims, batch dims broadcast (see
    torch.nn.functional.scaled_dot_product_attention)."""
    if AUTOCAST.active:
        query, key, value, attn_mask = autocast_inputs("scaled_dot_product_attention", query, key, value, attn_mask)
    from ndgrad._creation import ones

    _check(query, key, value, attn_mask, dropout_p, is_causal)
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    factor = math.sqrt(abs(scale))  # NOTE: split between query and key, as PyTorch does for stability
    query = query * (-factor if scale < 0 else factor)
    if is_causal:
        attn_mask = ones(query.shape[-2], key.shape[-2], dtype=bool_, device=query.device).tril()
    if attn_mask is not None and attn_mask.dtype.name == "bool":
        attn_mask = _additive(attn_mask, query.dtype)
    if enable_gqa:
        key, value = _grouped(query, key, value)
    scores = query @ (key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        scores.add_(attn_mask)
    weights = safe_softmax(scores, -1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p, True)
    return weights @ value
