"""One object for each distinct small record that many graph nodes keep.

Note [shared records]: a node keeps its output's (shape, dtype), the versions of the tensors it saved and the site
of the user's line that made it. A loop that builds a graph of a million nodes makes them from a few lines, on a
few shapes, so these records repeat: kept once each, the graph holds up to four tuples fewer per node (in
bench/run.py's scaling chain, 466 bytes per recorded op instead of 673, and fewer objects for the cyclic collector
to walk). The records are tuples of immutable values, so sharing them is invisible. Callers write
``table.get(record) or keep(table, record)``: a record seen before costs one dict lookup and no call. A table stops
growing at KEPT records (code that makes ever new shapes keeps its own tuples, as before); the sites' table also
keeps their code objects alive, KEPT at most.
"""

__all__ = ["keep", "KEPT"]

KEPT = 4096


def keep(table, record, key=None):
    """``record``, remembered in ``table`` (under ``key``, by default the record itself) while the table has room."""
    if len(table) < KEPT:
        table[record if key is None else key] = record
    return record
