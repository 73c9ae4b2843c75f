"""Per-op sample builders, one module per op family module of ndgrad.ops; merged into one BUILDERS dict."""

from . import activation, arithmetic, linalg, reduction, shape

BUILDERS = {}
for _module in (activation, arithmetic, linalg, reduction, shape,):
    BUILDERS.update(_module.BUILDERS)
