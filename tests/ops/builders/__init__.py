"""Per-op sample builders, one module per op family module of ndgrad.ops, merged into one BUILDERS dict.

Every module in this package is picked up: a new family's builders need only a new module with a BUILDERS dict.
"""

import importlib
import pkgutil

BUILDERS = {}
for _module in pkgutil.iter_modules(__path__):
    BUILDERS.update(importlib.import_module(f"{__name__}.{_module.name}").BUILDERS)
