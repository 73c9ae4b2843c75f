"""The traces printed in docs/tracing.md are what its examples print today: each example runs as example.py (the
``# example.py`` line above the code names the file; it is not part of it)."""

import pathlib
import re
import subprocess
import sys

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tracing.md"
EXAMPLES = re.findall(r"```python\n# example\.py\n(.*?)```\n\n```\n(.*?)```", DOC.read_text(), re.S)


def test_the_page_has_its_three_examples():
    assert len(EXAMPLES) == 3


@pytest.mark.parametrize("code, printed", EXAMPLES, ids=["chain_rule", "vector_jacobian", "detach"])
def test_each_example_prints_the_trace_shown(tmp_path, code, printed):
    (tmp_path / "example.py").write_text(code)
    result = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert result.stdout == printed
