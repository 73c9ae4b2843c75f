"""Builds ndgrad's optional compiled core: the modules that ndgrad._core lists, compiled by Cython from their own
.py files (see Note [compiled core] in src/ndgrad/_core.py). The project's metadata is in pyproject.toml.

Without Cython or a C compiler the build says so in one line and installs ndgrad as pure Python (unless
NDGRAD_REQUIRE_CORE is set, as for the wheels, which must carry the core). Only after every module compiled does the
build write the sources' hashes, which tell ndgrad at import that the core matches them.
"""

import json
import os
import sys
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_spec = spec_from_file_location("ndgrad_core_list", Path(__file__).parent / "src" / "ndgrad" / "_core.py")
core = module_from_spec(_spec)
_spec.loader.exec_module(core)


def not_built(reason):
    """Say in one line why the core was not built, and go on without it; a build that must carry the core (a
    wheel's, NDGRAD_REQUIRE_CORE) raises the error instead. Called while the error is being handled."""
    if os.environ.get("NDGRAD_REQUIRE_CORE"):
        raise  # the error being handled
    print(f"ndgrad: the compiled core was not built ({reason}); ndgrad installs as pure Python", file=sys.stderr)


def first_line(error):
    return f"{type(error).__name__}: {error}".splitlines()[0][:160]


class BuildCore(build_ext):
    """build_ext that never fails the install: a module that does not compile leaves ndgrad pure Python."""

    def initialize_options(self):
        super().initialize_options()
        self.parallel = os.cpu_count()  # the modules compile independently

    def build_extensions(self):
        if self.compiler.compiler_type == "unix":  # gcc and clang: no debug symbols, a fifth of the size
            for extension in self.extensions:
                extension.extra_compile_args = [*extension.extra_compile_args, "-g0"]
        super().build_extensions()

    def run(self):
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as error:  # a missing or failing C compiler raises one of several distutils errors
            not_built(first_line(error))
            return
        manifest = {path: core.sources_hash(path) for path in core.COMPILED}
        self.manifest_path().write_text(json.dumps(manifest, indent=1) + "\n")

    def manifest_path(self):
        return Path(self.get_ext_fullpath("ndgrad._core")).parent / core.MANIFEST.name

    def get_outputs(self):
        return [*super().get_outputs(), str(self.manifest_path())]


def core_extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:
        not_built("Cython is not installed")
        return []
    modules = [
        Extension("ndgrad." + path.removesuffix(".py").replace("/", "."), [f"src/ndgrad/{path}"])
        for path in core.COMPILED
    ]
    try:
        return cythonize(
            modules, build_dir="build/cython", include_path=["src"], quiet=True,
            compiler_directives={"language_level": 3},
        )
    except Exception as error:  # this Cython cannot translate the sources
        not_built(first_line(error))
        return []


setup(ext_modules=core_extensions(), cmdclass={"build_ext": BuildCore})
