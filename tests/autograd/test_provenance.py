"""Provenance: each node knows the user's line that made it; cuts and in-place writes know theirs.

The expected lines come from the test's own frames (``_line()`` on the same line as the op), never from ndgrad.
"""

import sys

import pytest

import ndgrad
from ndgrad.autograd.provenance import (
    assigned_name,
    is_provenance_enabled,
    last_write_of,
    origin_of,
    set_provenance_enabled,
    site_of,
)


def _line():
    """The caller's line number."""
    return sys._getframe(1).f_lineno


def _leaf(*shape):
    return ndgrad.rand(*shape, dtype=ndgrad.float64, requires_grad=True)


def test_operator_function_and_method_calls_record_the_users_line():
    x = _leaf(3)
    y = x * 2; line_mul = _line()  # noqa: E702
    z = ndgrad.exp(y); line_exp = _line()  # noqa: E702
    w = z.sum(); line_sum = _line()  # noqa: E702
    for node, line in ((y.grad_fn, line_mul), (z.grad_fn, line_exp), (w.grad_fn, line_sum)):
        site = site_of(node)
        assert (site.filename, site.lineno, site.function) == (__file__, line, sys._getframe().f_code.co_name)


def test_source_and_variable_name():
    x = _leaf(2)
    hidden = (x + 1).tanh()
    site = site_of(hidden.grad_fn)
    assert site.source == "hidden = (x + 1).tanh()"
    assert site.variable == "hidden"
    assert site.short() == f"test_provenance.py:{site.lineno}"


def test_module_forward_records_the_line_that_called_the_module():
    layer = ndgrad.nn.Linear(3, 2)
    out = layer(ndgrad.randn(4, 3)); line = _line()  # noqa: E702
    assert site_of(out.grad_fn).lineno == line


def test_user_helper_functions_are_the_users_frames():
    def square(t):
        return t * t  # the innermost user frame is this line

    x = _leaf(2)
    y = square(x)
    assert site_of(y.grad_fn).source == "return t * t  # the innermost user frame is this line"


def test_custom_function_records_where_apply_was_called():
    class Twice(ndgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = _leaf(2)
    y = Twice.apply(x); line = _line()  # noqa: E702
    assert site_of(y.grad_fn).lineno == line


def test_accumulate_grad_answers_with_the_leaf_creation_line():
    x = ndgrad.ones(2, requires_grad=True); line = _line()  # noqa: E702
    y = x * 3
    accumulate = y.grad_fn.next_functions[0][0]
    assert site_of(accumulate).lineno == line
    assert origin_of(x)[0] == "leaf" and origin_of(x)[1].lineno == line


def test_requires_grad_underscore_marks_a_leaf():
    x = ndgrad.zeros(2)
    assert origin_of(x) is None
    x.requires_grad_(); line = _line()  # noqa: E702
    assert origin_of(x)[1].lineno == line


@pytest.mark.parametrize(
    "cut, how",
    [
        (lambda x: x.detach(), "detach"),
        (lambda x: x.data, "data"),
        (lambda x: x.long(), "integer cast"),
    ],
)
def test_cuts_are_marked(cut, how):
    x = _leaf(2)
    cut_tensor = cut(x)
    assert not cut_tensor.requires_grad
    assert origin_of(cut_tensor)[0] == how
    assert origin_of(cut_tensor)[1].lineno == cut.__code__.co_firstlineno  # the lambda is the innermost user frame


@pytest.mark.parametrize("mode, how", [(ndgrad.no_grad, "no_grad"), (ndgrad.inference_mode, "inference_mode")])
def test_results_made_with_grad_mode_off_are_marked(mode, how):
    x = _leaf(2)
    with mode():
        y = x * 2; line = _line()  # noqa: E702
    assert origin_of(y)[0] == how and origin_of(y)[1].lineno == line


def test_tensors_that_never_saw_the_graph_have_no_origin():
    x = ndgrad.ones(2)
    assert origin_of(x * 2) is None and origin_of(x.detach()) is None


def test_in_place_write_records_version_and_line():
    x = _leaf(3)
    y = x * 1
    assert last_write_of(y) is None
    y.add_(1); line = _line()  # noqa: E702
    y[0] = 5; line2 = _line()  # noqa: E702
    version, site = last_write_of(y)
    assert version == y._version == 2 and site.lineno == line2 != line
    view = y[1:]
    assert last_write_of(view)[1].lineno == line2  # views share the counter, and so the last write


def test_optimizer_step_records_the_step_line():
    w = ndgrad.nn.Parameter(ndgrad.ones(2))
    opt = ndgrad.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.step(); line = _line()  # noqa: E702
    assert last_write_of(w)[1].lineno == line


def test_switching_off_records_nothing():
    assert is_provenance_enabled()
    set_provenance_enabled(False)
    try:
        x = _leaf(2)
        y = x * 2
        y.mul_(2)
        with ndgrad.no_grad():
            z = x * 2
        assert site_of(y.grad_fn) is None and origin_of(x) is None and origin_of(z) is None
        assert last_write_of(y) is None
    finally:
        set_provenance_enabled(True)


@pytest.mark.parametrize(
    "source, target",
    [
        ("loss = criterion(out, y)", "loss"),
        ("h += x @ w", "h"),
        ("self.weight = p * 2", "self.weight"),
        ("cache[0] = x.exp()", "cache[0]"),
        ("total **= 2", "total"),
        ("y //= 2", "y"),
        ("return x * 2", None),
        ("a == b", None),
        ("f(x=1)", None),
        ("a, b = x.chunk(2)", None),
    ],
)
def test_assigned_name(source, target):
    assert assigned_name(source) == target
