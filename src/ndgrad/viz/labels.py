"""The words inside each box: what a tensor box and an operation box say, read off public tensor and node
attributes only, so that the same code describes a graph recorded by ndgrad or by PyTorch."""

from dataclasses import dataclass

import numpy as np

from ndgrad.autograd.provenance import site_of

__all__ = [
    "Options", "is_tensor", "short_name", "sequence_nr", "tensor_lines", "tensor_summary", "op_lines", "op_summary",
    "op_tooltip", "saved_values", "FREED", "MODIFIED",
]

FREED = "freed"
# show_values="auto" prints a tensor's values when it has at most SMALL elements and they fit in SHORT characters
SMALL, SHORT = 10, 40
# The names PyTorch exposes saved values under (``node._saved_self``), probed on nodes whose dir() does not list
# them: tensors, the sizes kept beside them, and parameters (dim, alpha, ...), which show as ``name = value``.
_SAVED_NAMES = (
    "self", "other", "result", "mat2", "tensor", "vec", "exponent", "base", "dim", "keepdim", "alpha",
    "self_sym_sizes", "self_sym_numel", "mat2_sym_sizes",
)
_BOOKKEEPING = ("_saved_versions",)  # attributes of ndgrad's nodes that look like saved values but are not
MODIFIED = "modified in place since saved"


@dataclass(frozen=True)
class Options:
    """What the boxes show (see ndgrad.viz.draw)."""

    show_saved: bool = True
    show_values: object = "auto"  # "auto" (small tensors), True or False
    shapes_only: bool = False


def is_tensor(value):
    return hasattr(value, "grad_fn") and hasattr(value, "requires_grad") and hasattr(value, "shape")


def short_name(node):
    """``node.name()`` without a C++ namespace: ``ndgrad::autograd::AccumulateGrad`` -> ``AccumulateGrad``."""
    return node.name().rsplit("::", 1)[-1]


def sequence_nr(node):
    """The node's creation number (an attribute in ndgrad, a method in PyTorch)."""
    number = node._sequence_nr
    return number() if callable(number) else number


def _shape(tensor):
    return f"[{', '.join(str(size) for size in tensor.shape)}]"


def _dtype(tensor):
    return str(tensor.dtype).rsplit(".", 1)[-1]


def _number(value):
    """A float in at most four decimals, unpadded (a box has no columns to align)."""
    if value == 0 or not np.isfinite(value) or 1e-4 <= abs(value) < 1e8:
        return np.format_float_positional(value, precision=4, trim=".")
    return np.format_float_scientific(value, precision=4, trim=".")


_FORMATTER = {"float_kind": _number, "int": str, "bool": str}


def _values(tensor, options):
    """The tensor's values on one line, or None where the options say not to show them."""
    if options.shapes_only or options.show_values is False:
        return None
    if options.show_values == "auto" and tensor.numel() > SMALL:
        return None
    array = np.asarray(tensor.detach().cpu().numpy())
    text = np.array2string(array, separator=", ", formatter=_FORMATTER, max_line_width=1 << 30)
    text = " ".join(text.split())
    return None if options.show_values == "auto" and len(text) > SHORT else text


def _described(tensor, options):
    """A tensor as one phrase: its values when small enough, else its shape (and dtype)."""
    values = _values(tensor, options)
    if values is not None:
        return values
    return _shape(tensor) if options.shapes_only else f"{_shape(tensor)} {_dtype(tensor)}"


def _grad(tensor):
    """``.grad`` where PyTorch keeps one, without the warning that reading a non-leaf's grad raises."""
    if tensor.is_leaf or tensor.retains_grad:
        return tensor.grad
    return None


def tensor_lines(tensor, options):
    """The lines under a tensor box's title, the seeds' fields: data, requires_grad, grad, grad_fn, is_leaf."""
    if options.shapes_only:
        return [_shape(tensor)]
    lines = [f"shape: {_shape(tensor)}, dtype: {_dtype(tensor)}"]
    values = _values(tensor, options)
    if values is not None:
        lines.append(f"data: {values}")
    grad = _grad(tensor)
    grad_fn = tensor.grad_fn
    lines += [
        f"requires_grad: {tensor.requires_grad}",
        f"grad: {None if grad is None else _described(grad, options)}",
        f"grad_fn: {None if grad_fn is None else short_name(grad_fn)}",
        f"is_leaf: {tensor.is_leaf}",
    ]
    if grad_fn is None and not tensor.requires_grad:
        lines.append("cut: no history (detached or made under no_grad)")
    return lines


def tensor_summary(tensor, options, title):
    """The tensor on one line, for the text tree: ``x [2, 2] float32 (leaf, requires_grad, grad=...)``."""
    if options.shapes_only:
        return f"{title} {_shape(tensor)}"
    flags = ["leaf"] if tensor.is_leaf else []
    if tensor.requires_grad:
        flags.append("requires_grad")
    elif tensor.grad_fn is None:
        flags.append("cut")
    values = _values(tensor, options)
    if values is not None:
        flags.append(f"data={values}")
    grad = _grad(tensor)
    if grad is not None:
        flags.append(f"grad={_described(grad, options)}")
    return f"{title} {_shape(tensor)} {_dtype(tensor)}" + (f" ({', '.join(flags)})" if flags else "")


def _saved_names(node):
    listed = [name[len("_saved_"):] for name in dir(node) if name.startswith("_saved_") and name not in _BOOKKEEPING]
    if not listed:
        declared = getattr(getattr(node, "op", None), "saves", ())
        listed = list(dict.fromkeys((*_SAVED_NAMES, *declared)))
    return sorted(listed, key=_saved_order)


def _saved_order(name):
    """PyTorch's usual names in their order (self, other, ...), then the others alphabetically, as dir() lists them."""
    return (_SAVED_NAMES.index(name), "") if name in _SAVED_NAMES else (len(_SAVED_NAMES), name)


def _unavailable(error):
    """Why a saved value cannot be read: freed by backward, or overwritten by an in-place op."""
    return MODIFIED if "modified by an inplace operation" in str(error) else FREED


def saved_values(node):
    """(name, value) for everything the node saved for backward; value is FREED once backward released it and
    MODIFIED once an in-place op overwrote it."""
    found = []
    for name in _saved_names(node):
        try:
            value = getattr(node, f"_saved_{name}")
        except AttributeError:
            continue
        except RuntimeError as error:
            value = _unavailable(error)
        if value is not None:
            found.append((name, value))
    if found:
        return found
    try:  # a custom autograd.Function's ctx has no names for what it saved
        return [(f"saved_tensors[{i}]", value) for i, value in enumerate(node.saved_tensors)]
    except AttributeError:
        return []
    except RuntimeError as error:
        return [("saved_tensors", _unavailable(error))]


def _saved_line(name, value, options):
    if isinstance(value, str):
        return f"{name}: {value}"
    if not is_tensor(value):
        return f"{name} = {value}"
    if options.shapes_only:
        return f"{name}: {_shape(value)}"
    values = _values(value, options)
    if values is not None:
        return f"{name}: {values} ({_dtype(value)}, version {value._version})"
    return f"{name}: {_shape(value)} {_dtype(value)}, version {value._version}"


def op_lines(node, options):
    """The lines under an operation box's title: where the user's code made it, and what it saved."""
    lines = []
    site = site_of(node)
    if site is not None:
        lines.append(site.short())
    if options.show_saved and not hasattr(node, "variable"):
        lines += [_saved_line(name, value, options) for name, value in saved_values(node)]
    return lines


def op_summary(node, title):
    """The node on one line, for the text tree: its name and where the user's code made it."""
    site = site_of(node)
    return title if site is None else f"{title} ({site.short()})"


def op_tooltip(node):
    """The full source position and line of the user's code, for a hover tooltip."""
    site = site_of(node)
    if site is None:
        return ""
    where = f"{site} in {site.function}"
    return f"{where}\n{site.source}" if site.source else where
