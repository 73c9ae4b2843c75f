"""PyTorch's indexing rules, checked against torch over hypothesis-drawn indices (where the advanced dims go,
broadcasting, negative indices, masks, bools, ints that select first), setitem, the in-place variants, integer and
bool dtypes, and the ops torch does not differentiate (nonzero, argsort, unique, searchsorted, bucketize)."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tests.closeness import assert_close

import ndgrad


def both(array):
    """The same values as an ndgrad and a torch tensor (separate memory)."""
    return ndgrad.from_numpy(np.array(array)), torch.from_numpy(np.array(array))


def assert_same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
        return
    assert_close(ours, theirs)


# ---- advanced getitem and setitem over drawn indices ------------------------------------------------------------
@st.composite
def indexings(draw):
    """A shape and an index for it, as a function of the library (tensors are made per library)."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    broadcast = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    items, dim, has_ellipsis = [], 0, False
    while dim < len(shape):
        kind = draw(st.sampled_from(["int", "slice", "tensor", "tensor", "list", "mask", "none", "ellipsis", "bool"]))
        size = shape[dim]
        if kind == "int":
            items.append(int(rng.integers(-size, size)))
        elif kind == "slice":
            items.append(slice(draw(st.integers(-size, size)), None, draw(st.integers(1, 2))))
        elif kind == "tensor":
            items.append(("tensor", rng.integers(-size, size, broadcast)))
        elif kind == "list":
            items.append(rng.integers(-size, size, 2).tolist())
        elif kind == "mask":
            items.append(("tensor", rng.random(shape[dim:dim + 1]) < 0.6))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "bool":
            items.append(draw(st.booleans()))
            continue
        elif not has_ellipsis:
            items.append(Ellipsis)
            has_ellipsis = True
            break
        else:
            continue
        dim += 1
    if has_ellipsis:  # index the trailing dims after the Ellipsis with one tensor
        items.append(("tensor", rng.integers(-shape[-1], shape[-1], broadcast)))
    return shape, items, seed


def build(lib, items):
    return tuple(lib.from_numpy(np.array(item[1])) if isinstance(item, tuple) else item for item in items)


@settings(max_examples=150, deadline=None)
@given(indexings())
def test_getitem_matches_torch(drawn):
    shape, items, seed = drawn
    data = np.random.default_rng(seed).standard_normal(shape)
    (x, tx) = both(data)
    x.requires_grad_(), tx.requires_grad_()
    try:
        expected = tx[build(torch, items)]
    except IndexError as error:
        with pytest.raises(IndexError) as ours:
            x[build(ndgrad, items)]
        assert str(ours.value) == str(error)
        return
    result = x[build(ndgrad, items)]
    assert_same(result, expected)
    if any(isinstance(item, (tuple, list, bool)) for item in items):  # basic indexing is shape.getitem's
        assert type(result.grad_fn).__name__ == type(expected.grad_fn).__name__
    cotangent = np.random.default_rng(seed + 1).standard_normal(expected.shape)
    (grad,) = ndgrad.autograd.grad(result, x, ndgrad.from_numpy(cotangent.copy()))
    (expected_grad,) = torch.autograd.grad(expected, tx, torch.from_numpy(cotangent.copy()))
    assert_same(grad, expected_grad)


@settings(max_examples=100, deadline=None)
@given(indexings())
def test_setitem_matches_torch(drawn):
    shape, items, seed = drawn
    data = np.random.default_rng(seed).standard_normal(shape)
    x, tx = both(data)
    try:
        target_shape = tx[build(torch, items)].shape
    except IndexError:
        return
    values = np.random.default_rng(seed + 1).standard_normal(target_shape[1:])  # broadcast over the first dim
    x[build(ndgrad, items)] = ndgrad.from_numpy(values.copy())
    tx[build(torch, items)] = torch.from_numpy(values.copy())
    assert_same(x, tx)
    x[build(ndgrad, items)] = 2.5
    tx[build(torch, items)] = 2.5
    assert_same(x, tx)


def test_advanced_setitem_records_index_put_and_accumulates_no_gradient_where_overwritten():
    grads = []
    for lib in (ndgrad, torch):
        x = lib.from_numpy(np.arange(12.0).reshape(3, 4)).requires_grad_()
        v = lib.from_numpy(np.ones(4)).requires_grad_()
        y = x * 1
        y[lib.tensor([0, 2])] = v
        assert type(y.grad_fn).__name__ == "IndexPutBackward0"
        grads.append(lib.autograd.grad((y * y).sum(), (x, v)))
    assert_same(grads[0], grads[1])


def test_setitem_through_a_view_matches_torch():
    results = []
    for lib in (ndgrad, torch):
        x = lib.from_numpy(np.arange(12.0).reshape(3, 4)).requires_grad_()
        v = lib.from_numpy(np.ones(2)).requires_grad_()
        y = x * 1
        y[1, [0, 2]] = v
        y[0] = 3.0
        results.append((type(y.grad_fn).__name__,) + lib.autograd.grad((y * y).sum(), (x, v)))
    assert results[0][0] == results[1][0]
    assert_same(results[0][1:], results[1][1:])


def test_gradients_accumulate_over_repeated_indices():
    for lib_index in ([0, 0, 2, 0], [[1, 1], [1, 2]]):
        x, tx = both(np.arange(3.0))
        x.requires_grad_(), tx.requires_grad_()
        x[ndgrad.tensor(lib_index)].sum().backward()
        tx[torch.tensor(lib_index)].sum().backward()
        assert_same(x.grad, tx.grad)


# ---- in-place variants -----------------------------------------------------------------------------------------
INPLACE = {
    "index_put_": lambda lib, x, s, i, m: x.index_put_((i,), lib.ones(4, dtype=x.dtype), accumulate=True),
    "index_put_ function": lambda lib, x, s, i, m: lib.index_put_(x, (m,), lib.tensor(2.0, dtype=x.dtype)),
    "scatter_": lambda lib, x, s, i, m: x.scatter_(0, lib.tensor([[1, 2], [0, 1]]), s[:2, :2]),
    "scatter_ value": lambda lib, x, s, i, m: x.scatter_(1, lib.tensor([[0], [3], [1]]), 7.0),
    "scatter_add_": lambda lib, x, s, i, m: x.scatter_add_(1, lib.tensor([[0, 0], [3, 3], [1, 1]]), s[:, :2]),
    "scatter_reduce_": lambda lib, x, s, i, m: x.scatter_reduce_(1, lib.tensor([[0, 0], [3, 3], [1, 1]]), s[:, :2],
                                                                 "amax", include_self=False),
    "index_add_": lambda lib, x, s, i, m: x.index_add_(0, i, s, alpha=-1),
    "index_copy_": lambda lib, x, s, i, m: x.index_copy_(1, lib.tensor([3, 0]), s[:, :2]),
    "index_fill_": lambda lib, x, s, i, m: x.index_fill_(1, lib.tensor([3, 0]), -2.0),
    "masked_fill_": lambda lib, x, s, i, m: x.masked_fill_(m, 5.0),
    "masked_fill_ tensor": lambda lib, x, s, i, m: x.masked_fill_(m[0], s[0, 0]),
    "masked_scatter_": lambda lib, x, s, i, m: x.masked_scatter_(m, s),
    "put_": lambda lib, x, s, i, m: x.put_(i, s[0, :3], accumulate=True),
    "copy_": lambda lib, x, s, i, m: x.copy_(s[0]),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_variants_match_torch(name):
    results = []
    for lib in (ndgrad, torch):
        leaf = lib.from_numpy(np.arange(12.0).reshape(3, 4) - 5.0).requires_grad_()
        x, source = leaf * 1, leaf * 2  # the source is not written to, so the values it saved stay valid
        version = x._version
        out = INPLACE[name](lib, x, source, lib.tensor([2, 0, 2]), x.detach() > 0)
        assert out is x and x._version > version
        results.append((type(x.grad_fn).__name__, x.detach().clone(), lib.autograd.grad((x * x).sum(), leaf)[0]))
    assert results[0][0] == results[1][0]
    assert_same(results[0][1:], results[1][1:])


# ---- integer and bool dtypes -----------------------------------------------------------------------------------
DTYPES = {
    "getitem": lambda lib, x: x[lib.tensor([1, 0, 1])],
    "getitem mask": lambda lib, x: x[x > 2],
    "gather": lambda lib, x: lib.gather(x, 1, lib.tensor([[0, 0], [1, 0], [3, 2]])),
    "scatter value": lambda lib, x: lib.scatter(x, 1, lib.tensor([[0], [1], [3]]), 1),
    "scatter_add": lambda lib, x: lib.scatter_add(x, 1, lib.tensor([[0, 0], [1, 0]]), x[:2, :2]),
    "index_select": lambda lib, x: lib.index_select(x, 1, lib.tensor([3, 3])),
    "masked_fill": lambda lib, x: lib.masked_fill(x, x > 2, 7),
    "masked_fill float value": lambda lib, x: lib.masked_fill(x, x > 2, 2.7),
    "masked_select": lambda lib, x: lib.masked_select(x, x > 2),
    "take": lambda lib, x: lib.take(x, lib.tensor([11, 0])),
    "sort": lambda lib, x: tuple(lib.sort(x, descending=True)),
    "sort stable": lambda lib, x: tuple(lib.sort(x, dim=0, stable=True)),
    "unique": lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True),
    "nonzero": lambda lib, x: lib.nonzero(x),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("name", list(DTYPES))
def test_integer_and_bool_inputs_match_torch(name, dtype):
    data = (np.arange(12).reshape(3, 4) * 7 % 5).astype(dtype)
    results = []
    for lib in (ndgrad, torch):
        try:
            results.append(DTYPES[name](lib, lib.from_numpy(data.copy())))
        except Exception as error:  # noqa: BLE001 - both must fail alike
            results.append(error)
    if isinstance(results[1], Exception):
        assert type(results[0]) is type(results[1]) and str(results[0]) == str(results[1])
    else:
        assert_same(results[0], results[1])


# ---- ops torch does not differentiate --------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    data=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                    elements=st.sampled_from([0.0, 1.0, -1.0, 2.5, np.nan])),
    dim=st.integers(-3, 2),
    descending=st.booleans(),
)
def test_non_differentiable_ops_match_torch(data, dim, descending):
    x, tx = both(data)
    x.requires_grad_(), tx.requires_grad_()
    checks = [
        lambda lib, t: lib.nonzero(t),
        lambda lib, t: lib.nonzero(t, as_tuple=True),
        lambda lib, t: lib.argwhere(t),
        lambda lib, t: t.nonzero(),
        lambda lib, t: lib.argsort(t, dim=dim, descending=descending, stable=True),
        lambda lib, t: tuple(lib.sort(t, dim=dim, descending=descending, stable=True)),
        lambda lib, t: t.argsort(dim, descending),
    ]
    if not np.isnan(data).any():  # torch keeps every NaN apart, NumPy merges them
        checks += [lambda lib, t: lib.unique(t, return_inverse=True, return_counts=True)]
    for check in checks:
        try:
            expected = check(torch, tx)
        except (IndexError, RuntimeError) as error:
            with pytest.raises(type(error)):
                check(ndgrad, x)
            continue
        result = check(ndgrad, x)
        assert_same(result, expected)
        for r, e in zip(result if isinstance(result, tuple) else (result,),
                        expected if isinstance(expected, tuple) else (expected,)):
            assert r.requires_grad == e.requires_grad


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_along_a_dim_matches_torch(dim):
    data = np.array([[1, 2, 1, 2], [0, 3, 0, 3], [1, 2, 1, 2]])
    ours = ndgrad.unique(ndgrad.from_numpy(data), dim=dim, return_inverse=True, return_counts=True)
    theirs = torch.unique(torch.from_numpy(data), dim=dim, return_inverse=True, return_counts=True)
    assert_same(ours, theirs)


def test_unique_unsorted_and_topk_unsorted_hold_the_same_elements_as_torch():
    data = np.array([3.0, 1.0, 2.0, 3.0, 7.0, -1.0])
    x, tx = both(data)
    assert sorted(ndgrad.unique(x, sorted=False).tolist()) == sorted(torch.unique(tx, sorted=False).tolist())
    ours, theirs = ndgrad.topk(x, 3, sorted=False), torch.topk(tx, 3, sorted=False)
    assert sorted(zip(ours.values.tolist(), ours.indices.tolist())) == sorted(
        zip(theirs.values.tolist(), theirs.indices.tolist()))


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(0, 2), length=st.integers(1, 5), seed=st.integers(0, 2**32 - 1),
    right=st.booleans(), out_int32=st.booleans(), sorter=st.booleans(),
)
def test_searchsorted_and_bucketize_match_torch(rows, length, seed, right, out_int32, sorter):
    rng = np.random.default_rng(seed)
    sequence = np.sort(rng.integers(0, 5, (rows, length) if rows else (length,)).astype(np.float64), axis=-1)
    values = rng.integers(-1, 6, (rows, 3) if rows else (2, 3)).astype(np.float64)
    order = None
    if sorter:
        order = np.argsort(rng.random(sequence.shape), axis=-1)
        sequence = np.take_along_axis(sequence, np.argsort(order, axis=-1), axis=-1)  # sorted once reordered by order
    results = []
    for lib in (ndgrad, torch):
        seq, vals = lib.from_numpy(sequence.copy()), lib.from_numpy(values.copy())
        kwargs = {"sorter": lib.from_numpy(order.copy())} if sorter else {}
        found = [lib.searchsorted(seq, vals, right=right, out_int32=out_int32, **kwargs),
                 lib.searchsorted(seq, vals, side="right" if right else "left", **kwargs),
                 lib.searchsorted(seq, 2.0, right=right, **kwargs) if not rows else seq.sum()]
        if not rows and not sorter:
            found += [lib.bucketize(vals, seq, right=right, out_int32=out_int32), lib.bucketize(2.0, seq, right=right)]
        results.append(tuple(found))
    assert_same(results[0], results[1])


def test_where_with_one_argument_is_nonzero_as_tuple():
    data = np.array([[0.0, 1.0], [2.0, 0.0]])
    x, tx = both(data)
    assert_same(ndgrad.nonzero(x, as_tuple=True), torch.where(tx))
    assert_same(ndgrad.where(x), torch.where(tx))


def test_sort_puts_nan_where_torch_does_and_keeps_ties_in_order():
    data = np.array([1.0, np.nan, 3.0, 2.0, 3.0, np.nan, 1.0])
    x, tx = both(data)
    for descending in (False, True):
        assert_same(tuple(ndgrad.sort(x, descending=descending)), tuple(torch.sort(tx, descending=descending)))
        assert_same(tuple(ndgrad.sort(x, descending=descending, stable=True)),
                    tuple(torch.sort(tx, descending=descending, stable=True)))


@pytest.mark.parametrize(
    "index",
    ["[:, 1]", "[:]", "[0:]", "[0, :]", "[torch.tensor(0), :]", "[0, -4:]", "[torch.tensor(0), -4:]", "[..., :]",
     "[None, :]", "[0:2, 1]", "[:, :]", "[()]", "[:, 0:9]", "[1, ::2]", "[[0], :]", "[..., None, 1:3]"],
)
def test_recorded_nodes_of_basic_items_match_torch(index):
    """Which view ops an index records: PyTorch judges a slice as written when deciding to skip it."""

    def chain(lib):
        x = lib.ones(2, 4, requires_grad=True)
        names, node = [], eval(f"x{index}", {"x": x, "torch": lib}).grad_fn
        while node is not None and type(node).__name__ != "AccumulateGrad":
            names.append(type(node).__name__)
            node = node.next_functions[0][0]
        return names

    assert chain(ndgrad) == chain(torch)
