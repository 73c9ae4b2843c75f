"""repr() of tensors, laid out character for character as PyTorch prints them (see torch.set_printoptions)."""

import math
from dataclasses import dataclass

import numpy as np

from . import _dtype
from ._fpstate import silenced
from ._sparse_storage import SparseCOO

__all__ = ["PRINT_OPTS", "set_printoptions", "tensor_repr"]


@dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None  # None: chosen per tensor from its values


PRINT_OPTS = _PrintOptions()
_DEFAULT_DEVICE_TYPE = "cpu"  # tensors on any other device name it in their repr

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """See torch.set_printoptions: a profile sets every option, then the named options override it."""
    # An unknown profile name is ignored, as in torch.
    for name, value in _PROFILES.get(profile, {}).items():
        setattr(PRINT_OPTS, name, value)
    named = dict(precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth)
    for name, value in named.items():
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    # Unlike the others, sci_mode is always assigned: leaving it out goes back to automatic.
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """One notation and one column width for all the values shown, chosen as torch chooses them."""

    def __init__(self, values, is_float):
        self.is_float, self.int_mode, self.sci_mode = is_float, True, False
        values = values.ravel()
        if not is_float:
            self.width = max([1] + [len(str(v)) for v in values.tolist()])
            return
        # Zeros, nan and inf neither choose the notation nor widen the column.
        shown = values[np.isfinite(values) & (values != 0)]
        if shown.size:
            mags = np.abs(shown.astype(np.float64))
            lo, hi = mags.min(), mags.max()
            self.int_mode = bool(np.all(shown == np.ceil(shown)))
            self.sci_mode = hi / lo > 1000 or hi > 1e8 or (not self.int_mode and lo < 1e-4)
            # A forced sci_mode only applies when there is some value to format.
            if PRINT_OPTS.sci_mode is not None:
                self.sci_mode = PRINT_OPTS.sci_mode
        self.width = max([1] + [len(self._bare(v)) for v in shown.tolist()])

    def _bare(self, v):
        if not self.is_float:
            return str(v)
        if self.sci_mode:
            return f"{v:.{PRINT_OPTS.precision}e}"
        if self.int_mode:
            # Integral floats print as "2." so they still read as floats.
            return f"{v:.0f}" if math.isinf(v) or math.isnan(v) else f"{v:.0f}."
        return f"{v:.{PRINT_OPTS.precision}f}"

    def __call__(self, v):
        return self._bare(v).rjust(self.width)


def _edges(a, n):
    """The first and last n entries along every axis: the values a summarised print shows."""
    for axis, size in enumerate(a.shape):
        if size > 2 * n:
            a = np.take(a, np.r_[0:n, size - n : size], axis=axis)
    return a


def _cell_maker(a, summarize):
    """A function printing one element, and the width an element takes on a line with its ", "."""
    view = _edges(a, PRINT_OPTS.edgeitems) if summarize else a
    if a.dtype.kind != "c":
        fmt = _Formatter(view, a.dtype.kind == "f")
        return (lambda v: fmt(v)), fmt.width + 2
    real, imag = _Formatter(view.real, True), _Formatter(view.imag, True)

    def cell(v):
        im = (imag(v.imag) + "j").lstrip()
        return real(v.real) + ("" if im[0] in "+-" else "+") + im

    return cell, real.width + imag.width + 3


def _body(a, indent, summarize, cell, cell_width):
    if a.ndim == 0:
        return cell(a.item())
    n = PRINT_OPTS.edgeitems
    cut = summarize and a.shape[0] > 2 * n
    rows = [*range(n), None, *range(a.shape[0] - n, a.shape[0])] if cut else range(a.shape[0])
    if a.ndim == 1:
        # The "..." of a vector takes one element's place, so lines wrap around it like any element.
        items = [" ..." if i is None else cell(a[i].item()) for i in rows]
        per_line = max(1, (PRINT_OPTS.linewidth - indent) // cell_width)
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    # Sub-blocks of a k-D tensor are separated by k-2 blank lines.
    blocks = ["..." if i is None else _body(a[i], indent + 1, summarize, cell, cell_width) for i in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(blocks) + "]"


def _host_values(data):
    if not isinstance(data, np.ndarray):  # printing copies a GPU tensor's values to the host, as PyTorch does
        data = data.get()
    # Half precision (float16 and bfloat16) is widened first, as torch does, so that the values format like float32
    # ones (and NumPy's kind "V" of ml_dtypes' bfloat16 never reaches the formatter).
    return data.astype(np.float32) if data.dtype == np.float16 or data.dtype.name == "bfloat16" else data


def _usual_dtypes():
    """The dtypes whose name a repr leaves out when there are values to show: torch's has_default_dtype."""
    default = _dtype.get_default_dtype().name
    return {default, "complex128" if default == "float64" else "complex64", "int64", "bool"}


def _values_text(a, indent):
    """The bracketed values of a non-empty host array, laid out from column ``indent``."""
    summarize = a.size > PRINT_OPTS.threshold
    if summarize and not PRINT_OPTS.edgeitems and a.ndim:
        return "[...]"
    return _body(a, indent, summarize, *_cell_maker(a, summarize))


def _dense_text(tensor, indent, suffixes):
    a = _host_values(tensor._data)
    default = _dtype.get_default_dtype().name
    if a.size == 0:
        # Only (0,) goes without a size, and with no values to show the dtype is always spelt out.
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if tensor.dtype.name != default:
            suffixes.append(f"dtype=torch.{tensor.dtype.name}")
        return "[]"
    if not PRINT_OPTS.edgeitems:
        # With no edge items a summary is a bare ellipsis, so torch then always gives the shape.
        suffixes.append(f"size={tuple(a.shape)}")
    if tensor.dtype.name not in _usual_dtypes():
        suffixes.append(f"dtype=torch.{tensor.dtype.name}")
    return _values_text(a, indent)


def _sparse_text(tensor, indent, suffixes):
    """A sparse tensor's indices and values, each as a tensor of its own, one under the other (as torch's)."""
    storage = tensor._data
    parts = []
    for name, a in (("indices", storage.indices), ("values", _host_values(storage.values))):
        prefix = f"{name}=tensor("
        text = _values_text(a, indent + len(prefix)) if a.size else "[]"
        parts.append(prefix + text + ("" if a.size else f", size={tuple(a.shape)}") + ")")
    suffixes += [f"size={tuple(storage.shape)}", f"nnz={storage.nnz}"]
    if tensor.dtype.name not in _usual_dtypes():
        suffixes.append(f"dtype=torch.{tensor.dtype.name}")
    suffixes.append("layout=torch.sparse_coo")
    return (",\n" + " " * indent).join(parts)


@silenced  # the notation's choice divides magnitudes, which may overflow (torch's does too, silently)
def tensor_repr(tensor):
    """What torch prints for the same tensor, with "ndgrad." in place of "torch." in dtype and layout names."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if tensor.device.type != _DEFAULT_DEVICE_TYPE:
        suffixes.append(f"device='{tensor.device}'")
    sparse = type(tensor._data) is SparseCOO
    body = (_sparse_text if sparse else _dense_text)(tensor, indent, suffixes)
    try:
        node = type(tensor.grad_fn).__name__
    except RuntimeError:  # a view whose base was written, which refuses its grad_fn (see UnrebuildableView)
        node = "Invalid"
    if node != "NoneType":
        suffixes.append(f"grad_fn=<{node}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    tangent = getattr(tensor, "_fw_tangent", None)  # a dual tensor of forward-mode AD
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    # Lines break where torch breaks them, so the layout is made with torch's names, renamed after.
    text = _add_suffixes(prefix + body, suffixes, indent, force_newline=sparse)
    return text.replace("dtype=torch.", "dtype=ndgrad.").replace("layout=torch.", "layout=ndgrad.") + ")"


def _add_suffixes(text, suffixes, indent, force_newline=False):
    """Suffixes follow on the last line while it stays within linewidth, else each starts a new line (the first
    always does after a sparse tensor's values)."""
    # torch counts the last line as 2 characters longer than it is, so suffixes move down a little early.
    used = len(text.rsplit("\n", 1)[-1]) + 2
    out = text
    for s in suffixes:
        if force_newline or used + len(s) + 2 > PRINT_OPTS.linewidth:
            out += ",\n" + " " * indent + s
            used = indent + len(s)
            force_newline = False
        else:
            out += ", " + s
            used += len(s) + 2
    return out


def typename(obj):
    """The type name PyTorch's messages print: ``ndgrad.FloatTensor`` for a tensor, ``int``, ``a.b.Class``
    (see torch.typename)."""
    from ndgrad._tensor import Tensor

    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module, name = type(obj).__module__ or "", type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"
