"""ndgrad.autograd.functional against torch.autograd.functional: values, structure, requires_grad, errors."""

import pytest
import torch
from tests.closeness import assert_close

import ndgrad

# Each snippet runs with ``torch`` bound to each library and leaves what it wants compared in ``result``.
SETUP = """
F = torch.autograd.functional
x = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64)
y = torch.tensor([[0.3, -0.7], [1.1, 0.4], [-0.2, 0.9]], dtype=torch.float64)
s = torch.tensor(0.75, dtype=torch.float64)
"""

VALUE_CASES = {
    # vjp
    "vjp_scalar_output": "result = F.vjp(lambda a: (a.exp() * a.sin()).sum(), x)",
    "vjp_reducer": "result = F.vjp(lambda m: m.exp().sum(dim=1), y, torch.tensor([1.0, -2.0, 0.5], dtype=x.dtype))",
    "vjp_tuples": "result = F.vjp(lambda a, m: (a @ m, (a * a).sum()), (x, y), (torch.ones(2, dtype=x.dtype), s))",
    "vjp_one_element_tuple_input": "result = F.vjp(lambda a: a.pow(3).sum(), (x,))",
    "vjp_zero_dim": "result = F.vjp(lambda a: a.sin() * a, s)",
    "vjp_ignored_input": "result = F.vjp(lambda a, b: a.exp().sum(), (x, y))",
    "vjp_constant_output": "result = F.vjp(lambda a: torch.ones(3, dtype=a.dtype), x, torch.ones(3, dtype=x.dtype))",
    "vjp_float32": "result = F.vjp(lambda a: (a * a).sum(), x.float())",
    # jvp
    "jvp_reducer": "result = F.jvp(lambda m: m.exp().sum(dim=1), y, torch.ones(3, 2, dtype=x.dtype))",
    "jvp_scalar_input": "result = F.jvp(lambda a: torch.stack([a.sin(), a * a]), s)",
    "jvp_tuples": "result = F.jvp(lambda a, m: (a @ m, a.cos() * 2), (x, y), (x * 0 + 1, y * 2))",
    "jvp_ignored_input": "result = F.jvp(lambda a, b: a.exp(), (x, y), (x, y))",
    "jvp_constant_output": "result = F.jvp(lambda a: (a.sum(), torch.zeros(2, dtype=a.dtype)), x, x)",
    # jacobian
    "jacobian_single": "result = F.jacobian(lambda a: a.exp() * a.sin(), x)",
    "jacobian_matrix": "result = F.jacobian(lambda m: (m @ m.T).tanh(), y)",
    "jacobian_tuple_inputs": "result = F.jacobian(lambda a, m: a @ m, (x, y))",
    "jacobian_tuple_outputs": "result = F.jacobian(lambda a: (a * a, a.sum(), a.sin().mean()), x)",
    "jacobian_tuples": "result = F.jacobian(lambda a, m: (a @ m, (m * m).sum(dim=0)), (x, y))",
    "jacobian_zero_dim": "result = F.jacobian(lambda a, b: (a * b, a.exp()), (s, x))",
    "jacobian_ignored_input": "result = F.jacobian(lambda a, b: a * 2, (x, y))",
    "jacobian_constant_output": "result = F.jacobian(lambda a: (a * 2, torch.ones(2, dtype=a.dtype)), x)",
    "jacobian_vectorize": "result = F.jacobian(lambda a, m: (a @ m, a.exp(), m.sum()), (x, y), vectorize=True)",
    "jacobian_vectorize_ignored": "result = F.jacobian(lambda a, b: a.sin(), (x, y), vectorize=True)",
    "jacobian_forward_mode": "result = F.jacobian(lambda a, m: (a @ m, a.exp()), (x, y), vectorize=True, "
    "strategy='forward-mode')",
    "jacobian_forward_mode_single": "result = F.jacobian(lambda a: a.sin() * a, x, vectorize=True, "
    "strategy='forward-mode')",
    "jacobian_forward_mode_ignored": "result = F.jacobian(lambda a, b: (a * 3, torch.ones(2, dtype=a.dtype)), (x, y), "
    "vectorize=True, strategy='forward-mode')",
    "jacobian_forward_mode_float32_output": "result = F.jacobian(lambda a: a.float() * 2, x, vectorize=True, "
    "strategy='forward-mode')",
    # hessian
    "hessian_single": "result = F.hessian(lambda a: (a.exp() * a.sin()).sum(), x)",
    "hessian_matrix": "result = F.hessian(lambda m: (m @ m.T).pow(2).sum(), y)",
    "hessian_tuple": "result = F.hessian(lambda a, m: (a @ m).pow(3).sum() + (a * a).sum(), (x, y))",
    "hessian_zero_dim": "result = F.hessian(lambda a: a.sin() * a ** 3, s)",
    "hessian_linear": "result = F.hessian(lambda a: (a * 2).sum(), x)",
    "hessian_vectorize": "result = F.hessian(lambda a, b: (a * b.sum()).exp().sum(), (x, s), vectorize=True)",
    "hessian_forward_outer": "result = F.hessian(lambda a: (a.sin() * a).sum(), x, vectorize=True, "
    "outer_jacobian_strategy='forward-mode')",
    "hessian_forward_outer_linear": "result = F.hessian(lambda a: (a * 2).sum(), x, vectorize=True, "
    "outer_jacobian_strategy='forward-mode')",
    "hessian_forward_outer_tuple": "result = F.hessian(lambda a, m: (a.sin() * m.sum(1) ** 2).sum() + s * a.sum(), "
    "(x, y), vectorize=True, outer_jacobian_strategy='forward-mode')",
    "hessian_forward_outer_matrix": "result = F.hessian(lambda m: (m @ m.T).pow(2).sum(), y, vectorize=True, "
    "outer_jacobian_strategy='forward-mode')",
    "hessian_forward_outer_saved_result": "result = F.hessian(lambda m: m.exp().sum(), y, vectorize=True, "
    "outer_jacobian_strategy='forward-mode')",
    # hvp / vhp
    "hvp_single": "result = F.hvp(lambda a: (a.exp() * a.sin()).sum(), x, torch.tensor([1.0, 0.5, -1.0], "
    "dtype=x.dtype))",
    "hvp_tuple": "result = F.hvp(lambda a, m: (a @ m).pow(3).sum(), (x, y), (x, y))",
    "hvp_scalar": "result = F.hvp(lambda a: a.sin() * a, s)",
    "hvp_ignored_input": "result = F.hvp(lambda a, b: a.pow(3).sum(), (x, y), (x, y))",
    "vhp_single": "result = F.vhp(lambda m: (m @ m.T).pow(2).sum(), y, y)",
    "vhp_tuple": "result = F.vhp(lambda a, m: (a @ m).pow(3).sum(), (x, y), (x, y))",
    "vhp_scalar": "result = F.vhp(lambda a: a.exp() * a, s)",
    "vhp_linear": "result = F.vhp(lambda a, b: (a * 2).sum() + b, (x, s), (x, s))",
}

# create_graph=True: results are differentiable back to the user's tensors; ``x.grad`` is compared too.
GRAPH_CASES = {
    "vjp": "r = F.vjp(lambda a: (a.exp() * a).sum(), xg, create_graph=True)\nr[1].pow(2).sum().backward()",
    "jvp": "r = F.jvp(lambda a: a.sin() * a, xg, x, create_graph=True)\nr[1].pow(2).sum().backward()",
    "jacobian": "r = F.jacobian(lambda a: a.sin() * a.sum(), xg, create_graph=True)\nr.pow(2).sum().backward()",
    "jacobian_vectorize": "r = F.jacobian(lambda a: a.exp() * a, xg, create_graph=True, vectorize=True)\n"
    "r.sum().backward()",
    "hessian": "r = F.hessian(lambda a: (a.pow(3) * a.sum()).sum(), xg, create_graph=True)\nr.sum().backward()",
    "hvp": "r = F.hvp(lambda a: a.pow(4).sum(), xg, x, create_graph=True)\nr[1].sum().backward()",
    "vhp": "r = F.vhp(lambda a: a.pow(4).sum(), xg, x, create_graph=True)\nr[1].sum().backward()",
    "vjp_v_requires_grad": "v = x.clone().requires_grad_()\nr = F.vjp(lambda a: a.exp(), x, v, create_graph=True)\n"
    "r[1].sum().backward()\nxg.grad = v.grad",
    "jvp_no_input_grad": "r = F.jvp(lambda a: a.exp(), x, x, create_graph=True)",
    "hessian_forward_outer_user_grad": "r = F.hessian(lambda a: (a.sin() * a).sum(), xg, vectorize=True, "
    "outer_jacobian_strategy='forward-mode')\nr.sum().backward()",
    "jacobian_forward_mode_user_grad": "r = F.jacobian(lambda a: a.exp() * a, xg, vectorize=True, "
    "strategy='forward-mode')\nr.sum().backward()",
}


def _run(lib, code):
    scope = {"torch": lib}
    exec(compile(SETUP + code, "<snippet>", "exec"), scope)
    return scope


def _assert_matches(expected, actual, path="result"):
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, ndgrad.Tensor), f"{path}: {type(actual)} instead of a Tensor"
        assert tuple(actual.shape) == tuple(expected.shape), path
        assert str(actual.dtype) == str(expected.dtype).replace("torch.", "ndgrad."), path
        assert actual.requires_grad == expected.requires_grad, f"{path}: requires_grad"
        assert actual.is_leaf == expected.is_leaf, f"{path}: is_leaf"
        assert_close(actual, expected, msg=path)
    elif expected is None:
        assert actual is None, path
    else:
        assert type(actual) is type(expected) in (tuple, list), f"{path}: {type(actual)} instead of {type(expected)}"
        assert len(actual) == len(expected), path
        for index, (e, a) in enumerate(zip(expected, actual)):
            _assert_matches(e, a, f"{path}[{index}]")


@pytest.mark.parametrize("code", VALUE_CASES.values(), ids=list(VALUE_CASES))
def test_values_and_structure(code):
    expected, actual = _run(torch, code), _run(ndgrad, code)
    _assert_matches(expected["result"], actual["result"])
    for name in ("x", "y", "s"):  # the user's tensors are left alone
        _assert_matches(expected[name], actual[name], name)


@pytest.mark.parametrize("code", GRAPH_CASES.values(), ids=GRAPH_CASES.keys())
def test_create_graph(code):
    code = "xg = x.clone().requires_grad_()\n" + code
    expected, actual = _run(torch, code), _run(ndgrad, code)
    _assert_matches(expected["r"], actual["r"], "r")
    _assert_matches(expected["xg"].grad, actual["xg"].grad, "xg.grad")


@pytest.mark.parametrize("name", ["vjp", "jvp", "hvp", "vhp"])
def test_user_tensors_untouched_without_create_graph(name, same):
    same(f"""
F = torch.autograd.functional
x = torch.tensor([0.5, -1.0], requires_grad=True)
out, res = F.{name}(lambda a: (a.exp() * a).sum() if "{name}" in ("vjp", "hvp", "vhp") else a.exp(), x,
                    None if "{name}" == "vjp" else torch.ones(2))
print(out.requires_grad, res.requires_grad, out.grad_fn, res.grad_fn, x.grad, x.is_leaf, x.requires_grad)
j = F.jacobian(lambda a: a * a, x)
h = F.hessian(lambda a: (a ** 3).sum(), x)
print(j.requires_grad, h.requires_grad, x.grad, x.requires_grad, x._version)
""")


def test_inputs_are_new_objects(same):
    # func tells its inputs apart from the same tensors it captured (PyTorch issue 32576)
    same("""
F = torch.autograd.functional
x = torch.tensor([1.0, 2.0], requires_grad=True)
seen = []
F.vjp(lambda a: seen.append(a is x) or (a * x).sum(), x)
F.jacobian(lambda a: seen.append(a is x) or a * x, x, create_graph=True)
print(seen)
print(F.jacobian(lambda a: a * x, x))
""")


def test_grad_mode_off(same):
    same("""
F = torch.autograd.functional
x = torch.tensor([1.0, 2.0])
with torch.no_grad():
    print(F.vjp(lambda a: (a * a).sum(), x))
    print(F.jvp(lambda a: a * a, x, x))
    print(F.jacobian(lambda a: a.exp(), x))
    print(F.hvp(lambda a: (a ** 3).sum(), x, x))
    print(torch.is_grad_enabled())
""")


ERROR_CASES = {
    "vjp_v_none_vector_output": "F.vjp(lambda a: a * 2, x)",
    "vjp_v_none_two_outputs": "F.vjp(lambda a: (a.sum(), a.sum()), x)",
    "jvp_v_none_vector_input": "F.jvp(lambda a: a * 2, x)",
    "hvp_v_none_vector_input": "F.hvp(lambda a: a.sum(), x)",
    "vhp_v_none_vector_input": "F.vhp(lambda a: a.sum(), x)",
    "vjp_v_wrong_shape": "F.vjp(lambda a: a * 2, x, torch.ones(2))",
    "vjp_v_wrong_shape_tuple": "F.vjp(lambda a: (a, a.sum()), x, (torch.ones(3), torch.ones(2)))",
    "vjp_v_wrong_length": "F.vjp(lambda a: (a, a.sum()), x, (torch.ones(3),))",
    "jvp_v_too_many": "F.jvp(lambda a: a * 2, x, (x, x))",
    "jvp_v_wrong_shape": "F.jvp(lambda a, b: a * b, (x, x), (x, torch.ones(2)))",
    "jvp_v_not_tensor": "F.jvp(lambda a: a * 2, x, [1.0, 2.0, 3.0])",
    "vjp_v_tuple_not_tensor": "F.vjp(lambda a: a * 2, x, (3,))",
    "inputs_list": "F.vjp(lambda a: a.sum(), [x])",
    "inputs_tuple_with_number": "F.jacobian(lambda a, b: a * b, (x, 2.0))",
    "hessian_inputs_number": "F.hessian(lambda a: a, 2.0)",
    "output_number": "F.jacobian(lambda a: 3, x)",
    "output_list": "F.jvp(lambda a: [a], x, x)",
    "output_tuple_with_none": "F.vjp(lambda a: (a.sum(), None), x, (x.sum(), x.sum()))",
    "vjp_strict_independent": "F.vjp(lambda a, b: a.sum(), (x, x), strict=True)",
    "vjp_strict_constant_output": "F.vjp(lambda a: torch.ones(()), x, strict=True)",
    "jvp_strict_independent": "F.jvp(lambda a, b: a * 2, (x, x), (x, x), strict=True)",
    "jvp_strict_constant_output": "F.jvp(lambda a: (a * 2, torch.ones(1)), x, x, strict=True)",
    "jacobian_strict_independent": "F.jacobian(lambda a, b: a * 2, (x, x), strict=True)",
    "jacobian_strict_create_graph_linear": "F.jacobian(lambda a: a * 2, x, strict=True, create_graph=True)",
    "vjp_strict_create_graph_linear": "F.vjp(lambda a: (a * 2).sum(), x, strict=True, create_graph=True)",
    "jvp_strict_create_graph_linear": "F.jvp(lambda a: a * 2, x, x, strict=True, create_graph=True)",
    "jacobian_strict_vectorize": "F.jacobian(lambda a: a * a, x, strict=True, vectorize=True)",
    "jacobian_bad_strategy": "F.jacobian(lambda a: a * a, x, strategy='forward')",
    "jacobian_forward_no_vectorize": "F.jacobian(lambda a: a * a, x, strategy='forward-mode')",
    "jacobian_forward_strict": "F.jacobian(lambda a: a * a, x, strict=True, vectorize=True, strategy='forward-mode')",
    "jacobian_forward_create_graph": "F.jacobian(lambda a: a, x, create_graph=True, strategy='forward-mode')",
    "jacobian_forward_bad_input": "F.jacobian(lambda a: a, [x], strategy='forward-mode')",
    "jacobian_forward_output_list": "F.jacobian(lambda a: [a], x, vectorize=True, strategy='forward-mode')",
    "jacobian_empty_output": "F.jacobian(lambda a: a[:0], x)",
    "hessian_vector_output": "F.hessian(lambda a: a * a, x)",
    "hessian_tuple_output": "F.hessian(lambda a: (a.sum(),), x)",
    "hessian_strict_linear": "F.hessian(lambda a: (a * 2).sum(), x, strict=True)",
    "hessian_strict_independent": "F.hessian(lambda a, b: (a ** 3).sum(), (x, x), strict=True)",
    "hessian_strict_create_graph_quadratic": "F.hessian(lambda a: (a * a).sum(), x, strict=True, create_graph=True)",
    "hessian_bad_strategy": "F.hessian(lambda a: (a * a).sum(), x, outer_jacobian_strategy='forward')",
    "hessian_forward_no_vectorize": "F.hessian(lambda a: (a * a).sum(), x, outer_jacobian_strategy='forward-mode')",
    "hessian_forward_create_graph": "F.hessian(lambda a: (a ** 3).sum(), x, create_graph=True, vectorize=True, "
    "outer_jacobian_strategy='forward-mode')",
    "hvp_vector_output": "F.hvp(lambda a: a * a, x, x)",
    "vhp_tuple_output": "F.vhp(lambda a: (a.sum(), a.sum()), x, x)",
    "hvp_strict_linear": "F.hvp(lambda a: (a * 2).sum(), x, x, strict=True)",
    "vhp_strict_linear": "F.vhp(lambda a: (a * 2).sum(), x, x, strict=True)",
    "vhp_strict_independent": "F.vhp(lambda a, b: (a ** 3).sum(), (x, x), (x, x), strict=True)",
    "hvp_strict_independent": "F.hvp(lambda a, b: (a ** 3).sum() + b.sum(), (x, x), (x, x), strict=True)",
    "vhp_strict_create_graph_quadratic": "F.vhp(lambda a: (a * a).sum(), x, x, strict=True, create_graph=True)",
    "hvp_strict_create_graph_quadratic": "F.hvp(lambda a: (a * a).sum(), x, x, strict=True, create_graph=True)",
    "jvp_v_int_output": "F.jvp(lambda a: a.long(), x, x)",
}


@pytest.mark.parametrize("code", ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_errors(code, same):
    outcome = same("F = torch.autograd.functional\nx = torch.tensor([1.0, 2.0, 3.0])\n" + code)
    assert outcome.error is not None


STRICT_PASSES = {
    "vjp": "print(F.vjp(lambda a: (a * a).sum(), x, strict=True))",
    "jvp": "print(F.jvp(lambda a: a.exp(), x, x, strict=True))",
    "jacobian": "print(F.jacobian(lambda a, b: a * b, (x, x), strict=True))",
    "jacobian_create_graph": "print(F.jacobian(lambda a: a * a, x, strict=True, create_graph=True)[0].requires_grad)",
    "hessian": "print(F.hessian(lambda a: (a ** 3).sum(), x, strict=True))",
    "hvp": "print(F.hvp(lambda a: (a ** 3).sum(), x, x, strict=True))",
    "vhp": "print(F.vhp(lambda a: (a ** 3).sum(), x, x, strict=True))",
}


@pytest.mark.parametrize("code", STRICT_PASSES.values(), ids=STRICT_PASSES.keys())
def test_strict_passes_when_dependent(code, same):
    outcome = same("F = torch.autograd.functional\nx = torch.tensor([1.0, 2.0, 3.0])\n" + code)
    assert outcome.error is None


def test_printed_results(same):
    same("""
F = torch.autograd.functional
x = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
print(F.jacobian(lambda a: a.exp().sum(dim=1), x, create_graph=True))
print(F.vjp(lambda a: a.exp().sum(dim=1), x, torch.ones(2)))
print(F.hessian(lambda a, b: (a * b).sum(), (x, x)))
""")
