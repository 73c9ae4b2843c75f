"""ndgrad.ops sits under nn, optim, utils and viz: no module in it imports from them, nor a name from the package
root (whose __init__ imports everything, so ``from ndgrad import eye`` inside ops hides a cycle and an upward edge).
Imports are read with ast, at module level and inside functions alike."""

import ast
import pkgutil
from pathlib import Path

import pytest

import ndgrad
import ndgrad.ops

UPPER_LAYERS = ("ndgrad.nn", "ndgrad.optim", "ndgrad.utils", "ndgrad.viz")
SUBMODULES = frozenset(module.name for module in pkgutil.iter_modules(ndgrad.__path__))
PACKAGE_ROOT = Path(ndgrad.__file__).parent.parent


def _absolute(importing_package, node):
    """The module a ``from ... import`` names, with a relative one resolved against the importing package."""
    if not node.level:
        return node.module
    base = importing_package.rsplit(".", node.level - 1)[0]
    return f"{base}.{node.module}" if node.module else base


def _reaches_upper_layer(module):
    return any(module == layer or module.startswith(layer + ".") for layer in UPPER_LAYERS)


def layering_violations(source, importing_package):
    """(line, reason) for each import in ``source`` that reaches an upper layer or a name of the package root."""
    violations = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "ndgrad":
                    violations.append((node.lineno, "imports the package root ndgrad"))
                elif _reaches_upper_layer(alias.name):
                    violations.append((node.lineno, f"imports {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(importing_package, node)
            if _reaches_upper_layer(module):
                violations.append((node.lineno, f"imports from {module}"))
            elif module == "ndgrad":
                for alias in node.names:
                    if alias.name not in SUBMODULES:
                        violations.append((node.lineno, f"imports {alias.name} from the package root ndgrad"))
                    elif _reaches_upper_layer(f"ndgrad.{alias.name}"):
                        violations.append((node.lineno, f"imports ndgrad.{alias.name}"))
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ndgrad"
              and node.attr not in SUBMODULES):
            violations.append((node.lineno, f"reads ndgrad.{node.attr} from the package root"))
    return sorted(violations)


def test_ops_import_nothing_from_upper_layers_or_the_package_root():
    found = []
    for path in sorted(Path(ndgrad.ops.__file__).parent.rglob("*.py")):
        package = ".".join(path.relative_to(PACKAGE_ROOT).parent.parts)
        for line, reason in layering_violations(path.read_text(), package):
            found.append(f"{path.relative_to(PACKAGE_ROOT)}:{line}: {reason}")
    assert not found, "ndgrad.ops reaches above its layer:\n" + "\n".join(found)


@pytest.mark.parametrize("source, reason", [
    ("import ndgrad", "imports the package root ndgrad"),
    ("import ndgrad as torch", "imports the package root ndgrad"),
    ("from ndgrad import eye", "imports eye from the package root ndgrad"),
    ("from ndgrad import *", "imports * from the package root ndgrad"),
    ("from .. import eye", "imports eye from the package root ndgrad"),
    ("from ndgrad import nn", "imports ndgrad.nn"),
    ("def f():\n    from ndgrad.nn.functional import pad", "imports from ndgrad.nn.functional"),
    ("from ..viz import graph", "imports from ndgrad.viz"),
    ("import ndgrad.optim.sgd", "imports ndgrad.optim.sgd"),
    ("import ndgrad._creation\nndgrad.eye(2)", "reads ndgrad.eye from the package root"),
])
def test_the_check_names_each_kind_of_upward_import(source, reason):
    assert layering_violations(source, "ndgrad.ops") == [(source.count("\n") + 1, reason)]


@pytest.mark.parametrize("source", [
    "from ndgrad._creation import eye",
    "from ndgrad.return_types import slogdet",
    "import ndgrad.return_types as return_types",
    "from ndgrad import return_types",
    "from . import joining",
    "from .joining import cat",
    "from ndgrad.nnx import y",  # a module whose name merely starts like an upper layer's
])
def test_the_check_allows_imports_from_the_layer_and_below(source):
    assert layering_violations(source, "ndgrad.ops") == []


EXPLAIN_AND_DEBUG_TOOLS = ("ndgrad.autograd." + name for name in
                           ("anomaly_mode", "explain", "hints", "leaks", "provenance", "trace"))


def test_the_engine_imports_none_of_the_explain_and_debug_tools():
    """They plug in through ndgrad.autograd.observers, which the engine asks once per pass."""
    tools = tuple(EXPLAIN_AND_DEBUG_TOOLS)
    imported = []
    source = Path(ndgrad.__file__).parent / "autograd" / "engine.py"  # the file, compiled into the core or not
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom):
            imported.append(node.module)
            imported += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
    assert [name for name in imported if name in tools] == []
    assert "ndgrad.autograd.observers" in imported
