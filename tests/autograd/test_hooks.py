"""Hooks against PyTorch: tensor hooks, retain_grad, node pre/post hooks, post-accumulate hooks, their order
across a graph, their checks; saved-tensor hooks; grad_fn.metadata, next_functions and the _saved_* attributes."""


import pytest

import ndgrad

# ---- order ---------------------------------------------------------------------------------------------------------
ORDER = """
log = []
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
z = y.exp()
out = (z * 3).sum()
y.register_hook(lambda g: log.append(('y-hook1', g.tolist())))
y.retain_grad()
y.register_hook(lambda g: log.append(('y-hook2', g.tolist())) or g * 2)
x.register_hook(lambda g: log.append(('x-hook', g.tolist())))
x.register_post_accumulate_grad_hook(lambda t: log.append(('x-post-accumulate', t.grad.tolist())))
mul = y.grad_fn
mul.register_prehook(lambda go: log.append(('mul-pre', [g.tolist() for g in go])))
mul.register_hook(lambda gi, go: log.append(('mul-post', [g if g is None else g.tolist() for g in gi], len(go))))
acc = mul.next_functions[0][0]
acc.register_prehook(lambda go: log.append(('acc-pre', [g.tolist() for g in go])))
acc.register_hook(lambda gi, go: log.append(('acc-post', gi, [g.tolist() for g in go])))
z.grad_fn.register_hook(lambda gi, go: log.append(('exp-post',)))
out.backward()
print(*log, sep='\\n')
print(y.grad, x.grad)
"""


def test_hook_order_on_one_chain(same):
    """Tensor hooks, then retain_grad (whatever the registration order), then pre-hooks, node, post-hooks."""
    expected = same(ORDER)
    assert expected.error is None and expected.stdout.splitlines()[1].startswith("('y-hook1'")


def test_hook_order_across_a_graph_follows_the_ready_order(same):
    same(
        """
log = []
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
c = a * b
d = c.sin() + a.exp()
e = (d * c).sum() + b.cos().sum()
def walk(fn, seen):
    if fn is None or fn in seen:
        return
    seen.add(fn)
    fn.register_prehook(lambda go, n=fn.name(): log.append(n))
    for nxt, _ in fn.next_functions:
        walk(nxt, seen)
walk(e.grad_fn, set())
for t, n in ((a, 'a'), (b, 'b'), (c, 'c'), (d, 'd')):
    t.register_hook(lambda g, n=n: log.append('tensor ' + n))
e.backward()
print(log)
"""
    )


@pytest.mark.parametrize(
    "snippet",
    [
        "y.grad_fn.register_prehook(lambda go: (go[0] * 2,))\n"
        "y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))",
        "y.grad_fn.register_prehook(lambda go: (go[0] * 2, go[0]))",
        "y.grad_fn.register_hook(lambda gi, go: (gi[0],))",
        "y.grad_fn.register_prehook(lambda go: go[0])",
        "y.grad_fn.register_hook(lambda gi, go: [gi[0], None])",
        "y.grad_fn.register_hook(lambda gi, go: 4)",
        "y.grad_fn.register_hook(lambda gi, go: (4, None))",
        "y.grad_fn.register_hook(lambda gi, go: (torch.ones(3), None))",
        "y.grad_fn.register_prehook(lambda go: (torch.ones(2, dtype=torch.float64),))",
        "y.grad_fn.register_prehook(lambda go: (None,))",
        "y.register_hook(lambda g: 5)",
        "y.register_hook(lambda g: torch.ones(3))",
        "y.register_hook(lambda g: g.double())",
        "x.register_hook(lambda g: torch.ones(3))",
        "class H:\n    def __call__(self, g): return torch.ones(3)\ny.register_hook(H())",
        "x.register_post_accumulate_grad_hook(lambda t: 5)",
        "x.register_post_accumulate_grad_hook(lambda t: torch.ones(2))",
        "x.register_post_accumulate_grad_hook(lambda t: print('post', t.grad, t is x))",
        "y.register_post_accumulate_grad_hook(print)",
        "torch.ones(2).register_post_accumulate_grad_hook(print)",
    ],
)
def test_hook_results_and_their_checks(same, snippet):
    same(f"x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 3\n{snippet}\ny.sum().backward()\nprint(x.grad)")


def test_handles_remove_and_work_as_context_managers(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
h = y.grad_fn.register_prehook(lambda go: print('pre'))
h.remove(); h.remove()
with y.register_hook(lambda g: print('hook')) as h2:
    pass
h3 = x.register_post_accumulate_grad_hook(lambda t: print('post'))
h3.remove()
h4 = y.grad_fn.register_hook(lambda gi, go: print('node hook'))
y.sum().backward(retain_graph=True)
h4.remove()
y.sum().backward()
print(x.grad)
"""
    )


def test_hooks_fire_again_on_a_retained_graph(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = x.sin()
y.register_hook(lambda g: print('y', g))
y.grad_fn.register_hook(lambda gi, go: print('sin', gi))
for _ in range(2):
    y.sum().backward(retain_graph=True)
print(x.grad)
"""
    )


# ---- hooks, in-place ops, and what autograd.grad runs ----------------------------------------------------------------
def test_hooks_before_an_in_place_op_see_the_old_version(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
y.register_hook(lambda g: print('before', g))
y.retain_grad()
y.mul_(2)
y.register_hook(lambda g: print('after', g))
y.sum().backward()
print(x.grad, y.grad)
"""
    )


def test_autograd_grad_runs_tensor_hooks_and_retain_grad_but_not_the_nodes_behind(same):
    expected = same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
z = y * y
y.register_hook(lambda g: print('y hook', g) or g * 2)
y.retain_grad()
x.register_hook(lambda g: print('x hook', g))
y.grad_fn.register_prehook(lambda go: print('y pre'))
print(torch.autograd.grad(z.sum(), [y]))
print(y.grad)
print(torch.autograd.grad(z.sum(), [y, x]))
"""
    )
    assert "x hook" not in expected.stdout and "y pre" not in expected.stdout


def test_leaf_hooks_with_inputs_and_autograd_grad(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
x.register_post_accumulate_grad_hook(lambda t: print('post', t.grad))
x.register_hook(lambda g: print('pre', g) or g * 10)
(x * 2).sum().backward(inputs=[x])
print(torch.autograd.grad((x * 2).sum(), x))
y = x * 3
y.register_hook(lambda g: print('y', g))
y.sin().backward(torch.ones(2), inputs=[y])
print(y.grad, x.grad)
"""
    )


def test_hooks_on_a_multi_output_node(same):
    same(
        """
x = torch.tensor([[1., 5., 2.], [3., 2., 0.]], requires_grad=True)
a, b = x.split(2, dim=1)
a.register_hook(lambda g: print('a', g) or g * 2)
b.register_hook(lambda g: print('b', g))
b.retain_grad()
(a.sum() * 3).backward()
print(x.grad, b.grad)
"""
    )


# ---- node attributes -----------------------------------------------------------------------------------------------
def test_metadata_next_functions_and_node_class(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
print(y.grad_fn.metadata, type(y.grad_fn.metadata))
y.grad_fn.metadata['note'] = 1
print(y.grad_fn.metadata, y.grad_fn.next_functions)
acc = y.grad_fn.next_functions[0][0]
print(acc.name(), acc.next_functions, acc.metadata)
print(isinstance(y.grad_fn, torch.autograd.graph.Node), isinstance(acc, torch.autograd.graph.Node))
print(torch.autograd.graph.Node)
e = torch.autograd.graph.get_gradient_edge(y)
print(e.node is y.grad_fn, e.output_nr, torch.autograd.graph.get_gradient_edge(x).node is acc)
torch.autograd.graph.get_gradient_edge(torch.ones(1))
"""
    )


SAVED = {
    "x * y": ["self", "other"], "x * w": ["self", "other"], "x * 2": ["self", "other"], "x * 2.5": ["other"],
    "x / y": ["self", "other"], "x / 2": ["other"], "x ** 2": ["self", "exponent"],
    "x.pow(2.5)": ["exponent"], "x ** y": ["self", "exponent", "result"], "2 ** x": ["self", "result"],
    "x.exp()": ["result"], "x.log()": ["self"], "x.sin()": ["self"], "x.cos()": ["self"], "x.tanh()": ["result"],
    "x.sigmoid()": ["result"], "x.sum()": ["self_sym_sizes"], "x.sum(1)": ["dim", "keepdim", "self_sym_sizes"],
    "x.sum((0, 1), keepdim=True)": ["dim", "keepdim"], "x.mean()": ["self_sym_numel", "self_sym_sizes"],
    "x.mean(0)": ["dim", "keepdim", "self_sym_numel", "self_sym_sizes"], "x.max()": ["self", "result"],
    "x.max(1)[0]": ["dim", "keepdim", "indices", "self_sym_sizes"], "x.amax(1)": ["dim", "keepdim", "self", "result"],
    "x @ y.T": ["self", "mat2", "self_sym_sizes", "mat2_sym_sizes"], "x @ w.T": ["self", "mat2"],
    "x[0] @ y[1]": ["self", "tensor"], "x @ y[1]": ["self", "vec"], "torch.sub(x, y, alpha=2)": ["alpha"],
    "x.sin().sum()": ["nothing"],
}


@pytest.mark.parametrize("expression", SAVED)
def test_saved_attributes(same, expression):
    lines = "\n".join(f"print({name!r}, out.grad_fn._saved_{name})" for name in SAVED[expression])
    same(
        "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
        "y = torch.tensor([[2., 1., 3.], [1., 5., 2.]], requires_grad=True)\n"
        f"w = torch.tensor([[2., 1., 3.], [1., 5., 2.]])\nout = {expression}\n{lines}"
    )


def test_saved_attributes_identity_and_after_backward(same):
    same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([3., 4.])
z = x * w
print(z.grad_fn._saved_other is w)
e = x.exp()
print(e.grad_fn._saved_result.equal(e), e.grad_fn._saved_result.grad_fn is e.grad_fn)
s = x.sum(0)
s.backward()
print(s.grad_fn._saved_dim, s.grad_fn._saved_self_sym_sizes)
z.sum().backward()
z.grad_fn._saved_other
"""
    )


# ---- saved-tensor hooks --------------------------------------------------------------------------------------------
def test_pack_and_unpack_hooks(same):
    same(
        """
a = torch.tensor([1., 2.], requires_grad=True)
def pack(t):
    print('pack', t, t is a, torch.is_grad_enabled())
    return ('p', t)
def unpack(p):
    print('unpack', p[1])
    return p[1]
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = a.sin()
    e = y.exp()
    w = a * 2
    v = a / 3
print('forward done')
e.sum().backward(retain_graph=True)
print(a.grad)
u = y.grad_fn._saved_self
print(u, u is a, u.is_leaf)
print(e.grad_fn._saved_result)
"""
    )


@pytest.mark.parametrize(
    "snippet",
    [
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 3):\n    y = a.sin()",
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(2), lambda p: p):\n    y = a.sin()",
        # hooks take over the saved tensor: an in-place change after saving is not detected, as in PyTorch
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):\n    y = a.sin()\n"
        "with torch.no_grad():\n    a.mul_(2)",
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: print('outer'), lambda p: p):\n"
        "    with torch.autograd.graph.saved_tensors_hooks(lambda t: print('inner') or t, lambda p: p):\n"
        "        y = a.sin()",
        "with torch.autograd.graph.save_on_cpu():\n    y = (a * a).exp()",
        "b = a * 2\nwith torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda p: p):\n    y = b.sin()",
    ],
)
def test_saved_tensor_hooks_cases(same, snippet):
    same(
        f"a = torch.tensor([1., 2.], requires_grad=True)\n{snippet}\n"
        "g, = torch.autograd.grad(y.sum(), a, create_graph=True)\nprint(g)\ng.sum().backward()\nprint(a.grad)"
    )


def test_disable_saved_tensors_hooks(same):
    same(
        """
with torch.autograd.graph.disable_saved_tensors_hooks('nope'):
    print(torch.is_grad_enabled())
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
    try:
        with torch.autograd.graph.disable_saved_tensors_hooks('no hooks here'):
            pass
    except RuntimeError as e:
        print(e)
with torch.autograd.graph.disable_saved_tensors_hooks('nope'):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
        pass
"""
    )


def test_saved_tensor_hooks_are_per_thread():
    import threading

    seen = []
    with ndgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
        thread = threading.Thread(target=lambda: seen.append(ndgrad.autograd.saved.HOOKS.stack))
        thread.start()
        thread.join()
        assert len(ndgrad.autograd.saved.HOOKS.stack) == 1
    assert seen == [()]
