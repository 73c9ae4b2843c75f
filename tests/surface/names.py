"""torch's user-facing names, namespace by namespace, and which of them ndgrad has: the coverage that
``python -m tests.surface`` prints, and the names the signature check compares."""

import importlib
import inspect
import types
import warnings

__all__ = ["NAMESPACES", "torch_names", "resolve", "coverage"]

# (torch's namespace, ndgrad's): the modules real programs import, and the Tensor class's methods and properties.
# torch.distributions, torch.func and torch.distributed's engine are issues of their own, but are counted all the same.
NAMESPACES = [
    ("torch", "ndgrad"),
    ("torch.Tensor", "ndgrad.Tensor"),
    ("torch.nn", "ndgrad.nn"),
    ("torch.nn.functional", "ndgrad.nn.functional"),
    ("torch.nn.init", "ndgrad.nn.init"),
    ("torch.nn.utils", "ndgrad.nn.utils"),
    ("torch.optim", "ndgrad.optim"),
    ("torch.optim.lr_scheduler", "ndgrad.optim.lr_scheduler"),
    ("torch.autograd", "ndgrad.autograd"),
    ("torch.autograd.functional", "ndgrad.autograd.functional"),
    ("torch.linalg", "ndgrad.linalg"),
    ("torch.fft", "ndgrad.fft"),
    ("torch.special", "ndgrad.special"),
    ("torch.sparse", "ndgrad.sparse"),
    ("torch.utils.data", "ndgrad.utils.data"),
    ("torch.cuda", "ndgrad.cuda"),
    ("torch.amp", "ndgrad.amp"),
    ("torch.backends", "ndgrad.backends"),
    ("torch.multiprocessing", "ndgrad.multiprocessing"),
    ("torch.testing", "ndgrad.testing"),
    ("torch.random", "ndgrad.random"),
    ("torch.distributions", "ndgrad.distributions"),
    ("torch.func", "ndgrad.func"),
    ("torch.distributed", "ndgrad.distributed"),
    ("torch.onnx", "ndgrad.onnx"),
]


def resolve(dotted):
    """The module or class a dotted name names, or None where it does not exist."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            target = getattr(target, attribute, None)
        return target
    return None


def torch_names(namespace):
    """The public names of one of torch's namespaces: its ``__all__`` where it declares one, else the names it
    defines itself (not what it merely imports: typing's ``Optional``, ``warnings``)."""
    target = resolve(namespace)
    if isinstance(target, type):
        return sorted(name for name in dir(target) if not name.startswith("_"))
    declared = getattr(target, "__all__", None)
    if declared is not None:
        return sorted(set(declared))
    with warnings.catch_warnings():  # reading a deprecated alias warns (torch.distributed.reduce_op)
        warnings.simplefilter("ignore")
        return sorted(name for name, value in vars(target).items()
                      if not name.startswith("_") and _defined_in_torch(value))


def _defined_in_torch(value):
    if isinstance(value, types.ModuleType):
        return value.__name__.startswith("torch.")
    module = getattr(value, "__module__", None) or ""
    return module.startswith("torch") or inspect.isbuiltin(value) or not hasattr(value, "__module__")


def coverage():
    """Rows of (torch's namespace, its names, ndgrad's missing names)."""
    rows = []
    for torch_namespace, ndgrad_namespace in NAMESPACES:
        names = torch_names(torch_namespace)
        ours = resolve(ndgrad_namespace)
        missing = [name for name in names if ours is None or not hasattr(ours, name)]
        rows.append((torch_namespace, names, missing))
    return rows
