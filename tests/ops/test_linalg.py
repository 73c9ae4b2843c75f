"""ndgrad.linalg against torch where the op table's smooth samples do not reach: singular and indefinite inputs
(the _ex forms' results and info, LU's pivots), gradients where they are ill-defined (repeated singular values or
eigenvalues, the extra vectors of full_matrices=True), matrix_rank, and batch shapes drawn by hypothesis."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close
from tests.ops.builders.lu import SINGULAR as SINGULAR_MATRICES

import ndgrad


def _tensor(lib, values, requires_grad=False):
    tensor = lib.from_numpy(np.array(values, dtype=np.float64))
    return tensor.requires_grad_() if requires_grad else tensor


def _numpy(tensor):
    return np.array(tensor.detach().numpy())


def assert_same(ours, theirs):
    """Equal values (nan where torch has nan, infinities of the same sign), shapes and dtypes, output by output."""
    ours, theirs = (tuple(x) if isinstance(x, tuple) else (x,) for x in (ours, theirs))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert str(a.dtype).replace("ndgrad.", "") == str(b.dtype).replace("torch.", "")
        assert_close(a, b)


SINGULAR = SINGULAR_MATRICES[0]  # factored exactly on every CPU (see the builders' note)
INDEFINITE = [[4.0, 2.0, 1.0, 3.0], [2.0, 1.0, 5.0, 2.0], [1.0, 5.0, 9.0, 1.0], [3.0, 2.0, 1.0, 8.0]]
FAILED_FACTORIZATIONS = [
    ("inv_ex", lambda lib, a: lib.linalg.inv_ex(a), SINGULAR),
    ("inv_ex batch", lambda lib, a: lib.linalg.inv_ex(lib.stack([a, a + lib.eye(3, dtype=a.dtype)])), SINGULAR),
    ("solve_ex", lambda lib, a: lib.linalg.solve_ex(a, lib.ones(3, 2, dtype=a.dtype)), SINGULAR),
    ("solve_ex vector", lambda lib, a: lib.linalg.solve_ex(a, a[0]), SINGULAR),
    ("solve_ex left=False", lambda lib, a: lib.linalg.solve_ex(a, a[:2], left=False), SINGULAR),
    ("lu_factor_ex", lambda lib, a: lib.linalg.lu_factor_ex(a), SINGULAR),
    ("lu_factor_ex zeros", lambda lib, a: lib.linalg.lu_factor_ex(a * 0), SINGULAR),
    ("lu", lambda lib, a: lib.linalg.lu(a), SINGULAR),
    ("lu_solve", lambda lib, a: lib.linalg.lu_solve(*lib.linalg.lu_factor_ex(a)[:2], lib.eye(3, dtype=a.dtype)),
     SINGULAR),
    ("det", lambda lib, a: lib.linalg.det(a), SINGULAR),
    ("slogdet", lambda lib, a: lib.linalg.slogdet(a), SINGULAR),
    ("solve_triangular", lambda lib, a: lib.linalg.solve_triangular(a - lib.eye(3, dtype=a.dtype), a, upper=True),
     SINGULAR),
    ("cholesky_ex", lambda lib, a: lib.linalg.cholesky_ex(a), INDEFINITE),
    ("cholesky_ex upper", lambda lib, a: lib.linalg.cholesky_ex(a, upper=True), INDEFINITE),
    ("cholesky_ex batch", lambda lib, a: lib.linalg.cholesky_ex(lib.stack([a @ a.mT, a])), INDEFINITE),
    ("cholesky_ex nan", lambda lib, a: lib.linalg.cholesky_ex(a * math.nan), INDEFINITE),
    ("pinv singular", lambda lib, a: lib.linalg.pinv(a), SINGULAR),
    ("matrix_rank", lambda lib, a: lib.linalg.matrix_rank(a), SINGULAR),
]


@pytest.mark.parametrize("call, values", [(c, v) for _, c, v in FAILED_FACTORIZATIONS],
                         ids=[name for name, _, _ in FAILED_FACTORIZATIONS])
def test_failed_factorizations_match_torch(call, values):
    """Where LAPACK meets a zero pivot it divides by it: the same infinities, NaNs and info as torch's."""
    assert_same(call(ndgrad, _tensor(ndgrad, values)), call(torch, _tensor(torch, values)))


RANKS = [
    ("default", {}), ("atol", {"atol": 1.0}), ("rtol", {"rtol": 0.3}), ("both", {"atol": 0.5, "rtol": 0.01}),
    ("tol", {"tol": 1.0}), ("hermitian", {"hermitian": True}), ("hermitian atol", {"hermitian": True, "atol": 2.0}),
]


@pytest.mark.parametrize("kwargs", [k for _, k in RANKS], ids=[name for name, _ in RANKS])
def test_matrix_rank_matches_torch(kwargs):
    values = np.diag([5.0, 1.5, 0.2, 0.0]) + np.diag([0.1, 0.1, 0.1], 1) + np.diag([0.1, 0.1, 0.1], -1)
    batch = np.stack([values, values * 3, np.zeros((4, 4))])
    for lib_values in (values, batch) + (() if kwargs.get("hermitian") else (values[:3], values[:, :0])):
        ours = ndgrad.linalg.matrix_rank(_tensor(ndgrad, lib_values, True), **kwargs)
        theirs = torch.linalg.matrix_rank(_tensor(torch, lib_values, True), **kwargs)
        assert ours.dtype == ndgrad.int64 and not ours.requires_grad
        np.testing.assert_array_equal(_numpy(ours), _numpy(theirs))


def _gradient(lib, values, loss):
    a = _tensor(lib, values, requires_grad=True)
    return lib.autograd.grad(loss(lib, a), a)[0]


ILL_DEFINED = [  # gradients where vectors are not unique: NaN where torch has NaN, finite where torch is finite
    ("svd S of I", np.eye(3), lambda lib, a: lib.linalg.svd(a)[1].sum()),
    ("svd U of I", np.eye(3), lambda lib, a: lib.linalg.svd(a)[0].sum()),
    ("svd U Vh of I", np.eye(3), lambda lib, a: (lambda usv: (usv[0] @ usv[2]).sum())(lib.linalg.svd(a))),
    ("svdvals of I", np.eye(3), lambda lib, a: lib.linalg.svdvals(a).sum()),
    ("nuc norm of I", np.eye(3), lambda lib, a: lib.linalg.matrix_norm(a, "nuc")),
    ("eigh values of I", np.eye(3), lambda lib, a: lib.linalg.eigh(a)[0].sum()),
    ("eigh vectors of I", np.eye(3), lambda lib, a: lib.linalg.eigh(a)[1].sum()),
    ("eigvalsh of I", np.eye(3), lambda lib, a: lib.linalg.eigvalsh(a).sum()),
    ("full U of a tall matrix", np.diag([3.0, 2.0, 1.0])[:, :2] * 1.0 + 0.1,
     lambda lib, a: lib.linalg.svd(a, full_matrices=True)[0][:, :2].sum()),
    ("full U of a tall matrix, all columns", np.diag([3.0, 2.0, 1.0])[:, :2] * 1.0 + 0.1,
     lambda lib, a: lib.linalg.svd(a, full_matrices=True)[0].sum()),
    ("full Vh of a wide matrix, all rows", np.diag([3.0, 2.0, 1.0])[:2] * 1.0 + 0.1,
     lambda lib, a: (lib.linalg.svd(a, full_matrices=True)[2] ** 2).sum()),
    ("svd S of a wide matrix", np.arange(6.0).reshape(2, 3), lambda lib, a: lib.linalg.svd(a)[1].sum()),
    ("det of a rank-1 matrix", np.ones((3, 3)), lambda lib, a: lib.linalg.det(a)),
    ("slogdet of a singular matrix", np.array(SINGULAR), lambda lib, a: lib.linalg.slogdet(a)[1]),
    ("logdet of a singular matrix", np.array(SINGULAR), lambda lib, a: lib.logdet(a)),
]


@pytest.mark.parametrize("values, loss", [(v, f) for _, v, f in ILL_DEFINED], ids=[name for name, _, _ in ILL_DEFINED])
def test_ill_defined_gradients_match_torch(values, loss):
    ours, theirs = _gradient(ndgrad, values, loss), _gradient(torch, values, loss)
    assert_close(ours, theirs)


def test_det_second_derivative_at_a_singular_matrix_matches_torch():
    """A gradient to be differentiated again goes through the SVD at a singular matrix, as in PyTorch."""
    def second(lib):
        a = _tensor(lib, SINGULAR, requires_grad=True)
        (g,) = lib.autograd.grad(lib.linalg.det(a), a, create_graph=True)
        return g, lib.autograd.grad((g * _tensor(lib, np.arange(9.0).reshape(3, 3))).sum(), a)[0]

    for ours, theirs in zip(second(ndgrad), second(torch)):
        assert_close(ours, theirs)


batch_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple)


@settings(max_examples=25, deadline=None)
@given(batch_a=batch_shapes, batch_b=batch_shapes, n=st.integers(1, 4), k=st.integers(1, 3), left=st.booleans(),
       flags=st.tuples(st.booleans(), st.booleans()), seed=st.integers(0, 2**32 - 1))
def test_solvers_broadcast_batches_like_torch(batch_a, batch_b, n, k, left, flags, seed):
    """solve_triangular and lu_solve over drawn batch shapes that broadcast: values and both gradients."""
    upper, adjoint = flags
    batch_b = batch_b[-len(batch_a):] if len(batch_b) > len(batch_a) and batch_a else batch_b
    try:
        np.broadcast_shapes(batch_a, batch_b)
    except ValueError:
        batch_b = batch_a
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, (*batch_a, n, n)) + 3 * np.eye(n)
    b = rng.standard_normal((*batch_b, n, k) if left else (*batch_b, k, n))

    def run(lib):
        A, B = _tensor(lib, a, True), _tensor(lib, b, True)
        LU, pivots = lib.linalg.lu_factor(A)
        outs = (lib.linalg.solve_triangular(A, B, upper=upper, left=left),
                lib.linalg.lu_solve(LU, pivots, B, left=left, adjoint=adjoint))
        total = sum((out * lib.from_numpy(np.cos(np.arange(out.numel())).reshape(out.shape))).sum() for out in outs)
        return (*outs, *lib.autograd.grad(total, (A, B)))

    for ours, theirs in zip(run(ndgrad), run(torch)):
        assert_close(ours, theirs)


@settings(max_examples=25, deadline=None)
@given(batch=batch_shapes, m=st.integers(1, 5), n=st.integers(1, 5), k=st.integers(1, 2),
       driver=st.sampled_from(["gels", "gelsy", "gelsd", "gelss"]), seed=st.integers(0, 2**32 - 1))
def test_lstsq_over_drawn_shapes_matches_torch(batch, m, n, k, driver, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, (*batch, m, n)) + 3 * np.eye(m, n)
    b = rng.standard_normal((*batch, m, k))

    def run(lib):
        A, B = _tensor(lib, a, True), _tensor(lib, b, True)
        result = lib.linalg.lstsq(A, B, driver=driver)
        total = result.solution.sum() + (result.residuals.sum() if result.residuals.numel() else 0)
        return (*result, *lib.autograd.grad(total, (A, B)))

    for ours, theirs in zip(run(ndgrad), run(torch)):
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert_close(ours, theirs)


CDIST_BY_PRODUCTS = [  # p = 2 by matrix products: PyTorch's EuclideanDistBackward0, twice differentiable
    ((3, 4), (2, 4), "use_mm_for_euclid_dist"), ((30, 3), (2, 3), None),
    ((2, 3, 2), (1, 4, 2), "use_mm_for_euclid_dist"), ((1, 3, 2), (4, 2), "use_mm_for_euclid_dist"),
    ((2, 26, 2), (3, 2), "use_mm_for_euclid_dist_if_necessary"),
]


@pytest.mark.parametrize("shapes", CDIST_BY_PRODUCTS, ids=[str(c) for c in CDIST_BY_PRODUCTS])
def test_cdist_by_matrix_products_matches_torch(shapes):
    shape_1, shape_2, mode = shapes
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shape_1), rng.standard_normal(shape_2)
    kwargs = {} if mode is None else {"compute_mode": mode}

    def run(lib):
        x, y = _tensor(lib, a, True), _tensor(lib, b, True)
        result = lib.cdist(x, y, **kwargs)
        weights = lib.from_numpy(np.cos(np.arange(result.numel())).reshape(result.shape))
        first = lib.autograd.grad((result * weights).sum(), (x, y), create_graph=True)
        second = lib.autograd.grad(first[0].sum() + (first[1] ** 2).sum(), (x, y))
        nodes = type(result.grad_fn).__name__, type(result.grad_fn.next_functions[0][0]).__name__
        return nodes, (result, *first, *second)

    (our_nodes, ours), (their_nodes, theirs) = run(ndgrad), run(torch)
    assert our_nodes == their_nodes == ("ViewBackward0", "EuclideanDistBackward0")
    for mine, reference in zip(ours, theirs):
        assert_close(mine, reference)
    inputs = (_tensor(ndgrad, a[..., :3, :], True), _tensor(ndgrad, b[..., :2, :], True))
    by_products = lambda x, y: ndgrad.cdist(x, y, compute_mode="use_mm_for_euclid_dist")  # noqa: E731
    assert ndgrad.autograd.gradcheck(by_products, inputs) and ndgrad.autograd.gradgradcheck(by_products, inputs)


def test_cdist_by_matrix_products_forward_mode_agrees_with_backward():
    import ndgrad.autograd.forward_ad as forward

    rng = np.random.default_rng(1)
    a, b, a_t, b_t, u = (rng.standard_normal(s) for s in [(3, 2), (4, 2), (3, 2), (4, 2), (3, 4)])
    with forward.dual_level():
        x, y = (forward.make_dual(_tensor(ndgrad, v), _tensor(ndgrad, t)) for v, t in [(a, a_t), (b, b_t)])
        tangent = _numpy(forward.unpack_dual(ndgrad.cdist(x, y, compute_mode="use_mm_for_euclid_dist")).tangent)
    x, y = _tensor(ndgrad, a, True), _tensor(ndgrad, b, True)
    grads = ndgrad.autograd.grad(ndgrad.cdist(x, y, compute_mode="use_mm_for_euclid_dist"), (x, y), _tensor(ndgrad, u))
    expected = sum(float((_numpy(g) * t).sum()) for g, t in zip(grads, (a_t, b_t)))
    assert float((tangent * u).sum()) == pytest.approx(expected, rel=1e-9)
