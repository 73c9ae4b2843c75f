"""ndgrad.ops.activation and ndgrad.nn.functional at their boundaries, against torch: the errors (type and message),
integer and bool inputs, in-place forms, the composites (relu6, softsign, tanhshrink: torch records the nodes of
the ops they are made of), values far out, and the names exported."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad.nn import functional
from ndgrad.ops import activation

F = "torch.nn.functional"
FLOAT_ONLY = ["leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus", "hardsigmoid", "hardswish",
              "logsigmoid"]
WITH_INPLACE = ["leaky_relu", "elu", "silu", "mish", "hardsigmoid", "hardswish"]

# (id, code, exception type torch raises)
ERRORS = [
    *[(f"{name}_long", f"{F}.{name}(torch.tensor([1, -2]))", "NotImplementedError") for name in FLOAT_ONLY],
    *[(f"{name}_int_in_place", f"{F}.{name}(torch.tensor([1, -2], dtype=torch.int32), inplace=True)",
       "NotImplementedError") for name in WITH_INPLACE],
    ("elu_bool", f"{F}.elu(torch.tensor([True]))", "NotImplementedError"),
    ("celu_top_level_long", "torch.celu(torch.tensor([1]))", "NotImplementedError"),
    ("relu_bool", f"{F}.relu(torch.tensor([True]))", "RuntimeError"),
    ("relu__bool", f"{F}.relu_(torch.tensor([True]))", "RuntimeError"),
    ("hardtanh_bool", f"{F}.hardtanh(torch.tensor([True]))", "RuntimeError"),
    ("hardtanh__bool", f"{F}.hardtanh_(torch.tensor([True]))", "RuntimeError"),
    ("relu6_bool", f"{F}.relu6(torch.tensor([True]))", "RuntimeError"),
    ("gelu_approximate", f"{F}.gelu(torch.ones(2), approximate='foo')", "RuntimeError"),
    ("gelu_positional_approximate", f"{F}.gelu(torch.ones(2), 'tanh')", "TypeError"),
    ("hardtanh_bounds", f"{F}.hardtanh(torch.ones(2), 2.0, 1.0)", "ValueError"),
    ("celu_alpha_zero", f"{F}.celu(torch.ones(2), alpha=0.0)", "RuntimeError"),
    ("celu_top_level_alpha_zero", "torch.celu(torch.ones(2), 0)", "RuntimeError"),
    ("celu__alpha_zero", "torch.celu_(torch.ones(2), 0.0)", "RuntimeError"),
    ("selu_top_level_inplace", "torch.selu(torch.ones(2), inplace=True)", "TypeError"),
    ("relu__extra_argument", f"{F}.relu_(torch.ones(2), True)", "TypeError"),
    ("relu_inplace_leaf", f"x = torch.ones(3, requires_grad=True)\n{F}.relu(x, inplace=True)", "RuntimeError"),
    ("relu__leaf", "x = torch.ones(3, requires_grad=True)\ntorch.relu_(x)", "RuntimeError"),
    ("relu__method_leaf", "x = torch.ones(3, requires_grad=True)\nx.relu_()", "RuntimeError"),
    ("elu__leaf", f"x = torch.ones(3, requires_grad=True)\n{F}.elu_(x)", "RuntimeError"),
    ("selu_inplace_leaf", f"x = torch.ones(3, requires_grad=True)\n{F}.selu(x, True)", "RuntimeError"),
    ("silu_inplace_leaf", f"x = torch.ones(3, requires_grad=True)\n{F}.silu(x, inplace=True)", "RuntimeError"),
    ("relu6_inplace_leaf", f"x = torch.ones(3, requires_grad=True)\n{F}.relu6(x, inplace=True)", "RuntimeError"),
    (
        "leaky_relu__negative_slope_backward",
        f"x = torch.ones(3, requires_grad=True)\ny = x * 1\n{F}.leaky_relu_(y, -0.1)\ny.sum().backward()",
        "RuntimeError",
    ),
    (
        "leaky_relu_inplace_negative_slope_backward",
        f"x = torch.ones(3, requires_grad=True)\ny = x * 1\n{F}.leaky_relu(y, -0.1, inplace=True)\ny.sum().backward()",
        "RuntimeError",
    ),
    (
        "elu__negative_alpha_backward",
        f"x = torch.ones(3, requires_grad=True)\ny = x * 1\n{F}.elu_(y, alpha=-1.0)\ny.sum().backward()",
        "RuntimeError",
    ),
    (
        "celu__negative_alpha_backward",
        "x = torch.ones(3, requires_grad=True)\ny = x * 1\ntorch.celu_(y, alpha=-1.0)\ny.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_input_modified",
        f"x = torch.ones(3, requires_grad=True)\ny = x * 1\nz = {F}.gelu(y)\ny.mul_(2)\nz.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_result_modified",
        "x = torch.ones(3, requires_grad=True)\ny = x.relu()\ny.mul_(2)\ny.sum().backward()",
        "RuntimeError",
    ),
]


@pytest.mark.parametrize(("code", "error_type"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_matches_torch(same, code, error_type):
    expected = same(code)
    assert expected.error is not None and expected.error[0] == error_type, expected


PRINTED = [
    *[f"print({F}.{name}(torch.tensor([1, -2, 7])))" for name in ["relu", "relu6", "hardtanh", "softsign",
                                                                     "tanhshrink"]],
    f"print({F}.hardtanh(torch.tensor([1, -2, 3]), -1.5, 2.5), {F}.relu6(torch.tensor([3, 9], dtype=torch.int32)))",
    f"print({F}.relu_(torch.tensor([1, -2])), torch.relu_(torch.tensor([3, -2])), torch.tensor([-1, 2]).relu_())",
    f"x = torch.tensor([-1., 0., 2.], requires_grad=True)\ny = x * 1\nprint({F}.hardtanh_(y, 0., 1.) is y, "
    "y.grad_fn.name())\ny.sum().backward()\nprint(x.grad)",
    f"x = torch.tensor([-1., 0., 8.], requires_grad=True)\ny = x * 1\nprint({F}.relu6(y, inplace=True) is y, "
    "y.grad_fn.name())\ny.sum().backward()\nprint(x.grad)",
    f"x = torch.tensor([-1., 0., 2.], requires_grad=True)\nprint({F}.softsign(x).grad_fn.name(), "
    f"{F}.tanhshrink(x).grad_fn.name(), {F}.relu6(x).grad_fn.name(), {F}.selu(x).grad_fn.name())",
    f"x = torch.tensor([-1., 0., 2.], requires_grad=True)\n{F}.softsign(x).sum().backward()\nprint(x.grad)",
    f"x = torch.tensor([-1., 0., 2.], requires_grad=True)\n{F}.tanhshrink(x).sum().backward()\nprint(x.grad)",
    "x = torch.tensor([-1., 0., 2.], requires_grad=True)\ny = x * 1\nprint(torch.selu_(y).grad_fn.name())\n"
    "y.sum().backward()\nprint(x.grad)",
    f"x = torch.tensor([-1., 0., 2.], requires_grad=True)\ny = x * 1\n{F}.leaky_relu(y, 0.5, inplace=True)\n"
    "print(y.grad_fn.name())\n(y * y).sum().backward()\nprint(x.grad)",
    f"print({F}.softplus(torch.tensor([1000., -1000.])), {F}.softplus(torch.tensor([-1., 2.]), 2, 3))",
    f"print({F}.logsigmoid(torch.tensor([-1000., 0., 1000.])), {F}.mish(torch.tensor([-1000., 1000.])), "
    f"{F}.silu(torch.tensor([-1000., 1000.])))",
    f"print({F}.gelu(torch.tensor([-40., 1., float('nan')])), {F}.elu(torch.tensor([-1000., "
    "float('inf')])))",
    f"print({F}.relu(torch.tensor([float('nan'), -1.])), {F}.hardtanh(torch.tensor([float('nan')])))",
    f"print({F}.sigmoid(torch.tensor([0.])), {F}.tanh(torch.tensor([0.])))",
    "print(torch.selu(torch.tensor([-1., 1.])), torch.celu(torch.tensor([-1., 1.]), 2.0))",
    "x = torch.tensor([-1., 0.5, 2.], dtype=torch.float64, requires_grad=True)\ny = torch.celu(x, alpha=0.5)\n"
    "g, = torch.autograd.grad(y.sum(), x, create_graph=True)\ng.sum().backward()\nprint(g.detach(), x.grad)",
]


@pytest.mark.parametrize("code", PRINTED)
def test_printed_results_match_torch(same, code):
    same(code)


COMPOSITES = [
    ("softsign", lambda lib, x: lib.nn.functional.softsign(x)),
    ("tanhshrink", lambda lib, x: lib.nn.functional.tanhshrink(x)),
    ("relu6", lambda lib, x: lib.nn.functional.relu6(x * 4)),
    ("relu6_inplace", lambda lib, x: lib.nn.functional.relu6(x * 4, inplace=True)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("name", "call"), COMPOSITES, ids=[c[0] for c in COMPOSITES])
def test_composites_match_torch(name, call, dtype):
    """Values, grad_fn, first and second derivatives: the composites get no op-table entry of their own."""
    values = np.random.default_rng(0).uniform(-2, 2, (3, 4)).astype(dtype)
    cotangent = np.random.default_rng(1).standard_normal((3, 4)).astype(dtype)
    results = []
    for lib in (ndgrad, torch):
        x = lib.from_numpy(values.copy()).requires_grad_()
        y = call(lib, x)
        (g,) = lib.autograd.grad(y, x, lib.from_numpy(cotangent.copy()), create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x, allow_unused=True) if g.requires_grad else (None,)
        results.append((y, type(y.grad_fn).__name__, g, gg))
    (y, node, g, gg), (y_ref, node_ref, g_ref, gg_ref) = results
    assert node == node_ref
    for ours, theirs in ((y, y_ref), (g, g_ref), (gg, gg_ref)):
        if theirs is None or ours is None:
            assert ours is None or not ours.numpy().any(), "torch's second derivative is zero here"
            continue
        assert_close(ours, theirs)


def test_exported_names_are_torch_names():
    """ops.activation exports only what torch has at top level; nn.functional mirrors torch.nn.functional."""
    assert [name for name in activation.__all__ if not hasattr(torch, name)] == []
    assert [name for name in functional.__all__ if not hasattr(torch.nn.functional, name)] == []
    methods = [name for name in vars(activation.ActivationMethods) if not name.startswith("__")]
    assert [name for name in methods if not hasattr(torch.Tensor, name)] == []
    assert all(callable(getattr(functional, name)) for name in functional.__all__)
    assert not hasattr(ndgrad, "gelu") and not hasattr(torch, "gelu")  # F-only names stay out of ndgrad's namespace
