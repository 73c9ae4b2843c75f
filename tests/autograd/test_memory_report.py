"""memory_report against PyTorch: the tensors each node saves (shapes, against grad_fn._saved_*), their bytes
(NumPy's nbytes), which of them share memory, the unique total, and nodes freed by backward."""

import numpy as np
import pytest
import torch

import ndgrad
from ndgrad.autograd.graph import memory_report

# Programs run with both libraries: `lib` is torch or ndgrad; each returns the root.
PROGRAMS = {
    "tanh_of_matmul": lambda lib, x, w, b: lib.tanh(x @ w + b).mean(),
    "product_and_exp": lambda lib, x, w, b: ((x @ w) * (x @ w).exp()).sum(),
    "square_through_view": lambda lib, x, w, b: (w.t() @ w).pow(2).sum() + b.sigmoid().sum(),
    "linear_relu_softmax": lambda lib, x, w, b: lib.nn.functional.log_softmax(
        lib.nn.functional.relu(lib.nn.functional.linear(x, w.t(), b)), dim=1).sum(),
}


def _inputs(lib, seed):
    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32)
    w = lib.tensor(rng.standard_normal((3, 5)), dtype=lib.float32, requires_grad=True)
    b = lib.tensor(rng.standard_normal(5), dtype=lib.float32, requires_grad=True)
    return x, w, b


def _torch_saved_shapes(node):
    """The shapes of the tensors a torch node saved (its _saved_* attributes that hold one)."""
    values = [getattr(node, name) for name in dir(node) if name.startswith("_saved_")]
    return sorted(tuple(value.shape) for value in values if isinstance(value, torch.Tensor))


def _walk_both(ours, theirs):
    """Pairs of (ndgrad node, torch node), walking both graphs in step along next_functions."""
    pending, seen = [(ours, theirs)], set()
    while pending:
        node, reference = pending.pop()
        if node is None or id(node) in seen or hasattr(node, "variable"):
            continue
        seen.add(id(node))
        assert node.name() == reference.name()
        yield node, reference
        pending.extend(zip((n for n, _ in node.next_functions), (n for n, _ in reference.next_functions)))


@pytest.mark.parametrize("program", PROGRAMS)
def test_each_node_reports_the_tensors_torch_saves_with_their_nbytes(program):
    root = PROGRAMS[program](ndgrad, *_inputs(ndgrad, 0))
    reference = PROGRAMS[program](torch, *_inputs(torch, 0))
    report = memory_report(root)
    by_node = {}
    for row in report.rows:
        by_node.setdefault(row.node, []).append(row)
    for node, torch_node in _walk_both(root.grad_fn, reference.grad_fn):
        rows = by_node.get(node, [])
        assert sorted(row.shape for row in rows) == _torch_saved_shapes(torch_node), node.name()
        for row in rows:
            assert row.bytes == np.prod(row.shape, dtype=int) * 4 and row.dtype is ndgrad.float32
            assert row.site is not None and row.site.filename == __file__
    assert [row.bytes for row in report.rows] == sorted((row.bytes for row in report.rows), reverse=True)


def test_a_tensor_saved_twice_its_view_and_an_output_saved_as_input_share_and_count_once():
    x = ndgrad.randn(10, 20, dtype=ndgrad.float64)
    w = ndgrad.randn(20, 30, dtype=ndgrad.float64, requires_grad=True)
    h = ndgrad.tanh(x @ w)  # TanhBackward0 saves h (its output); h is then saved as an input four times
    loss = (h * h).sum() + (h.t() @ h).mean()
    report = memory_report(loss)
    h_rows = [number for number, row in enumerate(report.rows, 1) if row.shape in ((10, 30), (30, 10))]
    assert len(h_rows) == 5
    for number in h_rows:
        assert set(report.rows[number - 1].shares) == set(h_rows) - {number}
    x_row = next(row for row in report.rows if row.shape == (10, 20))
    assert x_row.shares == () and x_row.kind == "input" and not x_row.leaf
    h_bytes, x_bytes = h.detach().numpy().nbytes, x.numpy().nbytes
    assert report.total_bytes == h_bytes + x_bytes and report.saved_bytes == 5 * h_bytes + x_bytes
    text = str(report).splitlines()
    assert "shares memory with" in text[2] and "h = ndgrad.tanh(x @ w)" in str(report)
    assert text[0].startswith("memory saved for backward: 6 tensors in ")


def test_disjoint_slices_do_not_share_a_transposed_view_shares_with_both_and_a_strided_column_counts_its_bytes():
    w = ndgrad.randn(8, 8, requires_grad=True)
    base, other = w * 1, w * 2
    top, bottom = base[:4], base[4:]
    loss = (top * bottom).sum() + top.exp().sum() + base.t().cos().sum() + other[:, 0].sin().sum()
    report = memory_report(loss)
    number = {(row.node.name(), row.name): n for n, row in enumerate(report.rows, 1)}
    shares = {key: set(report.rows[n - 1].shares) for key, n in number.items()}
    top_nr, bottom_nr = number["MulBackward0", "input 0"], number["MulBackward0", "input 1"]
    view_nr = number["CosBackward0", "input 0"]
    assert shares["MulBackward0", "input 0"] == {view_nr} and shares["MulBackward0", "input 1"] == {view_nr}
    assert shares["CosBackward0", "input 0"] == {top_nr, bottom_nr}
    assert shares["ExpBackward0", "result"] == set() == shares["SinBackward0", "input 0"]
    assert report.rows[number["SinBackward0", "input 0"] - 1].bytes == 32
    assert report.total_bytes == 256 + 128 + 32  # base (top, bottom and the view of all of it), exp's result, column
    assert report.saved_bytes == 128 + 128 + 256 + 128 + 32


def test_a_leaf_parameter_is_marked_and_freed_nodes_show_as_freed():
    w = ndgrad.randn(3, 3, requires_grad=True)
    loss = (w * w).sum()
    report = memory_report(loss)
    assert [row.leaf for row in report.rows] == [True, True] and "leaf" in str(report)
    assert report.total_bytes == 36
    loss.backward()
    after = memory_report(loss)
    assert [(row.node.name(), row.freed, row.bytes) for row in after.rows] == [("MulBackward0", True, 0)]
    assert after.total_bytes == 0 and "(freed by backward)" in str(after)


def test_custom_functions_and_saved_tensor_hooks_are_reported():
    class Square(ndgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x * x
            ctx.save_for_backward(x, result)
            return result

        @staticmethod
        def backward(ctx, grad):
            x, _ = ctx.saved_tensors
            return 2 * x * grad

    x = ndgrad.randn(5, requires_grad=True)
    rows = memory_report(Square.apply(x)).rows
    assert [(row.name, row.kind, row.bytes) for row in rows] == [
        ("saved_tensors[0]", "input", 20), ("saved_tensors[1]", "output", 20)]  # equal sizes keep saving order
    with ndgrad.autograd.graph.save_on_cpu():
        y = x.exp()
    (row,) = memory_report(y).rows
    assert (row.kind, row.shape, row.bytes) == ("packed", (5,), 20)


def test_roots_may_be_several_tensors_or_a_node_and_a_tensor_without_graph_reports_nothing():
    x = ndgrad.randn(4, requires_grad=True)
    a, b = x.exp(), x.sin()
    assert len(memory_report([a, b]).rows) == 2
    assert len(memory_report(a.grad_fn).rows) == 1
    empty = memory_report(ndgrad.ones(3))
    assert empty.rows == [] and empty.total_bytes == 0
