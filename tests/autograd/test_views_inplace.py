"""Views and in-place semantics against torch: shared memory and version counters, _base, the base's new history
(CopySlices) after a write through a view, rebuilt view histories, and the in-place writes torch refuses."""

import pytest

BASICS = "x = torch.tensor([1., 2., 3., 4.], requires_grad=True)\nw = torch.tensor([1., 10., 100., 1000.])\n"


@pytest.mark.parametrize(
    "code",
    [
        # a write through a view: the base's history becomes CopySlices
        "z = x.clone()\nz[0].mul_(2)\nprint(z, z.grad_fn)\n(z * w).sum().backward()\nprint(x.grad)",
        "z = x * 1\nz[1:3].add_(x[:2] * x[2:])\nprint(z)\n(z * w).sum().backward()\nprint(x.grad)",
        "z = x.clone().view(2, 2)\nz.t()[0].mul_(3)\nprint(z)\n(z * w.view(2, 2)).sum().backward()\nprint(x.grad)",
        "z = x.clone()\nz[::2].mul_(x[1:3])\nz[1:].mul_(z[:3])\n(z * w).sum().backward()\nprint(x.grad)",
        # views of the written base get histories rebuilt from it (torch shows AsStridedBackward0)
        "z = x.clone()\nv = z[1:]\nz[:2].mul_(3)\nprint(v, v.grad_fn)\n(v * w[1:]).sum().backward()\nprint(x.grad)",
        "z = x * 1\nv = z[0]\nz.mul_(2)\nprint(v, v.grad_fn)\nv.backward()\nprint(x.grad)",
        "z = x * 1\na, b = z[:3], z[1:]\na.mul_(2)\nb.mul_(3)\nprint(z, a, b)\n(z * w).sum().backward()\nprint(x.grad)",
        # a base that did not require grad joins the graph through a view
        "z = torch.zeros(4)\nv = z[:2]\nz[1].add_(x[0] * 5)\nprint(z, z.grad_fn, v.requires_grad)\n"
        "v.sum().backward()\nprint(x.grad)",
        # a view of a view: _base is the root
        "z = x * 2\nv = z.view(2, 2)[1]\nv.mul_(x[:2])\nprint(v._base is z, z)\n"
        "(z * w).sum().backward()\nprint(x.grad)",
    ],
)
def test_writes_through_views_match_torch(same, code):
    same(BASICS + code)


def test_second_derivatives_through_copy_slices(same):
    same(
        BASICS
        + "z = x.clone()\nz[1:3].mul_(x[:2] ** 2)\ny = (z * z).sum()\n"
        "(g,) = torch.autograd.grad(y, x, create_graph=True)\nprint(g)\n"
        "(h,) = torch.autograd.grad((g * w).sum(), x)\nprint(h)"
    )


@pytest.mark.parametrize(
    "make",
    ["z.view(4)", "z.view(2, 2)[1]", "z[1:3]", "z[2]", "z[None]", "z[...]", "z.t()", "z.reshape(2, 2)",
     "z.view(2, 2).t().reshape(4)", "z.unsqueeze(0).squeeze(0)", "z.expand(3, 4)", "z.view(2, 2).permute(1, 0)",
     "z.flatten()", "z.detach()", "z.clone()", "z.view(2, 2).transpose(0, 1)"],
)
def test_base_and_is_view(same, make):
    same(f"z = torch.arange(4.)\nv = {make}\nprint(v._is_view(), v._base is z, v._base is None)")


def test_views_share_memory_and_version(same):
    same(
        "z = torch.zeros(2, 3)\nv = z[1]\nt = z.t()\nv.add_(1)\nt[0].mul_(5)\nprint(z, z._version, v._version, "
        "t._version)\nd = z.detach()\nd.add_(1)\nprint(z._version, d._version)\nprint(z.data._version)"
    )


def test_in_place_under_no_grad_on_a_leaf_is_the_optimiser_update(same):
    same(
        "p = torch.tensor([1., 2.], requires_grad=True)\n(p * p).sum().backward()\nwith torch.no_grad():\n"
        "    p -= 0.1 * p.grad\n    p[0].mul_(2)\nprint(p, p._version, p.is_leaf, p.grad_fn)"
    )


@pytest.mark.parametrize(
    "code",
    [
        "x[0].mul_(2)",  # a view of a leaf
        "x.view(2, 2).add_(1)",
        "x.mul_(2)",  # the leaf itself
        "y = x * 1\nwith torch.no_grad():\n    v = y[1:]\nv.mul_(2)",  # a view made under no_grad
        "y = x * 1\nv = y[1:]\nr = v * v\nv.mul_(2)\nr.sum().backward()",  # a saved view modified
        "y = x * 1\ne = y.sin()\ny[0].mul_(2)\ne.sum().backward()",  # the base modified after sin saved it
    ],
)
def test_refused_in_place_writes(same, code):
    outcome = same(BASICS + code)
    assert outcome.error is not None and outcome.error[0] == "RuntimeError"


@pytest.mark.parametrize("write", ["a.eq_(2)", "a.lt_(torch.ones(3))", "a.ge_(x)", "a[1:].ne_(0)"])
def test_comparison_written_in_place_gives_zero_gradient(same, write):
    """PyTorch records in-place comparisons into a float tensor with a zero gradient for the old values."""
    same(f"x = torch.tensor([1., 2., 3.], requires_grad=True)\na = x * 2\n{write}\nprint(a)\n"
         "(a * x).sum().backward()\nprint(x.grad)")
