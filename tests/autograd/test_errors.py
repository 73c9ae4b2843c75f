"""Errors and warnings at the user's boundary: ndgrad raises torch's exception type with torch's exact message
(``torch.`` spelled ``ndgrad.``). Each snippet runs with both libraries; the test also checks that torch did
raise, so a snippet that stopped failing would not pass silently."""

import numpy as np
import pytest
import torch

import ndgrad

# (id, code, exception type torch raises)
ERRORS = [
    ("non_scalar_root", "torch.ones(3, requires_grad=True).mul(2).backward()", "RuntimeError"),
    ("non_scalar_root_2d", "x = torch.ones(2, 2, requires_grad=True)\n(x * x).backward()", "RuntimeError"),
    ("grad_wrong_length", "x = torch.ones(3, requires_grad=True)\n(x * 2).backward(torch.ones(2))", "RuntimeError"),
    ("grad_wrong_rank", "x = torch.ones(3, requires_grad=True)\n(x * 2).backward(torch.ones(3, 1))", "RuntimeError"),
    ("grad_for_scalar", "x = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward(torch.ones(2))", "RuntimeError"),
    (
        "second_backward",
        "x = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.backward()",
        "RuntimeError",
    ),
    (
        "second_grad_call",
        "x = torch.ones(3, requires_grad=True)\ny = (x.exp()).sum()\ntorch.autograd.grad(y, x)\n"
        "torch.autograd.grad(y, x)",
        "RuntimeError",
    ),
    ("backward_no_grad_sum", "torch.ones(3).sum().backward()", "RuntimeError"),
    ("backward_no_grad_with_gradient", "torch.ones(3).backward(torch.ones(3))", "RuntimeError"),
    (
        "backward_under_no_grad",
        "x = torch.ones(3, requires_grad=True)\nwith torch.no_grad():\n    y = (x * 2).sum()\ny.backward()",
        "RuntimeError",
    ),
    ("int_tensor_requires_grad", "torch.tensor([1, 2], requires_grad=True)", "RuntimeError"),
    ("int_zeros_requires_grad", "torch.zeros(2, dtype=torch.int64, requires_grad=True)", "RuntimeError"),
    ("int_arange_requires_grad", "torch.arange(3, requires_grad=True)", "RuntimeError"),
    ("int_requires_grad_", "torch.tensor([1, 2]).requires_grad_()", "RuntimeError"),
    ("bool_requires_grad_", "torch.tensor([True]).requires_grad_(True)", "RuntimeError"),
    ("int_requires_grad_setter", "t = torch.tensor([1, 2])\nt.requires_grad = True", "RuntimeError"),
    (
        "non_leaf_requires_grad_false",
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\ny.requires_grad_(False)",
        "RuntimeError",
    ),
    (
        "non_leaf_requires_grad_setter",
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\ny.requires_grad = True",
        "RuntimeError",
    ),
    (
        "non_leaf_requires_grad_setter_false",
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\ny.requires_grad = False",
        "RuntimeError",
    ),
    ("leaf_add_", "x = torch.ones(3, requires_grad=True)\nx.add_(1)", "RuntimeError"),
    ("leaf_mul_", "x = torch.ones(3, requires_grad=True)\nx.mul_(2)", "RuntimeError"),
    ("leaf_iadd", "x = torch.ones(3, requires_grad=True)\nx += 1", "RuntimeError"),
    ("leaf_zero_", "x = torch.ones(3, requires_grad=True)\nx.zero_()", "RuntimeError"),
    ("leaf_fill_", "x = torch.ones(3, requires_grad=True)\nx.fill_(2.0)", "RuntimeError"),
    (
        "saved_input_modified",
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\nz = y * y\ny.add_(1)\nz.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_input_modified_2d_float64",
        "x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)\ny = x * 2\nz = y * y\ny.mul_(1)\n"
        "z.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_output_modified_exp",
        "x = torch.ones(3, requires_grad=True)\ny = x.exp()\ny.add_(1)\ny.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_output_modified_tanh",
        "x = torch.ones(3, requires_grad=True)\ny = x.tanh()\ny.mul_(2)\ny.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_self_multiplied_in_place",
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\ny.mul_(y)\ny.sum().backward()",
        "RuntimeError",
    ),
    (
        "saved_leaf_data_modified_twice",
        "w = torch.ones(3)\nx = torch.ones(3, requires_grad=True)\ny = (x * w).sum()\nw.add_(1)\nw.add_(1)\n"
        "y.backward()",
        "RuntimeError",
    ),
    ("item_many", "torch.ones(3).item()", "RuntimeError"),
    ("item_empty", "torch.ones(0).item()", "RuntimeError"),
    ("float_many", "float(torch.ones(3))", "ValueError"),
    ("float_empty", "float(torch.ones(0))", "ValueError"),
    ("int_many", "int(torch.ones(2, 2))", "ValueError"),
    ("bool_many", "bool(torch.ones(3))", "RuntimeError"),
    ("bool_empty", "bool(torch.ones(0))", "RuntimeError"),
    ("index_float", "[0, 1][torch.tensor(1.0)]", "TypeError"),
    ("index_many", "[0, 1][torch.tensor([1, 1])]", "TypeError"),
    ("index_bool_many", "[0, 1][torch.tensor([True, False])]", "TypeError"),
    ("len_0d", "len(torch.tensor(1.0))", "TypeError"),
    ("iter_0d", "iter(torch.tensor(1.0))", "TypeError"),
    ("for_over_0d", "for _ in torch.tensor(5):\n    pass", "TypeError"),
    ("numpy_requires_grad", "torch.ones(3, requires_grad=True).numpy()", "RuntimeError"),
    ("np_asarray_requires_grad", "np.asarray(torch.ones(3, requires_grad=True))", "RuntimeError"),
    ("np_array_requires_grad", "np.array(torch.ones(3, requires_grad=True) * 2)", "RuntimeError"),
    ("add_broadcast", "torch.ones(2, 3) + torch.ones(3, 2)", "RuntimeError"),
    ("add_broadcast_leading", "torch.ones(2, 3) + torch.ones(4)", "RuntimeError"),
    ("mul_broadcast_3d", "torch.ones(5, 2, 3) * torch.ones(4, 1, 3)", "RuntimeError"),
    ("add_broadcast_requires_grad", "torch.ones(2, requires_grad=True) + torch.ones(3)", "RuntimeError"),
    ("view_numel", "torch.ones(2, 3).view(4)", "RuntimeError"),
    ("view_inferred", "torch.ones(2, 3).view(-1, 4)", "RuntimeError"),
    ("view_two_inferred", "torch.ones(2, 3).view(-1, -1)", "RuntimeError"),
    ("view_non_contiguous", "torch.ones(2, 3).t().view(6)", "RuntimeError"),
    ("reshape_numel", "torch.ones(3).reshape(2, 2)", "RuntimeError"),
    ("mm_inner", "torch.ones(2, 3).mm(torch.ones(2, 3))", "RuntimeError"),
    ("mm_1d", "torch.mm(torch.ones(2, 3), torch.ones(3))", "RuntimeError"),
    ("matmul_inner", "torch.ones(2, 3).matmul(torch.ones(2, 3))", "RuntimeError"),
    ("matmul_operator", "torch.ones(2, 3) @ torch.ones(4, 2)", "RuntimeError"),
    ("dot_lengths", "torch.ones(3).dot(torch.ones(4))", "RuntimeError"),
    ("dot_2d", "torch.ones(2, 2).dot(torch.ones(2, 2))", "RuntimeError"),
    ("dot_dtypes", "torch.ones(3).dot(torch.ones(3, dtype=torch.float64))", "RuntimeError"),
    ("int_add_float", "torch.tensor([1, 2]).add_(1.5)", "RuntimeError"),
    ("int_mul_float_tensor", "torch.tensor([1, 2]).mul_(torch.tensor(1.5))", "RuntimeError"),
    ("int_div_", "torch.tensor([1, 2]).div_(2)", "RuntimeError"),
    ("int_iadd_float", "x = torch.tensor([1, 2])\nx += 1.5", "RuntimeError"),
    ("bool_add_int", "torch.tensor([True, False]).add_(1)", "RuntimeError"),
    ("in_place_broadcast_output", "torch.ones(2).add_(torch.ones(2, 2))", "RuntimeError"),
    ("in_place_broadcast_before_cast", "torch.ones(2, dtype=torch.int64).add_(torch.ones(2, 2))", "RuntimeError"),
    ("in_place_shapes", "torch.ones(2).add_(torch.ones(3))", "RuntimeError"),
    ("grad_unused_input", "x = torch.ones(1, requires_grad=True)\ny = torch.ones(1, requires_grad=True)\n"
     "torch.autograd.grad((x * 2).sum(), [x, y])", "RuntimeError"),
    ("grad_input_no_grad", "x = torch.ones(1, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), torch.ones(1))",
     "RuntimeError"),
    ("retain_grad_no_grad", "torch.ones(2).retain_grad()", "RuntimeError"),
    ("register_hook_no_grad", "torch.ones(2).register_hook(print)", "RuntimeError"),
    ("backward_empty_inputs", "x = torch.ones(1, requires_grad=True)\n(x * 2).sum().backward(inputs=[])",
     "RuntimeError"),
    ("sub_bool_tensors", "torch.tensor([True]) - torch.tensor([False])", "RuntimeError"),
    ("sub_bool_and_int", "torch.tensor([True]) - 1", "RuntimeError"),
    ("rsub_int_and_bool", "1 - torch.tensor([True])", "RuntimeError"),
    ("set_default_dtype_int", "torch.set_default_dtype(torch.int64)", "TypeError"),
    ("assign_grad_wrong_shape", "x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(3)", "RuntimeError"),
    ("assign_grad_wrong_dtype",
     "x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(2, dtype=torch.float64)", "RuntimeError"),
    ("assign_grad_int_dtype",
     "x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(2, dtype=torch.int64)", "RuntimeError"),
    ("assign_grad_half_dtype_and_shape",
     "x = torch.ones(2, dtype=torch.float64, requires_grad=True)\nx.grad = torch.ones(3, dtype=torch.float16)",
     "RuntimeError"),
    ("assign_grad_0d", "x = torch.ones(2, 3, requires_grad=True)\nx.grad = torch.ones(())", "RuntimeError"),
    ("assign_grad_list", "x = torch.ones(2, requires_grad=True)\nx.grad = [1.0, 2.0]", "TypeError"),
]


@pytest.mark.parametrize(("code", "error_type"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_matches_torch(same, code, error_type):
    expected = same(code)
    assert expected.error is not None and expected.error[0] == error_type, expected


def test_backward_messages_spelled_out(run):
    """A few messages spelled out here too, so that a change on torch's side is noticed rather than followed."""
    outcome = run(ndgrad, "x = torch.ones(3, requires_grad=True)\n(x * 2).backward(torch.ones(2))")
    assert outcome.error == (
        "RuntimeError",
        "Mismatch in shape: grad_output[0] has a shape of ndgrad.Size([2]) and output[0] has a shape of "
        "ndgrad.Size([3]).",
    )
    outcome = run(ndgrad, "torch.ones(3).sum().backward()")
    assert outcome.error == (
        "RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn"
    )


def test_version_counter_message_names_the_op_and_versions(same):
    expected = same("x = torch.ones(3, requires_grad=True)\ny = x * 2\nz = y * y\ny.add_(1)\nz.sum().backward()")
    assert "[ndgrad.FloatTensor [3]], which is output 0 of Add, is at version 1; expected version 0 instead" in (
        expected.error[1]
    )


def test_retain_graph_allows_second_backward_and_accumulates(same):
    expected = same(
        """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
y.backward()
"""
    )
    first, second = expected.stdout.splitlines()
    assert (first, second) == ("tensor([2., 4., 6.])", "tensor([ 4.,  8., 12.])")  # 2x, then twice that
    assert expected.error[0] == "RuntimeError" and "a second time" in expected.error[1]


def test_retain_graph_accumulates_to_twice_the_value():
    x = ndgrad.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = (x * x * x).sum()
    y.backward(retain_graph=True)
    once = x.grad.clone()
    y.backward()
    np.testing.assert_allclose(once.numpy(), 3 * x.detach().numpy() ** 2)
    np.testing.assert_allclose(x.grad.numpy(), 2 * once.numpy())


def test_non_leaf_grad_warning_text(same):
    expected = same("x = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)")
    assert expected.stdout == "None"
    assert expected.warnings == [
        (
            "UserWarning",
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't "
            "be populated during autograd.backward(). If you indeed want the .grad field to be populated for a "
            "non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
            "mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
            "more information.",
        )
    ]


def test_retain_grad_keeps_grad_without_warning(same):
    expected = same(
        """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
y.retain_grad()
(y * y).sum().backward()
print(y.grad, y.retains_grad, x.retains_grad)
"""
    )
    assert expected.stdout == "tensor([ 6., 12.]) True False"
    assert expected.warnings == []


def test_leaf_grad_and_no_grad_tensor_read_without_warning(same):
    expected = same(
        "x = torch.ones(2, requires_grad=True)\nprint(x.grad, torch.ones(2).grad, (torch.ones(2) * 2).grad)"
    )
    assert expected.stdout == "None None None" and expected.warnings == []


def test_grad_of_non_leaf_named_in_backward_inputs_is_set_without_warning(same):
    expected = same(
        "a = torch.tensor([1., 2.], requires_grad=True)\nb = a * 2\nb.backward(torch.ones(2), inputs=[b])\n"
        "print(b.grad, a.grad)"
    )
    assert expected.stdout == "tensor([1., 1.]) None" and expected.warnings == []


def test_copy_construct_warning(same):
    expected = same("print(torch.tensor(torch.ones(2, dtype=torch.int32)))")
    assert expected.warnings and expected.warnings[0][0] == "UserWarning"
    assert "sourceTensor.detach().clone()" in expected.warnings[0][1]


def test_errors_are_not_numpy_errors():
    """The boundary translates: no ValueError from NumPy's broadcasting reaches the user."""
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        ndgrad.ones(2, 3) + ndgrad.ones(3, 2)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ndgrad.ones(2).add_(ndgrad.ones(2, 2))


@pytest.mark.parametrize("index", [0, 1])
def test_unused_input_message_names_index(same, index):
    inputs = "[x, y]" if index == 1 else "[y, x]"
    expected = same(
        "x = torch.ones(1, requires_grad=True)\ny = torch.ones(1, requires_grad=True)\n"
        f"torch.autograd.grad((x * 2).sum(), {inputs})"
    )
    assert f"index {index}" in expected.error[1]


def test_one_element_2d_tensor_is_an_index(same):
    assert same("print([0, 1][torch.tensor([[1]])])").stdout == "1"


def test_torch_is_the_oracle_here(run):
    """Sanity: the helper really runs torch for the expected side."""
    assert run(torch, "print(torch.__name__)").stdout == "torch"
    assert run(ndgrad, "print(torch.__name__)").stdout == "ndgrad"


@pytest.mark.parametrize("function", ["exp", "sin", "sigmoid", "tanh", "log", "sqrt", "relu", "neg", "abs", "floor"])
def test_a_number_where_a_tensor_is_needed(same, function):
    outcome = same(f"torch.{function}(2.0)")
    assert outcome.error[0] == "TypeError"


@pytest.mark.parametrize("call", ["torch.mm", "torch.matmul", "torch.nn.functional.linear"])
def test_mixed_dtype_matrix_product(same, call):
    outcome = same(f"{call}(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))")
    assert outcome.error[0] == "RuntimeError"
