"""ndgrad.sparse, torch.sparse's mirror: products and sums of sparse COO tensors (the ops are in ndgrad.ops.sparse
and ndgrad.ops._sparse_kernels)."""

from ndgrad._argument_parser import parses
from ndgrad.ops._sparse_kernels import SparseSum, sum_dims
from ndgrad.ops.linalg import mm as _dense_mm
from ndgrad.ops.shape import wrap_dim
from ndgrad.ops.sparse import SparseAddmm

__all__ = ["mm", "addmm", "sum"]


def _check_sparse_dense(sparse, dense):
    if sparse.ndim != 2 or sparse.sparse_dim() != 2:
        raise NotImplementedError("ndgrad multiplies sparse matrices with 2 sparse dims only")
    if dense.ndim != 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(dense.ndim, 1)}, "
                         f"{max(dense.ndim, 1) - 1}], but got {1 - 2})")
    if dense.shape[0] != sparse.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {sparse.shape[1]}, got "
                           f"{dense.shape[0]}")
    if sparse.dtype is not dense.dtype:
        raise RuntimeError(f"expected scalar type {sparse.dtype.title} but found {dense.dtype.title}")


@parses("_sparse_addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)")
def addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * input + alpha * (mat1 @ mat2) for a sparse mat1 and dense input and mat2 (see torch.sparse.addmm)."""
    _check_sparse_dense(mat1, mat2)
    return SparseAddmm.apply(input, mat1, mat2, beta=beta, alpha=alpha)


@parses("_sparse_mm(Tensor sparse, Tensor dense)", "_sparse_mm(Tensor sparse, Tensor dense, str reduce)")
def mm(sparse, dense, reduce=None):
    """sparse @ dense with the first sparse (its gradient is sparse, on its pattern) or the second (as torch.mm)
    (see torch.sparse.mm). ``reduce`` is for torch's compressed (CSR) layout, which ndgrad does not have."""
    if reduce is not None:
        raise NotImplementedError("ndgrad.sparse.mm: reduce= needs a sparse CSR tensor, a layout ndgrad does not have")
    mat1, mat2 = sparse, dense
    if not mat1.is_sparse:  # as PyTorch: the transpose of mat2^T @ mat1^T, so a sparse mat2's gradient is sparse
        return mm(mat2.t(), mat1.t()).transpose(0, 1) if mat2.is_sparse else _dense_mm(mat1, mat2)
    _check_sparse_dense(mat1, mat2)
    zero = mat2.new_zeros(())
    return SparseAddmm.apply(zero, mat1, mat2, beta=0, alpha=1)


def sum(input, dim=None, dtype=None):
    """The sum of a sparse tensor's elements, or over ``dim``: sparse while sparse dims remain (see
    torch.sparse.sum)."""
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return SparseSum.apply(input)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return sum_dims(input, tuple(sorted(wrap_dim(d, input.ndim) for d in dims)))
