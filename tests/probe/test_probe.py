"""Every probe call ends as it does in torch: the same result, or the same exception class and message.

The calls that do not yet are listed in known_failures.json and expected to fail (strictly: a fixed call fails the
run until its line is removed; ``python -m tests.probe --update-known`` rewrites the file)."""

import pytest
import torch

from .corpus import CORPUS
from .known import known_failures
from .outcome import Raised, evaluate
from .runner import run

KNOWN = known_failures()


def _case(call):
    marks = ()
    if call.source in KNOWN:
        marks = (pytest.mark.xfail(strict=True, reason=f"known {KNOWN[call.source]} failure"),)
    return pytest.param(call, id=f"{call.group}: {call.source}", marks=marks)


@pytest.mark.parametrize("call", [_case(call) for call in CORPUS])
def test_call_ends_as_in_torch(call):
    result = run(call)
    kind = result.verdict.kind  # a plain string: pytest's explanation of the assert stays cheap
    assert kind == "ok", f"{kind} {result.verdict.reason}\n  torch:  {result.theirs}\n  ndgrad: {result.ours}"


def test_known_failures_are_corpus_calls():
    assert sorted(set(KNOWN) - {call.source for call in CORPUS}) == []


def test_valid_calls_are_valid_in_torch():
    """The calls each generator starts from must be ones torch accepts, or the variations vary nothing valid."""
    refused = [call.source for call in CORPUS if call.valid and isinstance(evaluate(torch, call.source), Raised)]
    assert refused == []


def test_corpus_sources_are_unique():
    assert len({call.source for call in CORPUS}) == len(CORPUS)
