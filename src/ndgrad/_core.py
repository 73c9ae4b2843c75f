"""Which core runs: the hot-path modules compiled from their own ``.py`` files, or those files as Python.

Note [compiled core]: the modules every op passes through (COMPILED below: Tensor's fields, ``Op.apply``, the graph
nodes, the engine, saved tensors, grad modes, provenance) can be compiled to C extensions by Cython from the very
files you read (``setup.py`` builds them). Nothing is written twice: each compiled module is its ``.py`` file, run
faster. Python imports an extension in place of the ``.py`` beside it, so this module decides, before any of them is
imported, which of the two runs:

- the compiled core, when every compiled module was built from the sources now beside it (the build writes their
  hashes to ``_core_sources.json``; a source edited since falls back, with a warning, rather than run stale code);
- pure Python, when nothing was compiled (no C compiler at install), when the build is stale, or when the
  environment sets ``NDGRAD_PURE_PYTHON=1``. The compiled files are then skipped by a finder on ``sys.meta_path``
  that imports the ``.py`` beside each of them.

The two behave alike; the one difference a program could see, Python frames (a compiled function has none), is
absorbed where frames are read (see ``capture`` in ndgrad.autograd.provenance). ``ndgrad.__config__.show()`` says
which core is loaded.
"""

import hashlib
import json
import os
import sys
import warnings
from importlib.machinery import EXTENSION_SUFFIXES, PathFinder
from importlib.util import spec_from_file_location
from pathlib import Path

__all__ = ["COMPILED", "CORE", "why", "sources_hash"]

# The modules every recorded op runs through, as paths inside the package
COMPILED = (
    "_fields.py",
    "_shared.py",
    "_operators.py",
    "_tensor.py",
    "ops/_op.py",
    "autograd/engine.py",
    "autograd/graph.py",
    "autograd/provenance.py",
    "autograd/saved.py",
)
PACKAGE = Path(__file__).parent
MANIFEST = PACKAGE / "_core_sources.json"  # {module path: sha256 of its sources}, written by a complete build


def sources_hash(module_path):
    """The hash the build records for a module: its .py file and, where one augments it, its .pxd file."""
    digest = hashlib.sha256((PACKAGE / module_path).read_bytes())
    declarations = (PACKAGE / module_path).with_suffix(".pxd")
    if declarations.exists():
        digest.update(declarations.read_bytes())
    return digest.hexdigest()


def _choose():
    """(core, why): "compiled" or "python", and the reason in a few words."""
    if os.environ.get("NDGRAD_PURE_PYTHON", "") not in ("", "0"):
        return "python", "NDGRAD_PURE_PYTHON is set"
    if not MANIFEST.exists():
        return "python", "no compiled core was built"
    built = json.loads(MANIFEST.read_text())
    if sorted(built) != sorted(COMPILED):  # built before a module joined or left the core
        return "python", "the compiled core was built for other modules: rebuild it with `make core`"
    missing = sorted(module for module in built if not _has_extension(module))
    if missing:
        return "python", f"the compiled core lacks {', '.join(missing)}"
    stale = sorted(module for module, digest in built.items() if sources_hash(module) != digest)
    if stale:
        warnings.warn(
            f"ndgrad's compiled core is older than its sources ({', '.join(stale)}), so ndgrad runs as pure Python; "
            f"rebuild it with `make core`",
            UserWarning,
            stacklevel=2,
        )
        return "python", f"the compiled core is older than {', '.join(stale)}"
    return "compiled", f"{len(built)} modules built from the sources beside them"


def _has_extension(module_path):
    stem = str(PACKAGE / module_path)[: -len(".py")]
    return any(os.path.exists(stem + suffix) for suffix in EXTENSION_SUFFIXES)


class _SourceFirst:
    """A finder that imports an ndgrad module from its .py file even where an extension of it lies beside it."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if not name.startswith("ndgrad.") or path is None:
            return None
        spec = PathFinder.find_spec(name, path)
        origin = spec.origin if spec is not None else None
        suffix = next((suffix for suffix in EXTENSION_SUFFIXES if origin and origin.endswith(suffix)), None)
        if suffix is None:
            return None  # not compiled: the usual finders import it
        source = origin[: -len(suffix)] + ".py"
        return spec_from_file_location(name, source) if os.path.exists(source) else None


if __name__ == "ndgrad._core":  # not when setup.py reads COMPILED and sources_hash from this file
    CORE, why = _choose()
    if CORE == "python":
        sys.meta_path.insert(0, _SourceFirst)
