"""The calls that are not ok today, source -> class: the test expects each of them to fail (strictly), so a fix
has to remove its line and a new failure is caught."""

import json
from pathlib import Path

KNOWN_FAILURES_PATH = Path(__file__).with_name("known_failures.json")


def known_failures():
    if not KNOWN_FAILURES_PATH.exists():
        return {}
    return json.loads(KNOWN_FAILURES_PATH.read_text())


def write_known_failures(results):
    failing = {result.call.source: result.verdict.kind for result in results if result.verdict.kind != "ok"}
    KNOWN_FAILURES_PATH.write_text(json.dumps(failing, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
