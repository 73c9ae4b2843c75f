"""A tensor as PyTorch's C++ prints it (its ``operator<<``), the form some of its error messages show: columns of
numbers in one format per matrix, then ``[ ndgrad.FloatTensor{2,3} ]``."""

import math

import numpy as np

from ndgrad._dtype import type_string

__all__ = ["cpp_printed"]

_LINE = 80  # the line width PyTorch's printer fills


def cpp_printed(tensor):
    values = np.asarray(tensor.detach().cpu()._data, dtype=np.float64)
    text = ""
    if values.ndim == 0:
        text = f"{values.item():g}\n"
    elif values.ndim == 1 and values.size:
        scale, width, number = _format(values)
        text = _scale_line(scale) + "".join(number(v / scale).rjust(width) + "\n" for v in values)
    elif values.ndim == 2 and values.size:
        text = _matrix(values, 0)
    elif values.size:
        text = "\n".join(f"({','.join(str(i + 1) for i in index)},.,.) = \n" + _matrix(values[index], 1)
                         for index in _leading_indices(values.shape[:-2]))
    return f"{text}[ {type_string(tensor)}{{{','.join(map(str, values.shape))}}} ]"


def _leading_indices(shape):
    """Every index over the leading dims, the first dim counting fastest, as PyTorch's printer steps."""
    for flat in range(math.prod(shape)):
        index = []
        for size in shape:
            index.append(flat % size)
            flat //= size
        yield tuple(index)


def _format(values):
    """(scale, width, formatter) for a block of numbers: integers as C++ prints them, else 4 decimals, fixed when
    the magnitudes are close (scaled by a power of 10 when large or small), else scientific."""
    finite = values[np.isfinite(values)]
    integers = bool(np.all(finite == np.ceil(finite)))
    low = high = 1.0
    if finite.size:
        first = abs(finite[0])
        smallest, largest = min(first, np.abs(finite).min()), max([first] + [abs(v) for v in finite if v > first])
        low = math.floor(math.log10(smallest)) + 1 if smallest else 1
        high = math.floor(math.log10(largest)) + 1 if largest else 1
    if integers:
        if high > 9:
            return 1.0, 11, lambda v: f"{v:.4e}"
        return 1.0, int(high) + 1, lambda v: f"{v:g}"
    if high - low > 4:
        return 1.0, 12 if abs(high) > 99 or abs(low) > 99 else 11, lambda v: f"{v:.4e}"
    if high > 5 or high < 0:
        return 10.0 ** (high - 1), 7, lambda v: f"{v:.4f}"
    return 1.0, 7 if high == 0 else int(high) + 6, lambda v: f"{v:.4f}"


def _scale_line(scale):
    return "" if scale == 1 else f"{scale:.10g} *\n"


def _matrix(values, indent):
    scale, width, number = _format(values)
    rows, columns = values.shape
    per_line = (_LINE - indent) // (width + 1)
    text, first = "", 0
    while first < columns:
        last = min(first + per_line, columns) - 1
        if per_line < columns:
            text += ("\n" if first else "") + f"Columns {first + 1} to {last + 1}" + " " * indent
        if scale != 1:
            text += _scale_line(scale) + " " * indent
        for row in range(rows):
            text += " ".join(number(v / scale).rjust(width) for v in values[row, first:last + 1]) + "\n"
            if row != rows - 1:
                text += " " * indent + (" " if scale != 1 else "")
        first = last + 1
    return text
