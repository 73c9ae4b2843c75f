"""Layer ops of torch.nn.functional: linear, bilinear, embedding, one_hot, distances (cosine, pairwise, pdist)."""

import math

from ndgrad._argument_parser import parses
from ndgrad._device import namespace_of
from ndgrad._dtype import can_cast, int64, promote_types, type_string
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.ops import products
from ndgrad.ops._arrays import via_float32
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops._checks import constant_like, zeros_like_grad
from ndgrad.ops._linalg_base import check_kernel
from ndgrad.ops._op import INDEXING, MATMUL, Op
from ndgrad.ops.comparison import where
from ndgrad.ops.dropouts import dropout  # noqa: F401 - it lived here; nn.modules.rnn imports it from here
from ndgrad.ops.gather_scatter import IndexAdd, IndexSelect
from ndgrad.ops.linalg import matmul
from ndgrad.ops.reduction import LinalgVectorNorm, norm
from ndgrad.ops.rounding import nan_keeping_sign

# torch's own; torch.embedding takes its arguments in another order than torch.nn.functional.embedding
__all__ = ["cosine_similarity", "pairwise_distance", "pdist", "bilinear", "embedding", "embedding_renorm_"]
FUNCTIONAL = ["linear", "embedding", "one_hot", "cosine_similarity", "pairwise_distance", "pdist", "bilinear"]


class Addmm(products.Addmm):
    """products.Addmm as F.linear records it for a 2-d input with a bias: bias + x @ weight.t()."""

    name = "linear"


class Trilinear(Op):
    """F.bilinear's product, as torch's _trilinear: out[b, k] = sum_ij x1[b, i] weight[k, i, j] x2[b, j]."""

    name, family = "_trilinear", MATMUL
    saves = ("x1", "weight", "x2")
    complex_autograd = False  # as PyTorch's

    @staticmethod
    def forward(xp, x1, weight, x2):
        if x1.dtype.kind == "V":  # bfloat16, which NumPy's einsum refuses
            return via_float32(Trilinear.forward, xp, x1, weight, x2)
        # NOTE: in PyTorch's order, x1 with weight over i, then with x2 over j: where the inputs hold infinities,
        # which products meet inf * 0 (NaN) depends on it
        return xp.einsum("bkj,bj->bk", xp.einsum("bi,kij->bkj", x1, weight), x2)

    formula = "grad_input1 = sum_k grad[:, k] weight[k] input2; grad_input2, grad_weight likewise (bilinear)"
    @staticmethod
    def vjp(ctx, grad):
        x1, weight, x2 = ctx.saved_tensors
        need_x1, need_weight, need_x2 = ctx.needs_input_grad
        grad_k = grad.t().unsqueeze(-1)  # (k, b, 1)
        k, i, j = weight.shape
        grad_x1 = grad_x2 = grad_weight = None
        if need_x1:  # sum_k grad[b, k] (weight[k] @ x2[b])[i]
            weight_x2 = matmul(weight.reshape(k * i, j), x2.t()).reshape(k, i, len(x2)).transpose(1, 2)  # (k, b, i)
            grad_x1 = (grad_k * weight_x2).sum(0)
        if need_x2:
            grad_x2 = (grad_k * matmul(x1, weight)).sum(0)  # x1 @ weight[k]: (k, b, j)
        if need_weight:
            grad_weight = matmul((grad_k * x1.unsqueeze(0)).transpose(1, 2), x2)  # (k, i, b) @ (b, j)
        return grad_x1, grad_weight, grad_x2

    @staticmethod
    def jvp(ctx, x1_t, weight_t, x2_t):
        x1, weight, x2 = ctx.saved_tensors
        return Trilinear.apply(x1_t, weight, x2) + Trilinear.apply(x1, weight_t, x2) + Trilinear.apply(x1, weight, x2_t)


class Embedding(Op):
    """F.embedding: the rows of ``weight`` at ``indices`` (an int array); padding_idx rows get no gradient."""

    name, family = "embedding", INDEXING
    complex_autograd = False  # as PyTorch's

    @staticmethod
    def forward(xp, weight, indices, padding_idx, scale_grad_by_freq):
        return xp.take(weight, indices, axis=0)

    formula = "grad_weight = zeros(weight.shape).index_add(0, indices, grad)  (padding_idx rows get 0)"
    @staticmethod
    def vjp(ctx, grad):
        indices, rows = ctx.indices.reshape(-1), ctx.input_shapes[0]
        grad = grad.reshape(-1, rows[1])
        if ctx.padding_idx is not None or ctx.scale_grad_by_freq:
            from ndgrad._creation import ones

            scale = ones(indices.shape, dtype=grad.dtype, device=grad.device)._data
            if ctx.padding_idx is not None:
                scale[indices == ctx.padding_idx] = 0.0
            if ctx.scale_grad_by_freq:
                scale = scale / namespace_of(indices).bincount(indices, minlength=rows[0])[indices]
            grad = grad * constant_like(scale.reshape(-1, 1), grad)
        return (IndexAdd.apply(_zeros(rows, grad), grad, dim=0, index=indices, alpha=1),)

    @staticmethod
    def jvp(ctx, weight_t):
        return Embedding.apply(weight_t, indices=ctx.indices, padding_idx=None, scale_grad_by_freq=False)


class Norm(LinalgVectorNorm):
    """F.pairwise_distance: the ``ord``-norm of x1 - x2 + eps over the last dim, recorded as NormBackward1."""

    name, family = "pairwise_distance", MATMUL
    node_name = "NormBackward1"


class Pdist(Op):
    """torch.pdist: the p-norm distance between every pair of rows i < j, pairs in row-major order."""

    name, family = "pdist", MATMUL
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x, p):
        rows, cols = xp.triu_indices(x.shape[0], 1)
        return xp.linalg.norm(x[rows] - x[cols], ord=p, axis=1).astype(x.dtype)

    @staticmethod
    def slopes(ctx, difference, distance):
        """d distance / d difference for each pair, 0 where the distance is 0 (torch's _pdist_backward)."""
        p, distance = ctx.p, distance.unsqueeze(1)
        if p == 0:
            return zeros_like_grad(difference)  # not difference * 0, which is NaN where it is infinite
        if p == 1:
            return nan_keeping_sign(difference)
        if p == math.inf:
            return difference.sign() * (difference.abs() == distance)
        if p < 2:
            ratio = difference.sign() * (difference.abs() / distance) ** (p - 1)
        else:
            ratio = difference * difference.abs() ** (p - 2) / distance ** (p - 1)
        return where(distance == 0, 0.0, ratio)

    formula = "grad_self[i] += grad_ij * d dist_ij / d x_i for each pair i < j (and the opposite sign for x_j)"
    @staticmethod
    def vjp(ctx, grad):
        x, distance = ctx.saved_tensors
        rows, cols = namespace_of(x._data).triu_indices(x.shape[0], 1)
        difference = IndexSelect.apply(x, dim=0, index=rows) - IndexSelect.apply(x, dim=0, index=cols)
        pairs = grad.unsqueeze(1) * Pdist.slopes(ctx, difference, distance)
        towards = IndexAdd.apply(_zeros(x.shape, grad), pairs, dim=0, index=rows, alpha=1)
        return (IndexAdd.apply(towards, pairs, dim=0, index=cols, alpha=-1),)

    @staticmethod
    def jvp(ctx, x_t):
        x, distance = ctx.saved_tensors
        rows, cols = namespace_of(x._data).triu_indices(x.shape[0], 1)
        difference = IndexSelect.apply(x, dim=0, index=rows) - IndexSelect.apply(x, dim=0, index=cols)
        difference_t = IndexSelect.apply(x_t, dim=0, index=rows) - IndexSelect.apply(x_t, dim=0, index=cols)
        return (Pdist.slopes(ctx, difference, distance) * difference_t).sum(1)


def _zeros(shape, like):
    from ndgrad._creation import zeros

    return zeros(shape, dtype=like.dtype, device=like.device)


# ---- functions ------------------------------------------------------------------------------------------------
@parses("linear(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor out=None)")
def linear(input, weight, bias=None):
    """input @ weight.T + bias (see torch.nn.functional.linear); 2-d inputs with a bias record AddmmBackward0."""
    if AUTOCAST.active:
        input, weight, bias = autocast_inputs("linear", input, weight, bias)
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if input.dtype != weight.dtype or (bias is not None and bias.dtype != weight.dtype):
        _dtype_mismatch(input, weight, bias)
    if weight.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {weight.ndim}D")
    if bias is not None and input.ndim == 2 and weight.ndim == 1:  # torch's addmm(bias, input, weight.t())
        raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
    if input.shape[-1] != weight.shape[-1]:
        rows = math.prod(input.shape[:-1])
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
                           f"{'x'.join(map(str, weight.shape[::-1]))})")
    if bias is None or weight.ndim != 2:
        out = matmul(input, weight.t())
        return out if bias is None else out + bias
    _check_expands(bias, (math.prod(input.shape[:-1]), weight.shape[0]))
    if input.ndim == 2:
        return Addmm.apply(bias, input, weight.t(), beta=1, alpha=1)
    flat = Addmm.apply(bias, input.reshape(-1, input.shape[-1]), weight.t(), beta=1, alpha=1)
    return flat.view(*input.shape[:-1], weight.shape[0])


def _dtype_mismatch(input, weight, bias):
    """torch's error for F.linear's dtypes: its fused addmm path (a 2-d input, or a contiguous one with a bias of one
    row) checks the bias against the weight first, then the input; its matmul path the input only."""
    one_row = bias is not None and bias.ndim > 0 and bias.numel() == max(bias.shape)
    if bias is not None and (input.ndim == 2 or (one_row and input.is_contiguous())):
        if bias.dtype != weight.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {bias.dtype.title} and "
                               f"{weight.dtype.title}")
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {input.dtype.title} and "
                           f"{weight.dtype.title}")
    if input.dtype != weight.dtype and input.ndim > 2 and not input.is_contiguous():  # matmul's batched product
        raise RuntimeError(f"expected scalar type {input.dtype.title} but found {weight.dtype.title}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {input.dtype.cpp_name} != "
                           f"{weight.dtype.cpp_name}")
    if not can_cast(bias.dtype, weight.dtype):  # the matmul path adds the bias in place
        raise RuntimeError(f"result type {bias.dtype.title} can't be cast to the desired output type "
                           f"{weight.dtype.title}")


def _check_expands(bias, target):
    """addmm expands the bias to the product's shape: PyTorch's expand errors."""
    shape = tuple(bias.shape)
    if len(shape) > len(target):
        raise RuntimeError(f"expand(ndgrad.{bias.dtype.title}Tensor{{{list(shape)}}}, size={list(target)}): the number "
                           f"of sizes provided ({len(target)}) must be greater or equal to the number of dimensions in "
                           f"the tensor ({len(shape)})")
    for d in range(1, len(shape) + 1):
        if shape[-d] not in (1, target[-d]):
            raise RuntimeError(f"The expanded size of the tensor ({target[-d]}) must match the existing size "
                               f"({shape[-d]}) at non-singleton dimension {len(target) - d}.  Target sizes: "
                               f"{list(target)}.  Tensor sizes: {list(shape)}")


@parses("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)")
def bilinear(input1, input2, weight, bias=None):
    """y[..., k] = x1 weight[k] x2 + bias[k] (see torch.nn.functional.bilinear)."""
    named = {"input1": input1, "input2": input2, "weight": weight, **({} if bias is None else {"bias": bias})}
    if any(x.dtype != input1.dtype for x in named.values()):
        got = ", ".join(f"{name}: {x.dtype.cpp_name}" for name, x in named.items())
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got {input1.shape[d]} "
                               f"and {input2.shape[d]}")
    if input1.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if weight.ndim < 3:
        rank = max(weight.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got 2)")
    for n, x, expected in ((1, input1, weight.shape[1]), (2, input2, weight.shape[2])):
        if x.shape[-1] != expected:
            raise RuntimeError(f"bilinear(): input{n} size does not match weight size: got {x.shape[-1]} but expected "
                               f"{expected}")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        size = bias.shape[0] if bias.ndim else 1
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {size} but expected "
                           f"{weight.shape[0]}")
    batch = input1.shape[:-1]
    out = trilinear(input1.reshape(-1, input1.shape[-1]), weight, input2.reshape(-1, input2.shape[-1]))
    out = out.view(*batch, weight.shape[0])
    return out if bias is None else out + bias


def trilinear(x1, weight, x2):
    """bilinear's product without its batch handling, as torch._trilinear (which checks dtypes its own way)."""
    if not x1.dtype == weight.dtype == x2.dtype:
        found = weight.dtype if weight.dtype != x1.dtype else x2.dtype
        raise RuntimeError(f"expected scalar type {x1.dtype.title} but found {found.title}")
    return Trilinear.apply(x1, weight, x2)


def _index_types(name, position, indices):
    if indices.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"Expected tensor for argument #{position} 'indices' to have one of the following scalar "
                           f"types: Long, Int; but got {type_string(indices)} instead (while checking arguments for "
                           f"{name})")


@parses("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
        "bool sparse=False)")
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """The rows of ``weight`` at ``indices`` (see torch.embedding); a negative padding_idx is none."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _index_types("embedding", 1, indices)
    if sparse:
        raise NotImplementedError("ndgrad has no sparse tensors: embedding(sparse=True) is not supported")
    values = indices._data.astype(int64.numpy)
    if values.size and (values.min() < 0 or values.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    return Embedding.apply(weight, indices=values, padding_idx=padding_idx if padding_idx >= 0 else None,
                           scale_grad_by_freq=scale_grad_by_freq)


@parses("embedding_renorm_(Tensor input, Tensor indices, float max_norm, float norm_type)")
def embedding_renorm_(input, indices, max_norm, norm_type):
    """The rows of ``input`` at ``indices`` whose norm exceeds max_norm, scaled down to it, in place (see
    torch.embedding_renorm_)."""
    if input.ndim != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {input.ndim}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for embedding_renorm_)")
    _index_types("embedding_renorm_", 2, indices)
    input._check_inplace()
    data = input._data.copy()
    xp = namespace_of(data)
    rows = xp.unique(indices._data.astype(int64.numpy))
    outside = rows[(rows < -data.shape[0]) | (rows >= data.shape[0])]  # negative rows count from the end
    if outside.size:
        raise IndexError(f"select(): index {int(outside[0])} out of range for tensor of size {list(input.shape)} at "
                         "dimension 0")
    if rows.size and not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {input.dtype.title} "
                           "instead.")
    norms = (xp.abs(data[rows]) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    big = norms > max_norm
    data[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(data.dtype)
    with no_grad():
        input._write(data)
    return input


def functional_embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                         sparse=False):
    """The rows of ``weight`` at the indices ``input`` (see torch.nn.functional.embedding)."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        embedding_renorm_(weight.detach(), input, max_norm, norm_type)  # under no_grad, as torch's
    return embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


@parses("one_hot(Tensor input, int num_classes=-1)")
def one_hot(tensor, num_classes=-1):
    """int64 tensor with a trailing dim of num_classes, 1 at each value (see torch.nn.functional.one_hot)."""
    from ndgrad._tensor import Tensor

    if tensor.dtype is not int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = tensor._data
    if num_classes == -1:
        if values.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(values.max()) + 1  # NOTE: read on the host, as torch does (the output shape depends on it)
    if values.size and values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if values.size and values.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    xp = namespace_of(values)
    result = xp.zeros((*values.shape, num_classes), dtype=int64.numpy)  # allocated as torch allocates it
    xp.put_along_axis(result, values[..., None], 1, axis=-1)
    return Tensor._wrap(result)


@parses("cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08)")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between x1 and x2 along ``dim`` (see torch.nn.functional.cosine_similarity)."""
    from ndgrad.ops.grids import broadcast_tensors

    common = promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common.title}")
    if not eps >= 0:  # nan too
        raise RuntimeError(f"eps must be non-negative, got: {eps:g}")
    x1, x2 = broadcast_tensors(x1.to(common), x2.to(common))
    norms = []
    for x in (x1, x2):
        n = norm(x, 2, dim, keepdim=True)
        fixed = n.detach()
        norms.append(n + (fixed.clamp_min(eps) - fixed))  # torch clamps in place under no_grad: no kink gradient
    return ((x1 / norms[0]) * (x2 / norms[1])).sum(dim)


@parses("pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False)")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps over the last dim (see torch.nn.functional.pairwise_distance)."""
    difference = x1 - x2 + eps
    dims = (difference.ndim - 1,) if difference.ndim else None
    return Norm.apply(difference, dim=dims, keepdim=keepdim, ord=float(p), dtype=None)


@parses("pdist(Tensor input, float p=2)")
def pdist(input, p=2):
    """The p-norm distances between the rows of a 2-d input, each pair once (see torch.nn.functional.pdist)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    check_kernel("pdist", input)
    return Pdist.apply(input, p=float(p))


class LayersMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__
