"""Sparse COO tensors against torch: construction (and its errors), what a sparse tensor says about itself, its
printed form, coalesce, conversion to and from dense, and torch's errors for dense ops without a sparse kernel."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")  # torch's, on every construction
LIBRARIES = (ndgrad, torch)
INDICES = [[0, 1, 1, 0], [2, 0, 2, 2]]  # a duplicate at (0, 2): uncoalesced
VALUES = [3.0, 4.0, 5.0, 1.0]


def both(build):
    """``build(lib)`` with ndgrad and with torch."""
    return build(ndgrad), build(torch)


def sparse(lib, indices=INDICES, values=VALUES, size=(2, 3), **kwargs):
    return lib.sparse_coo_tensor(lib.tensor(indices), lib.tensor(values), size, **kwargs)


def as_torch_text(text):
    return text.replace("ndgrad.", "torch.")


def assert_same_sparse(ours, theirs):
    """Equal as sparse tensors: layout, shape, dtype, nnz, coalesced flag, indices and values as stored."""
    assert ours.layout is ndgrad.sparse_coo and theirs.layout is torch.sparse_coo
    assert tuple(ours.shape) == tuple(theirs.shape) and as_torch_text(str(ours.dtype)) == str(theirs.dtype)
    assert (ours._nnz(), ours.is_coalesced(), ours.sparse_dim(), ours.dense_dim()) == (
        theirs._nnz(), theirs.is_coalesced(), theirs.sparse_dim(), theirs.dense_dim())
    assert ours._indices().tolist() == theirs._indices().tolist()
    assert_close(ours._values().detach(), theirs._values().detach())


def raised(build):
    """The (class name, message) ``build(lib)`` raises with each library."""
    found = []
    for lib in LIBRARIES:
        with pytest.raises(Exception) as info:
            build(lib)
        found.append((type(info.value).__name__, as_torch_text(str(info.value))))
    return found


@pytest.mark.parametrize("build", [
    lambda lib: sparse(lib),
    lambda lib: sparse(lib).coalesce(),
    lambda lib: sparse(lib, dtype=lib.float64),
    lambda lib: sparse(lib, values=[1, 2, 3, 4]),
    lambda lib: sparse(lib, values=[1, 2, 3, 4], dtype=lib.int32),
    lambda lib: sparse(lib, values=[[1.0, 2.0]] * 4, size=(2, 3, 2)),
    lambda lib: sparse(lib, requires_grad=True),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES, requires_grad=True), (2, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0), (2, 2)),
    lambda lib: lib.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(),
    lambda lib: lib.zeros(2, 2, 3).to_sparse(1),
    lambda lib: lib.tensor(3.0).to_sparse(),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES)),
    lambda lib: lib.sparse_coo_tensor(INDICES, VALUES, (2, 3)),  # lists, as torch takes them
    lambda lib: lib.sparse_coo_tensor(np.array(INDICES, np.int32).T.T, lib.ones(4), (3, 3), dtype=lib.int64),
])
def test_repr_and_parts_match_torch(build):
    ours, theirs = both(build)
    assert as_torch_text(repr(ours)) == repr(theirs)
    assert_same_sparse(ours, theirs)


def test_metadata_matches_torch():
    ours, theirs = both(sparse)
    assert ours.is_sparse and theirs.is_sparse and not ndgrad.ones(1).is_sparse
    assert type(ours) is ndgrad.Tensor and repr(ours.layout) == "ndgrad.sparse_coo"
    assert ndgrad.ones(1).layout is ndgrad.strided
    for name in ("numel", "dim", "is_contiguous"):
        assert getattr(ours, name)() == getattr(theirs, name)()
    assert (ours.size(1), len(ours), str(ours.device), ours.requires_grad) == (
        theirs.size(1), len(theirs), str(theirs.device), theirs.requires_grad)


def test_coalesce_sums_duplicates_as_torch():
    ours, theirs = both(lambda lib: sparse(lib).coalesce())
    assert_same_sparse(ours, theirs)
    assert ours.indices().tolist() == theirs.indices().tolist()
    assert_close(ours.values(), theirs.values())


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_coalesce_and_to_dense_match_torch_for_drawn_tensors(data):
    sparse_dim = data.draw(st.integers(1, 3), label="sparse_dim")
    dense_shape = tuple(data.draw(st.lists(st.integers(1, 3), max_size=1), label="dense"))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=sparse_dim, max_size=sparse_dim), label="shape"))
    nnz = data.draw(st.integers(0, 12), label="nnz")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    indices = np.stack([rng.integers(0, size, nnz) for size in shape]) if nnz else np.zeros((sparse_dim, 0), int)
    values = rng.standard_normal((nnz, *dense_shape))
    ours, theirs = (lib.sparse_coo_tensor(lib.tensor(indices), lib.tensor(values), shape + dense_shape)
                    for lib in LIBRARIES)
    assert_same_sparse(ours.coalesce(), theirs.coalesce())
    assert_close(ours.to_dense(), theirs.to_dense())
    dense = theirs.to_dense()
    for sparse_dim in range(1, dense.ndim + 1):
        assert_same_sparse(ndgrad.tensor(dense.numpy()).to_sparse(sparse_dim), dense.to_sparse(sparse_dim))


@pytest.mark.parametrize("build", [
    lambda lib: sparse(lib) * 2,
    lambda lib: 2 * sparse(lib),
    lambda lib: sparse(lib) / 2,
    lambda lib: -sparse(lib),
    lambda lib: sparse(lib) + sparse(lib, values=[1.0, 1.0, 1.0, 1.0]),
    lambda lib: sparse(lib, [[0, 1, 0]], [1.0, 2.0, 3.0], (3,)) + sparse(lib, [[2, 1]], [5.0, 6.0], (3,)),
    lambda lib: sparse(lib, [[2, 1]], [5.0, 6.0], (3,)) - sparse(lib, [[0, 1, 0]], [1.0, 2.0, 3.0], (3,)),
    lambda lib: lib.add(sparse(lib, [[0, 1, 0]], [1.0, 2.0, 3.0], (3,)), sparse(lib, [[1, 2]], [6.0, 5.0], (3,)),
                        alpha=2),
    lambda lib: sparse(lib).coalesce() + sparse(lib, [[0], [1]], [7.0]),
    lambda lib: sparse(lib).coalesce() - sparse(lib, [[0], [1]], [7.0]),
    lambda lib: sparse(lib).t(),
    lambda lib: sparse(lib).coalesce().t(),
    lambda lib: sparse(lib).transpose(0, 1),
    lambda lib: sparse(lib).double(),
    lambda lib: sparse(lib).clone(),
    lambda lib: sparse(lib).to("cpu"),
    lambda lib: sparse(lib).sum(1),
    lambda lib: lib.sparse.sum(sparse(lib), 0),
    lambda lib: lib.sparse.sum(sparse(lib, values=[[1.0, 2.0]] * 4, size=(2, 3, 2)), 1),
])
def test_sparse_results_match_torch(build):
    ours, theirs = both(build)
    assert_same_sparse(ours, theirs)
    assert as_torch_text(repr(ours)) == repr(theirs)


@pytest.mark.parametrize("build", [
    lambda lib: sparse(lib).to_dense(),
    lambda lib: sparse(lib).sum(),
    lambda lib: lib.sparse.sum(sparse(lib)),
    lambda lib: lib.sparse.sum(sparse(lib), (0, 1)),
    lambda lib: lib.eye(3)[:2] + sparse(lib, values=[1, 1, 1, 1]),
    lambda lib: lib.ones(2, 3) - sparse(lib),
    lambda lib: lib.ones(2, 3).to_dense(),
])
def test_dense_results_match_torch(build):
    ours, theirs = both(build)
    assert not ours.is_sparse
    assert_close(ours, theirs)


@pytest.mark.parametrize("build", [
    lambda lib: sparse(lib, size=(2,)),
    lambda lib: sparse(lib, values=VALUES[:2]),
    lambda lib: sparse(lib, values=[[1.0, 2.0]] * 4, size=(2, 3, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(0), lib.tensor(VALUES)),
    lambda lib: lib.sparse_coo_tensor(lib.zeros(2, 3, 1, dtype=lib.int64), lib.tensor([1.0, 2, 3]), (2, 3)),
    lambda lib: sparse(lib, size=(2, 2), check_invariants=True),
    lambda lib: sparse(lib, size=(1, 3), check_invariants=True),
    lambda lib: sparse(lib, [[0, -1, 0, 0], [0, 0, 0, 0]], check_invariants=True),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, -1, 0, 0], [0, 0, 0, 0]]), lib.tensor(VALUES)),
    lambda lib: sparse(lib, values=[1, 2, 3, 4], requires_grad=True),
    lambda lib: sparse(lib).values(),
    lambda lib: sparse(lib).indices(),
    lambda lib: lib.ones(2).indices(),
    lambda lib: lib.ones(2).values(),
    lambda lib: lib.ones(2).coalesce(),
    lambda lib: lib.ones(2).is_coalesced(),
    lambda lib: sparse(lib).reshape(6),
    lambda lib: sparse(lib).expand(2, 2, 3),
    lambda lib: sparse(lib).numpy(),
    lambda lib: sparse(lib) + lib.ones(2, 3),
    lambda lib: sparse(lib).t().to_sparse(1),
    lambda lib: lib.ones(2, 2).to_sparse(3),
    lambda lib: lib.ones(2, 2).to_sparse(0),
])
def test_errors_match_torch(build):
    ours, theirs = raised(build)
    assert ours == theirs


@pytest.mark.parametrize("build", [
    lambda lib: sparse(lib).view(6),
    lambda lib: sparse(lib).exp(),
    lambda lib: sparse(lib).max(),
    lambda lib: lib.ones(2)._nnz(),
])
def test_missing_kernels_raise_torchs_not_implemented_error(build):
    """torch's message goes on to list every backend that has a kernel: ndgrad gives its first sentences."""
    (our_class, ours), (their_class, theirs) = raised(build)
    assert our_class == their_class == "NotImplementedError"
    assert theirs.startswith(ours) and ours.endswith("for possible resolutions.")
