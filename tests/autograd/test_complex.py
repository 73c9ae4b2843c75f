"""Autograd with complex numbers, compared with torch running the same code: the conjugate Wirtinger gradients of
leaves, real leaves of complex ops, the real/imaginary views and their writes, conj and its bit, the complex API,
factories and casts, gradcheck on complex functions, and forward mode."""

import warnings

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad.ops import shape


def test_gradient_of_a_complex_leaf(same):
    same("""
x = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
print(x)
(x * x).abs().sum().backward()
print(x.grad, x.grad.dtype, x.is_leaf)
y = (x * (2 - 1j)).exp().sum()
print(y)
torch.autograd.backward(y.real)
print(x.grad)
""")


def test_real_leaf_of_a_complex_op_gets_a_real_gradient(same):
    same("""
x = torch.tensor([1.0, -2.0], requires_grad=True)
w = torch.tensor([0.5 + 1j, -1 + 2j], requires_grad=True)
out = (x * w).abs().sum() + (x.to(torch.complex64) ** 2).imag.sum()
out.backward()
print(x.grad, w.grad)
print(torch.autograd.grad((torch.polar(x.abs() + 1, x) * w).real.sum(), x))
""")


def test_complex_gradient_for_real_loss_through_several_ops(same):
    same("""
z = torch.tensor([[0.3 + 0.4j, -1.2 + 0.1j], [0.7 - 0.9j, 0.2 + 1.5j]], dtype=torch.complex128, requires_grad=True)
m = torch.tensor([[1.0 - 1j, 0.5j], [2.0, -1.0 + 0.25j]], dtype=torch.complex128)
loss = ((m @ z).sin() / (z.conj() + 3)).abs().pow(2).mean() + z.angle().sum() + torch.linalg.vecdot(z, m).real.sum()
loss.backward()
print(loss, z.grad)
g, = torch.autograd.grad((z.exp() * z.sgn()).imag.sum(), z, create_graph=True)
print(g)
print(torch.autograd.grad(g.abs().sum(), z))
""")


def test_backward_of_a_complex_output(same):
    same("""
x = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
y = x * 1j
y.backward(torch.tensor([1 + 0j, 1j]))
print(x.grad)
try:
    y.sum().backward()
except RuntimeError as error:
    print(error)
""")


def test_real_and_imag_are_views(same):
    same("""
z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
r, i = z.real, z.imag
print(r, i, r._is_view(), r._base is z)
print(r.grad_fn.next_functions, torch.real(z).grad_fn, torch.imag(z).grad_fn)
(r * i).sum().backward()
print(z.grad)
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(x.real is x, torch.real(x) is x)
try:
    x.imag
except RuntimeError as error:
    print(error)
""")


def test_writes_through_real_and_imag(same):
    same("""
y = torch.tensor([1 + 2j, 3 - 1j])
y.real.mul_(2)
y.imag[0] = 5
print(y)
y.real = torch.tensor([0.5, -0.5])
y.imag = torch.tensor([7.0, 8.0])
print(y)
w = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
v = w * 1
v.real.mul_(3)
print(v, v.grad_fn)
v.abs().sum().backward()
print(w.grad)
""")


def test_conj_and_its_bit(same):
    same("""
z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
w = z.conj()
print(w, w.is_conj(), w[0].is_conj(), w.T.is_conj(), (w + 1).is_conj(), z.is_conj())
print(w.resolve_conj(), w.resolve_conj().is_conj(), z.resolve_conj() is z)
print(z.conj_physical(), z.conj_physical().is_conj(), torch.conj_physical(z).grad_fn)
x = torch.tensor([1.0, 2.0])
print(x.conj() is x, x.conj_physical() is x, x.resolve_conj() is x, torch.is_conj(x))
for call in (lambda: w.detach().resolve_conj().numpy(), lambda: torch.view_as_real(w)):
    try:
        print(call())
    except RuntimeError as error:
        print(error)
(w * w).real.sum().backward()
print(z.grad)
""")


def test_complex_api(same):
    same("""
re = torch.tensor([1.0, -2.0, 0.0], requires_grad=True)
im = torch.tensor([0.5, 0.0, -3.0], requires_grad=True)
c = torch.complex(re, im)
p = torch.polar(re.abs() + 1, im)
print(c, p, c.is_complex(), re.is_complex(), torch.is_complex(c))
print(c.abs(), c.angle(), c.sgn(), torch.isreal(c), re.angle())
v = torch.view_as_real(c)
print(v, torch.view_as_complex(v), torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
(v.sum() + p.imag.sum() + c.angle().sum()).backward()
print(re.grad, im.grad)
print(c.mH, torch.tensor([[1 + 1j, 2], [3j, 4]]).H, torch.tensor([[1 + 1j, 2], [3j, 4]]).adjoint())
""")


def test_complex_factories_and_casts(same):
    same("""
print(torch.zeros(2, dtype=torch.complex64), torch.ones(2, 1, dtype=torch.cfloat), torch.full((2,), 1 - 2j))
print(torch.tensor([1, 2j]), torch.tensor(1.5 + 0j, dtype=torch.complex128), torch.tensor([1.0]).to(torch.cdouble))
print(torch.randn(3, dtype=torch.complex64).dtype, torch.rand(2, 2, dtype=torch.complex128).shape)
print(torch.zeros_like(torch.ones(2), dtype=torch.complex64), torch.empty(0, dtype=torch.complex128))
print(torch.full((1,), 2 + 0j, dtype=torch.int8), torch.zeros(2, dtype=torch.bool).fill_(1j))
print(torch.ones(2).fill_(3 + 0j))
z = torch.tensor([1 + 2j, -0.5 + 0j])
print(z.to(torch.complex128), z.bool(), z[1].item(), z.tolist(), complex(z[0]), float(z[1]), int(z[1]))
print(torch.ones(2, dtype=torch.float64) + z, torch.result_type(z, 1.0))
print(torch.promote_types(torch.float64, torch.cfloat))
""")


def test_casting_complex_to_real_warns_as_torch_does():
    """PyTorch warns once per process (its warning says so); a fresh flag stands for a fresh process here."""
    shape._Warned.complex_to_real = False
    z = ndgrad.tensor([1 + 2j, 3 - 1j])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert z.float().tolist() == [1.0, 3.0]
        z.double()
        ndgrad.zeros(2).copy_(z)
    assert [(w.category, str(w.message)) for w in caught] == [
        (UserWarning, "Casting complex values to real discards the imaginary part")  # torch's text
    ]


def test_gradcheck_on_complex_functions():
    def fn(lib):
        return lambda z, x: ((z * x).sin() * z.conj(), (z.abs() * x).sum())

    for lib in (ndgrad, torch):
        z = lib.tensor([0.3 + 0.4j, -1.2 + 0.5j], dtype=lib.complex128, requires_grad=True)
        x = lib.tensor([0.7, -0.2], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(fn(lib), (z, x))
        assert lib.autograd.gradcheck(fn(lib), (z, x), fast_mode=True)
        assert lib.autograd.gradgradcheck(fn(lib), (z, x))


class _NoConjugate:
    """A Function whose backward forgets to conjugate: gradcheck must reject it, in torch's words."""

    @staticmethod
    def make(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, z):
                ctx.save_for_backward(z)
                return z * z

            @staticmethod
            def backward(ctx, grad):
                (z,) = ctx.saved_tensors
                return grad * 2 * z

        return Square


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_reports_complex_mismatches_as_torch(fast_mode):
    messages = []
    for lib in (torch, ndgrad):
        z = lib.tensor([0.3 + 0.4j], dtype=lib.complex128, requires_grad=True)
        with pytest.raises(RuntimeError) as info:  # GradcheckError, a RuntimeError
            lib.autograd.gradcheck(_NoConjugate.make(lib).apply, (z,), fast_mode=fast_mode)
        messages.append(str(info.value).split("\n")[0])
    assert messages[1] == messages[0]


def test_forward_mode_with_complex_tangents():
    z0, t0 = np.array([1 + 2j, -0.5 + 1j]), np.array([0.5 - 1j, 2 + 1j])
    results = []
    for lib in (torch, ndgrad):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            z = fw.make_dual(lib.from_numpy(z0.copy()), lib.from_numpy(t0.copy()))
            x = fw.make_dual(lib.from_numpy(z0.real.copy()), lib.from_numpy(np.ones(2)))
            outs = [z.abs(), z.angle(), z.real, z.imag, z.conj(), z * z, (x * z).exp(), x.to(lib.complex128) * 1j]
            results.append([np.array(fw.unpack_dual(o).tangent.resolve_conj().numpy()) for o in outs])
    for ours, theirs in zip(results[1], results[0]):
        assert ours.dtype == theirs.dtype
        assert_close(ours, theirs)


COMPOSITES = [  # functions built from other ops: their complex gradients follow from those ops' rules
    "lib.outer(a[0], b[1])", "lib.inner(a, b)", "lib.kron(a, b)", "lib.tensordot(a, b, ([1], [1]))",
    "lib.einsum('ij,kj->ik', a, b)", "lib.einsum('ii->i', a[:, :2])", "lib.matmul(a.unsqueeze(0), b.mT)",
    "lib.linalg.multi_dot([a, b.mT, a])", "lib.linalg.matrix_power(a[:, :2], 3)", "a.mH @ b",
    "lib.nn.functional.softsign(a)", "lib.nn.functional.tanhshrink(a)", "lib.nanmean(a.abs())",
    "lib.cat([a, b]).flip(0).roll(1, 1)[1:, ::2]", "lib.where(a.real > 0, a, b)", "a.masked_fill(a.real > 0, 2j)",
]


@pytest.mark.parametrize("expression", COMPOSITES)
def test_composites_of_complex_tensors(expression):
    rng = np.random.default_rng(5)
    values = [rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)) for _ in range(2)]  # a and b
    results = []
    for lib in (torch, ndgrad):
        a, b = (lib.from_numpy(v.copy()).requires_grad_() for v in values)
        out = eval(expression, {"lib": lib, "a": a, "b": b})
        weights = np.random.default_rng(6).standard_normal(tuple(out.shape)) * (1 - 0.5j)
        weights = lib.from_numpy(np.asarray(weights)).to(out.dtype)
        grads = lib.autograd.grad((out * weights).real.sum(), (a, b), allow_unused=True)
        results.append([np.array(t.detach().resolve_conj().numpy()) if t is not None else None for t in (out, *grads)])
    for ours, theirs in zip(results[1], results[0]):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            assert_close(ours, theirs)
