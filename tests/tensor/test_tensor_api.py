"""The Tensor API against torch: creation functions and their dtypes, attributes and conversions, in-place
methods with their version counters, Python protocols, NumPy interop, and autograd.Variable."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

# ---- creation: printed value, dtype and shape equal torch's ---------------------------------------------------------
CREATIONS = [
    "torch.tensor(1)",
    "torch.tensor(1.)",
    "torch.tensor(True)",
    "torch.tensor([1, 2])",
    "torch.tensor([1, 2.])",
    "torch.tensor([True, 1])",
    "torch.tensor([True, False])",
    "torch.tensor([])",
    "torch.tensor([[1], [2]])",
    "torch.tensor([[1], [2]], dtype=torch.float64)",
    "torch.tensor(2.5, dtype=torch.int64)",
    "torch.tensor(1j)",
    "torch.tensor(np.arange(3))",
    "torch.tensor(np.arange(3.))",
    "torch.tensor(np.ones(2, dtype=np.int16))",
    "torch.tensor(np.float32(2))",
    "torch.tensor(np.float64(2.))",
    "torch.tensor(np.int32(2))",
    "torch.tensor(np.bool_(True))",
    "torch.tensor([np.float64(1.), 2.])",
    "torch.tensor([np.int16(1), np.int16(2)])",
    "torch.tensor([np.float16(1)])",
    "torch.tensor([1, np.float64(2.)])",
    "torch.tensor([np.int32(1), 2])",
    "torch.tensor([torch.tensor(1.), torch.tensor(2.)])",
    "torch.tensor([[1, 2], [3, 4]], dtype=torch.uint8)",
    "torch.as_tensor([1, 2])",
    "torch.as_tensor(np.arange(3.))",
    "torch.as_tensor([1., 2.], dtype=torch.float64)",
    "torch.as_tensor(np.float64(2))",
    "torch.from_numpy(np.arange(3, dtype=np.int32))",
    "torch.from_numpy(np.arange(3.))",
    "torch.from_numpy(np.array([True]))",
    "torch.zeros(2, 3)",
    "torch.zeros((2, 3))",
    "torch.zeros([2])",
    "torch.zeros(2, dtype=torch.int8)",
    "torch.zeros(())",
    "torch.zeros(0)",
    "torch.zeros(2, 0, 3)",
    "torch.ones(2, 3)",
    "torch.ones(2, dtype=torch.bool)",
    "torch.ones(torch.Size([2, 1]))",
    "torch.ones(3, dtype=torch.float16)",
    "torch.full((2,), 3)",
    "torch.full((2,), 3.)",
    "torch.full((2,), True)",
    "torch.full((2, 2), 1.5, dtype=torch.float64)",
    "torch.full([2], 2, dtype=torch.float16)",
    "torch.full((2,), np.float64(2.))",
    "torch.full((), 7)",
    "torch.full((2,), np.int32(3))",
    "torch.full((2,), np.float32(3))",
    "torch.empty(2, 3).shape",
    "torch.empty(2, dtype=torch.int32).dtype",
    "torch.empty(0)",
    "torch.empty((2, 2)).dtype",
    "torch.eye(3)",
    "torch.eye(2, 3)",
    "torch.eye(3, 2)",
    "torch.eye(2, dtype=torch.int64)",
    "torch.eye(0)",
    "torch.arange(5)",
    "torch.arange(5.)",
    "torch.arange(1, 4)",
    "torch.arange(1, 4, 0.5)",
    "torch.arange(0, 1, 0.1)",
    "torch.arange(10, 0, -3)",
    "torch.arange(3, dtype=torch.float64)",
    "torch.arange(1., 4)",
    "torch.arange(0, 5, 2)",
    "torch.arange(torch.tensor(3))",
    "torch.arange(torch.tensor(3.))",
    "torch.arange(torch.tensor(1), 4)",
    "torch.arange(-2.5, 2.5)",
    "torch.arange(4, dtype=torch.int16)",
    "torch.linspace(0, 1, 5)",
    "torch.linspace(0, 10, 3, dtype=torch.float64)",
    "torch.linspace(-1, 1, 1)",
    "torch.linspace(0, 1, 0)",
    "torch.linspace(2, 10, 5)",
    "torch.zeros_like(torch.ones(2, dtype=torch.int32))",
    "torch.ones_like(torch.ones(2, 1))",
    "torch.full_like(torch.ones(2), 7)",
    "torch.full_like(torch.ones(2, dtype=torch.int64), 2.7)",
    "torch.empty_like(torch.ones(2, 2, dtype=torch.float64)).dtype",
    "torch.zeros_like(torch.ones(2), dtype=torch.int64)",
    "torch.ones_like(torch.ones(2, requires_grad=True))",
    "torch.zeros_like(torch.ones(2), requires_grad=True)",
    "torch.FloatTensor([1, 2])",
    "torch.DoubleTensor([1, 2])",
    "torch.LongTensor([1.7, 2])",
    "torch.FloatTensor(2, 3).shape",
    "torch.LongTensor(2).shape",
    "torch.IntTensor([1])",
    "torch.BoolTensor([1, 0])",
    "torch.ByteTensor([1, 2])",
    "torch.HalfTensor([1.5])",
    "torch.FloatTensor()",
    "torch.DoubleTensor(2, 2).dtype",
    "torch.Tensor([1, 2])",
    "torch.Tensor(2, 3).shape",
    "torch.Tensor(2, 3).dtype",
    "torch.Tensor()",
    "torch.Tensor([[1, 2], [3, 4]])",
    "torch.Tensor(torch.Size([2, 2])).shape",
    "torch.Tensor([True])",
    "torch.Tensor(np.arange(3))",
    "torch.zeros(2, requires_grad=True)",
    "torch.ones(2, 2, dtype=torch.float64, requires_grad=True)",
    "torch.tensor([1.], requires_grad=True)",
    "torch.arange(3., requires_grad=True)",
    "torch.eye(2, requires_grad=True)",
    "torch.full((2,), 2., requires_grad=True)",
    "torch.linspace(0, 1, 3, requires_grad=True)",
]


@pytest.mark.parametrize("expr", ["torch.zeros()", "torch.ones()", "torch.empty(dtype=torch.float64)",
                                  "torch.zeros(())", "torch.ones([])"])
def test_factories_need_a_size(same, expr):
    same(f"print({expr})")


@pytest.mark.parametrize("expr", CREATIONS)
def test_creation_matches_torch(same, expr):
    expected = same(f"v = {expr}\nprint(repr(v), getattr(v, 'dtype', ''), getattr(v, 'shape', ''))")
    assert expected.error is None and expected.stdout


def test_creation_dtypes_follow_default_dtype(same, default_float64):
    expected = same(
        """
print(torch.get_default_dtype(), torch.tensor(1.5).dtype, torch.tensor([1, 2.]).dtype, torch.ones(2).dtype,
      torch.zeros(1).dtype, torch.arange(2.).dtype, torch.rand(2).dtype, torch.randn(2).dtype,
      torch.linspace(0, 1, 3).dtype,
      torch.full((2,), 1.5).dtype, torch.empty(1).dtype, torch.eye(2).dtype, torch.Tensor([1]).dtype,
      torch.FloatTensor([1]).dtype, torch.tensor(1j).dtype, torch.tensor(np.float32(1)).dtype)
"""
    )
    assert expected.stdout.startswith("ndgrad.float64 ndgrad.float64")


RANDOM = [
    "torch.rand(2, 3)",
    "torch.rand((2,))",
    "torch.rand(0)",
    "torch.randn(4)",
    "torch.randn(2, dtype=torch.float64)",
    "torch.randn(2, 2, requires_grad=True)",
    "torch.randint(0, 10, (3,))",
    "torch.randint(5, (2, 2))",
    "torch.randint(3, 10, (2,), dtype=torch.int32)",
    "torch.normal(0., 1., (2, 3))",
    "torch.normal(torch.zeros(3), 1.)",
    "torch.normal(torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))",
    "torch.normal(2., torch.ones(2, 2))",
    "torch.rand_like(torch.ones(2, dtype=torch.float64))",
    "torch.randn_like(torch.ones(3, 1))",
    "torch.rand(3, dtype=torch.float16)",
]


@pytest.mark.parametrize("expr", RANDOM)
def test_random_shapes_dtypes_and_flags_match_torch(same, expr):
    """Random values differ between the libraries (different generators); everything else must not."""
    expected = same(f"v = {expr}\nprint(v.shape, v.dtype, v.requires_grad, v.is_leaf, v.grad_fn)")
    assert expected.error is None


def test_random_ranges():
    ndgrad.manual_seed(0)
    u = ndgrad.rand(10_000).numpy()
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.02
    n = ndgrad.randn(10_000).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    i = ndgrad.randint(3, 7, (10_000,)).numpy()
    assert set(np.unique(i)) == {3, 4, 5, 6}
    m = ndgrad.normal(5.0, 0.1, (10_000,)).numpy()
    assert abs(m.mean() - 5) < 0.01 and abs(m.std() - 0.1) < 0.01


def test_manual_seed_reproducible():
    ndgrad.manual_seed(123)
    first = [ndgrad.rand(3), ndgrad.randn(2, 2), ndgrad.randint(0, 100, (4,)), ndgrad.normal(0.0, 1.0, (2,))]
    ndgrad.manual_seed(123)
    second = [ndgrad.rand(3), ndgrad.randn(2, 2), ndgrad.randint(0, 100, (4,)), ndgrad.normal(0.0, 1.0, (2,))]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(first[0].numpy(), ndgrad.rand(3).numpy())
    assert ndgrad.initial_seed() == 123


@pytest.mark.parametrize(
    "expr",
    [
        "torch.rand(2, dtype=torch.int64)",
        "torch.randn(2, dtype=torch.int32)",
        "torch.rand(2, dtype=torch.bool)",
        "torch.normal(0., 1., (2,), dtype=torch.int64)",
        "torch.rand_like(torch.ones(2, dtype=torch.int64))",
    ],
)
def test_random_integer_dtype_error(same, expr):
    expected = same(expr)
    assert expected.error is not None and expected.error[0] == "NotImplementedError"


def test_legacy_types_isinstance_and_type(same):
    expected = same(
        """
t = torch.ones(2)
print(isinstance(t, torch.FloatTensor), isinstance(t, torch.LongTensor), isinstance(t, torch.Tensor))
print(t.type(), torch.ones(2, dtype=torch.int64).type(), t.type(torch.float64).dtype, type(t), type(t.shape))
print(isinstance(torch.tensor([1]), torch.LongTensor), isinstance(torch.tensor([1.]), torch.DoubleTensor))
"""
    )
    assert expected.stdout.splitlines()[1].endswith("<class 'ndgrad.Tensor'> <class 'ndgrad.Size'>")


# ---- sharing memory ----------------------------------------------------------------------------------------------
def test_from_numpy_and_as_tensor_share_memory(same):
    expected = same(
        """
a = np.zeros(3)
t = torch.from_numpy(a)
t.add_(1)
a[0] = 9
print(a, t, t._version)
b = np.zeros(3, dtype=np.float32)
u = torch.as_tensor(b)
b[1] = 4
print(u)
u2 = torch.as_tensor(b, dtype=torch.float64)
b[2] = 1
print(u2)
c = np.zeros(2)
v = torch.tensor(c)
c[0] = 1
print(v)
w = torch.ones(2)
print(torch.as_tensor(w) is w, torch.as_tensor(w, dtype=torch.float64) is w)
"""
    )
    assert expected.stdout.splitlines()[0] == "[9. 1. 1.] tensor([9., 1., 1.], dtype=ndgrad.float64) 1"


def test_numpy_and_asarray_share_memory(same):
    expected = same(
        """
t = torch.zeros(3)
a = t.numpy()
a[0] = 5
b = np.asarray(t)
b[1] = 7
print(t, type(a).__name__, a.dtype, np.shares_memory(a, b), torch.ones(2, dtype=torch.int32).numpy().dtype)
print(np.asarray(torch.ones(2), dtype=np.float64).dtype, t.detach().numpy()[1])
"""
    )
    assert expected.stdout.startswith("tensor([5., 7., 0.]) ndarray float32 True int32")


# ---- attributes and conversions ------------------------------------------------------------------------------------
def test_metadata(same):
    same(
        """
t = torch.arange(6.).reshape(2, 3)
print(t.shape, t.size(), t.size(1), t.size(-1), t.dim(), t.ndim, t.numel(), t.dtype, t.device, t.is_leaf)
print(t.T, t.T.shape, t.tolist(), torch.tensor(5).tolist(), t.element_size(), t.is_floating_point(), t.stride())
print(t.requires_grad, t.grad, t.grad_fn, t.is_contiguous(), t.t().is_contiguous(), t.nelement())
"""
    )



@pytest.mark.parametrize("expr", ["size(0)", "size(-1)", "stride(0)", "size(1)", "size(2)"])
@pytest.mark.parametrize("shape", ["(())", "((2, 3))"])
def test_size_and_stride_dim_errors(same, shape, expr):
    same(f"print(torch.zeros{shape}.{expr})")

def test_item_and_scalar_types(same):
    same(
        """
t = torch.arange(6.).reshape(2, 3)
for v in (t[0, 1].item(), torch.tensor(3).item(), torch.tensor(True).item(), torch.tensor([2.5]).item(),
          torch.tensor([[7]], dtype=torch.int8).item(), torch.tensor(1.5, dtype=torch.float64).item()):
    print(repr(v), type(v).__name__)
"""
    )


def test_dtype_conversions(same):
    same(
        """
t = torch.tensor([[0., 1.5], [-2.7, 3.]])
print(t.float().dtype, t.double(), t.long(), t.int(), t.bool(), t.half(), t.to(torch.int16))
print(t.to(torch.float32) is t, t.to('cpu') is t, t.to(t) is t, t.float() is t, t.to(torch.float64).dtype)
print(t.to(torch.ones(1, dtype=torch.int64)), t.to('cpu', torch.float64).dtype, t.to(dtype=torch.int8))
x = torch.tensor([1.5], requires_grad=True)
print(x.double(), x.double().grad_fn, x.to(torch.int64).requires_grad, x.float() is x)
print(t.cfloat(), t.cdouble().dtype, t.short(), t.byte().dtype, t.char(), x.cdouble(), x.cfloat().grad_fn)
"""
    )


def test_clone_and_detach(same):
    expected = same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
c = x.clone()
print(c, c.is_leaf, c.grad_fn, c._version)
c.add_(1)
print(x, c)
c.sum().backward()
print(x.grad)
d = x.detach()
print(d.requires_grad, d.is_leaf, d._version)
y = x * 2
y.detach_()
print(y, y.requires_grad, y.grad_fn, y.is_leaf)
"""
    )
    assert expected.stdout.splitlines()[2] == "tensor([1., 1.])"


def test_data_get_and_set(same):
    expected = same(
        """
x = torch.ones(2, requires_grad=True)
y = x * 2
print(y.data, y.data.requires_grad, y.data.grad_fn, y.data.is_leaf)
y.data.add_(10)
print(y, y._version)
x.data.mul_(3)
print(x, x._version)
x.data = torch.tensor([5., 6.])
print(x, x.requires_grad, x._version, x.grad_fn, x.is_leaf)
(x * x).sum().backward()
print(x.grad)
"""
    )
    assert expected.stdout.splitlines()[-1] == "tensor([10., 12.])"


def test_in_place_methods_and_version_counters(same):
    same(
        """
t = torch.ones(3)
print(t._version)
t.add_(1); print(t._version)
t.sub_(1); t.mul_(2); t.div_(2); print(t._version, t)
t.zero_(); print(t._version, t)
t.fill_(3); print(t._version, t)
t += 1; print(t._version)
t *= 2; print(t._version)
t -= 1; t /= 2; print(t._version, t)
print(t.add_(1) is t, t.zero_() is t, t.fill_(2.5) is t, t._version)
v = t.view(3); v.add_(1); print(t._version, v._version, t)
d = t.detach(); d.mul_(2); print(t._version, d._version, t)
c = t.clone(); c.add_(1); print(t._version, c._version, t)
w = t.data; w.add_(1); print(t._version, w._version, t)
t.data = torch.zeros(3); print(t._version, t)
print(t[0]._version, t.reshape(3)._version, t.clone()._version)
t[0:1].add_(5); print(t._version, t)
u = torch.ones(2, 2); u.add_(torch.ones(2)); u.sub_(torch.ones(2), alpha=0.5); u.add_(2, alpha=3); print(u, u._version)
i = torch.tensor([1, 2]); i.add_(3); i.mul_(2); i.add_(True); print(i, i._version)
j = torch.tensor([1, 2], dtype=torch.int32); j.add_(torch.tensor(5, dtype=torch.int64)); print(j, j.dtype)
h = torch.ones(2, dtype=torch.float16); h.add_(torch.ones(2, dtype=torch.float64)); print(h, h.dtype)
b = torch.tensor([True, False]); b.mul_(True); print(b)
"""
    )


def test_in_place_on_non_leaf_moves_grad_fn(same):
    expected = same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = x + 0
y.mul_(x)
print(y, y.grad_fn, y._version)
y.add_(1).div_(x + 1)
print(y.grad_fn)
y.sum().backward()
print(x.grad)
w = torch.ones(2, requires_grad=True)
z = torch.ones(2)
z.mul_(w)
print(z.grad_fn, z.is_leaf, z.requires_grad)
z.sum().backward()
print(w.grad)
q = x * 1
q.zero_()
print(q.grad_fn)
q2 = x * 1
q2.fill_(2.)
print(q2.grad_fn)
"""
    )
    assert "MulBackward0" in expected.stdout.splitlines()[0]


def test_requires_grad_on_non_leaf_true_is_allowed(same):
    expected = same(
        "x = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.requires_grad_() is y, y.requires_grad, y.is_leaf)"
    )
    assert expected.stdout == "True True False"


def test_fill_with_tensor_value(same):
    """torch records FillBackward3, with an edge to the value, which gets the sum of the gradient."""
    same(
        "x = torch.ones(3, requires_grad=True)\nv = torch.tensor(2., requires_grad=True)\ny = x + 0\ny.fill_(v)\n"
        "print(y.grad_fn)\ny.sum().backward()\nprint(v.grad)"
    )


# ---- Python protocols --------------------------------------------------------------------------------------------
def test_python_protocols(same):
    same(
        """
t = torch.tensor([1., 2., 3.])
print(len(t), [e for e in t], list(torch.ones(2, 2)), len(torch.zeros(0)), list(torch.zeros(0)))
print(bool(torch.tensor([1.])), bool(torch.tensor(0.)), bool(torch.tensor([[True]])))
print(float(torch.tensor([2.5])), int(torch.tensor([[3.7]])), int(torch.tensor(-3.7)), float(torch.tensor(3)))
print(complex(torch.tensor(2.)), [10, 20, 30][torch.tensor(2)], [10, 20, 30][torch.tensor([1])], hex(torch.tensor(255)))
import operator
print(operator.index(torch.tensor(3, dtype=torch.int8)), [1, 2][torch.tensor(True)], f'{torch.tensor(2.5):.3f}')
b = torch.tensor([True])
print(bool(b), int(b), float(b), [1, 2][b])
for row in torch.arange(6).reshape(3, 2):
    print(row, row.shape)
x = torch.tensor([1., 2.], requires_grad=True)
print(int(x[0]), bool(x[1]), [e.detach() for e in x])
"""
    )


def test_iteration_node_name(same):
    same("x = torch.tensor([1., 2.], requires_grad=True)\nprint([e for e in x])")


def test_hash_by_identity_and_dict_keys(same):
    expected = same(
        """
t = torch.tensor([1., 2., 3.])
c = t.clone()
d = {t: 'a', c: 'b'}
print(d[t], d[c], len(d), hash(t) == hash(t), hash(t) == id(t) or hash(t) != hash(c), t in d)
print(torch.tensor([1., 2., 3.]) in d, t in {t}, len({t, t, c}))
print(bool((t == c).sum() == 3), t is not c)
"""
    )
    assert expected.stdout.splitlines()[0] == "a b 2 True True True"


# ---- NumPy operands ----------------------------------------------------------------------------------------------
NUMPY_SCALAR_OPS = [
    "np.float64(2.) * torch.ones(2)",
    "np.float32(2.) + torch.ones(2, dtype=torch.float64)",
    "np.int64(3) - torch.ones(2)",
    "np.int32(2) ** torch.arange(3)",
    "torch.ones(2) * np.float64(2)",
    "torch.arange(2) * np.float64(2.5)",
    "torch.arange(2) + np.int32(2)",
    "torch.ones(2) > np.float64(0.5)",
    "np.float64(2.) * torch.ones(2, requires_grad=True)",
    "np.int64(2) * torch.ones(2, dtype=torch.int8)",
    "np.float32(2) * torch.ones(2, dtype=torch.float16)",
    "torch.ones(2) * np.ones(2)",
    "torch.ones(2, dtype=torch.int32) + np.ones(2, dtype=np.int64)",
    "torch.ones(2) @ np.ones(2, dtype=np.float32)",
]


@pytest.mark.parametrize("expr", NUMPY_SCALAR_OPS)
def test_numpy_operands_give_tensors_like_torch(same, expr):
    expected = same(f"v = {expr}\nprint(repr(v), type(v).__name__)")
    assert expected.stdout.endswith(" Tensor")


@pytest.mark.parametrize(
    ("array", "op", "right"),
    [
        (np.ones(2), "*", "torch.ones(2)"),
        (np.ones(2, dtype=np.float32), "+", "torch.ones(2)"),
        (np.arange(3), "-", "torch.ones(3)"),
        (np.full(2, 3.0), "/", "torch.tensor([1.0, 2.0])"),
        (np.arange(4).reshape(2, 2), "//", "torch.tensor([1, 3], dtype=torch.int32)"),
        (np.eye(2), "@", "torch.ones(2, 2, dtype=torch.float64)"),
        (np.array([1.0, 5.0]), "<", "torch.tensor([2.0, 2.0])"),
        (np.array(2.0), "**", "torch.tensor([1.0, 3.0])"),
    ],
    ids=str,
)
def test_ndarray_on_the_left_gives_a_tensor(array, op, right):
    """ndgrad's own spec (torch raises TypeError here): NumPy defers to the Tensor, and the result is what torch
    computes with the array turned into a tensor first."""
    result = eval(f"array {op} {right}", {"array": array.copy(), "torch": ndgrad})
    reference = eval(f"torch.from_numpy(array) {op} {right}", {"array": array.copy(), "torch": torch})
    assert isinstance(result, ndgrad.Tensor)
    assert str(result.dtype) == str(reference.dtype).replace("torch.", "ndgrad.")
    assert_close(result, reference)


def test_ndarray_on_the_left_with_grad():
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0], dtype=np.float32) * x
    assert isinstance(y, ndgrad.Tensor) and y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])


# ---- autograd.Variable -------------------------------------------------------------------------------------------
def test_variable_returns_a_tensor(same):
    expected = same(
        """
x = torch.autograd.Variable(torch.ones(2), requires_grad=True)
print(x, type(x), x.is_leaf, x.grad_fn)
y = torch.autograd.Variable(torch.ones(2))
print(y, y.requires_grad)
(x * 3).sum().backward()
print(x.grad)
"""
    )
    assert expected.stdout.splitlines()[0] == "tensor([1., 1.], requires_grad=True) <class 'ndgrad.Tensor'> True None"


def test_typename(same):
    same("print(torch.typename(torch.ones(1)), torch.typename(torch.ones(1, dtype=torch.int64)), torch.typename(3), "
         "torch.typename([1]), torch.typename(torch.nn.Linear(1, 1)), torch.typename(torch.nn.Linear))")
