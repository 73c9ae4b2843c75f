"""Gradients through sparse COO tensors against torch (float64): products with a sparse operand (a sparse leaf's
gradient sparse or dense as torch makes it), the constructor's values, conversions and sums; gradcheck against
finite differences; and a two-layer GCN as pytorch/examples builds it, forward and backward in both libraries."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")  # torch's, on every construction
LIBRARIES = (ndgrad, torch)
RNG = np.random.default_rng(7)
INDICES = np.array([[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]])  # a duplicate at (0, 2): uncoalesced
VALUES = RNG.standard_normal(5)
DENSE = RNG.standard_normal((3, 4))


def leaves(lib):
    """A sparse leaf (3x3), a dense leaf (3x4) and a values leaf, all requiring grad, in float64."""
    sparse = lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3), requires_grad=True)
    return sparse, lib.tensor(DENSE, requires_grad=True), lib.tensor(VALUES, requires_grad=True)


def assert_same_grad(ours, theirs, name):
    assert ours.is_sparse == theirs.is_sparse, f"{name}: layout"
    if theirs.is_sparse:
        assert ours._indices().tolist() == theirs._indices().tolist(), f"{name}: indices"
        ours, theirs = ours._values(), theirs._values()
    assert_close(ours, theirs, msg=name)


def run(lib, forward):
    """forward(lib, sparse, dense, values) -> a dense result; backward from a weighted sum; the leaves' grads."""
    sparse, dense, values = leaves(lib)
    out = forward(lib, sparse, dense, values)
    weights = lib.tensor(np.linspace(-1, 1, int(np.prod(out.shape))).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    return out, {"sparse": sparse.grad, "dense": dense.grad, "values": values.grad}


def built(lib, values):
    return lib.sparse_coo_tensor(lib.tensor(INDICES), values, (3, 3))


@pytest.mark.parametrize("forward", [
    lambda lib, s, d, v: lib.sparse.mm(s, d),
    lambda lib, s, d, v: lib.sparse.mm(s.coalesce(), d),
    lambda lib, s, d, v: lib.sparse.addmm(d * 3, s, d, beta=0.5, alpha=2.0),
    lambda lib, s, d, v: lib.mm(s, d),
    lambda lib, s, d, v: lib.spmm(s, d),
    lambda lib, s, d, v: s @ d,
    lambda lib, s, d, v: lib.matmul(s, d[:, 0]),
    lambda lib, s, d, v: d.t() @ s,
    lambda lib, s, d, v: lib.sparse.mm(d.t(), s),
    lambda lib, s, d, v: lib.sparse.mm(built(lib, v), d),
    lambda lib, s, d, v: lib.mm(built(lib, v), d),
    lambda lib, s, d, v: built(lib, v).to_dense() * 2,
    lambda lib, s, d, v: lib.sparse.mm(built(lib, v * 3).coalesce().t(), d),
    lambda lib, s, d, v: built(lib, v).coalesce().values(),
    lambda lib, s, d, v: s.to_dense(),
    lambda lib, s, d, v: (-s * 2 / 4 + s).to_dense(),
    lambda lib, s, d, v: (s.t() - s).to_dense(),
    lambda lib, s, d, v: s.sum(),
    lambda lib, s, d, v: lib.sparse.sum(s, 1).to_dense(),
    lambda lib, s, d, v: lib.sparse.sum(s, (0, 1)),
    lambda lib, s, d, v: lib.sparse.mm(d[:, :3].to_sparse(), d),
    lambda lib, s, d, v: lib.sparse.mm(s.float(), d.float()),
    lambda lib, s, d, v: d[:, :3] + s,
])
def test_gradients_match_torch(forward):
    (ours, our_grads), (theirs, their_grads) = (run(lib, forward) for lib in LIBRARIES)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    assert_close(ours.detach(), theirs.detach())
    for name, expected in their_grads.items():
        if expected is None:
            assert our_grads[name] is None, name
        else:
            assert_same_grad(our_grads[name], expected, name)


@pytest.mark.parametrize("build", [
    lambda lib, v: lib.sparse_coo_tensor(lib.tensor(INDICES), v, (3, 3)),
    lambda lib, v: lib.sparse_coo_tensor(lib.tensor(INDICES), v, (3, 3)).coalesce(),
    lambda lib, v: lib.sparse_coo_tensor(lib.tensor(INDICES), v, (3, 3)).to_dense().to_sparse(),
    lambda lib, v: lib.sparse_coo_tensor(lib.tensor(INDICES), v, (3, 3)).t() * 2,
])
def test_grad_fn_names_match_torch(build):
    ours, theirs = (build(lib, lib.tensor(VALUES, requires_grad=True)) for lib in LIBRARIES)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


@pytest.mark.parametrize("product", [ndgrad.sparse.mm, ndgrad.mm, lambda s, d: d.t() @ s.t()])
def test_sparse_products_pass_gradcheck_in_values_and_dense_operand(product):
    def function(values, dense):
        return product(ndgrad.sparse_coo_tensor(ndgrad.tensor(INDICES), values, (3, 3)), dense)

    inputs = (ndgrad.tensor(VALUES, requires_grad=True), ndgrad.tensor(DENSE, requires_grad=True))
    assert ndgrad.autograd.gradcheck(function, inputs)


# ---- a two-layer GCN as pytorch/examples' gcn/main.py builds and runs it ------------------------------------------
NODES, FEATURES, HIDDEN, CLASSES = 12, 6, 5, 3
EDGES = RNG.integers(0, NODES, (2, 30)).astype(np.int32)  # as the example: an int32 edge list, from NumPy


def normalized_adjacency(lib):
    """D^-1/2 (A + I) D^-1/2, with the example's own calls (an int64 sparse A added to a dense eye, sparse
    diagonals multiplied on both sides)."""
    adjacency = lib.sparse_coo_tensor(EDGES, lib.ones(EDGES.shape[1]), (NODES, NODES), dtype=lib.int64)
    adjacency = lib.eye(NODES) + adjacency
    degree = lib.sqrt(1 / lib.sum(adjacency, dim=1))
    degree[degree == float("inf")] = 0
    degree = lib.diag(degree).to_sparse()
    return (degree @ adjacency @ degree).to_sparse()


def gcn(lib):
    """Outputs, loss and parameter gradients of a GCN forward and backward, weights drawn by NumPy."""
    weights = np.random.default_rng(3)
    kernel1 = lib.nn.Parameter(lib.tensor(weights.standard_normal((FEATURES, HIDDEN)), dtype=lib.float32))
    bias1 = lib.nn.Parameter(lib.tensor(weights.standard_normal(HIDDEN), dtype=lib.float32))
    kernel2 = lib.nn.Parameter(lib.tensor(weights.standard_normal((HIDDEN, CLASSES)), dtype=lib.float32))
    features = lib.tensor((weights.random((NODES, FEATURES)) < 0.4).astype(np.float32))
    scale = 1 / lib.sum(features, dim=1)
    scale[scale == float("inf")] = 0
    features = (lib.diag(scale).to_sparse() @ features).to_sparse().to("cpu")
    adjacency = normalized_adjacency(lib).to("cpu")
    hidden = lib.nn.functional.relu(lib.spmm(adjacency, lib.mm(features, kernel1)) + bias1)
    output = lib.nn.functional.log_softmax(lib.spmm(adjacency, lib.mm(hidden, kernel2)), dim=1)
    labels = lib.tensor(weights.integers(0, CLASSES, NODES))
    loss = lib.nn.NLLLoss()(output[:8], labels[:8])
    loss.backward()
    return [adjacency.to_dense(), output, loss] + [p.grad for p in (kernel1, bias1, kernel2)]


def test_gcn_forward_and_backward_match_torch():
    for ours, theirs in zip(gcn(ndgrad), gcn(torch)):
        assert_close(ours.detach(), theirs.detach())
