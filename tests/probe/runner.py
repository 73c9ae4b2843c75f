"""Run corpus calls with torch and with ndgrad and classify each pair of outcomes."""

from dataclasses import dataclass

import torch

import ndgrad

from .classify import Verdict, classify
from .outcome import Raised, Returned, evaluate
from .variations import Call


@dataclass(frozen=True)
class Result:
    call: Call
    theirs: Raised | Returned  # torch's outcome
    ours: Raised | Returned  # ndgrad's outcome
    verdict: Verdict

    def report(self):
        """The JSON-ready record of one call."""
        record = {
            "group": self.call.group,
            "function": self.call.function,
            "source": self.call.source,
            "class": self.verdict.kind,
            "reason": self.verdict.reason,
            "torch": str(self.theirs),
            "ndgrad": str(self.ours),
        }
        if isinstance(self.ours, Raised):
            record["ndgrad_raised_at"] = self.ours.where
        return record


def run(call):
    """Evaluate ``call`` with both libraries and classify the pair."""
    theirs = evaluate(torch, call.source, call.exact)
    ours = evaluate(ndgrad, call.source, call.exact)
    return Result(call, theirs, ours, classify(theirs, ours))
