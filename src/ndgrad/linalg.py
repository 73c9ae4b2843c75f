"""ndgrad.linalg, torch.linalg's mirror: each op family module of ndgrad.ops lists its LINALG names. Where
torch.linalg's function differs from torch's of the same name (linalg.slogdet returns its own named tuple,
linalg.cross defaults dim), the module's ``linalg_<name>`` is the one taken."""

from ndgrad._C import _LinAlgError as LinAlgError
from ndgrad.ops import FAMILIES

__all__ = ["LinAlgError", "cross"]
for _module in FAMILIES:
    for _name in getattr(_module, "LINALG", ()):
        globals()[_name] = getattr(_module, f"linalg_{_name}", None) or getattr(_module, _name)
        __all__.append(_name)

from ndgrad.ops.products import linalg_cross as cross  # noqa: E402  (torch.cross differs: its dim defaults to None)
