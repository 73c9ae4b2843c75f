"""What a dense op does when given a sparse tensor: PyTorch's SparseCPU kernels for the ops that have one (the
value-wise ones as primitives here), PyTorch's errors for the others. Op.apply comes here only off its fast path."""

from ndgrad._sparse_storage import SparseCOO, add
from ndgrad.ops import arithmetic, linalg, reduction, shape
from ndgrad.ops.sparse import (
    DenseSparseMm,
    SparseDenseMm,
    SparseDenseMv,
    SparseOp,
    SparseT,
    SparseTranspose,
    _sparse,
    values_at,
)

__all__ = ["run_sparse", "not_implemented"]


class Densify(SparseOp):
    """The dense values of a sparse operand that a dense op computes with (dense + sparse): unlike to_dense, its
    gradient stays dense, as PyTorch's."""

    @staticmethod
    def forward(xp, x):
        return x.to_dense()

    @staticmethod
    def vjp(ctx, grad):
        return (grad,)


class SparseScale(SparseOp):
    """sparse * number: the values scaled."""

    node_name = "MulBackward0"

    @staticmethod
    def forward(xp, x, factor):
        return x.with_values(x.values * factor)

    @staticmethod
    def vjp(ctx, grad):
        return (grad * ctx.factor,)


class SparseDivide(SparseOp):
    """sparse / number: the values divided."""

    node_name = "DivBackward0"

    @staticmethod
    def forward(xp, x, divisor):
        return x.with_values(x.values / divisor)

    @staticmethod
    def vjp(ctx, grad):
        return (grad / ctx.divisor,)


class SparseNeg(SparseOp):
    node_name = "NegBackward0"

    @staticmethod
    def forward(xp, x):
        return x.with_values(-x.values)

    @staticmethod
    def vjp(ctx, grad):
        return (-grad,)


class SparseClone(SparseOp):
    node_name = "CloneBackward0"

    @staticmethod
    def forward(xp, x):
        return x.copy()

    @staticmethod
    def vjp(ctx, grad):
        return (grad,)


class SparseToCopy(SparseOp):
    """Tensor.to(dtype) of a sparse tensor: the values cast."""

    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(xp, x, dtype):
        return x.astype(dtype.numpy)

    @staticmethod
    def vjp(ctx, grad):
        return (grad.to(ctx.input_dtypes[0]),)


class SparseAdd(SparseOp):
    """sparse + alpha * sparse (see ndgrad._sparse_storage.add for the pattern of the result)."""

    node_name = "AddBackward0"

    @staticmethod
    def forward(xp, x, y, alpha):
        return add(x, y, alpha)

    @staticmethod
    def vjp(ctx, grad):
        return grad, grad * ctx.alpha


class SparseSub(SparseAdd):
    node_name = "SubBackward0"

    @staticmethod
    def forward(xp, x, y, alpha):
        return add(x, y, -alpha)

    @staticmethod
    def vjp(ctx, grad):
        return grad, grad * -ctx.alpha


class SparseSum(SparseOp):
    """The sum of every element."""

    node_name = "SumBackward0"

    @staticmethod
    def forward(xp, x):
        return x.values.sum(axis=0).sum()

    @staticmethod
    def vjp(ctx, grad):
        return (grad.expand(ctx.input_shapes[0]),)  # dense, as PyTorch's


class SparseSumDim(SparseOp):
    """torch.sparse.sum over sparse dims: sparse over the dims left, dense when none is; the gradient of each
    element is the gradient at the element it was summed into."""

    node_name = "SparseSumBackward0"
    saves = ("x",)

    @staticmethod
    def forward(xp, x, dim):
        kept = [d for d in range(x.sparse_dim) if d not in dim]
        if not kept:
            return x.values.sum(axis=0)
        shape = [x.shape[d] for d in kept] + list(x.shape[x.sparse_dim:])
        return SparseCOO(x.indices[kept], x.values, shape).coalesce()

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        storage = x._data.coalesce()
        kept = [d for d in range(storage.sparse_dim) if d not in ctx.dim]
        values = values_at(grad, storage.indices[kept]) if kept else grad.expand(storage.values.shape)
        return (_sparse(values, storage.indices, x.shape),)


def sum_dims(input, dim):
    """torch.sparse.sum(input, dim) for dims among the sparse dims (``dim`` a tuple of wrapped dims)."""
    if any(d >= input._data.sparse_dim for d in dim):
        raise NotImplementedError("ndgrad sums a sparse tensor over its sparse dims only")
    return SparseSumDim.apply(input, dim=tuple(dim))


def _is_sparse(x):
    return isinstance(getattr(x, "_data", None), SparseCOO)


def _number(x):
    """A Python number, or a 0-d tensor that needs no gradient, as the number a value-wise kernel takes."""
    if isinstance(x, (int, float, complex)):
        return x
    if hasattr(x, "_data") and x.ndim == 0 and not x.requires_grad and not _is_sparse(x):
        return x.item()
    return None


def _mm(input, mat2):
    for operand in (input, mat2):
        if _is_sparse(operand) and operand._data.sparse_dim != 2:
            raise NotImplementedError("ndgrad multiplies sparse matrices with 2 sparse dims only")
    if _is_sparse(input) and _is_sparse(mat2):
        raise NotImplementedError("ndgrad does not multiply two sparse matrices")
    return SparseDenseMm.apply(input, mat2) if _is_sparse(input) else DenseSparseMm.apply(input, mat2)


def _mv(input, vec):
    if _is_sparse(vec) or input._data.sparse_dim != 2:
        raise NotImplementedError("ndgrad multiplies a sparse matrix with 2 sparse dims by a dense vector only")
    return SparseDenseMv.apply(input, vec)


def _added(name, sparse_op, dense_op):
    """add or sub: sparse and sparse give sparse, dense and sparse dense; sparse and dense PyTorch refuses."""

    def kernel(input, other, alpha=1):
        if not _is_sparse(input):
            return dense_op.apply(input, Densify.apply(other), alpha=alpha)
        if not _is_sparse(other):
            raise RuntimeError(f"{name}(sparse, dense) is not supported. Use {name}(dense, sparse) instead.")
        if input.shape != other.shape:
            raise RuntimeError(f"{name}: expected 'self' and 'other' to have same size, but self has size "
                               f"{list(input.shape)} while other has size {list(other.shape)} (FYI: {name} for "
                               "sparse tensors doesn't support broadcasting)")
        return sparse_op.apply(input, other, alpha=alpha)

    return kernel


def _valuewise(name, sparse_op, parameter):
    """mul or div of a sparse tensor by a number; other operands are not supported by ndgrad yet."""

    def kernel(input, other):
        number = _number(other)
        if not _is_sparse(input) or number is None:
            raise NotImplementedError(f"ndgrad's sparse {name} takes a sparse tensor and a number only")
        return sparse_op.apply(input, **{parameter: number})

    return kernel


def _sum_dim(input, dim, keepdim, dtype):
    if keepdim or dtype is not None:
        raise NotImplementedError("ndgrad's sparse sum takes no keepdim or dtype")
    return sum_dims(input, dim)


def _to_copy(input, dtype, device, input_device):
    if device != input_device:
        raise NotImplementedError("ndgrad keeps sparse tensors on the cpu")
    return SparseToCopy.apply(input, dtype=dtype)


def _t(input):
    if input._data.sparse_dim != input.ndim:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                           f"{input._data.sparse_dim} sparse and {input.ndim - input._data.sparse_dim} dense "
                           "dimensions")
    return SparseT.apply(input, dim0=0, dim1=1) if input.ndim == 2 else input


def _refusal(error):
    def kernel(*inputs, **params):
        raise error

    return kernel


_KERNELS = {
    linalg.Mm: _mm,
    linalg.Mv: _mv,
    arithmetic.Add: _added("add", SparseAdd, arithmetic.Add),
    arithmetic.Sub: _added("sub", SparseSub, arithmetic.Sub),
    arithmetic.Mul: _valuewise("mul", SparseScale, "factor"),
    arithmetic.Div: _valuewise("div", SparseDivide, "divisor"),
    arithmetic.Neg: SparseNeg.apply,
    shape.Clone: SparseClone.apply,
    shape.ToCopy: _to_copy,
    shape.T: _t,
    shape.Transpose: lambda input, dim0, dim1: SparseTranspose.apply(input, dim0=dim0, dim1=dim1),
    reduction.Sum: lambda input, dtype=None: SparseSum.apply(input if dtype is None else input.to(dtype)),
    reduction.SumDim: _sum_dim,
    shape.ReshapeAlias: _refusal(RuntimeError("reshape is not implemented for sparse tensors")),
    shape.Expand: _refusal(RuntimeError("expand is unsupported for Sparse tensors")),
}


def not_implemented(name, backend="SparseCPU"):
    """PyTorch's error for an op with no kernel for this kind of tensor (its list of the backends that have one
    left out)."""
    return NotImplementedError(
        f"Could not run 'aten::{name}' with arguments from the '{backend}' backend. This could be because the "
        "operator doesn't exist for this backend, or was omitted during the selective/custom build process (if "
        "using custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
        "https://fburl.com/ptmfixes for possible resolutions."
    )


def run_sparse(op, inputs, params):
    """Op.apply for inputs among which a sparse tensor is: the op's sparse kernel, or PyTorch's error."""
    kernel = _KERNELS.get(op)
    if kernel is None:
        raise not_implemented(op.name or op.__name__.lower())
    return kernel(*inputs, **params)
