"""In-place view ops (squeeze_, unsqueeze_, t_, transpose_, swapdims_, swapaxes_) against torch: the tensor's own
shape and strides change, its version counts a write, and the graph shows torch's nodes; and in-place dropout on
unbatched input, which is built from them."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import assert_same

CALLS = [
    "squeeze_()", "squeeze_(1)", "squeeze_(-1)", "squeeze_(0)", "squeeze_((0, 1))", "squeeze_([1, -1])",
    "unsqueeze_(0)", "unsqueeze_(-1)", "unsqueeze_(3)", "t_()", "transpose_(0, 2)", "transpose_(-1, 1)",
    "swapdims_(0, 1)", "swapaxes_(2, 0)",
]


@pytest.mark.parametrize("call", CALLS)
def test_graph_shape_and_version(same, call):
    source = "x[:, :, 0]" if call == "t_()" else "x"
    same(f"""
x = torch.arange(6., requires_grad=True).reshape(2, 1, 3)
y = {source} * 1
z = y.{call}
print(z is y, y.shape, y.stride(), y._version, y.grad_fn.__class__.__name__)
print([f.__class__.__name__ for f, _ in y.grad_fn.next_functions])
(y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
print(x.grad)
""")


@pytest.mark.parametrize("call", ["unsqueeze_(0)", "t_()", "squeeze_()", "transpose_(0, 1)"])
def test_on_a_view_then_written(same, call):
    same(f"""
x = torch.arange(6., requires_grad=True).reshape(2, 1, 3)
y = x * 1
v = y[0]
v.{call}
print(v.shape, v._version, y._version, v._base is y, v.grad_fn.__class__.__name__)
print([f.__class__.__name__ for f, _ in v.grad_fn.next_functions])
v.mul_(2)
print(y.grad_fn.__class__.__name__, v.grad_fn.__class__.__name__, y)
y.sum().backward()
print(x.grad)
""")


@pytest.mark.parametrize("program", [
    "w = torch.tensor([1., 2., 3., 4.], requires_grad=True); x = w * 1; v = x[1:3]\n"
    "x.unsqueeze_(0); v.mul_(10); (x * torch.arange(4.)).sum().backward()",
    "w = torch.arange(6.).reshape(2, 3).requires_grad_(); x = w * 1; v = x[0]\n"
    "x.t_(); v.mul_(10); (x * torch.arange(6.).reshape(3, 2)).sum().backward()",
    "w = torch.arange(6.).reshape(1, 2, 3).requires_grad_(); x = w * 1; v = x[0, :, 1]\n"
    "x.squeeze_(0); x.transpose_(0, 1); v.add_(5); (x * torch.arange(6.).reshape(3, 2)).sum().backward()",
    "w = torch.arange(6.).reshape(2, 3).requires_grad_(); x = w * 1; v = x[:, 1:]\n"
    "x.unsqueeze_(1); x.transpose_(0, 2); x.mul_(2); v.sub_(1); (x.sum() + v.sum()).backward()",
])
def test_views_taken_before_the_base_changed_shape_in_place(same, program):
    """A view made before its base was squeezed, unsqueezed or transposed in place, then written in place."""
    same(program + "\nprint(x, v, w.grad, x.grad_fn.name(), v.grad_fn.name())")


@pytest.mark.parametrize("make", ["y.squeeze_()", "y.t_()", "y.unsqueeze_(0)", "y.transpose_(0, 1)", "2 - y"])
def test_the_modified_error_names_the_node_as_torch(same, make):
    """PyTorch's message drops "Backward0" but keeps another number: Squeeze3, T1, Rsub1."""
    same(f"""
a = torch.ones(2, 1, requires_grad=True)
y = a * 1
r = {make}
z = r * r
with torch.no_grad():
    r.add_(1)
z.sum().backward()
""")


def test_chained_and_untracked(same):
    same("""
x = torch.ones(2, 1, 3, requires_grad=True)
y = x * 1
print(y.squeeze_().t_() is y, y.grad_fn.__class__.__name__, y.grad_fn.next_functions[0][0].__class__.__name__)
with torch.no_grad():
    x.squeeze_()
print(x.shape, x.is_leaf, x.requires_grad, x._version)
z = torch.ones(3, 4).t_()
print(z.grad_fn, z.stride(), z._version, torch.ones(()).unsqueeze_(0).shape, torch.ones(3).t_().shape)
""")


ERRORS = [
    "torch.ones(2, 1, requires_grad=True).squeeze_()",
    "torch.ones(2, 1, requires_grad=True).unsqueeze_(0)",
    "torch.ones(2, 1, requires_grad=True)[0].unsqueeze_(0)",
    "torch.ones(2, 3, 4).t_()",
    "torch.ones(3).unsqueeze_(5)",
    "torch.ones(3).squeeze_(5)",
    "torch.ones(2, 3).transpose_(0, 2)",
    "torch.ones(2, 3).squeeze_((0, 0))",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors(same, code):
    same(code)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=0, max_size=4), data=st.data())
def test_squeeze_unsqueeze_any_shape(shape, data):
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim - 1, ndim))
    squeeze_dim = data.draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))
    assert_same(f"""
y = torch.ones({shape}, requires_grad=True) * 1
print(y.unsqueeze_({dim}).shape, y.squeeze_({squeeze_dim}).shape, y.squeeze_().shape, y._version)
print(y.grad_fn.__class__.__name__, y.grad_fn.next_functions[0][0].__class__.__name__)
""")


@pytest.mark.parametrize("call", ["F.dropout1d(y, 0.5, True, True)", "F.dropout3d(y, 0.5, True, True)",
                                  "F.dropout1d(y, 0.5, False, True)", "F.dropout1d(y, 1.0, True, True)"])
def test_inplace_dropout_of_unbatched_input(same, call):
    shape = "2, 3" if "1d" in call else "2, 2, 3, 3"
    same(f"""
F = torch.nn.functional
y = torch.ones({shape}, requires_grad=True) * 1
out = {call}
print(out is y, y.shape, y._version, y.grad_fn.__class__.__name__)
print([f.__class__.__name__ for f, _ in y.grad_fn.next_functions])
print([f.__class__.__name__ for f, _ in y.grad_fn.next_functions[0][0].next_functions])
""")
