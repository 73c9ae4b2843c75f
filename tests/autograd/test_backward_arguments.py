"""backward(), grad() and the rest of the autograd API with wrong and edge arguments, against torch: the checks in
PyTorch's order and words (its Python functions', then its engine's), and what PyTorch accepts (a dict of inputs,
an input named twice, GradientEdges, batched seeds, calling a node)."""

import pytest

SETUP = """
w = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
v = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
x = torch.ones(2, 3)
y = w * v
loss = (y * y).sum()
"""


def snippet(code):
    return SETUP + code


@pytest.mark.parametrize("call", [
    "torch.autograd.backward(loss, retain_graph=0.5)", "torch.autograd.backward(loss, create_graph='no')",
    "torch.autograd.backward(loss, retain_graph=256)", "torch.autograd.backward(loss, retain_graph=-1)",
    "torch.autograd.backward(loss, create_graph=None)", "loss.backward(retain_graph=[True])",
    "torch.autograd.grad(loss, w, allow_unused=0.0)", "torch.autograd.grad(loss, w, create_graph=2.0)",
    "torch.autograd.grad(loss, w, retain_graph='yes')",
])
def test_flags_are_read_as_the_engine_reads_them(same, call):
    same(snippet(call))


@pytest.mark.parametrize("call", [
    "torch.autograd.backward(loss, retain_graph=1); print(w.grad)",
    "print(torch.autograd.grad(loss, w, create_graph=torch.tensor(1))[0].requires_grad)",
    "print(torch.autograd.grad(loss, w, create_graph=np.int8(0))[0].requires_grad)",
])
def test_int_flags_are_taken(same, call):
    same(snippet(call))


@pytest.mark.parametrize("call", [
    "y.backward(5)", "y.backward(b'x')", "y.backward([torch.ones(2, 3), 1])", "y.backward(gradient=(2.0,))",
    "y.backward(torch.ones(3))", "y.backward(torch.ones(2, 3, dtype=torch.complex64))", "y.backward()",
    "(w > 0).sum().backward()", "torch.autograd.backward([loss, y], [None])", "torch.autograd.backward([y, loss])",
    "torch.autograd.backward([x, 'a'])", "torch.autograd.backward([y, x], [torch.ones(2, 3), None])",
    "torch.autograd.backward(5)", "torch.autograd.backward(None)", "torch.autograd.backward([loss, 5])",
    "torch.autograd.backward({'a': loss})", "torch.autograd.grad(loss, w, grad_outputs=[None, None]); print('ok')",
    "torch.autograd.grad([loss, loss], w, grad_outputs=[torch.tensor(2.0)])",
    "torch.autograd.grad(torch.ones(1), w)", "torch.autograd.grad([loss, x], [w])",
])
def test_outputs_and_their_seed_gradients(same, call):
    same(snippet(call))


@pytest.mark.parametrize("call", [
    "loss.backward(inputs=[])", "loss.backward(inputs=())", "loss.backward(inputs=5)", "loss.backward(inputs=x)",
    "loss.backward(inputs=[w, 'a'])", "loss.backward(inputs=[w, x])", "loss.backward(inputs=[None])",
    "torch.autograd.grad(loss, ())", "torch.autograd.grad(loss, {})", "torch.autograd.grad(loss, 3)",
    "torch.autograd.grad(loss, [w, 1.5])", "torch.autograd.grad(loss, [x])", "torch.autograd.grad(loss, [v, x])",
    "torch.autograd.grad(loss, torch.ones(3, requires_grad=True))",
    "torch.autograd.grad(loss, w, materialize_grads=True, allow_unused=False)",
])
def test_inputs(same, call):
    same(snippet(call))


@pytest.mark.parametrize("code", [
    "print(torch.autograd.grad(loss, (w, w, v)))", "print(torch.autograd.grad(loss, {'first': v, 'second': w}))",
    "print(torch.autograd.grad(loss, [w, torch.ones(2, requires_grad=True)], allow_unused=True))",
    "print(torch.autograd.grad(loss, [v, torch.ones(2, requires_grad=True)], materialize_grads=True))",
    "loss.backward(inputs=[v, v, v]); print(v.grad, w.grad)", "loss.backward(inputs={'w': w}); print(w.grad, v.grad)",
    "loss.backward(inputs=[y]); print(y.grad, y.retains_grad, w.grad)",
    "print(torch.autograd.grad(loss, torch.autograd.graph.get_gradient_edge(y)))",
    "e = torch.autograd.graph.get_gradient_edge(loss); print(torch.autograd.grad(e, w, torch.tensor(1.0)))",
    "print(torch.autograd.grad(loss, w, None, False, False, True, False))",
    "print(torch.autograd.grad(loss, w, only_inputs=False))",
    "torch.autograd.backward(loss, grad_variables=torch.tensor(2.0)); print(w.grad)",
    "torch.autograd.backward(loss, torch.tensor(1.0), grad_variables=torch.tensor(2.0))",
])
def test_what_torch_accepts(same, code):
    same(snippet(code))


@pytest.mark.parametrize("code", [
    "print(torch.autograd.grad(y, w, torch.ones(4, 2, 3), is_grads_batched=True))",
    "print([(g.detach(), g.requires_grad) for g in torch.autograd.grad(y, [w, v], torch.ones(2, 2, 3), "
    "is_grads_batched=True, create_graph=True)])",
    "print(torch.autograd.grad([y, y.sum(0)], w, [torch.ones(2, 2, 3), torch.ones(2, 3)], is_grads_batched=True))",
    "torch.autograd.grad(y, w, torch.ones(2, 3), is_grads_batched=True)",
    "torch.autograd.grad(y, w, torch.ones(2, 4, 3), is_grads_batched=True)",
    "torch.autograd.grad(loss, w, is_grads_batched=True)",
    "torch.autograd.grad([y, y], w, [torch.ones(2, 2, 3), torch.ones(3, 2, 3)], is_grads_batched=True)",
])
def test_batched_seeds(same, code):
    same(snippet(code))


@pytest.mark.parametrize("code", [
    "print(y.grad_fn(torch.ones(2, 3)))", "print(loss.grad_fn(torch.tensor(3.0)))", "print(loss.grad_fn(None))",
    "loss.grad_fn()", "loss.grad_fn(1)", "loss.grad_fn([torch.tensor(1.0)])", "loss.grad_fn(grad=torch.tensor(1.))",
    "y.grad_fn(torch.ones(2, 3), torch.ones(2, 3))",
    "acc = y.grad_fn.next_functions[1][0]; print(acc(torch.ones(3)), v.grad)",
    "print(torch.cat([w, w]).grad_fn(torch.ones(4, 3)))",
])
def test_calling_a_node(same, code):
    same(snippet(code))


FUNCTION = """
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, factor=2.0, *, shift=0.0):
        return t * factor + shift

    @staticmethod
    def backward(ctx, grad):
        return grad * 2.0, None
"""


@pytest.mark.parametrize("call", [
    "Scale.apply(w, t=w)", "Scale.apply(w, bogus=1)", "Scale.apply(w, 3.0, factor=2.0)", "Scale.apply(ctx=1, t=w)",
    "Scale.apply(w, 1, 2)", "Scale.apply()", "print(Scale.apply(w, factor=3.0))", "print(Scale.apply(t=w))",
    "print(Scale.apply(w, shift=1.0))", "torch.autograd.Function.apply(w)", "torch.autograd.Function.apply()",
])
def test_function_apply_arguments(same, call):
    same(snippet(FUNCTION + call))


@pytest.mark.parametrize("call", [
    "torch.set_grad_enabled(1)", "torch.set_grad_enabled(None)", "torch.set_grad_enabled('yes')",
    "torch.set_grad_enabled()", "torch.set_grad_enabled(True, False)", "torch.autograd.set_detect_anomaly(1)",
    "torch.autograd.set_detect_anomaly(True, 'no')", "torch.autograd.set_detect_anomaly(mode=0)",
    "torch.set_anomaly_enabled(None)", "torch.set_anomaly_enabled(False, check_nan=1)",
    "torch.autograd.detect_anomaly(check_nan=0).__enter__()",
    "torch.set_grad_enabled(False); print(torch.is_grad_enabled())",
    "torch.set_anomaly_enabled(True, False); print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())",
])
def test_mode_switches_take_bools(same, call):
    same(snippet(call + "\ntorch.set_anomaly_enabled(False)"))


@pytest.mark.parametrize("code", [
    "print(torch.autograd.forward_ad.unpack_dual('x'))",
    "with torch.autograd.forward_ad.dual_level():\n    torch.autograd.forward_ad.unpack_dual(1.5)",
    "with torch.autograd.forward_ad.dual_level():\n    torch.autograd.forward_ad.make_dual(x, [1])",
    "with torch.autograd.forward_ad.dual_level():\n    torch.autograd.forward_ad.make_dual(None, x)",
])
def test_forward_ad_arguments(same, code):
    same(snippet(code))
