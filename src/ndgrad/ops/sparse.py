"""Sparse COO tensors: the primitives that make, convert and multiply them (forward on SparseCOO storages, vjp
with ndgrad ops), ``sparse_coo_tensor``, and the Tensor methods PyTorch gives every tensor for them."""

import numpy as np

from ndgrad._argument_parser import parses, parses_method
from ndgrad._sparse_storage import SparseCOO
from ndgrad.ops._op import Op
from ndgrad.ops.gather_scatter import index_select
from ndgrad.ops.shape import wrap_dim

__all__ = ["sparse_coo_tensor", "spmm"]


class SparseOp(Op):
    """Base of the ops whose forward takes SparseCOO storages (every other op given one runs its sparse kernel)."""

    takes_sparse = True


class SparseCooTensor(SparseOp):
    """values placed at indices (see torch.sparse_coo_tensor); the gradient of the values gathers at the indices."""

    node_name = "SparseCooTensorWithDimsAndTensorsBackward0"

    @staticmethod
    def forward(xp, values, indices, shape, coalesced):
        return SparseCOO(indices, values, shape, coalesced)

    @staticmethod
    def vjp(ctx, grad):
        return (values_at(grad, ctx.indices),)


class ValuesAt(SparseOp):
    """The values of a sparse tensor at given indices (zero where it has none): PyTorch's sparse_mask, as values."""

    @staticmethod
    def forward(xp, x, indices):
        source = x.coalesce()
        keys, wanted = source.keys(), _keys(indices, x.shape)
        position = np.minimum(np.searchsorted(keys, wanted), max(source.nnz - 1, 0))
        found = keys[position] == wanted if source.nnz else np.zeros(len(wanted), bool)
        result = np.zeros((len(wanted),) + source.values.shape[1:], source.dtype)
        result[found] = source.values[position[found]]
        return result

    @staticmethod
    def vjp(ctx, grad):
        return (_sparse(grad, ctx.indices, ctx.input_shapes[0]),)


class ToDense(SparseOp):
    """Tensor.to_dense of a sparse tensor; the gradient is sparse, on the tensor's (coalesced) pattern."""

    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        return x.to_dense()

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (_on_pattern(grad, x),)


class ToSparse(Op):
    """Tensor.to_sparse(sparse_dim): the elements that are not zero; the gradient is made dense again."""

    @staticmethod
    def forward(xp, x, sparse_dim):
        return SparseCOO.from_dense(x, sparse_dim)

    @staticmethod
    def vjp(ctx, grad):
        return (to_dense(grad),)


class ToSparseDefault(ToSparse):
    """Tensor.to_sparse() with no sparse_dim, which PyTorch records as another overload."""

    node_name = "ToSparseBackward1"


class Coalesce(SparseOp):
    """Tensor.coalesce: duplicates summed; the gradient passes as it is (see derivatives.yaml)."""

    @staticmethod
    def forward(xp, x):
        return x.coalesce()

    @staticmethod
    def vjp(ctx, grad):
        return (grad,)


class Values(SparseOp):
    """Tensor.values of a coalesced tensor; the gradient is a sparse tensor of the same indices."""

    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        return x.values

    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (_sparse(grad, x._data.indices, x.shape),)


class SparseAddmm(SparseOp):
    """beta * input + alpha * (sparse @ dense), torch.sparse.mm's kernel: the sparse operand's gradient is sparse,
    on its own pattern (the product of the gradient and the dense operand sampled there)."""

    saves = ("sparse", "dense")  # both, always: the sparse operand's gradient needs its pattern

    @staticmethod
    def forward(xp, input, sparse, dense, beta, alpha):
        product = sparse_dense_product(sparse, dense)
        return alpha * product + beta * input if beta else alpha * product

    @staticmethod
    def vjp(ctx, grad):
        sparse, dense = ctx.saved_tensors
        need_input, need_sparse, need_dense = ctx.needs_input_grad
        grad_input = grad * ctx.beta if need_input else None
        grad_sparse = None
        if need_sparse:
            indices = sparse._data.coalesce().indices
            rows, columns = (_long(index) for index in indices)
            sampled = (index_select(grad, 0, rows) * index_select(dense, 0, columns)).sum(1)
            grad_sparse = _sparse(sampled * ctx.alpha, indices, sparse.shape, sparse._data.coalesced)
        grad_dense = sparse_dense_mm(transpose(sparse, 0, 1), grad) * ctx.alpha if need_dense else None
        return grad_input, grad_sparse, grad_dense


class SparseDenseMm(SparseOp):
    """torch.mm(sparse, dense), recorded as PyTorch records it (MmBackward0): the sparse operand's gradient is
    dense, as a dense mm gives it."""

    node_name = "MmBackward0"
    saves = ("sparse", "dense")
    saved_for = {"sparse": "dense", "dense": "sparse"}

    @staticmethod
    def forward(xp, sparse, dense):
        return sparse_dense_product(sparse, dense)

    @staticmethod
    def vjp(ctx, grad):
        sparse, dense = ctx.saved_tensors
        need_sparse, need_dense = ctx.needs_input_grad
        return (grad.mm(dense.t()) if need_sparse else None,
                sparse_dense_mm(transpose(sparse, 0, 1), grad) if need_dense else None)


class DenseSparseMm(SparseOp):
    """torch.mm(dense, sparse), as (sparse^T @ dense^T)^T; recorded as MmBackward0."""

    node_name = "MmBackward0"
    saves = ("dense", "sparse")
    saved_for = {"dense": "sparse", "sparse": "dense"}

    @staticmethod
    def forward(xp, dense, sparse):
        return sparse_dense_product(sparse.transpose(0, 1), dense.T).T

    @staticmethod
    def vjp(ctx, grad):
        dense, sparse = ctx.saved_tensors
        need_dense, need_sparse = ctx.needs_input_grad
        return (dense_sparse_mm(grad, transpose(sparse, 0, 1)) if need_dense else None,
                dense.t().mm(grad) if need_sparse else None)


class SparseDenseMv(SparseOp):
    """torch.mv(sparse, vec), recorded as MvBackward0; the sparse operand's gradient is dense."""

    node_name = "MvBackward0"
    saves = ("sparse", "vec")
    saved_for = {"sparse": "vec", "vec": "sparse"}

    @staticmethod
    def forward(xp, sparse, vec):
        return sparse_dense_product(sparse, vec[:, None])[:, 0]

    @staticmethod
    def vjp(ctx, grad):
        sparse, vec = ctx.saved_tensors
        need_sparse, need_vec = ctx.needs_input_grad
        return (grad.unsqueeze(1) * vec if need_sparse else None,
                SparseDenseMv.apply(transpose(sparse, 0, 1), grad) if need_vec else None)


def sparse_dense_product(sparse, dense):
    """sparse @ dense on arrays: each element's row of ``dense``, scaled, summed into its row of the result; the
    rows are summed by sorting the elements by row once (np.add.reduceat), not element by element."""
    rows, columns = sparse.indices
    result = np.zeros((sparse.shape[0], dense.shape[1]), np.result_type(sparse.dtype, dense.dtype))
    if not sparse.nnz:
        return result
    if not sparse.coalesced:
        order = np.argsort(rows, kind="stable")
        rows, columns, values = rows[order], columns[order], sparse.values[order]
    else:
        values = sparse.values
    starts = np.flatnonzero(np.concatenate(([True], rows[1:] != rows[:-1])))
    result[rows[starts]] = np.add.reduceat(values[:, None] * dense[columns], starts, axis=0)
    return result


class SparseTranspose(SparseOp):
    """Tensor.transpose of two sparse dims: the index rows swapped (the result is not coalesced any more)."""

    node_name = "TransposeBackward0"

    @staticmethod
    def forward(xp, x, dim0, dim1):
        return x.transpose(dim0, dim1)

    @staticmethod
    def vjp(ctx, grad):
        return (grad.transpose(ctx.dim0, ctx.dim1),)


class SparseT(SparseTranspose):
    """Tensor.t of a sparse matrix."""

    node_name = "TBackward0"


def _keys(indices, shape):
    return SparseCOO(indices, np.empty(indices.shape[1]), shape).keys()


def _long(array):
    from ndgrad._tensor import Tensor

    return Tensor._wrap(array)


def _sparse(values, indices, shape, coalesced=False):
    """A sparse tensor of a values Tensor (differentiably) at raw indices."""
    return SparseCooTensor.apply(values, indices=indices, shape=tuple(shape), coalesced=coalesced)


def _on_pattern(grad, x):
    """``grad`` (dense or sparse) kept at the elements of sparse ``x``, as a sparse tensor (PyTorch's sparse_mask)."""
    indices = x._data.coalesce().indices
    values = values_at(grad, indices)
    return _sparse(values, indices, x.shape)


def values_at(tensor, indices):
    """The values of ``tensor`` (dense or sparse) at each column of raw ``indices``, differentiably."""
    if isinstance(tensor._data, SparseCOO):
        return ValuesAt.apply(tensor, indices=indices)
    return tensor[tuple(_long(index) for index in indices)]


# ---- what users call ---------------------------------------------------------------------------------------------
_COO_KEYWORDS = ("ScalarType dtype=None, Device? device=None, bool pin_memory=False, bool requires_grad=False, "
                 "bool check_invariants=None")


@parses(f"sparse_coo_tensor(object indices, object values, *, {_COO_KEYWORDS}, bool is_coalesced=None)",
        f"sparse_coo_tensor(object indices, object values, int[] size, *, {_COO_KEYWORDS}, bool is_coalesced=None)",
        "sparse_coo_tensor(int[] size, *, ScalarType dtype=None, Device? device=None, bool requires_grad=False, "
        "bool check_invariants=None)")
def sparse_coo_tensor(indices, values=None, size=None, *, dtype=None, device=None, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """A sparse COO tensor of ``values`` at ``indices`` (see torch.sparse_coo_tensor); given only a size (which
    arrives where ``indices`` does), an empty one of the default dtype."""
    from ndgrad._creation import as_tensor, tensor
    from ndgrad._dtype import get_default_dtype
    from ndgrad._tensor import Tensor

    if values is None:
        size = tuple(indices)
        indices = np.zeros((len(size), 0), np.int64)
        values = tensor(np.zeros(0), dtype=dtype or get_default_dtype(), device=device)

    index = (indices if isinstance(indices, Tensor) else as_tensor(indices, device=device))._data
    if not isinstance(values, Tensor):
        values = tensor(values, dtype=dtype, device=device)
    elif dtype is not None or device is not None:
        values = values.to(device=device or values.device, dtype=dtype or values.dtype)
    index = index.astype(np.int64, copy=False)
    shape = _checked_shape(index, values._data, size, check_invariants)
    result = SparseCooTensor.apply(values, indices=index, shape=shape, coalesced=bool(is_coalesced))
    if requires_grad and not result.requires_grad:
        if result.dtype.is_floating_point or result.dtype.is_complex:
            result.requires_grad_(requires_grad)
        else:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return result


def _checked_shape(indices, values, size, check_invariants):
    """The tensor's shape (inferred from the indices if not given), after PyTorch's checks of the parts."""
    if indices.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    sparse_dim, nnz = indices.shape
    dense_dim = values.ndim - 1
    if size is None:
        if nnz and indices.min(initial=0) < 0:
            dim = int(np.flatnonzero(indices.min(axis=1) < 0)[0])
            raise RuntimeError(f"found negative index {int(indices[dim].min())} for dim {dim}")
        sparse_sizes = indices.max(axis=1) + 1 if nnz else np.zeros(sparse_dim, np.int64)
        return tuple(int(s) for s in sparse_sizes) + values.shape[1:]
    shape = tuple(int(s) for s in size)
    if len(shape) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(shape)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
    if values.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {values.shape[0]}")
    if values.shape[1:] != shape[sparse_dim:]:
        raise RuntimeError(f"values has incorrect size, expected {[nnz, *shape[sparse_dim:]]}, got "
                           f"{list(values.shape)}")
    if check_invariants and nnz:
        for dim in range(sparse_dim):
            low, high = int(indices[dim].min()), int(indices[dim].max())
            if low < 0:
                raise RuntimeError(f"found negative index {low} for dim {dim}")
            if high >= shape[dim]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is {shape[dim]} but "
                                   f"found index {high}")
    return shape


def to_dense(input):
    return ToDense.apply(input) if isinstance(input._data, SparseCOO) else input


def transpose(input, dim0, dim1):
    """Transpose two dims of a sparse tensor (see torch.transpose)."""
    dim0, dim1 = wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim)
    if max(dim0, dim1) >= input._data.sparse_dim:
        raise NotImplementedError("ndgrad transposes only the sparse dims of a sparse tensor")
    return SparseTranspose.apply(input, dim0=dim0, dim1=dim1)


def sparse_dense_mm(sparse, dense):
    return SparseDenseMm.apply(sparse, dense)


def dense_sparse_mm(dense, sparse):
    return DenseSparseMm.apply(dense, sparse)


@parses("mm(Tensor input, Tensor mat2, *, Tensor out=None)",  # torch.spmm is torch.mm under another name
        "mm(Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor out=None)")
def spmm(input, mat2):
    """torch.spmm: torch.mm for a sparse first operand."""
    from ndgrad.ops.linalg import mm

    return mm(input, mat2)


def _require_sparse(tensor, name, kind="sparse coordinate tensor"):
    if not isinstance(tensor._data, SparseCOO):
        raise RuntimeError(f"{name} expected {kind} layout but got Strided")
    return tensor._data


class SparseMethods:
    """The Tensor methods for sparse tensors, which every tensor has (Tensor inherits them)."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    @parses_method("to_sparse(*, Layout? layout=None, int[2]? blocksize=None, int? dense_dim=None)",
                   "to_sparse(int sparse_dim)")
    def to_sparse(self, sparse_dim=None, *, layout=None):
        """A sparse COO copy of this tensor, with ``sparse_dim`` sparse dims (default: all); the other layouts,
        blocks and dense dims torch's keywords ask for are ones ndgrad does not have."""
        from ndgrad._metadata import sparse_coo

        if layout is not None and layout is not sparse_coo:
            raise NotImplementedError(f"to_sparse(): ndgrad has no {layout} layout, only ndgrad.sparse_coo")
        storage = self._data
        if isinstance(storage, SparseCOO):
            if sparse_dim is not None and sparse_dim != storage.sparse_dim:
                raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                                   "!=self.sparse_dim() is not supported")
            return self
        if sparse_dim is None:
            return ToSparseDefault.apply(self, sparse_dim=self.ndim)
        if not 0 <= sparse_dim <= self.ndim:
            raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{self.ndim}] range, but "
                               f"{sparse_dim} is given")
        if sparse_dim == 0 and self.ndim:
            raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
        return ToSparse.apply(self, sparse_dim=sparse_dim)

    @parses_method("to_dense(ScalarType? dtype=None, *, bool? masked_grad=None)")
    def to_dense(self, dtype=None, *, masked_grad=None):
        dense = to_dense(self)
        return dense if dtype is None else dense.to(dtype)

    def coalesce(self):
        storage = _require_sparse(self, "coalesce")
        return self if storage.coalesced else Coalesce.apply(self)

    def is_coalesced(self):
        return _require_sparse(self, "is_coalesced").coalesced

    def indices(self):
        if not _require_sparse(self, "indices").coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._indices()

    def values(self):
        if not _require_sparse(self, "values", "sparse tensor").coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return Values.apply(self)

    def _indices(self):
        from ndgrad._tensor import Tensor

        return Tensor._wrap(_require_sparse(self, "_indices").indices)

    def _values(self):
        from ndgrad._tensor import Tensor

        return Tensor._wrap(_require_sparse(self, "_values", "sparse tensor").values)

    def sparse_dim(self):
        return self._data.sparse_dim if isinstance(self._data, SparseCOO) else 0

    def dense_dim(self):
        return self._data.values.ndim - 1 if isinstance(self._data, SparseCOO) else self.ndim

    def _nnz(self):
        if not isinstance(self._data, SparseCOO):
            from ndgrad.ops._sparse_kernels import not_implemented

            raise not_implemented("_nnz", "CPU")
        return self._data.nnz
