"""Every code example of the three seed tutorials (shared/seeds/) runs with ``import ndgrad as torch`` and prints
exactly what torch prints. Obvious typos in the tutorials are fixed and marked; random tensors are drawn once
from torch's generator and handed to both libraries as literal values."""

import numpy as np
import pytest
import torch

import ndgrad


def torch_randn(*shape, seed=0):
    """Values drawn by torch's own generator, so that both libraries see the same "random" tensor."""
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator).tolist()


# ---- seed 002: "PyTorch 入门 (二) 自动求导 (Autograd)" -----------------------------------------------------------
SEED_002_BASICS = """
import torch
x = torch.ones(2,2,requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)
"""


def test_seed_002_ones_plus_two_mean_backward_gives_4_5(same):
    expected = same(SEED_002_BASICS)
    assert "<AddBackward0 object at 0x?>" in expected.stdout
    assert "grad_fn=<MulBackward0>" in expected.stdout and "grad_fn=<MeanBackward0>" in expected.stdout
    assert expected.stdout.endswith("tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])")
    # the maths the seed quotes: d/dx mean(3 (x + 2)^2) = 3/2 (x + 2) = 4.5 at x = 1
    x = ndgrad.ones(2, 2, requires_grad=True)
    (3 * (x + 2) ** 2).mean().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 1.5 * 3))


def test_seed_002_print_z_out_typo_raises_attribute_error(same):
    """The tutorial literally prints ``z.out``; that fails the same way in both."""
    expected = same(SEED_002_BASICS.replace("print(z, out)", "print(z.out)"))
    assert expected.error == ("AttributeError", "'Tensor' object has no attribute 'out'")


def test_seed_002_requires_grad_in_place_verbatim(same):
    """Verbatim (torch.randn and all): everything it prints is independent of the random values."""
    expected = same(
        """
import torch
a = torch.randn(2,2)
a = ((a* 3) / (a-1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)
"""
    )
    assert expected.stdout == "False\nTrue\n<SumBackward0 object at 0x?>"


def test_seed_002_requires_grad_in_place_same_values(same):
    expected = same(
        """
a = torch.tensor(A)
a = ((a* 3) / (a-1))
print(a, a.requires_grad)
a.requires_grad_(True)
b = (a * a).sum()
print(a, b)
""",
        {"A": torch_randn(2, 2)},
    )
    assert "grad_fn=<SumBackward0>" in expected.stdout


# NOTE: the tutorial's ``torch.tensor(p0.1, 1.0, 0.0001], ...)`` is a typo for ``[0.1, 1.0, 0.0001]``.
SEED_002_LOOP = """
x = torch.tensor(X, requires_grad=True)
y = x* 2
while y.data.norm() < 1000:
\ty = y * 2

print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)

print(x.grad)
print(x.requires_grad)
print((x ** 2).requires_grad)

with torch.no_grad():
\tprint((x ** 2).requires_grad)
"""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seed_002_vector_jacobian_product_loop(same, seed):
    expected = same(SEED_002_LOOP, {"X": torch_randn(3, seed=seed)})
    assert "grad_fn=<MulBackward0>" in expected.stdout
    assert expected.stdout.endswith("True\nTrue\nFalse")


def test_seed_002_loop_verbatim_random_gradient_is_v_times_power_of_two():
    """With ndgrad's own randn: x.grad = v * 2^k, where y = 2^k x (maths, not torch)."""
    ndgrad.manual_seed(0)
    x = ndgrad.randn(3, requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    v = ndgrad.tensor([0.1, 1.0, 0.0001], dtype=ndgrad.float)
    y.backward(v)
    factor = y.detach().numpy() / x.detach().numpy()
    assert np.allclose(factor, factor[0]) and np.log2(factor[0]).is_integer()
    np.testing.assert_allclose(x.grad.numpy(), v.numpy() * factor[0])
    assert np.linalg.norm(y.detach().numpy()) >= 1000 > np.linalg.norm(y.detach().numpy()) / 2


# ---- seed 004: "Pytorch 深度学习: 自动微分" ------------------------------------------------------------------------
SEED_004_DOT = """
import torch
x = torch.arange(4.0)
x.requires_grad_(True) # 等价于x=torch.arange(4.0,requires_grad=True)
# 此时x.grad默认值是None
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward() #反向传播，计算y关于x的每个分量的梯度
print(x.grad) #梯度保存在这里，结果为：tensor([ 0., 4., 8., 12.])
print(x.grad == 4 * x)
"""


def test_seed_004_dot_gradient(same):
    expected = same(SEED_004_DOT)
    assert expected.stdout == (
        "None\ntensor(28., grad_fn=<MulBackward0>)\ntensor([ 0.,  4.,  8., 12.])\ntensor([True, True, True, True])"
    )


def test_seed_004_zero_grad_then_sum(same):
    expected = same(
        SEED_004_DOT
        + """
# 在默认情况下，PyTorch会累积梯度，我们需要清除之前的值
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
"""
    )
    assert expected.stdout.endswith("tensor([1., 1., 1., 1.])")


def test_seed_004_non_scalar_backward_by_sum(same):
    expected = same(
        SEED_004_DOT
        + """
x.grad.zero_()
y = x * x #y=(x1^2,...,x4^2)，是一个向量
y.sum().backward()
print(x.grad)
"""
    )
    assert expected.stdout.endswith("tensor([0., 2., 4., 6.])")


def test_seed_004_non_scalar_backward_with_ones_gradient(same):
    expected = same(
        SEED_004_DOT
        + """
x.grad.zero_()
y = x * x
y.backward(torch.ones(len(x)))
print(x.grad)
"""
    )
    assert expected.stdout.endswith("tensor([0., 2., 4., 6.])")


def test_seed_004_non_scalar_backward_without_gradient_raises(same):
    expected = same(
        SEED_004_DOT
        + """
x.grad.zero_()
y = x * x
y.backward()
"""
    )
    assert expected.error == ("RuntimeError", "grad can be implicitly created only for scalar outputs")


def test_seed_004_detach(same):
    """x = arange(4.) here does not require grad, as written; the next test gives the intended version."""
    expected = same(
        """
import torch
x = torch.arange(4.0)
y = x * x # y = (x1^2,...,x4^2) = (1,4,9,16)
u = y.detach() # u = (1,4,9,16)
z = u * x # z = (x1, 4*x2, 9*x3, 16*x4)
z.sum().backward()
"""
    )
    assert expected.error == ("RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn")


def test_seed_004_detach_gives_x_grad_equal_to_u(same):
    expected = same(
        """
import torch
x = torch.arange(4.0, requires_grad=True)
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
print(u, u.requires_grad, u.is_leaf, u.grad_fn)
u.requires_grad_(True)
print(u.requires_grad, u.is_leaf, u.grad_fn)
"""
    )
    assert expected.stdout.splitlines()[0] == "tensor([True, True, True, True])"


def test_seed_004_grad_of_non_leaf_is_none_with_warning(same):
    expected = same(
        """
import torch
x = torch.arange(4.0, requires_grad=True)
y = x * x
z = y * x
z.sum().backward()
print(y.grad)
# 结果为None
"""
    )
    assert expected.stdout == "None"
    assert len(expected.warnings) == 1 and expected.warnings[0][0] == "UserWarning"
    assert "is not a leaf Tensor is being accessed" in expected.warnings[0][1]


def test_seed_004_double_backward_raises(same):
    expected = same(
        """
import torch
x = torch.arange(4.0, requires_grad=True)
y = x * x
z = y * x
z.sum().backward()
z.sum().backward()
"""
    )
    assert expected.error[0] == "RuntimeError"
    assert "Saved intermediate values of the graph are freed when you call .backward() or autograd.grad()" in (
        expected.error[1]
    )


# ---- seed 000: autograd explained (the snippets its prose describes) ----------------------------------------------
def test_seed_000_graph_members(same):
    """data, requires_grad, grad, grad_fn and is_leaf of x = 1.0 (requires grad), y = 2.0 and z = x * y."""
    expected = same(
        """
import torch
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0)
z = x * y
for t in (x, y):
    print(t.data, t.requires_grad, t.grad, t.grad_fn, t.is_leaf)
print(z.data, z.requires_grad, z.grad_fn, z.is_leaf)
z.backward(torch.tensor(1.0))
print(x.grad, y.grad)
"""
    )
    assert expected.stdout.splitlines()[-1] == "tensor(2.) None"


def test_seed_000_leaf_rules(same):
    expected = same(
        """
import torch
a = torch.tensor(1.0)
b = torch.randn(1, 1)
print(a.is_leaf, b.is_leaf, b.shape)
c = torch.tensor(2.0) * torch.tensor(3.0)
print(c.is_leaf, c.grad_fn)
d = (torch.tensor(2.0, requires_grad=True) * 3).detach()
print(d.is_leaf, d.requires_grad)
a.requires_grad_(True)
print(a.requires_grad, a.is_leaf)
"""
    )
    assert expected.stdout == "True True ndgrad.Size([1, 1])\nTrue None\nTrue False\nTrue True"


SEED_000_VECTOR = """
import torch
x = torch.tensor([0.0, 2.0, 8.0], requires_grad = True)
y = torch.tensor([5.0 , 1.0 , 7.0], requires_grad = True)
z = x * y
print(z)
"""


def test_seed_000_float_tensor_gradient(same):
    # NOTE: the tutorial writes ``Torch.FloatTensor``; the capital T is a typo.
    expected = same(SEED_000_VECTOR + "z.backward(torch.FloatTensor([1.0, 1.0, 1.0]))\nprint(x.grad, y.grad)\n")
    assert expected.stdout.endswith("tensor([5., 1., 7.]) tensor([0., 2., 8.])")


def test_seed_000_non_scalar_backward_raises(same):
    expected = same(SEED_000_VECTOR + "z.backward()\n")
    assert expected.error == ("RuntimeError", "grad can be implicitly created only for scalar outputs")


def test_seed_000_no_grad(same):
    expected = same(
        """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y, y.requires_grad, y.grad_fn, y.is_leaf)
"""
    )
    assert expected.stdout == "tensor([2., 4.]) False None True"
