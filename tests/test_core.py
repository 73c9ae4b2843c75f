"""The choice of core (see Note [compiled core] in ndgrad._core): the modules loaded are the core that
``ndgrad.__config__`` names, NDGRAD_PURE_PYTHON=1 loads the .py files, and a compiled core older than its sources is
not run. The suite itself runs on both cores (`make test`), which is what shows that they behave alike."""

import ast
import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import ndgrad
from ndgrad import _core

BUILT = _core.MANIFEST.exists()
needs_build = pytest.mark.skipif(not BUILT, reason="no compiled core was built here")

# Prints, for a fresh interpreter: the core ndgrad names, and the kind of file each compiled module was loaded from
REPORT = """
import importlib, json, ndgrad
from ndgrad import _core
files = {path: importlib.import_module("ndgrad." + path[:-3].replace("/", ".")).__file__ for path in _core.COMPILED}
print(json.dumps({"core": ndgrad.__config__.CORE, "show": ndgrad.__config__.show(),
                  "sources": sorted(path for path, file in files.items() if file.endswith(".py"))}))
"""


def report(package_parent, pure=False):
    environment = {**os.environ, "PYTHONPATH": str(package_parent)}
    environment.pop("NDGRAD_PURE_PYTHON", None)
    if pure:
        environment["NDGRAD_PURE_PYTHON"] = "1"
    result = subprocess.run(
        [sys.executable, "-W", "always", "-c", REPORT], capture_output=True, text=True, env=environment, check=True
    )
    return json.loads(result.stdout), result.stderr


def is_source(module):
    return module.__file__.endswith(".py")


def test_the_modules_loaded_are_the_core_named():
    modules = [sys.modules["ndgrad." + path[:-3].replace("/", ".")] for path in _core.COMPILED]
    expected_source = ndgrad.__config__.CORE == "python"
    assert [is_source(module) for module in modules] == [expected_source] * len(modules)
    assert ("pure Python" in ndgrad.__config__.show()) == expected_source


def test_pure_python_on_request():
    state, _ = report(_core.PACKAGE.parent, pure=True)
    assert state["core"] == "python"
    assert state["sources"] == sorted(_core.COMPILED)
    assert "NDGRAD_PURE_PYTHON is set" in state["show"]


@needs_build
def test_the_built_core_runs_by_default():
    state, _ = report(_core.PACKAGE.parent)
    assert state["core"] == "compiled"
    assert state["sources"] == []


@needs_build
def test_a_core_older_than_its_sources_is_not_run(tmp_path):
    """A copy of the package whose one compiled source was edited after the build runs every module from source."""
    shutil.copytree(_core.PACKAGE, tmp_path / "ndgrad", ignore=shutil.ignore_patterns("__pycache__"))
    edited = tmp_path / "ndgrad" / "_shared.py"
    edited.write_text(edited.read_text() + "\n# edited after the build\n")
    state, warnings = report(tmp_path)
    assert state["core"] == "python"
    assert state["sources"] == sorted(_core.COMPILED)
    assert "older than its sources (_shared.py)" in warnings


@needs_build
def test_a_core_built_for_other_modules_is_not_run(tmp_path):
    """A build from before a module joined the core (its record lacks one) runs every module from source."""
    shutil.copytree(_core.PACKAGE, tmp_path / "ndgrad", ignore=shutil.ignore_patterns("__pycache__"))
    manifest = tmp_path / "ndgrad" / _core.MANIFEST.name
    built = json.loads(manifest.read_text())
    del built["_fields.py"]
    manifest.write_text(json.dumps(built))
    state, _ = report(tmp_path)
    assert state["core"] == "python"
    assert state["sources"] == sorted(_core.COMPILED)
    assert "built for other modules" in state["show"]


@needs_build
def test_the_build_records_every_compiled_module():
    built = json.loads(_core.MANIFEST.read_text())
    assert sorted(built) == sorted(_core.COMPILED)
    for path in _core.COMPILED:
        stem = _core.PACKAGE / path[:-3]
        assert any(Path(f"{stem}{suffix}").exists() for suffix in EXTENSION_SUFFIXES), path


def test_no_compiled_module_defines_a_method_torch_writes_in_python():
    """Those live in ndgrad._python_methods, so that Python words the errors of a wrong call as PyTorch's."""
    from ndgrad._tensor_surface import _PYTHON_METHODS

    tensor_classes = {cls.__name__ for cls in ndgrad.Tensor.__mro__}
    for path in _core.COMPILED:
        tree = ast.parse((_core.PACKAGE / path).read_text())
        methods = {
            node.name for owner in ast.walk(tree) if isinstance(owner, ast.ClassDef) and owner.name in tensor_classes
            for node in owner.body if isinstance(node, ast.FunctionDef)
        }
        assert sorted(methods & _PYTHON_METHODS) == [], path


@pytest.mark.skipif(ndgrad.__config__.CORE != "compiled", reason="the pure-Python core has no C structs")
def test_the_compiled_core_keeps_the_fields_in_c_structs():
    """ndgrad._fields's classes are extension types there, and a tensor's and a node's fields their members."""
    from ndgrad._fields import NodeFields, TensorFields

    heap_type = 1 << 9  # Py_TPFLAGS_HEAPTYPE: set on every class made by a class statement that Python runs
    for fields in (TensorFields, NodeFields):
        assert not fields.__flags__ & heap_type
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    node = (x * x).grad_fn
    assert type(TensorFields.__dict__["_data"]).__name__ == "getset_descriptor"
    assert isinstance(x, TensorFields) and isinstance(node, NodeFields)
    accumulator = x._edge()[0]  # x's AccumulateGrad, on both edges of x * x
    assert node._edges == ((accumulator, 0), (accumulator, 0))


def test_the_wheel_ships_every_declaration_the_hashes_cover():
    """An installed core checks its .pxd files' hashes too: a wheel without them would never load its core."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    project = tomllib.loads((_core.PACKAGE.parents[1] / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["package-data"]["ndgrad"]
    declarations = [path.relative_to(_core.PACKAGE).as_posix() for path in _core.PACKAGE.rglob("*.pxd")]
    assert declarations  # the compiled core has some
    for path in declarations:
        assert any(fnmatch.fnmatchcase(path, pattern) and path.count("/") == pattern.count("/")
                   for pattern in patterns), path
