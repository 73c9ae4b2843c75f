"""jacobian(f, x, show=True), ndgrad's Jacobian lesson: the printed J is torch's Jacobian, the printed x.grad is what
torch's y.backward(v) leaves for the printed v, both equal vᵀJ, and J is returned exactly as without show."""

import contextlib
import io
import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad
from ndgrad.autograd.functional import jacobian


def _rows(lines):
    """{row label: values} of one printed table: the header line of column labels is skipped; each row is a label
    (which may hold spaces, as ``y[0, 1]`` does) followed by numbers."""
    table = {}
    for line in lines[1:]:
        parts = line.split()
        first_number = next(i for i in range(len(parts)) if all(_is_number(p) for p in parts[i:]))
        table[" ".join(parts[:first_number])] = np.array([float(p) for p in parts[first_number:]])
    return table


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _lesson(text):
    """(J rows, v, grad row, vᵀJ row, max difference) parsed from the printed lesson."""
    lines = text.splitlines()
    v_at = next(i for i, line in enumerate(lines) if line.startswith("v: one weight"))
    backward_at = next(i for i, line in enumerate(lines) if "leaves vᵀJ in" in line)
    matrix = _rows(lines[1:v_at])
    (v,) = _rows(lines[v_at + 1:backward_at]).values()
    products = _rows(lines[backward_at + 1:-1])
    return np.stack(list(matrix.values())), v, products, float(lines[-1].rsplit("=", 1)[1])


def polynomial(lib):
    return lambda x: lib.stack([x[0] * x[1], x[0].sin(), x.pow(2).sum()])


def matrix_product(lib):
    return lambda a: a @ a.t()


def two_in_two_out(lib):
    return lambda a, b: (a * b.exp(), (a - b).tanh().sum())


CASES = {
    "polynomial": (polynomial, lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64)),
    "matrix_product": (matrix_product, lambda lib: lib.tensor([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]], dtype=lib.float64)),
    "two_in_two_out": (two_in_two_out, lambda lib: (lib.tensor([0.5, -1.0], dtype=lib.float64),
                                                    lib.tensor([2.0, 0.25], dtype=lib.float64))),
}


@pytest.mark.parametrize("case", CASES)
def test_the_printed_jacobian_and_vjp_are_torch_s(case, capsys):
    make, inputs = CASES[case]
    ours, theirs = inputs(ndgrad), inputs(torch)
    expected = torch.autograd.functional.jacobian(make(torch), theirs)
    result = jacobian(make(ndgrad), ours, show=True)
    matrix, v, products, difference = _lesson(capsys.readouterr().out)
    plain = jacobian(make(ndgrad), ours)

    # J: torch's Jacobian, flattened to rows = output elements, columns = input elements
    theirs_tuple = theirs if isinstance(theirs, tuple) else (theirs,)
    outputs = make(torch)(*theirs_tuple)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    blocks = expected if isinstance(outputs, tuple) and len(outputs) > 1 else (expected,)
    rows = []
    for y, block in zip(outputs, blocks):
        block = block if isinstance(theirs, tuple) else (block,)
        rows.append(np.concatenate([b.numpy().reshape(y.numel(), x.numel()) for b, x in zip(block, theirs_tuple)], 1))
    reference = np.concatenate(rows, 0)
    np.testing.assert_allclose(matrix, reference, rtol=1e-3, atol=1e-4)  # printed with 4 significant digits

    # x.grad after torch's backward with the printed v: the printed grads and vᵀJ rows
    leaves = [x.detach().clone().requires_grad_(True) for x in theirs_tuple]
    outputs = make(torch)(*leaves)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    seeds, start = [], 0
    for y in outputs:
        seeds.append(torch.tensor(v[start:start + y.numel()], dtype=y.dtype).reshape(y.shape))
        start += y.numel()
    torch.autograd.backward(outputs, seeds)
    torch_grads = np.concatenate([x.grad.numpy().ravel() for x in leaves])
    grad_row, product_row = products.values()
    np.testing.assert_allclose(grad_row, torch_grads, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(product_row, v @ reference, rtol=1e-3, atol=1e-4)
    assert difference < 1e-12  # float64

    # the return value is jacobian's, unchanged
    for got, plain_block, want in zip(_leaves(result), _leaves(plain), _leaves(expected)):
        np.testing.assert_array_equal(got.numpy(), plain_block.numpy())
        assert_close(got, want)


def _leaves(value):
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=0, max_size=2), seed=st.integers(0, 2**16))
def test_elementwise_functions_of_any_small_shape_print_a_diagonal_jacobian_equal_to_torch_s(shape, seed):
    values = np.random.default_rng(seed).standard_normal(shape)
    x, reference_x = ndgrad.tensor(values), torch.tensor(values)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        jacobian(lambda t: t.sin() * 2, x, show=True)
    matrix, v, products, difference = _lesson(printed.getvalue())
    reference = torch.autograd.functional.jacobian(lambda t: t.sin() * 2, reference_x).numpy()
    size = reference_x.numel()
    np.testing.assert_allclose(matrix, reference.reshape(size, size), rtol=1e-3, atol=1e-4)
    assert difference < 1e-12
    labels = re.findall(r"x\[[^\]]*\]|x", printed.getvalue().splitlines()[1])
    assert labels == (["x"] if not shape else [f"x[{', '.join(map(str, i))}]" for i in np.ndindex(*shape)])


def test_large_functions_are_refused_with_the_limit():
    with pytest.raises(ValueError, match=r"^jacobian\(show=True\) prints the whole matrix, so it is meant for small "
                                         r"examples: at most 100 output and 100 input elements, but this function has "
                                         r"101 outputs and 101 inputs\. Leave out show=True for larger functions\.$"):
        jacobian(lambda t: t * 2, ndgrad.ones(101), show=True)


def test_the_user_random_stream_is_untouched(capsys):
    ndgrad.manual_seed(3)
    expected = ndgrad.rand(3)
    ndgrad.manual_seed(3)
    jacobian(lambda t: t.exp(), ndgrad.ones(2), show=True)
    assert ndgrad.equal(ndgrad.rand(3), expected)
    assert capsys.readouterr().out.startswith("Jacobian J of <lambda>: 2 outputs (rows) x 2 inputs (columns)")
