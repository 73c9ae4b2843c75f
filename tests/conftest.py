"""Shared test helpers: run one snippet of code with ndgrad and with torch (the oracle) and compare what happens."""

import contextlib
import io
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, settings
from tests.closeness import printed_alike

import ndgrad
from ndgrad.autograd.hints import are_hints_enabled, set_hints_enabled

# The same examples on every machine and run (a failure CI finds is the one a developer sees again), no example
# database carried between runs, and no timing: a slow or loaded machine must not fail a test by being slow.
settings.register_profile(
    "ndgrad", derandomize=True, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ndgrad")


def pytest_sessionstart(session):
    """Print the kernels this run computes with, whose rounding the tests must not depend on (``make
    test-other-cpu`` runs on others): torch's vector kernels and threads, NumPy's SIMD loops, the BLAS libraries."""
    from numpy._core import _multiarray_umath as umath  # what numpy.show_runtime() reads
    from threadpoolctl import threadpool_info

    simd = [feature for feature in umath.__cpu_dispatch__ if umath.__cpu_features__.get(feature)]
    pools = threadpool_info()
    blas = [f"{pool['internal_api']} {pool['architecture']}" for pool in pools if pool.get("architecture")]
    threads = [f"{pool['internal_api']} {pool['num_threads']}" for pool in pools]
    session.config.pluginmanager.get_plugin("terminalreporter").write_line(
        f"kernels: torch {torch.backends.cpu.get_cpu_capability()}, NumPy SIMD {' '.join(simd) or 'baseline'}, "
        f"{', '.join(blas)}; threads: torch {torch.get_num_threads()}, {', '.join(threads)}; "
        f"ndgrad's core: {ndgrad.__config__.CORE}"
    )


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_CPP_LOCATION = re.compile(r" \(Triggered internally at [^)]*\)")
_IMPORT_TORCH = re.compile(r"^import torch$", re.MULTILINE)


def normalise(text):
    """torch's spelling -> ndgrad's, object addresses and C++ source locations blanked out."""
    text = text.replace("torch.", "ndgrad.").replace("torch::", "ndgrad::")
    return _CPP_LOCATION.sub("", _ADDRESS.sub("0x?", text)).rstrip()


@dataclass
class Outcome:
    """What running a snippet did: printed text, the exception it ended with, the warnings it raised."""

    stdout: str
    error: tuple | None = None  # (exception type name, message)
    warnings: list = field(default_factory=list)  # [(category name, message)]

    def agrees_with(self, expected):
        """The same text, error and warnings as ``expected``, printed numbers to rounding (see tests/closeness.py):
        the last printed digit of a computed value may differ between CPUs, in torch's output as in ours."""
        return (
            printed_alike(self.stdout, expected.stdout)
            and _same_messages([self.error], [expected.error])
            and _same_messages(self.warnings, expected.warnings)
        )


def _same_messages(ours, theirs):
    """[(kind, text) or None, ...]: the same kinds, and texts alike as printed text."""
    return len(ours) == len(theirs) and all(
        (a is None) == (b is None) and (a is None or (a[0] == b[0] and printed_alike(a[1], b[1])))
        for a, b in zip(ours, theirs)
    )


@contextlib.contextmanager
def _without_hints():
    """torch adds no hints to its errors: snippets compare torch's text (ndgrad's hints are tested on their own)."""
    enabled = are_hints_enabled()
    set_hints_enabled(False)
    try:
        yield
    finally:
        set_hints_enabled(enabled)


def run_snippet(lib, code, namespace=None):
    """Run ``code`` with ``lib`` bound to the name ``torch``; capture stdout, the final exception and warnings."""
    code = _IMPORT_TORCH.sub(f"import {lib.__name__} as torch", code)  # the seeds' own ``import torch`` line
    scope = {"torch": lib, "np": np, **(namespace or {})}
    buffer = io.StringIO()
    error = None
    with contextlib.redirect_stdout(buffer), warnings.catch_warnings(record=True) as caught, _without_hints():
        warnings.simplefilter("always")
        try:
            exec(compile(code, "<snippet>", "exec"), scope)
        except Exception as exc:  # noqa: BLE001 - the exception is the result being compared
            error = (type(exc).__name__, normalise(str(exc)))
    # NumPy's DeprecationWarnings about torch's own __array__ are torch's business, not part of the spec.
    recorded = [
        (w.category.__name__, normalise(str(w.message)))
        for w in caught
        if not issubclass(w.category, DeprecationWarning)
    ]
    return Outcome(normalise(buffer.getvalue()), error, recorded)


def assert_same(code, namespace=None):
    """Run ``code`` with torch and with ndgrad; everything observable must match. Returns torch's outcome."""
    expected = run_snippet(torch, code, namespace)
    actual = run_snippet(ndgrad, code, namespace)
    assert actual.agrees_with(expected), f"\n--- code:\n{code}\n--- torch:\n{expected}\n--- ndgrad:\n{actual}"
    return expected


def torch_dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


@pytest.fixture
def default_float64():
    """set_default_dtype(float64) in both libraries for one test, restored afterwards."""
    torch.set_default_dtype(torch.float64)
    ndgrad.set_default_dtype(ndgrad.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(torch.float32)
        ndgrad.set_default_dtype(ndgrad.float32)


@pytest.fixture
def same():
    """``same(code)``: run code with torch and ndgrad and assert that stdout, error and warnings all match."""
    return assert_same


@pytest.fixture
def run():
    """``run(lib, code)``: the Outcome of running code with lib as ``torch``."""
    return run_snippet


@pytest.fixture(autouse=True)
def _grad_mode_restored():
    """A snippet that failed half-way must not leave grad mode off for the tests after it."""
    yield
    torch.set_grad_enabled(True)
    ndgrad.set_grad_enabled(True)
