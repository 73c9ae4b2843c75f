"""memory_report: what a graph keeps alive for backward. Every saved tensor of every node, with its size, the line
that saved it and which saved tensors share memory, so that the unique total counts shared memory once."""

from ndgrad._dtype import from_numpy_dtype
from ndgrad.autograd.provenance import site_of
from ndgrad.autograd.saved import SavedOutput, SavedPacked

__all__ = ["memory_report", "MemoryReport", "SavedEntry"]


class SavedEntry:
    """One tensor a node saved for backward: ``node``, ``name`` (``input 0`` for the op's first argument,
    ``result`` for its output, ``saved_tensors[i]`` for a custom Function), ``kind`` ("input", "output" or
    "packed" by saved-tensor hooks),
    ``shape``, ``dtype``, ``bytes``, ``leaf`` (a leaf's own memory, alive without the graph too), ``site`` (where
    the node was made), ``shares`` (numbers of the other entries backed by the same memory) and ``freed`` (backward
    already released what this node saved: one entry per such node, with no shape)."""

    __slots__ = ("node", "name", "kind", "shape", "dtype", "bytes", "leaf", "site", "shares", "freed", "_array")

    def __init__(self, node, name, kind, array=None, leaf=False):
        self.node, self.name, self.kind, self.leaf, self._array = node, name, kind, leaf, array
        self.freed = array is None
        self.shape = None if array is None else tuple(array.shape)
        self.dtype = None if array is None else from_numpy_dtype(array.dtype)
        self.bytes = 0 if array is None else array.nbytes
        self.site = site_of(node)
        self.shares = ()

    def __repr__(self):
        if self.freed:
            return f"<SavedEntry {self.node.name()}: freed>"
        return f"<SavedEntry {self.node.name()} {self.name}: {list(self.shape)} {self.dtype}, {self.bytes} bytes>"


class MemoryReport:
    """The saved tensors behind a graph, largest first: ``rows`` (SavedEntry objects, numbered from 1 in ``str()``),
    ``total_bytes`` (unique memory: shared memory counted once) and ``node_count``; ``str()`` is a table."""

    def __init__(self, rows, node_count):
        self.rows, self.node_count = rows, node_count
        self.total_bytes = _unique_bytes([row for row in rows if not row.freed])

    @property
    def saved_bytes(self):
        """The sum of every saved tensor's size, shared memory counted as often as it is saved."""
        return sum(row.bytes for row in self.rows)

    def __repr__(self):
        return f"<MemoryReport: {len(self.rows)} saved tensors, {self.total_bytes} bytes>"

    def __str__(self):
        held = [row for row in self.rows if not row.freed]
        freed = len(self.rows) - len(held)
        lines = [
            f"memory saved for backward: {len(held)} tensors in {self.node_count} nodes, {_size(self.total_bytes)} "
            f"of unique memory ({_size(self.saved_bytes)} counted per saved tensor)"
            + (f"; {freed} nodes already freed by backward" if freed else "")
        ]
        header = ("#", "bytes", "node", "saved", "shape", "dtype", "line", "")
        table = [header] + [_cells(number, row) for number, row in enumerate(self.rows, 1)]
        widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
        right = {0, 1}
        for cells in table:
            text = "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
            lines.append(text.rstrip())
        return "\n".join(lines)


def memory_report(roots):
    """What the graph behind ``roots`` (a tensor, several, or a grad_fn) saved for backward: a MemoryReport."""
    nodes = _nodes_behind(roots)
    rows = [row for node in nodes for row in _entries(node)]
    rows.sort(key=lambda row: (-row.bytes, -row.node._sequence_nr))
    _find_sharing(rows)
    return MemoryReport(rows, len(nodes))


def _nodes_behind(roots):
    """Every node with saved values reachable from ``roots``, newest first (one iterative walk, as the engine's)."""
    from ndgrad._tensor import Tensor

    if isinstance(roots, Tensor) or not isinstance(roots, (list, tuple)):
        roots = [roots]
    pending = [root.grad_fn if isinstance(root, Tensor) else root for root in roots]
    seen, nodes = set(), []
    while pending:
        node = pending.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "_saved"):
            nodes.append(node)
        pending.extend(next_node for next_node, _ in node.next_functions)
    nodes.sort(key=lambda node: -node._sequence_nr)
    return nodes


def _entries(node):
    """The SavedEntry rows of one node: its saved tensors, or one "freed" row once backward released them."""
    saved = node._saved
    op = getattr(node, "op", None)
    if saved is None:
        return [SavedEntry(node, "", "freed")] if op is None or op.saves else []
    if op is None:
        names = [f"saved_tensors[{i}]" for i in range(len(saved))]
    else:  # the op's argument position, as torch names them self/other; an output by its name
        names = [op.outputs[index] if is_output else f"input {index}" for is_output, index in op._save_plan]
    rows = []
    for name, item in zip(names, saved):
        if type(item) is SavedOutput:
            rows.append(SavedEntry(node, name, "output", item.data))
        elif type(item) is SavedPacked:
            rows.extend(SavedEntry(node, name, "packed", array) for array in _arrays_in(item.packed))
        elif hasattr(item, "_data"):  # a Tensor; None (not needed) and Python numbers hold no tensor memory
            rows.append(SavedEntry(node, name, "input", item._data, leaf=item.grad_fn is None and item._requires_grad))
    return rows


def _arrays_in(packed):
    """The arrays inside what a pack hook returned: a tensor, or tensors inside tuples and lists."""
    pending, arrays = [packed], []
    while pending:
        item = pending.pop()
        if hasattr(item, "_data"):
            arrays.append(item._data)
        elif isinstance(item, (tuple, list)):
            pending.extend(item)
    return arrays


def _extent(array):
    """The [first, last) byte addresses an array touches, from its data pointer, shape and strides (host or GPU)."""
    interface = getattr(array, "__array_interface__", None) or array.__cuda_array_interface__
    low = high = interface["data"][0]
    if array.size == 0:
        return low, low
    for size, stride in zip(array.shape, array.strides):
        if stride < 0:
            low += (size - 1) * stride
        else:
            high += (size - 1) * stride
    return low, high + array.itemsize


def _groups(rows):
    """Rows whose memory overlaps, as lists: intervals sorted by start, merged while they overlap."""
    spans = sorted(((*_extent(row._array), type(row._array), row) for row in rows), key=lambda s: (s[2].__name__, s[0]))
    groups, end, kind = [], None, None
    for start, stop, array_type, row in spans:
        if groups and array_type is kind and start < end:
            groups[-1].append((start, stop, row))
            end = max(end, stop)
        else:
            groups.append([(start, stop, row)])
            end, kind = stop, array_type
    return groups


def _find_sharing(rows):
    """Fill each row's ``shares`` with the numbers (from 1, in ``rows`` order) of the rows its memory overlaps."""
    number = {id(row): index for index, row in enumerate(rows, 1)}
    for group in _groups([row for row in rows if not row.freed]):
        for start, stop, row in group:
            row.shares = tuple(
                sorted(number[id(other)] for other_start, other_stop, other in group
                       if other is not row and other_start < stop and start < other_stop)
            )


def _unique_bytes(rows):
    """Bytes of memory behind the rows, overlapping memory counted once. A group of overlapping arrays counts the
    bytes its byte ranges cover, but no more than its arrays' own sizes: a strided view spans more than it holds."""
    total = 0
    for group in _groups(rows):
        covered, reach = 0, None
        for start, stop, _ in group:  # sorted by start
            if reach is None or start >= reach:
                covered += stop - start
                reach = stop
            elif stop > reach:
                covered += stop - reach
                reach = stop
        total += min(covered, sum(row.bytes for _, _, row in group))
    return total


def _cells(number, row):
    if row.freed:
        return (str(number), "-", row.node.name(), "(freed by backward)", "", "", _where(row.site), "")
    name = row.name if row.kind != "packed" else f"{row.name} (packed)"
    name += " (leaf)" if row.leaf else ""
    shares = f"shares memory with {', '.join(f'#{n}' for n in row.shares)}" if row.shares else ""
    return (str(number), f"{row.bytes:,}", row.node.name(), name, str(list(row.shape)), str(row.dtype),
            _where(row.site), shares)


def _where(site):
    if site is None:
        return "?"
    source = site.source
    return f"{site.short()}  {source}" if source else site.short()


def _size(count):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:,} bytes" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
