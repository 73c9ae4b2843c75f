"""ndgrad.autograd.Function against torch.autograd.Function: each snippet runs with both libraries."""

import warnings

import pytest
import torch
from tests.conftest import normalise

import ndgrad

PRELUDE = """
Function = torch.autograd.Function
once_differentiable = torch.autograd.function.once_differentiable
def attempt(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)

class MyExp(Function):
    @staticmethod
    def forward(ctx, a):
        print("forward grad mode", torch.is_grad_enabled())
        result = a.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        print("backward grad mode", torch.is_grad_enabled())
        return grad * result
"""


@pytest.fixture
def check(same):
    return lambda code: same(PRELUDE + code)


def test_values_gradients_and_node(check):
    check("""
out = MyExp.apply(x)
node = out.grad_fn
print(out, type(node).__name__, node.name(), node.next_functions, node.needs_input_grad)
print(isinstance(node, torch.autograd.graph.Node), out.is_leaf, out.output_nr)
print(node.saved_tensors, node.saved_tensors[0].grad_fn is node)
out.sum().backward()
print(x.grad)
attempt(lambda: node.saved_tensors)
print(repr(node))
""")


def test_no_graph_recorded(check):
    check("""
with torch.no_grad():
    out = MyExp.apply(x)
print(out.requires_grad, out.grad_fn)
out = MyExp.apply(x.detach())
print(out.requires_grad, out.grad_fn)
""")


def test_several_outputs_non_tensor_args_and_none_gradients(check):
    check("""
class Two(Function):
    @staticmethod
    def forward(ctx, a, k, b, flag=None):
        print("needs", ctx.needs_input_grad)
        ctx.k = k
        return a * k, b + 1, "text"

    @staticmethod
    def backward(ctx, grad_a, grad_b, grad_text):
        print("grads", grad_a, grad_b, grad_text, ctx.needs_input_grad)
        return grad_a * ctx.k, None, grad_b, None

w = torch.tensor([5.0, 6.0])
p, q, text = Two.apply(x, 3, w, flag=1)
print(p.grad_fn is q.grad_fn, p.output_nr, q.output_nr, q.requires_grad, text, p.grad_fn.next_functions)
(p * q).sum().backward()
print(x.grad)
p, q, _ = Two.apply(x, 3, y)
p.sum().backward()
print(x.grad, y.grad)
""")


def test_materialize_grads(check):
    check("""
class Pair(Function):
    @staticmethod
    def forward(ctx, a, materialize):
        ctx.set_materialize_grads(materialize)
        return a * 2, a.argmax()

    @staticmethod
    def backward(ctx, grad, grad_index):
        print("got", grad, grad_index)
        return (grad if grad is not None else torch.zeros(2)) * 2, None

for materialize in (True, False):
    first, index = Pair.apply(x, materialize)
    print(index.requires_grad, index.grad_fn)
    first.sum().backward()
class Three(Function):
    @staticmethod
    def forward(ctx, a, materialize):
        ctx.set_materialize_grads(materialize)
        return a * 2, a * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("got", g1, g2)
        return g2, None

for materialize in (True, False):
    Three.apply(x, materialize)[1].sum().backward()
""")


def test_mark_non_differentiable(check):
    check("""
class MaxIdx(Function):
    @staticmethod
    def forward(ctx, a):
        value, index = a.max(0)
        ctx.mark_non_differentiable(index)
        doubled = a * 2
        ctx.mark_non_differentiable(index, doubled)
        return value, index, doubled

    @staticmethod
    def backward(ctx, grad_value, grad_index, grad_doubled):
        print("got", grad_value, grad_index, grad_doubled)
        return torch.ones(2) * grad_value

v, i, d = MaxIdx.apply(x)
print(v.requires_grad, i.requires_grad, d.requires_grad, d.grad_fn, d.is_leaf)
v.backward()
print(x.grad)
attempt(lambda: d.sum().backward())
""")


def test_input_returned_unchanged_is_a_view(check):
    check("""
class Id(Function):
    @staticmethod
    def forward(ctx, a):
        return a

    @staticmethod
    def backward(ctx, grad):
        print("backward", grad)
        return grad * 2

out = Id.apply(x)
print(out is x, out.grad_fn, out._is_view(), out._base is x, x.is_leaf)
out.sum().backward()
print(x.grad)
h = x * 1
a, b = Id.apply(h), Id.apply(h)
print(a is h, a._base is h, a._version, h.grad_fn)
(a.sum() + 3 * b.sum()).backward()
print(x.grad)
with torch.no_grad():
    out = Id.apply(h)
print(out is h, out._is_view(), out.requires_grad)
out = Id.apply(h.detach())
print(out._is_view(), out.requires_grad)
""")


def test_view_outputs(check):
    check("""
class First(Function):
    @staticmethod
    def forward(ctx, a):
        return a[:1]

    @staticmethod
    def backward(ctx, grad):
        return torch.cat([grad, torch.zeros(1)])

out = First.apply(x)
print(out, out._is_view(), out._base is x)
(out * 3).sum().backward()
print(x.grad)
""")


def test_mark_dirty(check):
    check("""
class Double_(Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(2)
        ctx.mark_dirty(a)
        ctx.save_for_backward(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        print("saved", a, a.grad_fn is ctx)
        return grad * 2

h = x * 1
out = Double_.apply(h)
print(out is h, h.grad_fn, h._version, h)
(h * y).sum().backward()
print(x.grad)
attempt(lambda: Double_.apply(x))
print(Double_.apply(x.detach() * 1))
class Forgot(Function):
    @staticmethod
    def forward(ctx, a, b):
        b.add_(1)
        ctx.mark_dirty(b)
        return a * 2

    @staticmethod
    def backward(ctx, grad):
        return grad, None

attempt(lambda: Forgot.apply(x, torch.ones(2)))
""")


def test_mark_dirty_view(check):
    check("""
class Double_(Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad * 2

base = x * 1
view = base[1:]
Double_.apply(view)
print(base, view._version)
(base * y).sum().backward()
print(x.grad)
""")


def test_wrong_number_of_gradients(check):
    check("""
def make(result, nargs=2):
    class MyFn(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2 + (b if isinstance(b, torch.Tensor) else 0)

        @staticmethod
        def backward(ctx, grad):
            return result(grad)
    return MyFn

attempt(lambda: make(lambda g: g).apply(x, y).sum().backward())
attempt(lambda: make(lambda g: (g, g, g)).apply(x, y).sum().backward())
attempt(lambda: make(lambda g: ()).apply(x, y).sum().backward())
attempt(lambda: make(lambda g: (g, g, None, None)).apply(x, y).sum().backward())
attempt(lambda: make(lambda g: (g, None, 5)).apply(x, 1).sum().backward())
attempt(lambda: make(lambda g: (g, 4)).apply(x, 1).sum().backward())
attempt(lambda: make(lambda g: (3, None)).apply(x, 1).sum().backward())
attempt(lambda: make(lambda g: [g, g]).apply(x, y).sum().backward())
attempt(lambda: make(lambda g: None).apply(x, 1).sum().backward())
print(x.grad, y.grad)
""")


def test_gradient_shape_and_dtype(check):
    check("""
def make(result):
    class MyFn(Function):
        @staticmethod
        def forward(ctx, k, a):
            return a.clone()

        @staticmethod
        def backward(ctx, grad):
            return None, result(grad)
    return MyFn

attempt(lambda: make(lambda g: torch.ones(3)).apply(1, x).sum().backward())
attempt(lambda: make(lambda g: torch.ones(1)).apply(1, x).sum().backward())
attempt(lambda: make(lambda g: torch.tensor(5.0)).apply(1, x).sum().backward())
attempt(lambda: make(lambda g: torch.ones(3)).apply(1, torch.ones(2)).sum().backward())
for grad in (torch.ones(3, 2), torch.ones(1, 2), torch.ones(2, dtype=torch.float64), torch.ones(2, dtype=torch.int64)):
    x.grad = None
    make(lambda g: grad).apply(1, x).sum().backward()
    print(x.grad, x.grad.dtype)
attempt(lambda: make(lambda g: g.to(torch.complex64)).apply(1, x).sum().backward())
""")


def test_saved_tensor_modified_in_place(check):
    check("""
class Save(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a, None)
        return a * 2

    @staticmethod
    def backward(ctx, grad):
        a, nothing = ctx.saved_tensors
        print("saved", a, nothing, a is x)
        return grad * a

Save.apply(x).sum().backward()
h = x * 1
out = Save.apply(h)
h.add_(1)
attempt(lambda: out.sum().backward())
out = MyExp.apply(x)
out.add_(1)
attempt(lambda: out.sum().backward())
class SaveNumber(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a, 3)
        return a * 2

    @staticmethod
    def backward(ctx, grad):
        return grad

attempt(lambda: SaveNumber.apply(x))
""")


def test_double_backward_and_gradcheck(check):
    check("""
class Cube(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a ** 3

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return 3 * a ** 2 * grad

x64 = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
(g,) = torch.autograd.grad(Cube.apply(x64).sum(), x64, create_graph=True)
print(g, g.grad_fn)
(gg,) = torch.autograd.grad(g.sum(), x64)
print(gg)
out = MyExp.apply(x)
(g,) = torch.autograd.grad(out.sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
print(torch.autograd.gradcheck(Cube.apply, (x64,)), torch.autograd.gradgradcheck(Cube.apply, (x64,)))
""")


def test_once_differentiable(check):
    check("""
class Square(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a ** 2

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        print("grad mode", torch.is_grad_enabled(), a.requires_grad)
        return 2 * a * grad

print(Square.backward.__name__)
(g,) = torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
print(g, g.grad_fn, g.requires_grad)
v = torch.ones(2, requires_grad=True)
(g,) = torch.autograd.grad(Square.apply(x), x, v, create_graph=True)
print(g, g.grad_fn.name(), g.grad_fn.next_functions[0][0].name(), g.is_leaf)
attempt(lambda: g.sum().backward())
""")


def test_custom_function_inside_a_bigger_graph_with_hooks(check):
    check("""
class Scale(Function):
    @staticmethod
    def forward(ctx, a, factor):
        ctx.factor = factor
        return a * factor

    @staticmethod
    def backward(ctx, grad):
        print("Scale backward", grad)
        return grad * ctx.factor, None

h = (x * y).sin()
out = Scale.apply(h, 3.0)
out.register_hook(lambda g: print("hook out", g) or g * 10)
out.retain_grad()
h.register_hook(lambda g: print("hook h", g))
x.register_hook(lambda g: print("hook x", g))
out.grad_fn.register_prehook(lambda grads: print("prehook", grads))
out.grad_fn.register_hook(lambda grad_inputs, grad_outputs: print("post hook", grad_inputs, grad_outputs))
(out.exp() + out).sum().backward()
print(out.grad, x.grad, y.grad)
print(out.grad_fn.next_functions[0][0].name(), out.grad_fn.next_functions[0][0].next_functions)
""")


def test_setup_context_and_vjp(check):
    check("""
class Exp2(Function):
    @staticmethod
    def forward(a, k, scale=2.0):
        print("forward grad mode", torch.is_grad_enabled())
        return a.exp() * scale, a * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        print("setup", len(inputs), inputs[1:], type(output).__name__, ctx.needs_input_grad)
        ctx.k, ctx.scale = inputs[1], inputs[2]
        ctx.save_for_backward(output[0])

    @staticmethod
    def vjp(ctx, grad_e, grad_k):
        (e,) = ctx.saved_tensors
        return grad_e * e, None, None

p, q = Exp2.apply(x, 3.0)
print(p.grad_fn.name())
p.sum().backward()
print(x.grad)
p, q = Exp2.apply(x, k=3.0, scale=1.0)
p.sum().backward()
print(x.grad)
class Both(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def vjp(ctx, grad):
        return grad

attempt(lambda: Both.apply(x).sum().backward())
print(Function.vjp is Function.backward, Both.vjp is Both.backward)
""")


def test_misuse(check):
    check("""
attempt(lambda: MyExp.forward(None, x))
attempt(lambda: MyExp()(x))
class NoForward(Function):
    pass

attempt(lambda: NoForward.apply(x))
class NoBackward(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

out = NoBackward.apply(x)
print(type(out.grad_fn).__name__)
attempt(lambda: out.sum().backward())
class NoSetup(Function):
    @staticmethod
    def forward(a):
        return a * 2

attempt(lambda: Function.setup_context(None, (), None))
class Other(Function):
    @staticmethod
    def forward(ctx, a):
        return 5, [a * 2]

    @staticmethod
    def backward(ctx, g1, g2):
        return None

print(Other.apply(x))
""")


VIEW_FUNCTION = """
class First(Function):
    @staticmethod
    def forward(ctx, a):
        return a[:1]

    @staticmethod
    def backward(ctx, grad):
        return torch.cat([grad, torch.zeros(1)])
"""


def test_in_place_write_to_a_returned_view_is_refused(check):
    check(VIEW_FUNCTION + """
out = First.apply(x * 1)
print(out.grad_fn.name(), out._is_view())
attempt(lambda: out.mul_(2))
out = First.apply(x * 1).detach()
out.mul_(2)
print(out)
""")


@pytest.mark.parametrize("write", ["First.apply(x).mul_(2)", "First.apply(x * 1)[:1].mul_(2)"])
def test_in_place_write_through_a_returned_view_raises(run, write):
    # Both refuse; the messages differ (see the report): PyTorch names the sub-view's node, or refuses a view of a
    # leaf with the custom-Function message first.
    for lib in ("torch", "ndgrad"):
        outcome = run(__import__(lib), PRELUDE + VIEW_FUNCTION + write)
        assert outcome.error is not None and outcome.error[0] == "RuntimeError", (lib, outcome)


def test_output_does_not_keep_its_node_alive_through_a_cycle(check):
    check("""
import weakref
out = MyExp.apply(x * 2)
node = weakref.ref(out.grad_fn)
del out
print(node() is None)
""")


def test_retain_graph_needs_input_grad_and_subclass_names(check):
    check("""
class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        print("needs", need_a, need_b)
        return (grad * b if need_a else None), (grad * a if need_b else None)

class SubMul(Mul):
    pass

out = SubMul.apply(x, torch.tensor([3.0, 5.0]))
print(out.grad_fn.name(), out.grad_fn._forward_cls is SubMul)
out.sum().backward(retain_graph=True)
out.sum().backward()
print(x.grad)
attempt(lambda: out.sum().backward())
""")


def test_instantiating_a_function_warns_as_torch_does():
    messages = []
    for lib in (torch, ndgrad):
        class Legacy(lib.autograd.Function):
            pass

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Legacy()
        messages.append([(w.category, normalise(str(w.message)).replace("torch", "ndgrad")) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def test_saved_tensors_hooks(check):
    check("""
def pack(t):
    print("pack", t)
    return t * 1

def unpack(t):
    print("unpack", t)
    return t

with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    out = MyExp.apply(x)
out.sum().backward()
print(x.grad)
""")


def test_forward_mode(check):
    check("""
fwAD = torch.autograd.forward_ad

class Mul(Function):
    @staticmethod
    def forward(ctx, a, b, k):
        ctx.save_for_forward(a, b)
        ctx.k = k
        return a * b * k

    @staticmethod
    def backward(ctx, grad):
        return grad, grad, None

    @staticmethod
    def jvp(ctx, a_t, b_t, k_t):
        a, b = ctx.saved_tensors
        print("jvp", a_t, b_t, k_t, torch.is_grad_enabled())
        return (a_t * b + a * b_t) * ctx.k

class NoJvp(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

class Pair(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, a * 3

    @staticmethod
    def jvp(ctx, a_t):
        return a_t * 2

class Wrong(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def jvp(ctx, a_t):
        return torch.ones(3)

class Id(Function):
    @staticmethod
    def forward(ctx, a):
        return a

    @staticmethod
    def jvp(ctx, a_t):
        return a_t * 5

class Slice(Function):
    @staticmethod
    def forward(ctx, a):
        return a[:1]

    @staticmethod
    def jvp(ctx, a_t):
        return a_t[:1]

class Double_(Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def jvp(ctx, a_t):
        a_t.mul_(2)
        return a_t

with fwAD.dual_level():
    d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.5]))
    out = Mul.apply(d, torch.tensor([3.0, 3.0]), 2.0)
    print(fwAD.unpack_dual(out).tangent, out.requires_grad)
    print(fwAD.unpack_dual(Mul.apply(torch.ones(2), torch.ones(2), 2.0)).tangent)
    attempt(lambda: NoJvp.apply(d))
    print(NoJvp.apply(torch.ones(2)))
    attempt(lambda: Pair.apply(d))
    attempt(lambda: Wrong.apply(d))
    attempt(lambda: Id.apply(d))
    print(fwAD.unpack_dual(Slice.apply(d)).tangent)
    e = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.5]))
    Double_.apply(e)
    print(fwAD.unpack_dual(e).tangent)
""")
