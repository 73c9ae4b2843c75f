"""One object for each distinct small record that many graph nodes keep.

Note [shared records]: a node keeps its output's (shape, dtype), the versions of the tensors it saved and the site
of the user's line that made it. A loop that builds a graph of a million nodes makes them from a few lines, on a
few shapes, so these records repeat: kept once each, the graph holds up to four tuples fewer per node (in
bench/run.py's scaling chain, 466 bytes per recorded op instead of 673, and fewer objects for the cyclic collector
to walk). The records are tuples of immutable values, so sharing them is invisible. Callers write
``table.get(record) or keep(table, record)``: a record seen before costs one dict lookup and no call. A table that
reaches KEPT records starts again empty, so a long program that has met many shapes and lines (a test suite) still
shares those of its current loop, and the sites' table keeps at most KEPT code objects alive.
"""

__all__ = ["keep", "KEPT"]

KEPT = 4096


def keep(table, record, key=None):
    """``record``, remembered in ``table`` under ``key`` (by default the record itself); a full table starts again."""
    if len(table) >= KEPT:
        table.clear()
    table[record if key is None else key] = record
    return record
