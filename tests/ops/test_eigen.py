"""linalg.eig and linalg.eigvals against torch beyond the op table (which checks the eigenvalues): the eigenvectors,
through losses that do not depend on their phases, PyTorch's refusal of losses that do, forward mode, the named
tuple, and bad arguments."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .errors import assert_raises_like_torch

RNG = np.random.default_rng(7)
MATRICES = {
    "real": RNG.standard_normal((4, 4)),
    "complex": RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3)),
    "batched": RNG.standard_normal((2, 3, 3)),
}
WEIGHTS = RNG.standard_normal((4, 4))

LOSSES = {  # each invariant under V -> V e^{i phi}, column by column
    "magnitudes": lambda lib, L, V: (V.abs() ** 2 * lib.from_numpy(WEIGHTS[: V.shape[-2], : V.shape[-1]])).sum(),
    "values_and_vectors": lambda lib, L, V: (L.unsqueeze(-2) * V.abs()).real.sum() + L.imag.pow(2).sum(),
    "outer_products": lambda lib, L, V: (V @ V.mH).abs().sum(),
}


def gradient(lib, matrix, loss):
    A = lib.from_numpy(matrix.copy()).requires_grad_()
    L, V = lib.linalg.eig(A)
    (grad,) = lib.autograd.grad(loss(lib, L, V), A)
    return np.array(grad.numpy())


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("matrix", MATRICES)
def test_eigenvector_gradients_match_torch(matrix, loss):
    ours = gradient(ndgrad, MATRICES[matrix], LOSSES[loss])
    assert_close(ours, gradient(torch, MATRICES[matrix], LOSSES[loss]))


@pytest.mark.parametrize("matrix", MATRICES)
def test_eigenvector_gradients_match_finite_differences(matrix):
    A = ndgrad.from_numpy(MATRICES[matrix].copy()).requires_grad_()
    assert ndgrad.autograd.gradcheck(lambda a: LOSSES["magnitudes"](ndgrad, *ndgrad.linalg.eig(a)), (A,))


def test_phase_dependent_loss_is_refused():
    def call(lib):
        L, V = lib.linalg.eig(lib.from_numpy(MATRICES["real"].copy()).requires_grad_())
        V.real.sum().backward()

    assert_raises_like_torch(call)


def test_eigenvector_tangents_match_torch():
    tangents = []
    for lib in (torch, ndgrad):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            A = fw.make_dual(lib.from_numpy(MATRICES["real"].copy()), lib.from_numpy(WEIGHTS.copy()))
            L, V = lib.linalg.eig(A)
            tangents.append([np.array(fw.unpack_dual(t).tangent.numpy()) for t in (L, V)])
    for ours, theirs in zip(tangents[1], tangents[0]):
        assert_close(ours, theirs)


def test_named_tuple_and_dtypes(same):
    same("""
A = torch.tensor([[2.0, 1.0], [0.0, 3.0]], requires_grad=True)
result = torch.linalg.eig(A)
print(result)
print(type(result).__name__, result.eigenvalues is result[0], torch.linalg.eigvals(A))
print(torch.linalg.eig(torch.ones(2, 2, dtype=torch.float64)).eigenvectors.dtype, torch.linalg.eig(torch.ones(0, 0)))
print(torch.linalg.eigvals(torch.tensor([[0.0, -1.0], [1.0, 0.0]])))
""")


ERRORS = [
    "lib.linalg.eig(lib.ones(3))", "lib.linalg.eig(lib.ones(2, 3))", "lib.linalg.eigvals(lib.ones(2, 3))",
    "lib.linalg.eigvals(lib.ones(3))", "lib.linalg.eig(lib.ones(2, 2, dtype=lib.int64))",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_error_matches_torch(expression):
    assert_raises_like_torch(expression)
