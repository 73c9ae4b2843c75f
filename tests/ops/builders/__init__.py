"""Per-op sample builders, one module per op family module of ndgrad.ops; merged into one BUILDERS dict."""

from . import activation, arithmetic, comparison, indexing, joining, linalg, reduction, scan, shape, transcendental

BUILDERS = {}
for _module in (
    activation, arithmetic, comparison, indexing, joining, linalg, reduction, scan, shape, transcendental,
):
    BUILDERS.update(_module.BUILDERS)
