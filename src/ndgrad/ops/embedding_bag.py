"""F.embedding_bag: sums, means or maxima of bags of embedding rows, recorded as one EmbeddingBagBackward0 node as
torch records it. The functional turns input and offsets into index arrays (the row, bag and input position of
every index that counts: padding_idx does not); the op reduces the gathered rows per bag."""


from ndgrad._device import namespace_of
from ndgrad._dtype import bool_, float16, float64, int32, int64, type_string
from ndgrad._warnings import warn
from ndgrad.ops._checks import constant_like
from ndgrad.ops._op import INDEXING, Op
from ndgrad.ops.gather_scatter import IndexAdd, IndexSelect
from ndgrad.ops.layers import _zeros, embedding_renorm_

__all__ = []
FUNCTIONAL = ["embedding_bag"]
_MODES = ("sum", "mean", "max")


class EmbeddingBag(Op):
    """Per bag b: sum_k weight[rows[k]] * per_sample_weights[positions[k]] over the k with bags[k] == b, that sum
    over the bag's size (mean), or the elementwise maximum (max); an empty bag gives zeros.

    ``per_sample_weights`` is the number 1 when none are given, so the node keeps torch's two edges.
    """

    name, family = "embedding_bag", INDEXING
    saves = ("weight", "per_sample_weights", "result")
    complex_autograd = False  # as PyTorch's

    @staticmethod
    def forward(xp, weight, per_sample_weights, rows, bags, positions, counts, mode, grad_scale):
        gathered = weight[rows]
        if hasattr(per_sample_weights, "shape"):
            gathered = gathered * per_sample_weights[positions][:, None]
        shape = (counts.shape[0], weight.shape[1])
        if mode == "max":
            out = xp.full(shape, -xp.inf, dtype=weight.dtype)
            xp.maximum.at(out, bags, gathered)
            out[counts == 0] = 0
            return out
        out = xp.zeros(shape, dtype=weight.dtype)
        xp.add.at(out, bags, gathered)
        if mode == "mean":
            out /= xp.maximum(counts, 1).astype(weight.dtype)[:, None]
        return out

    @staticmethod
    def row_scale(ctx, per_sample_weights, like):
        """What each gathered row is multiplied by in the sum (mean: over its bag's size), as a (K, 1) tensor."""
        xp = namespace_of(ctx.bags)
        scale = xp.ones(ctx.bags.shape, dtype=like._data.dtype)
        if ctx.mode == "mean":
            scale = scale / xp.maximum(ctx.counts, 1)[ctx.bags]
        scale = constant_like(scale.reshape(-1, 1), like)
        if hasattr(per_sample_weights, "shape"):
            scale = scale * IndexSelect.apply(per_sample_weights, dim=0, index=ctx.positions).unsqueeze(1)
        return scale

    @staticmethod
    def winners(ctx, weight, result):
        """For max mode, flat indices into weight and into the result of each maximum (the first one on ties)."""
        xp = namespace_of(ctx.bags)
        gathered, best = weight._data[ctx.rows], result._data[ctx.bags]
        kept = ctx.rows.shape[0]
        candidates = xp.where(gathered == best, xp.arange(kept)[:, None], kept)
        first = xp.full(result.shape, kept)
        xp.minimum.at(first, ctx.bags, candidates)
        bag_of, column = xp.nonzero(first < kept)
        return ctx.rows[first[bag_of, column]] * weight.shape[1] + column, bag_of * weight.shape[1] + column

    formula = "grad_weight = index_add(zeros, rows, grad[bags] * scale); grad_weights = <grad[bags], w[rows]>"
    @staticmethod
    def vjp(ctx, grad):
        weight, per_sample_weights, result = ctx.saved_tensors
        need_weight, need_per_sample = ctx.needs_input_grad
        grad_weight = grad_per_sample = None
        if ctx.mode == "max":
            into_weight, from_result = EmbeddingBag.winners(ctx, weight, result)
            picked = IndexSelect.apply(grad.reshape(-1), dim=0, index=from_result)
            flat = IndexAdd.apply(_zeros((weight.numel(),), grad), picked, dim=0, index=into_weight, alpha=1)
            return flat.reshape(weight.shape), None
        per_row = IndexSelect.apply(grad, dim=0, index=ctx.bags)
        if need_weight:
            scaled = per_row * EmbeddingBag.row_scale(ctx, per_sample_weights, grad)
            if ctx.grad_scale is not None:
                scaled = scaled * constant_like(ctx.grad_scale.reshape(-1, 1), grad)
            grad_weight = IndexAdd.apply(_zeros(weight.shape, grad), scaled, dim=0, index=ctx.rows, alpha=1)
        if need_per_sample:
            dots = (per_row * IndexSelect.apply(weight, dim=0, index=ctx.rows)).sum(1)
            grad_per_sample = IndexAdd.apply(_zeros(per_sample_weights.shape, grad), dots, dim=0,
                                             index=ctx.positions, alpha=1)
        return grad_weight, grad_per_sample

    @staticmethod
    def jvp(ctx, weight_t, per_sample_weights_t):
        weight, per_sample_weights, result = ctx.saved_tensors
        params = {name: getattr(ctx, name) for name in ("rows", "bags", "positions", "counts", "mode", "grad_scale")}
        if ctx.mode == "max":
            from_weight, into_result = EmbeddingBag.winners(ctx, weight, result)
            picked = IndexSelect.apply(weight_t.reshape(-1), dim=0, index=from_weight)
            flat = IndexAdd.apply(_zeros((result.numel(),), weight_t), picked, dim=0, index=into_result, alpha=1)
            return flat.reshape(result.shape)
        tangent = EmbeddingBag.apply(weight_t, per_sample_weights, **params)
        if per_sample_weights_t is not None:
            tangent = tangent + EmbeddingBag.apply(weight, per_sample_weights_t, **params)
        return tangent


def _index_error():
    return RuntimeError(
        "Expected i < index_size to be true, but got false.  (Could this error message be improved?  If so, please "
        "report an enhancement request to PyTorch.)"
    )


def _check_indices(tensor):
    """torch's dtype check, which names the offsets 'indices' too."""
    if tensor.dtype not in (int64, int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            f"{type_string(tensor)} instead (while checking arguments for embedding_bag)"
        )


def _check_weight(weight):
    if not weight.dtype.is_floating_point:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, "
            f"Float, Double; but got {type_string(weight)} instead (while checking arguments for embedding_bag)"
        )


def _flatten(input, offsets, per_sample_weights, include_last_offset):
    """(1-d indices, offsets array, 1-d per_sample_weights, include_last_offset) from torch's two input layouts
    (a 2-d input is a batch of equal bags), with torch's errors."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type {type(offsets)}"
            )
        if input.dtype is bool_:  # torch builds the offsets with arange in input's dtype
            raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
        xp = namespace_of(input._data)
        starts = xp.arange(0, input.numel(), input.shape[1]) if input.shape[1] else xp.zeros(input.shape[0], int)
        flat_weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input._data.reshape(-1), starts, flat_weights, False
    if input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        _check_indices(offsets)
        return input._data, offsets._data, per_sample_weights, include_last_offset
    raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")


def _bags(indices, starts, include_last_offset, num_embeddings, padding_idx, weight_dtype):
    """(rows, bags, positions, counts): for every index that counts, its row, its bag and its input position;
    and each bag's size."""
    xp = namespace_of(indices)
    length = indices.shape[0]
    if starts.shape[0] and int(starts[0]) != 0:
        title = "Long" if starts.dtype.itemsize == 8 else "Int"
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
            f"However, got {int(starts[0])}\n[ ndgrad.{title}Tensor{{}} ]"
        )
    if starts.shape[0] and int(starts[-1]) > length:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {length} but got offsets[-1] of {int(starts[-1])}"
        )
    outside = xp.nonzero((indices < 0) | (indices >= num_embeddings))[0]
    if outside.shape[0]:  # each weight dtype's kernel words it its own way
        position = int(outside[0])
        if weight_dtype is float16:
            raise _index_error()
        if weight_dtype is float64:
            raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                               f"{int(indices[position])}")
        raise RuntimeError(
            f"Index {position} of input takes value {int(indices[position])} which is not in the valid range "
            f"[0, {num_embeddings})"
        )
    if bool((starts[1:] < starts[:-1]).any()):
        raise _index_error()
    num_bags = max(starts.shape[0] - 1, 0) if include_last_offset else starts.shape[0]
    bag_of = xp.searchsorted(starts, xp.arange(length), side="right") - 1
    keep = bag_of < num_bags
    if padding_idx is not None:
        keep &= indices != padding_idx
    positions = xp.nonzero(keep)[0]
    bags = bag_of[positions]
    return indices[positions], bags, positions, xp.bincount(bags, minlength=num_bags)[:num_bags]


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows without building the per-index rows (see
    torch.nn.functional.embedding_bag)."""
    if weight.dtype is int64 and input.is_floating_point():
        warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, ...)` is "
            "deprecated, and should now be `embedding_bag(input, weight, ...)`.",
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must have the "
            f"same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    indices, starts, per_sample_weights, include_last_offset = _flatten(input, offsets, per_sample_weights,
                                                                        include_last_offset)
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    _check_indices(input)
    if max_norm is not None:
        embedding_renorm_(weight.detach(), input.reshape(-1), max_norm, norm_type)
    _check_weight(weight)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    if sparse:
        raise NotImplementedError("ndgrad has no sparse tensors: embedding_bag(sparse=True) is not supported")
    num_embeddings = weight.shape[0]
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{num_embeddings} through "
                f"{num_embeddings - 1}, but got {padding_idx}"
            )
        padding_idx %= num_embeddings
    rows, bags, positions, counts = _bags(indices, starts, include_last_offset, num_embeddings, padding_idx,
                                          weight.dtype)
    grad_scale = None
    if scale_grad_by_freq:
        xp = namespace_of(rows)
        grad_scale = 1.0 / xp.bincount(rows, minlength=num_embeddings)[rows]
    return EmbeddingBag.apply(weight, 1.0 if per_sample_weights is None else per_sample_weights, rows=rows, bags=bags,
                              positions=positions, counts=counts, mode=mode, grad_scale=grad_scale)
