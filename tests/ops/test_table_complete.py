"""The op table is the test table: every entry must have samples and a torch counterpart, or this fails loudly."""

import pytest
import torch

from ndgrad.ops import OP_TABLE, Op
from ndgrad.ops._op import (
    ABOVE_ONE,
    BINARY,
    INDEXING,
    JOINING,
    MATMUL,
    NONZERO,
    POSITIVE,
    REAL,
    REDUCTION,
    SCAN,
    SHAPE,
    TERNARY,
    UNARY,
    UNIT,
)

from . import exceptions
from .builders import BUILDERS
from .samples import samples_for

ids = [op.__name__ for op in OP_TABLE]


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_table_is_not_empty():
    assert len(OP_TABLE) > 30


@pytest.mark.parametrize("op", OP_TABLE, ids=ids)
def test_op_has_samples(op):
    cases = samples_for(op)
    assert cases, f"{op.__name__} has no samples: give it an entry in BUILDERS in tests/ops/builders/"
    assert all(case.op is op for case in cases)


@pytest.mark.parametrize("op", OP_TABLE, ids=ids)
def test_op_has_a_tiny_smooth_case(op):
    """test_numerical checks finite differences only on small inputs where the op is smooth."""
    assert any(case.smooth and case.is_tiny() for case in samples_for(op))


@pytest.mark.parametrize("op", OP_TABLE, ids=ids)
def test_op_has_a_torch_counterpart(op):
    places = (torch, torch.Tensor, torch.nn.functional, torch.linalg, torch.special)
    assert any(callable(getattr(place, op.name, None)) for place in places), (
        f"torch has no function or Tensor method {op.name!r}, the oracle for {op.__name__}"
    )


@pytest.mark.parametrize("op", OP_TABLE, ids=ids)
def test_op_declares_family_and_domain(op):
    assert op.family in (UNARY, BINARY, TERNARY, REDUCTION, SCAN, SHAPE, JOINING, INDEXING, MATMUL)
    assert op.domain in (REAL, POSITIVE, NONZERO, UNIT, ABOVE_ONE)


def test_every_op_with_a_name_is_in_the_table():
    """A subclass inherits its parent's ``name`` but is listed only if it sets one itself: it would go untested."""
    missing = [cls.__name__ for cls in _subclasses(Op) if getattr(cls, "name", None) and cls not in OP_TABLE]
    assert not missing, f"named ops missing from OP_TABLE (set `name` on the class): {missing}"


def test_overloads_have_distinct_node_names():
    """Ops sharing a torch name are different overloads; torch tells them apart by the grad_fn name."""
    seen = {}
    for op in OP_TABLE:
        key = (op.name, op._node_class.__name__)
        assert key not in seen, f"{op.__name__} and {seen[key].__name__} both record {key[1]}"
        seen[key] = op


def test_per_op_knowledge_names_table_ops():
    assert all(op in OP_TABLE for op in BUILDERS)
    assert all(op in OP_TABLE for op, _ in exceptions.XFAILS)
    assert all(op in OP_TABLE for op, _ in exceptions.TOLERANCES)
