"""Nodes made by a loop share their small records (see Note [shared records] in ndgrad._shared): the output's
(shape, dtype), the saved versions and the creation site are one object each, and still say what they said."""

import numpy as np
import pytest

import ndgrad
from ndgrad import _shared
from ndgrad.autograd.provenance import Site


def chain_nodes(y, steps):
    nodes = []
    for _ in range(steps):
        y = y * 1.5
        nodes.append(y.grad_fn)
    return y, nodes


def test_a_loop_s_nodes_share_their_records_and_still_backpropagate():
    x = ndgrad.tensor(np.linspace(-1.0, 1.0, 6), requires_grad=True)
    y, nodes = chain_nodes(x * 1.0, 20)
    assert len({id(node._output_meta) for node in nodes}) == 1
    assert len({id(node._saved_versions) for node in nodes}) == 1
    assert len({id(node._site) for node in nodes}) == 1
    assert nodes[0]._output_meta == (((6,), np.dtype(np.float64)),)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(6, 1.5**20))


def test_equal_code_in_two_files_keeps_each_file_s_site():
    """Code objects compare by content, not by file: the sites are shared by the code's identity."""
    source = "def scaled(t):\n    return t * 2.0\n"
    namespaces = []
    for filename in ("first_user_file.py", "second_user_file.py"):
        namespace = {}
        exec(compile(source, filename, "exec"), namespace)
        namespaces.append(namespace)
    assert namespaces[0]["scaled"].__code__ == namespaces[1]["scaled"].__code__  # what makes identity needed
    x = ndgrad.ones(2, requires_grad=True)
    sites = [Site.from_raw(namespace["scaled"](x).grad_fn._site) for namespace in namespaces]
    assert [(site.filename, site.lineno) for site in sites] == [("first_user_file.py", 2), ("second_user_file.py", 2)]


@pytest.mark.parametrize("kept", [0, 1])
def test_full_tables_keep_records_unshared_and_correct(monkeypatch, kept):
    monkeypatch.setattr(_shared, "KEPT", kept)
    x = ndgrad.tensor(np.ones((3, 7)), requires_grad=True)
    shapes = []
    for rows in range(1, 4):  # shapes no table holds
        y = x[:rows] * 2.0
        shapes.append(y.grad_fn._output_meta[0][0])
    assert shapes == [(1, 7), (2, 7), (3, 7)]
