"""ndgrad.linalg, torch.linalg's mirror: the ops live in ndgrad.ops.decompositions and ndgrad.ops.products, which
list their LINALG names."""

from ndgrad.ops import decompositions, products

__all__ = []
for _module in (decompositions, products):
    globals().update({name: getattr(_module, name) for name in _module.LINALG})
    __all__ += _module.LINALG

from ndgrad.ops.products import linalg_cross as cross  # noqa: E402  (torch.cross differs: its dim defaults to None)

__all__ += ["cross"]
