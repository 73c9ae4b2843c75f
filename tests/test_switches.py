"""The switches scripts set on their first lines, against torch: compile (a no-op here), deterministic algorithms,
thread counts, ndgrad.random and fork_rng, and ndgrad.onnx."""

import inspect
import subprocess
import sys

import pytest
import torch

import ndgrad
import ndgrad.onnx
import ndgrad.random


def _outcome(call):
    try:
        return "value", call()
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return "error", type(error).__name__, str(error)


def test_compile_returns_the_module_or_function_unchanged():
    model = ndgrad.nn.Linear(2, 2)

    def function(x):
        return x * 2

    assert ndgrad.compile(model) is model and ndgrad.compile(function, fullgraph=True, dynamic=True) is function
    assert ndgrad.compile(mode="max-autotune")(function) is function
    assert ndgrad.compile(disable=True)(function) is function

    @ndgrad.compile
    def decorated(x):
        return x + 1

    assert decorated(1) == 2
    assert list(inspect.signature(ndgrad.compile).parameters) == list(inspect.signature(torch.compile).parameters)


@pytest.mark.parametrize("arguments", [{"mode": "max-autotune", "options": {"a": 1}}, {"mode": "fastest"}])
def test_compile_checks_its_arguments_as_torch(arguments):
    def function(x):
        return x

    assert _outcome(lambda: ndgrad.compile(function, **arguments)) == _outcome(
        lambda: torch.compile(function, **arguments))


def test_compile_refuses_what_is_not_callable_as_torch():
    assert _outcome(lambda: ndgrad.compile(3)) == ("error", "AssertionError",
                                                   "A callable function is expected, but <class 'int'> is provided.")


@pytest.fixture
def deterministic_restored():
    yield
    for library in (torch, ndgrad):
        library.use_deterministic_algorithms(False)


@pytest.mark.parametrize("steps", [
    [(True, False)], [(True, True)], [(True, True), (False, False)], [(1, False)], [(True, 1)], [],
])
def test_deterministic_algorithms_switch_as_torch(steps, deterministic_restored):
    def run(library):
        seen = []
        for mode, warn_only in steps:
            seen.append(_outcome(lambda mode=mode, warn_only=warn_only: library.use_deterministic_algorithms(
                mode, warn_only=warn_only)))
        return [*seen, library.are_deterministic_algorithms_enabled(),
                library.is_deterministic_algorithms_warn_only_enabled(), library.get_deterministic_debug_mode()]

    assert run(ndgrad) == run(torch)


@pytest.mark.parametrize("mode", ["default", "warn", "error", 0, 1, 2, 3, "x", 1.5])
def test_deterministic_debug_mode_as_torch(mode, deterministic_restored):
    def run(library):
        return (_outcome(lambda: library.set_deterministic_debug_mode(mode)), library.get_deterministic_debug_mode(),
                library.are_deterministic_algorithms_enabled(), library.is_deterministic_algorithms_warn_only_enabled())

    assert run(ndgrad) == run(torch)


@pytest.mark.parametrize("count", [0, -1, 1.5, "a", True])
def test_set_num_threads_refuses_as_torch(count):
    assert _outcome(lambda: ndgrad.set_num_threads(count)) == _outcome(lambda: torch.set_num_threads(count))


def test_set_num_threads_sets_numpys_blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = ndgrad.get_num_threads()
    try:
        ndgrad.set_num_threads(1)
        assert ndgrad.get_num_threads() == 1
        assert {pool["num_threads"] for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"} == {1}
    finally:
        ndgrad.set_num_threads(before)


def test_interop_threads_can_be_set_once_as_in_torch():
    """In a fresh process each, as torch allows one set per process."""
    script = ("import {0}, sys\n"
              "def attempt(n):\n"
              "    try:\n        {0}.set_num_interop_threads(n)\n    except Exception as e:\n        return str(e)\n"
              "print([attempt(1), {0}.get_num_interop_threads(), attempt(2), attempt(0)])")
    printed = [subprocess.run([sys.executable, "-c", script.format(name)], capture_output=True, text=True,
                              check=True).stdout for name in ("torch", "ndgrad")]
    assert printed[0] == printed[1]


def test_the_random_module_has_torchs_functions():
    assert set(ndgrad.random.__all__) == set(torch.random.__all__) - {"thread_safe_generator"}
    assert ndgrad.random.manual_seed is ndgrad.manual_seed and ndgrad.random.get_rng_state is ndgrad.get_rng_state


@pytest.mark.parametrize("enabled", [True, False])
def test_fork_rng_restores_the_state_it_found(enabled):
    def run(library):
        library.manual_seed(3)
        with library.random.fork_rng(enabled=enabled):
            inside = library.rand(2)
        after = library.rand(2)
        return library.equal(inside, after)

    assert run(ndgrad) is run(torch) is enabled
    assert list(inspect.signature(ndgrad.random.fork_rng).parameters) == list(
        inspect.signature(torch.random.fork_rng).parameters)


def test_onnx_imports_and_refuses_to_export():
    assert ndgrad.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="ndgrad.onnx.export is not supported yet"):
        ndgrad.onnx.export(ndgrad.nn.Linear(2, 2), (ndgrad.ones(1, 2),), "model.onnx")


@pytest.mark.parametrize("module", ["multiprocessing", "onnx", "backends.cudnn", "backends.cuda", "backends.mps",
                                    "nn.parallel", "distributed", "accelerator", "random", "cuda.memory"])
def test_submodules_import_as_torchs(module):
    __import__(f"ndgrad.{module}")
    assert sys.modules[f"ndgrad.{module}"] is eval(f"ndgrad.{module}")  # noqa: S307 - a dotted name of ours
