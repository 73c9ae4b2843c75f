"""``python -m tests.probe``: run the corpus, print counts per class and per group, optionally write a JSON report of
every call that is not ok, or rewrite the known-failures file from this run."""

import argparse
import json
import sys
import time
from collections import Counter

import torch

from .classify import CLASSES
from .corpus import CORPUS
from .known import KNOWN_FAILURES_PATH, write_known_failures
from .outcome import Raised, evaluate, same
from .runner import run


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.probe", description=__doc__)
    parser.add_argument("--json", metavar="PATH", help="write every call that is not ok to PATH")
    parser.add_argument("--group", action="append", help="run only this group (may repeat)")
    parser.add_argument("--show", metavar="CLASS", action="append", help="print the calls of this class")
    parser.add_argument("--update-known", action="store_true", help=f"rewrite {KNOWN_FAILURES_PATH.name}")
    parser.add_argument("--check-torch", action="store_true", help="list calls whose torch outcome is unstable or slow")
    options = parser.parse_args(argv)
    if options.update_known and options.group:
        parser.error("--update-known needs the whole corpus (no --group)")
    calls = [call for call in CORPUS if not options.group or call.group in options.group]
    if options.check_torch:
        print("\n".join(check_torch(calls)))
        return 0
    results = [run(call) for call in calls]
    print(table(results))
    for result in results:
        if options.show and result.verdict.kind in options.show:
            print(f"\n[{result.verdict.kind}] {result.call.source}\n  torch:  {result.theirs}\n  ndgrad: {result.ours}")
    if options.json:
        failing = [result.report() for result in results if result.verdict.kind != "ok"]
        with open(options.json, "w") as report:
            json.dump(failing, report, indent=1, ensure_ascii=False)
    if options.update_known:
        write_known_failures(results)
    return 0


def check_torch(calls, slow=0.5):
    """Calls to leave out of the corpus: torch's outcome depends on what ran before (run in order, then in
    reverse), or torch takes more than ``slow`` seconds."""
    forward, timings = {}, {}
    for call in calls:
        start = time.perf_counter()
        forward[call.source] = evaluate(torch, call.source, call.exact)
        timings[call.source] = time.perf_counter() - start
    problems = [f"slow ({seconds:.2f} s): {source}" for source, seconds in timings.items() if seconds > slow]
    for call in reversed(calls):
        again = evaluate(torch, call.source, call.exact)
        if not _same_outcome(forward[call.source], again):
            problems.append(f"unstable: {call.source}\n  first:  {forward[call.source]}\n  then:   {again}")
    return problems


def _same_outcome(first, second):
    if isinstance(first, Raised) or isinstance(second, Raised):
        return first == second
    return same(first.value, second.value)


def table(results):
    """Counts per class: one row per group, then the totals."""
    per_group = {}
    for result in results:
        per_group.setdefault(result.call.group, Counter())[result.verdict.kind] += 1
    total = Counter(result.verdict.kind for result in results)
    width = max(len("group"), *(len(group) for group in per_group))
    lines = [f"{'group':<{width}}  " + "  ".join(f"{kind:>8}" for kind in (*CLASSES, "calls"))]
    for group, counts in [*sorted(per_group.items()), ("total", total)]:
        cells = [counts.get(kind, 0) for kind in CLASSES] + [sum(counts.values())]
        lines.append(f"{group:<{width}}  " + "  ".join(f"{cell:>8}" for cell in cells))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
