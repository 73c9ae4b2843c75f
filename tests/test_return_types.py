"""The named results of ops (ndgrad.return_types) against torch.return_types: the printed form, tuple behaviour
(indexing, unpacking, slicing, equality, pickling), named fields, and which functions return which type."""

import pickle

import numpy as np
import pytest
import torch

import ndgrad


def raised(call, lib):
    """(type name, message) of what ``call`` raises with ``lib``, torch's message spelled with "ndgrad."."""
    try:
        eval(call, {"lib": lib})
    except Exception as error:  # noqa: BLE001 - whatever each library raises is the thing compared
        return type(error).__name__, str(error).replace("torch.", "ndgrad.")
    return None


def _field_names(cls):
    """The field names of a struct sequence type, in order, read off an instance built from their positions."""
    instance = cls(tuple(range(cls.n_fields)))
    names = [name for name in dir(cls) if not name.startswith("_") and not name.startswith("n_")
             and name not in ("count", "index")]
    return sorted(names, key=lambda name: getattr(instance, name))


TORCH_TYPES = sorted(
    name for name in dir(torch.return_types)
    if isinstance(getattr(torch.return_types, name), type) and not name.startswith("_") and not name.endswith("_out")
    and issubclass(getattr(torch.return_types, name), tuple)
)


@pytest.mark.parametrize("name", [n for n in TORCH_TYPES if hasattr(ndgrad.return_types, n)])
def test_fields_match_torch(name):
    ours, theirs = getattr(ndgrad.return_types, name), getattr(torch.return_types, name)
    assert _field_names(ours) == _field_names(theirs)
    assert (ours.n_fields, ours.n_sequence_fields, ours.n_unnamed_fields) == (
        theirs.n_fields, theirs.n_sequence_fields, theirs.n_unnamed_fields)
    assert ours.__name__ == theirs.__name__


def test_every_torch_type_that_ndgrad_returns_exists():
    missing = {"linalg_ldl_factor", "linalg_ldl_factor_ex", "geqrf", "histogram", "histogramdd", "triangular_solve",
               "lu_unpack", "nanmedian", "frexp", "linalg_eig"}
    assert {n for n in TORCH_TYPES if not hasattr(ndgrad.return_types, n)} <= missing


def _pair(lib):
    return lib.return_types.linalg_slogdet((lib.tensor(1.0), lib.tensor(0.6931)))


def test_prints_like_torch():
    assert repr(_pair(ndgrad)) == repr(_pair(torch)).replace("torch.", "ndgrad.")
    assert str(_pair(ndgrad)) == str(_pair(torch)).replace("torch.", "ndgrad.")
    theirs = repr(torch.return_types.max(("a", 1))).replace("torch.", "ndgrad.")
    assert repr(ndgrad.return_types.max(("a", 1))) == theirs


def test_behaves_as_a_tuple():
    result = ndgrad.return_types.topk((1, 2))
    values, indices = result
    assert (values, indices) == (1, 2) == tuple(result)
    assert (result.values, result.indices, result[-1], len(result)) == (1, 2, 2, 2)
    assert result[:1] == (1,) and type(result[:1]) is tuple
    assert result + (3,) == (1, 2, 3)
    assert isinstance(result, tuple) and hash(result) == hash((1, 2))
    assert pickle.loads(pickle.dumps(result)) == result
    assert type(pickle.loads(pickle.dumps(result))) is ndgrad.return_types.topk


@pytest.mark.parametrize("call", [
    "lib.return_types.max((1,))",
    "lib.return_types.max((1, 2, 3))",
    "lib.return_types.max(1)",
    "lib.return_types.max((1, 2), 3)",
    "setattr(lib.return_types.max((1, 2)), 'values', 3)",
    "delattr(lib.return_types.max((1, 2)), 'values')",
])
def test_misuse_raises_like_torch(call):
    theirs = raised(call, torch)
    assert theirs is not None and raised(call, ndgrad) == theirs


def _matrix(lib):
    values = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    return lib.from_numpy(values)


RETURNS = [
    ("linalg.slogdet", lambda lib, a: lib.linalg.slogdet(a)),
    ("slogdet", lambda lib, a: lib.slogdet(a)),
    ("Tensor.slogdet", lambda lib, a: a.slogdet()),
    ("linalg.qr", lambda lib, a: lib.linalg.qr(a)),
    ("linalg.eigh", lambda lib, a: lib.linalg.eigh(a)),
    ("linalg.svd", lambda lib, a: lib.linalg.svd(a)),
    ("svd", lambda lib, a: lib.svd(a)),
    ("linalg.lstsq", lambda lib, a: lib.linalg.lstsq(a[:, :2], lib.ones(3, 2, dtype=a.dtype), driver="gelsd")),
    ("linalg.lu_factor", lambda lib, a: lib.linalg.lu_factor(a)),
    ("linalg.lu_factor_ex", lambda lib, a: lib.linalg.lu_factor_ex(a)),
    ("linalg.lu", lambda lib, a: lib.linalg.lu(a)),
    ("linalg.solve_ex", lambda lib, a: lib.linalg.solve_ex(a, a[0])),
    ("linalg.inv_ex", lambda lib, a: lib.linalg.inv_ex(a)),
    ("linalg.cholesky_ex", lambda lib, a: lib.linalg.cholesky_ex(a)),
    ("max", lambda lib, a: lib.max(a, 1)),
    ("min", lambda lib, a: lib.min(a, 0, keepdim=True)),
    ("sort", lambda lib, a: lib.sort(a)),
    ("topk", lambda lib, a: lib.topk(a, 2)),
    ("kthvalue", lambda lib, a: lib.kthvalue(a, 2)),
    ("mode", lambda lib, a: lib.mode(a)),
    ("median", lambda lib, a: lib.median(a, 1)),
    ("aminmax", lambda lib, a: lib.aminmax(a, dim=0)),
    ("cummax", lambda lib, a: lib.cummax(a, 1)),
    ("cummin", lambda lib, a: lib.cummin(a, 0)),
]


@pytest.mark.parametrize("call", [c for _, c in RETURNS], ids=[name for name, _ in RETURNS])
def test_functions_return_torchs_type_and_print_alike(call):
    ours, theirs = call(ndgrad, _matrix(ndgrad)), call(torch, _matrix(torch))
    assert type(ours).__name__ == type(theirs).__name__
    assert type(ours) is getattr(ndgrad.return_types, type(theirs).__name__)
    ndgrad.set_printoptions(precision=3)
    torch.set_printoptions(precision=3)
    try:
        assert repr(ours) == repr(theirs).replace("torch.", "ndgrad.")
    finally:
        ndgrad.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
