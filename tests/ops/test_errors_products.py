"""Products (ops.products) against torch where the op table cannot reach: bad arguments (exception type and
message), einsum (recorded as EinsumBackward0 nodes, not torch's permute/bmm chain), and the composites (outer,
inner, kron, tensordot, vecdot, multi_dot, matrix_power): values, grad_fn, gradients to second order, forward mode."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad.ops import products

from .errors import assert_raises_like_torch

ERRORS = [
    "lib.einsum('ij,jk', lib.zeros(2, 3), lib.zeros(2, 3))",
    "lib.einsum('ij', lib.zeros(2, 3), lib.zeros(2, 3))",
    "lib.einsum('ij,jk', lib.zeros(2, 3))",
    "lib.einsum('ijk', lib.zeros(2, 3))",
    "lib.einsum('ij->k', lib.zeros(2, 3))",
    "lib.einsum('ij->ii', lib.zeros(2, 3))",
    "lib.einsum('i1', lib.zeros(2, 3))",
    "lib.einsum(lib.zeros(2, 3), [52, 1])",
    "lib.trace(lib.zeros(3))",
    "lib.addmm(lib.zeros(2, 2), lib.zeros(2, 3), lib.zeros(2, 2))",
    "lib.addmm(lib.zeros(2, 2), lib.zeros(3), lib.zeros(3, 2))",
    "lib.addmm(lib.zeros(3, 2), lib.zeros(2, 3), lib.zeros(3, 2))",
    "lib.addmv(lib.zeros(2), lib.zeros(2, 3), lib.zeros(2))",
    "lib.baddbmm(lib.zeros(2, 2, 2), lib.zeros(2, 2), lib.zeros(2, 2, 2))",
    "lib.baddbmm(lib.zeros(2, 2, 2), lib.zeros(2, 2, 3), lib.zeros(2, 2, 2))",
    "lib.addbmm(lib.zeros(2, 2), lib.zeros(3, 2, 2), lib.zeros(2, 2, 2))",
    "lib.cross(lib.zeros(2, 3), lib.zeros(2, 3), dim=0)",
    "lib.cross(lib.zeros(2, 3), lib.zeros(3), dim=1)",
    "lib.tensordot(lib.zeros(2, 3), lib.zeros(2, 3), 1)",
    "lib.tensordot(lib.zeros(2, 3), lib.zeros(2, 3), -1)",
    "lib.tensordot(lib.zeros(2, 3), lib.zeros(2, 3), ([0, 1], [0]))",
    "lib.inner(lib.zeros(2, 3), lib.zeros(2))",
    "lib.outer(lib.zeros(2, 3), lib.zeros(2))",
    "lib.linalg.multi_dot([lib.zeros(2, 2)])",
    "lib.linalg.multi_dot([lib.zeros(2, 2, 2), lib.zeros(2, 2)])",
    "lib.linalg.multi_dot([lib.zeros(2, 2), lib.zeros(2), lib.zeros(2, 2)])",
    "lib.matrix_power(lib.zeros(2, 3), 2)",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    assert_raises_like_torch(call)


def _linalg_cross(lib, x, y):
    return lib.linalg.cross(x, y) if lib is torch else products.linalg_cross(x, y)


# (text, shapes, fn(lib, *tensors)): einsum in every form, and the composites.
CALLS = [
    ("einsum ij,jk->ik", [(3, 4), (4, 2)], lambda lib, x, y: lib.einsum("ij,jk->ik", x, y)),
    ("einsum ij,jk implicit", [(3, 4), (4, 2)], lambda lib, x, y: lib.einsum("ij,jk", x, y)),
    ("einsum trace", [(3, 3)], lambda lib, x: lib.einsum("ii", x)),
    ("einsum diagonal", [(3, 3)], lambda lib, x: lib.einsum("ii->i", x)),
    ("einsum diagonal 3", [(2, 2, 2)], lambda lib, x: lib.einsum("iii->i", x)),
    ("einsum repeated + sum", [(3, 3, 2)], lambda lib, x: lib.einsum("iij->j", x)),
    ("einsum transpose", [(3, 4)], lambda lib, x: lib.einsum("ba", x)),
    ("einsum identity", [(3, 4)], lambda lib, x: lib.einsum("ij->ij", x)),
    ("einsum sum", [(3, 4)], lambda lib, x: lib.einsum("ij->", x)),
    ("einsum outer", [(3,), (4,)], lambda lib, x, y: lib.einsum("i,j->ij", x, y)),
    ("einsum batch", [(2, 3, 4), (2, 4, 2)], lambda lib, x, y: lib.einsum("bij,bjk->bik", x, y)),
    ("einsum ellipsis", [(2, 3, 4), (4, 2)], lambda lib, x, y: lib.einsum("...ij,jk->...ik", x, y)),
    ("einsum ellipsis broadcast", [(2, 3), (1,)], lambda lib, x, y: lib.einsum("i...,...->...i", x, y)),
    ("einsum size-1 broadcast", [(1,), (3,)], lambda lib, x, y: lib.einsum("i,i", x, y)),
    ("einsum three", [(2, 3), (3, 4), (4, 2)], lambda lib, x, y, z: lib.einsum("ij,jk,kl->il", x, y, z)),
    ("einsum list", [(2, 3), (2, 3)], lambda lib, x, y: lib.einsum("ij,ij->i", [x, y])),
    ("einsum summed alone", [(2, 3, 2), (2,)], lambda lib, x, y: lib.einsum("ijk,k->", x, y)),
    ("einsum two diagonals", [(2, 2), (3, 3)], lambda lib, x, y: lib.einsum("ii,jj->ij", x, y)),
    ("einsum spaces", [(2, 3), (3,)], lambda lib, x, y: lib.einsum("i j , j -> i", x, y)),
    ("einsum sublist", [(2, 3), (3, 2)], lambda lib, x, y: lib.einsum(x, [0, 1], y, [1, 27], [27, 0])),
    ("einsum sublist implicit", [(2, 3)], lambda lib, x: lib.einsum(x, [27, 1])),
    ("einsum sublist ellipsis", [(2, 3)], lambda lib, x: lib.einsum(x, [..., 1], [1])),
    ("outer", [(3,), (4,)], lambda lib, x, y: lib.outer(x, y)),
    ("ger method", [(3,), (2,)], lambda lib, x, y: x.ger(y)),
    ("outer method", [(3,), (2,)], lambda lib, x, y: x.outer(y)),
    ("inner 1-d", [(3,), (3,)], lambda lib, x, y: lib.inner(x, y)),
    ("inner 2-d", [(2, 3), (4, 3)], lambda lib, x, y: x.inner(y)),
    ("inner 0-d", [(), (2, 3)], lambda lib, x, y: lib.inner(x, y)),
    ("kron", [(2, 3), (3, 2)], lambda lib, x, y: lib.kron(x, y)),
    ("kron ranks", [(2,), (3, 2)], lambda lib, x, y: x.kron(y)),
    ("tensordot int", [(2, 3, 4), (3, 4, 2)], lambda lib, x, y: lib.tensordot(x, y, 2)),
    ("tensordot pairs", [(2, 3, 4), (4, 3)], lambda lib, x, y: lib.tensordot(x, y, ([1, 2], [1, 0]))),
    ("tensordot 0", [(2,), (3,)], lambda lib, x, y: lib.tensordot(x, y, 0)),
    ("vecdot", [(2, 3), (3,)], lambda lib, x, y: lib.linalg.vecdot(x, y)),
    ("vecdot dim", [(3, 2), (3, 2)], lambda lib, x, y: lib.linalg.vecdot(x, y, dim=0)),
    ("multi_dot", [(2, 3), (3, 4), (4, 2)], lambda lib, x, y, z: lib.linalg.multi_dot([x, y, z])),
    ("multi_dot vectors", [(3,), (3, 4), (4,)], lambda lib, x, y, z: lib.linalg.multi_dot([x, y, z])),
    ("multi_dot two", [(3,), (3, 2)], lambda lib, x, y: lib.linalg.multi_dot([x, y])),
    ("matrix_power 3", [(3, 3)], lambda lib, x: lib.matrix_power(x, 3)),
    ("matrix_power 0", [(3, 3)], lambda lib, x: lib.matrix_power(x, 0)),
    ("matrix_power 1", [(3, 3)], lambda lib, x: x.matrix_power(1)),
    ("matrix_power batch", [(2, 2, 2)], lambda lib, x: lib.linalg.matrix_power(x, 2)),
    ("matrix_power -2", [(2, 2)], lambda lib, x: lib.matrix_power(x + 3 * lib.eye(2, dtype=x.dtype), -2)),
    ("linalg.cross", [(2, 3), (1, 3)], _linalg_cross),
]
GRAD_FN_DIFFERS = "einsum"  # ndgrad records EinsumBackward0 nodes; torch the permute/view/bmm steps it runs


def _inputs(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2.0, 2.0, s) for s in shapes]


def _tensors(lib, arrays, requires_grad=True):
    return [lib.from_numpy(a.copy()).requires_grad_(requires_grad) for a in arrays]


def _numpy(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach()._data)


@pytest.mark.parametrize("text, shapes, fn", CALLS, ids=[c[0] for c in CALLS])
def test_values_gradients_and_grad_fn(text, shapes, fn):
    arrays = _inputs(shapes)
    ours_in, theirs_in = _tensors(ndgrad, arrays), _tensors(torch, arrays)
    ours, theirs = fn(ndgrad, *ours_in), fn(torch, *theirs_in)
    assert_close(_numpy(ours), _numpy(theirs))
    assert ours is not ours_in[0]
    if not text.startswith(GRAD_FN_DIFFERS):
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    cotangent = np.random.default_rng(1).standard_normal(theirs.shape)
    grads = ndgrad.autograd.grad(ours, ours_in, ndgrad.from_numpy(cotangent.copy()), create_graph=True,
                                 allow_unused=True)
    expected = torch.autograd.grad(theirs, theirs_in, torch.from_numpy(cotangent.copy()), create_graph=True,
                                   allow_unused=True)
    for g, e in zip(grads, expected):
        assert_close(_numpy(g), _numpy(e))
    # Second order: the gradient of <grads, weights> with respect to the inputs.
    weights = _inputs([a.shape for a in arrays], seed=2)
    total = sum(((e * torch.from_numpy(w)).sum() for e, w in zip(expected, weights)), torch.zeros(()))
    if not total.requires_grad:
        return  # linear in each input: no second derivatives
    ours_total = sum(((g * ndgrad.from_numpy(w)).sum() for g, w in zip(grads, weights)), ndgrad.zeros(()))
    second = ndgrad.autograd.grad(ours_total, ours_in, allow_unused=True)
    for g, e in zip(second, torch.autograd.grad(total, theirs_in, allow_unused=True)):
        if e is None:
            assert g is None or not np.any(_numpy(g))
        else:
            assert_close(_numpy(g), _numpy(e))


@pytest.mark.parametrize("text, shapes, fn", CALLS, ids=[c[0] for c in CALLS])
def test_forward_mode_matches_torch(text, shapes, fn):
    import torch.autograd.forward_ad as torch_fwd

    import ndgrad.autograd.forward_ad as fwd

    arrays, tangents = _inputs(shapes), _inputs(shapes, seed=3)
    with fwd.dual_level():
        ours = fn(ndgrad, *[fwd.make_dual(ndgrad.from_numpy(a.copy()), ndgrad.from_numpy(t.copy()))
                            for a, t in zip(arrays, tangents)])
        ours_t = fwd.unpack_dual(ours).tangent
    with torch_fwd.dual_level():
        theirs = fn(torch, *[torch_fwd.make_dual(torch.from_numpy(a.copy()), torch.from_numpy(t.copy()))
                             for a, t in zip(arrays, tangents)])
        theirs_t = torch_fwd.unpack_dual(theirs).tangent
    assert_close(_numpy(ours_t), _numpy(theirs_t))


@pytest.mark.parametrize("text, shapes, fn", [c for c in CALLS if c[0].startswith("einsum")],
                         ids=[c[0] for c in CALLS if c[0].startswith("einsum")])
def test_einsum_gradgradcheck(text, shapes, fn):
    inputs = _tensors(ndgrad, _inputs(shapes))
    assert ndgrad.autograd.gradcheck(lambda *xs: fn(ndgrad, *xs), inputs)
    assert ndgrad.autograd.gradgradcheck(lambda *xs: fn(ndgrad, *xs), inputs)


def test_addmm_beta_zero_ignores_nan():
    x = ndgrad.full((2, 2), float("nan"))
    out = ndgrad.addmm(x, ndgrad.ones(2, 3), ndgrad.ones(3, 2), beta=0)
    assert not np.isnan(_numpy(out)).any()


CDIST_ERRORS = [
    "lib.cdist(lib.zeros(3, 4), lib.zeros(2, 4), p=-1)",
    "lib.cdist(lib.zeros(3, 4), lib.zeros(2, 3))",
    "lib.cdist(lib.zeros(3, 4), lib.zeros(2, 4), compute_mode='x')",
    "lib.cdist(lib.zeros(3), lib.zeros(2, 3))",
    "lib.cdist(lib.zeros(3, 4, dtype=lib.int32), lib.zeros(2, 4, dtype=lib.int32))",
]


@pytest.mark.parametrize("call", CDIST_ERRORS)
def test_cdist_errors_match_torch(call):
    assert_raises_like_torch(call)


CDIST = [
    ([(3, 4), (2, 4)], {}), ([(3, 4), (2, 4)], {"p": 1.0}), ([(3, 4), (2, 4)], {"p": 3.0}),
    ([(3, 4), (2, 4)], {"p": 0.0}), ([(3, 4), (2, 4)], {"p": float("inf")}), ([(3, 2), (4, 2)], {"p": 1.5}),
    ([(2, 3, 2), (1, 2, 2)], {}), ([(3, 2), (2, 2)], {"compute_mode": "donot_use_mm_for_euclid_dist"}),
]


@pytest.mark.parametrize("shapes, kwargs", CDIST, ids=[str(c) for c in CDIST])
def test_cdist_matches_torch_and_finite_differences(shapes, kwargs):
    arrays = _inputs(shapes)
    ours_in, theirs_in = _tensors(ndgrad, arrays), _tensors(torch, arrays)
    ours, theirs = ndgrad.cdist(*ours_in, **kwargs), torch.cdist(*theirs_in, **kwargs)
    assert_close(_numpy(ours), _numpy(theirs))
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "CdistBackward0"
    cotangent = np.random.default_rng(1).standard_normal(theirs.shape)
    grads = ndgrad.autograd.grad(ours, ours_in, ndgrad.from_numpy(cotangent.copy()))
    expected = torch.autograd.grad(theirs, theirs_in, torch.from_numpy(cotangent.copy()))
    for g, e in zip(grads, expected):
        assert_close(_numpy(g), _numpy(e))
    if kwargs.get("p") != 0.0:  # p = 0 counts nonzeros: piecewise constant
        fn = lambda *xs: ndgrad.cdist(*xs, **kwargs)  # noqa: E731
        assert ndgrad.autograd.gradcheck(fn, ours_in)
        _assert_jvp_agrees_with_vjp(fn, arrays, cotangent, grads)
        if kwargs.get("p", 2.0) not in (1.0, float("inf")):
            assert ndgrad.autograd.gradgradcheck(fn, ours_in)


def _assert_jvp_agrees_with_vjp(fn, arrays, cotangent, grads):
    """<u, J v> from forward mode equals <J^T u, v> from the vjp."""
    import ndgrad.autograd.forward_ad as fwd

    tangents = _inputs([a.shape for a in arrays], seed=4)
    with fwd.dual_level():
        out = fn(*[fwd.make_dual(ndgrad.from_numpy(a.copy()), ndgrad.from_numpy(t.copy()))
                   for a, t in zip(arrays, tangents)])
        jvp = _numpy(fwd.unpack_dual(out).tangent)
    expected = sum(float((_numpy(g) * t).sum()) for g, t in zip(grads, tangents))
    np.testing.assert_allclose(float((jvp * cotangent).sum()), expected, rtol=1e-9, atol=1e-9)


IN_PLACE = [
    ("addmm_", [(3, 2), (3, 4), (4, 2)], {"beta": 0.5, "alpha": 2.0}),
    ("addmv_", [(3,), (3, 4), (4,)], {}),
    ("addbmm_", [(3, 2), (2, 3, 4), (2, 4, 2)], {"alpha": -1.0}),
    ("baddbmm_", [(2, 3, 2), (2, 3, 4), (2, 4, 2)], {"beta": 2.0}),
]


@pytest.mark.parametrize("name, shapes, kwargs", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_in_place_forms_match_torch(name, shapes, kwargs):
    arrays = _inputs(shapes)
    results = []
    for lib in (ndgrad, torch):
        leaves = _tensors(lib, arrays)
        target = leaves[0] * 1  # a non-leaf, so it may be written in place while its history is kept
        out = getattr(target, name)(*leaves[1:], **kwargs)
        assert out is target
        grads = lib.autograd.grad(out.sum(), leaves)
        results.append((_numpy(out), type(out.grad_fn).__name__, [_numpy(g) for g in grads]))
    (ours, ours_fn, ours_grads), (theirs, theirs_fn, theirs_grads) = results
    assert_close(ours, theirs)
    assert ours_fn == theirs_fn
    for g, e in zip(ours_grads, theirs_grads):
        assert_close(g, e)
