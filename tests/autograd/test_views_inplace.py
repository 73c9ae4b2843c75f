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


@pytest.mark.parametrize(
    "code",
    [
        # an expand that repeats no element takes writes; one that does is refused (whatever view comes after it)
        "b = x.view(2, 2) * 1.5\nb.expand(2, 2).add_(1.0)\nb.expand(1, 2, 2)[0].mul_(w.view(2, 2))\nprint(b)\n"
        "b.sum().backward()\nprint(x.grad)",
        "b = x.view(2, 2) * 1\ne = b[:1].expand(3, 2)\ne[1].mul_(3)\nprint(b, e)\n(b * w.view(2, 2)).sum().backward()\n"
        "print(x.grad)",
        "b = x.view(2, 2) * 1\nb[:1].expand(3, 2).add_(1)",
        "b = x.view(2, 2) * 1\nb[:1].expand(3, 2).t()[1].add_(1)",
        # views whose elements share memory, rebuilt after a write to their base: their gradients add up
        "b = x.view(2, 2) * 1\ne = b[:1].expand(3, 2)\nu = b.reshape(4).unfold(0, 3, 1)\nb.mul_(x.view(2, 2))\n"
        "print(e.grad_fn, u.grad_fn)\n((e * e).sum() + (u ** 3).sum()).backward()\nprint(x.grad)",
        # reshapes of a permuted base: the base's memory layout is what the view's steps replay on
        "b = x.view(2, 2).t() * 1.5\nv = b.t().reshape(4)\nv[::3].mul_(2)\nv.add_(w)\nprint(b, v.grad_fn)\n"
        "(b * w.view(2, 2)).sum().backward()\nprint(x.grad)",
        "b = x.view(1, 2, 2).permute(2, 0, 1) * 1\nv = b.reshape(1, 4).reshape(1, 2, 2).permute(1, 2, 0).reshape(4)\n"
        "v.mul_(2)\nv.add_(x)\n(b.reshape(4) * w).sum().backward()\nprint(b, x.grad)",
        # select is a view; torch.select and Tensor.select
        "b = x.view(2, 2) * 1\nv = b.select(1, -1)\nv.mul_(x[:2])\ntorch.select(b, 0, 0).add_(1)\n"
        "print(b, v, v.grad_fn)\n(b * w.view(2, 2)).sum().backward()\nprint(x.grad)",
        # assignment: a number or a 0-d tensor fills, into the tensor itself where the index keeps all of it
        "b = x * 1\nb[...] = x[0]\nprint(b.grad_fn, b.grad_fn.next_functions)\nb.sum().backward()\nprint(x.grad)",
        "b = x * 1\nb[:] = 2.0\nb[1:3] = x[3] * 2\nb.fill_(x[1])\nprint(b.grad_fn)\nb.sum().backward()\nprint(x.grad)",
        "b = x * 1\nb[0:4] = w\nprint(b.grad_fn)\nb.view(2, 2)[:, :] = torch.ones(2, 2)\nprint(b.grad_fn)",
        "b = x * 1\nb.fill_(torch.ones(1))",
    ],
)
def test_writes_through_any_view_match_torch(same, code):
    same(BASICS + code)


@pytest.mark.parametrize(
    "code",
    [
        # the pieces of split and unbind refuse writes, even where there is one piece, and so do views of them
        "b = x * 1\nb.split(4)[0].mul_(2)",
        "b = x * 1\nb.view(1, 4).unbind()[0].mul_(2)",
        "b = x * 1\nb.chunk(2)[1][1:].mul_(2)",
        # once their base is written, their grad_fn (and so any use) refuses
        "b = x * 1\np = b.unbind()[1]\nq = b.split(2)[0].view(2, 1)\nb.mul_(2)\nprint(p.requires_grad, p._version, p)\n"
        "print(q.is_leaf)",
        "b = x * 1\np = b.unbind()[1]\nb[0].mul_(2)\n(p * 2).sum().backward()",
        "b = x * 1\np = b.unbind()[1]\nb.mul_(2)\np.mul_(2)",
    ],
)
def test_views_of_several_output_ops_match_torch(same, code):
    outcome = same(BASICS + code)
    assert outcome.error is not None and outcome.error[0] == "RuntimeError"


@pytest.mark.parametrize(
    "code",
    [
        "b = torch.arange(24.).view(2, 3, 4)\nb.permute(1, 0, 2).add_(b[0].unsqueeze(1))",  # dense, not contiguous
        "b = torch.arange(24.).view(2, 3, 4)\nb.view(24).add_(b.view(4, 6).t().reshape(24))",  # a copy: no overlap
        "b = torch.arange(6.)\nb.add_(b.view(1, 6))\nprint(b)",  # the same memory, another shape: partial
        "b = torch.arange(6.)\nb[::2].add_(b[1::2])\nprint(b)",  # interleaved: too hard to call, accepted
    ],
)
def test_overlap_of_input_and_written_tensor_as_torch(same, code):
    same(code)


def test_modified_message_names_complex_types_and_copy_as_torch(same):
    same("x = torch.ones(2, dtype=torch.complex64, requires_grad=True)\nb = x * 1\nb.copy_(x * 2)\nz = b * b\n"
         "b.add_(1)\nz.sum().abs().backward()")


@pytest.mark.parametrize(
    "make",
    ["b.reshape(3, 2)", "b.t().reshape(3, 1, 2)", "b[:, ::2].reshape(2, 2, 1)", "b.t().reshape(3, 2)",
     "b.t().reshape(6)", "b.t().flatten()", "b[:, :2].reshape(4)", "b.t()[None].reshape(3, 2)",
     "b.t().unflatten(0, (3, 1))", "b.t().ravel()", "b.t().reshape_as(torch.ones(3, 1, 2))",
     "b.t().contiguous().reshape(6)"],
)
def test_reshape_is_a_view_where_torch_s_is(same, make):
    """A contiguous reshape is a view (ViewBackward0); another that can be one is too (ReshapeAliasBackward0); else it
    copies (UnsafeViewBackward0), and the result is no view of the base."""
    same(f"x = torch.ones(2, 3, requires_grad=True)\nb = x * 1\nv = {make}\nprint(v.grad_fn.name(), v._base is b)")
