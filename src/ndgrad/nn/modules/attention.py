"""MultiheadAttention (see torch.nn.MultiheadAttention) and the function it runs, multi_head_attention_forward (see
torch.nn.functional.multi_head_attention_forward), composed from ndgrad ops with torch's checks and messages.
With need_weights the weights are computed explicitly (and returned); without, scaled_dot_product_attention runs."""

import math

from ndgrad._creation import empty, zeros, zeros_like
from ndgrad._dtype import bool_
from ndgrad._tensor import Tensor
from ndgrad._warnings import warn
from ndgrad.nn import functional as F
from ndgrad.nn import init
from ndgrad.nn.modules.linear import Linear
from ndgrad.nn.modules.module import Module
from ndgrad.nn.parameter import Parameter
from ndgrad.ops.joining import cat
from ndgrad.ops.products import baddbmm

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """Linear, under the name torch gives MultiheadAttention's out_proj (its repr shows it)."""


def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask (True: do not attend) as an additive float mask of 0 and -inf; float masks pass unchanged."""
    if mask is None:
        return None
    if mask.dtype != bool_ and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
        )
    if mask.dtype != bool_:
        return mask
    return zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))


def none_or_dtype(input):
    """torch.nn.functional._none_or_dtype: the dtype a mask has (None for none), with its error for the rest."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or ndgrad.Tensor")


def _is_batched(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's shape checks of the arguments; whether the query has a batch dimension."""
    dims = query.dim()
    if dims not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {dims}-D query tensor"
        )
    kind = "batched (3-D)" if dims == 3 else "unbatched (2-D)"
    if key.dim() != dims or value.dim() != dims:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {dims}-D but found {key.dim()}-D and "
            f"{value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != dims - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {dims - 1}-D but found "
            f"{key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {attn_mask.dim()}-D "
                "tensor instead"
            )
        if dims == 2 and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.shape != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
    return dims == 3


def _in_projection(query, key, value, weights, bias):
    """q, k, v: one matmul for self-attention (and one for key and value when they are the same tensor)."""
    embed_dim = query.size(-1)
    if key is value:
        if query is key:
            return F.linear(query, weights, bias).chunk(3, -1)
        weight_q, weight_kv = weights.split([embed_dim, 2 * embed_dim])
        bias_q, bias_kv = (None, None) if bias is None else bias.split([embed_dim, 2 * embed_dim])
        return (F.linear(query, weight_q, bias_q), *F.linear(key, weight_kv, bias_kv).chunk(2, -1))
    biases = (None,) * 3 if bias is None else bias.chunk(3)
    return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weights.chunk(3), biases))


def _separate_in_projection(query, key, value, weights, bias):
    """q, k, v with their own weights (kdim or vdim differ from embed_dim), checked as torch checks them."""
    sizes = {"query": query.size(-1), "key": key.size(-1), "value": value.size(-1)}
    biases = (None,) * 3 if bias is None else bias.chunk(3)
    for (name, size), weight in zip(sizes.items(), weights):
        if weight.shape != (sizes["query"], size):
            raise AssertionError(f"expecting {name} weights shape of {(sizes['query'], size)}, but got {weight.shape}")
    for name, term in zip(sizes, biases):
        if term is not None and term.shape != (sizes["query"],):
            raise AssertionError(f"expecting {name} bias shape of {(sizes['query'],)}, but got {term.shape}")
    return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _heads(tensor, static, batch_heads, head_dim, name):
    """(length, batch, embed) -> (batch * heads, length, head_dim), or the given static keys/values."""
    if static is None:
        return tensor.reshape(tensor.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.size(0) != batch_heads:
        raise AssertionError(f"expecting static_{name}.size(0) of {batch_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def _check_attn_mask(attn_mask, expected_2d, expected_3d):
    """attn_mask as (1 or batch * heads, target, source)."""
    if attn_mask.dim() == 2:
        if attn_mask.shape != expected_2d:
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {expected_2d}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.shape != expected_3d:
        raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {expected_3d}.")
    return attn_mask


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention over (length, batch, embed) inputs, or unbatched (length, embed) ones (see
    torch.nn.functional.multi_head_attention_forward). Returns (output, weights or None)."""
    is_batched = _is_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_length, batch, embed_dim = query.shape
    source_length = key.shape[0]
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask), "attn_mask",
                                      query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention builds the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}"
            )
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        weights = (q_proj_weight, k_proj_weight, v_proj_weight)
        q, k, v = _separate_in_projection(query, key, value, weights, in_proj_bias)
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias)

    batch_heads = batch * num_heads
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
        attn_mask = _check_attn_mask(attn_mask, (target_length, source_length),
                                     (batch_heads, target_length, source_length))
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k, v = cat([k, bias_k.repeat(1, batch, 1)]), cat([v, bias_v.repeat(1, batch, 1)])
        attn_mask, key_padding_mask = _one_more_key(attn_mask), _one_more_key(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        given, missing = ("bias_k", "bias_v") if bias_k is not None else ("bias_v", "bias_k")
        raise AssertionError(f"{given} is set but {missing} is None")

    q = q.reshape(target_length, batch_heads, head_dim).transpose(0, 1)
    k, v = _heads(k, static_k, batch_heads, head_dim, "k"), _heads(v, static_v, batch_heads, head_dim, "v")
    if add_zero_attn:
        k = cat([k, zeros((batch_heads, 1, head_dim), dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros((batch_heads, 1, head_dim), dtype=v.dtype, device=v.device)], dim=1)
        attn_mask, key_padding_mask = _one_more_key(attn_mask), _one_more_key(key_padding_mask)
    source_length = k.size(1)
    if key_padding_mask is not None:
        for axis, expected in ((0, batch), (1, source_length)):
            if key_padding_mask.shape[axis] != expected:
                raise AssertionError(
                    f"Expected key_padded_mask.shape[{axis}] to be {expected}, but got {key_padding_mask.shape[axis]}"
                )
        key_padding_mask = (
            key_padding_mask.view(batch, 1, 1, source_length).expand(-1, num_heads, -1, -1)
            .reshape(batch_heads, 1, source_length)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    attend = _attend_with_weights if need_weights else _attend_fused
    output, weights = attend(q, k, v, attn_mask, dropout_p, is_causal, batch, num_heads)
    output = output.reshape(target_length * batch, embed_dim)
    if weights is not None and average_attn_weights:
        weights = weights.mean(dim=1)
    output = F.linear(output, out_proj_weight, out_proj_bias).view(target_length, batch, -1)
    if not is_batched:
        output = output.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return output, weights


def _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal, batch, num_heads):
    """softmax(q k^T / sqrt(head_dim) + mask) v over (batch * heads, length, head_dim), keeping the weights.
    Returns the output as (target, batch * heads, head_dim) and the weights as (batch, heads, target, source)."""
    q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
    keys_t = k.transpose(-2, -1)
    scores = q_scaled.bmm(keys_t) if attn_mask is None else baddbmm(attn_mask, q_scaled, keys_t)
    weights = F.softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    return weights.bmm(v).transpose(0, 1), weights.view(batch, num_heads, *weights.shape[1:])


def _attend_fused(q, k, v, attn_mask, dropout_p, is_causal, batch, num_heads):
    """The same attention through scaled_dot_product_attention; the output as (target, batch, heads, head_dim)."""
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(batch, num_heads, -1, k.shape[1])
    q, k, v = (x.reshape(batch, num_heads, *x.shape[1:]) for x in (q, k, v))
    output = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    return output.permute(2, 0, 1, 3), None


def _one_more_key(mask):
    """A mask widened by one key (an added bias key or zero key), which every query may attend."""
    return None if mask is None else F.pad(mask, (0, 1))


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads over projected queries, keys and values (see torch.nn.MultiheadAttention).

    The packed in_proj_weight is used when key and value have embed_dim features, else q/k/v_proj_weight.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def parameter(*shape):
            return Parameter(empty(shape, device=device, dtype=dtype))

        if self._qkv_same_embed_dim:
            self.in_proj_weight = parameter(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = parameter(embed_dim, embed_dim)
            self.k_proj_weight = parameter(embed_dim, self.kdim)
            self.v_proj_weight = parameter(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = parameter(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k, self.bias_v = parameter(1, 1, embed_dim), parameter(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for bias in (self.bias_k, self.bias_v):
            if bias is not None:
                init.xavier_normal_(bias)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """(attention output, attention weights or None); see torch.nn.MultiheadAttention.forward."""
        is_batched = query.dim() == 3
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask), "attn_mask",
                                          query.dtype)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if query.is_nested or key.is_nested or value.is_nested:  # torch's question (an error for non-tensors)
            raise AssertionError("MultiheadAttention does not support NestedTensor")
        if self.batch_first and is_batched:  # keep which of query, key, value are the same tensor
            if query is key is value:
                query = key = value = query.transpose(1, 0)
            elif key is value:
                query, key = query.transpose(1, 0), key.transpose(1, 0)
                value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else dict(
            use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
        )
        output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal, **separate,
        )
        if self.batch_first and is_batched:
            output = output.transpose(1, 0)
        return output, weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """One (batch, heads, length, length) mask from both masks, and its type: 1 padding only, 2 with attn_mask."""
        mask_type, merged_mask = None, None
        if key_padding_mask is not None:
            mask_type, merged_mask = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged_mask = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                merged_mask = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                padding = key_padding_mask.view(batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
                merged_mask = merged_mask + padding
        return merged_mask, mask_type
