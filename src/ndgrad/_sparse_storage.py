"""SparseCOO: what a sparse COO tensor holds in place of a dense array (indices, values, size, coalesced flag), and
the NumPy algorithms on it (coalesce, to and from dense). It answers the few array questions the engine asks."""

import numpy as np

__all__ = ["SparseCOO"]


class _NotContiguous:
    """The ``flags`` of a sparse storage: PyTorch's sparse tensors are never contiguous, nor writable as arrays."""

    c_contiguous = f_contiguous = writeable = False


class SparseCOO:
    """Indices (int64, sparse_dim x nnz) and values (nnz x dense dims) of a tensor of ``shape``.

    ``coalesced`` says the indices are sorted and unique (see torch.Tensor.is_coalesced). NumPy refuses to compute
    with it (``__array_ufunc__ = None``), so a dense op given one fails at once and Op.apply turns to the sparse
    kernels (see ndgrad.ops._sparse_kernels).
    """

    __slots__ = ("indices", "values", "shape", "coalesced")
    __array_ufunc__ = None
    base = None  # the engine asks whether a gradient views another array (AccumulateGrad)
    strides = None
    flags = _NotContiguous()

    def __init__(self, indices, values, shape, coalesced=False):
        self.indices, self.values, self.shape = indices, values, tuple(shape)
        self.coalesced = coalesced or indices.shape[1] <= 1  # PyTorch: at most one element is always coalesced

    def __array_function__(self, func, types, args, kwargs):
        return NotImplemented  # NumPy raises TypeError, as for ufuncs

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def itemsize(self):
        return self.values.itemsize

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def sparse_dim(self):
        return self.indices.shape[0]

    @property
    def nnz(self):
        return self.indices.shape[1]

    def copy(self):
        return SparseCOO(self.indices.copy(), self.values.copy(), self.shape, self.coalesced)

    def astype(self, dtype, copy=True):
        return SparseCOO(self.indices, self.values.astype(dtype, copy=copy), self.shape, self.coalesced)

    def with_values(self, values):
        """The same pattern with other values (of the same count)."""
        return SparseCOO(self.indices, values, self.shape, self.coalesced)

    def keys(self):
        """Each element's row-major position over the sparse dims: equal keys are duplicates, sorted keys are
        PyTorch's coalesced order. (No range check: PyTorch checks invariants only when asked.)"""
        key = np.zeros(self.nnz, np.int64)
        for dim in range(self.sparse_dim):
            key = key * self.shape[dim] + self.indices[dim]
        return key

    def coalesce(self):
        """Sorted, unique indices, the values of duplicates summed (see torch.Tensor.coalesce)."""
        if self.coalesced:
            return self
        key = self.keys()
        order = np.argsort(key, kind="stable")
        key = key[order]
        starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
        values = np.add.reduceat(self.values[order], starts, axis=0)
        return SparseCOO(self.indices[:, order[starts]], values.astype(self.dtype, copy=False), self.shape, True)

    def to_dense(self):
        coalesced = self.coalesce()
        dense = np.zeros(self.shape, self.dtype)
        dense[tuple(coalesced.indices)] = coalesced.values
        return dense

    @staticmethod
    def from_dense(array, sparse_dim):
        """The elements (for dense dims: the slices) of ``array`` that are not all zero, in coalesced order."""
        if sparse_dim == 0:
            return SparseCOO(np.zeros((0, 1), np.int64), array[None].copy(), array.shape, True)
        nonzero = array.reshape(array.shape[:sparse_dim] + (-1,)) != 0
        indices = np.array(np.nonzero(nonzero.any(axis=-1)), dtype=np.int64).reshape(sparse_dim, -1)
        return SparseCOO(indices, array[tuple(indices)], array.shape, True)

    def transpose(self, dim0, dim1):
        order = list(range(self.sparse_dim))
        order[dim0], order[dim1] = dim1, dim0
        shape = list(self.shape)
        shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
        return SparseCOO(self.indices[order], self.values, shape)

    def __add__(self, other):
        """Sum with another gradient: how the engine adds the gradients of a tensor used twice."""
        if isinstance(other, SparseCOO):
            return add(self, other, 1)
        return self.to_dense() + other

    __radd__ = __add__


def add(x, y, alpha):
    """x + alpha * y of two sparse storages of one shape, as PyTorch's CPU kernel adds them: one merge pass over
    both, as if both were sorted, that sums the elements at equal indices; the result is coalesced when both are."""
    scaled = alpha * y.values
    dtype = np.result_type(x.values, scaled)
    if x.coalesced and y.coalesced:  # the merge of two sorted, unique lists: their union, summed where they meet
        indices = np.concatenate((x.indices, y.indices), axis=1)
        return SparseCOO(indices, np.concatenate((x.values, scaled)).astype(dtype), x.shape).coalesce()
    from_x, from_y = _merged(x.keys().tolist(), y.keys().tolist())
    indices = np.where(from_x >= 0, x.indices[:, from_x], y.indices[:, from_y])
    values = np.zeros((len(from_x),) + x.values.shape[1:], dtype)
    values[from_x >= 0] += x.values[from_x[from_x >= 0]]
    values[from_y >= 0] += scaled[from_y[from_y >= 0]]
    return SparseCOO(indices, values, x.shape)


def _merged(x_keys, y_keys):
    """Which element of x and of y (-1: none) each element of the merge takes, stepping through both lists once."""
    i = j = 0
    pairs = []
    while i < len(x_keys) or j < len(y_keys):
        if j == len(y_keys) or (i < len(x_keys) and x_keys[i] < y_keys[j]):
            pairs.append((i, -1))
            i += 1
        elif i == len(x_keys) or y_keys[j] < x_keys[i]:
            pairs.append((-1, j))
            j += 1
        else:
            pairs.append((i, j))
            i, j = i + 1, j + 1
    return np.array(pairs, np.int64).reshape(-1, 2).T
