"""The output printed in docs/tracing.md and docs/debugging.md is what their examples print today. An example is a
code block whose first line names its file (``# example.py``, not part of the file), followed by a block of what
it prints: its stdout, or, for a warning or an error, the end of its stderr."""

import pathlib
import re
import subprocess
import sys

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
EXAMPLE = re.compile(r"```python\n# (\w+\.py)\n(.*?)```\n\n```\n(.*?)```", re.S)
PAGES = {"tracing.md": 3, "debugging.md": 4}
EXAMPLES = [(page, *example) for page in PAGES for example in EXAMPLE.findall((DOCS / page).read_text())]


def test_the_pages_have_their_examples():
    assert {page: sum(1 for example in EXAMPLES if example[0] == page) for page in PAGES} == PAGES


@pytest.mark.parametrize("page, name, code, printed", EXAMPLES, ids=[f"{e[0]}:{e[1]}" for e in EXAMPLES])
def test_each_example_prints_what_the_page_shows(tmp_path, page, name, code, printed):
    (tmp_path / name).write_text(code)
    result = subprocess.run([sys.executable, name], cwd=tmp_path, capture_output=True, text=True)
    if result.stdout:
        assert result.returncode == 0 and result.stdout == printed
    else:
        assert result.stderr.endswith(printed)
