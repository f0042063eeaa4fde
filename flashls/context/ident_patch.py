"""A node's identifier table patched by an edit's rows, not re-read from every row.

A Java or C++ class is one top-level node of hundreds of rows: an edit inside it used
to re-read all its rows' identifiers (`analysis._add_identifiers`), the largest cost of
a Java request after the parse. The last version's table and the rows the edit
replaced give the new one: only the names on the old and new edited rows change rows,
and the rows after the edit move by the rows it added. The result equals a reading of
every row, in its key order too (first row, then the order the first row's
identifiers come in), which `test_ident_patch` checks against `_add_identifiers`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Sequence

from .memo import line_identifiers

# an edit spanning more than this share of the node's rows: reading them all is cheaper
MAX_SHARE = 0.5


def patched_idents(old: dict[str, tuple[int, ...]], old_lines: Sequence[str],
                   new_lines: Sequence[str], first: int, lo: int, old_hi: int, new_hi: int,
                   rows: int) -> dict[str, tuple[int, ...]] | None:
    """The identifier -> relative rows table of a node starting at row `first` of
    `new_lines` (`rows` rows long), from `old`, its table in `old_lines`, where
    relative rows lo..old_hi became lo..new_hi (inclusive); None when the edit spans
    too much of the node to gain anything."""
    if lo < 0 or new_hi < lo - 1 or old_hi < lo - 1 or (new_hi - lo + 1) > MAX_SHARE * rows:
        return None
    d = new_hi - old_hi
    fresh: dict[str, list[int]] = {}
    get = fresh.get
    for rel, line in enumerate(new_lines[first + lo:first + new_hi + 1], lo):
        for name in line_identifiers(line):
            at = get(name)
            if at is None:
                fresh[name] = [rel]
            else:
                at.append(rel)
    touched: set[str] = set(fresh)
    for line in old_lines[first + lo:first + old_hi + 1]:
        touched |= line_identifiers(line)
    values: dict[str, tuple[int, ...]] = {}
    for name in touched:
        had = old.get(name, ())
        i = bisect_left(had, lo) if had else 0
        j = bisect_right(had, old_hi, i) if had else 0
        tail = had[j:]
        if d and tail:
            tail = tuple([x + d for x in tail])
        values[name] = had[:i] + tuple(fresh.get(name, ())) + tail
    kept = [n for n in old if n not in touched]
    if d:  # the rows after the edit moved
        for name in kept:
            had = old[name]
            if had[-1] > old_hi:
                j = bisect_right(had, old_hi)
                values[name] = had[:j] + tuple([x + d for x in had[j:]])
    # the table's order is by first row, then by the first row's identifier order: a
    # name first used before the edit keeps its place; the ones first used in the
    # edited rows come next, in row order; a name whose first use the edit removed
    # (now first used after it) is put among the names after the edit
    stay = [n for n in old if n not in touched or (values[n] and values[n][0] < lo)]
    moved = [n for n in touched if values[n] and values[n][0] >= lo]
    if not moved:
        return {n: values.get(n) or old[n] for n in stay}
    order: dict[int, dict[str, int]] = {}

    def key(name: str) -> tuple[int, int]:
        row = (values.get(name) or old[name])[0]
        pos = order.get(row)
        if pos is None:
            pos = order[row] = {n: k for k, n in
                                enumerate(line_identifiers(new_lines[first + row]))}
        return row, pos[name]

    split = bisect_left(stay, lo, key=lambda n: (values.get(n) or old[n])[0])
    inside = sorted((n for n in moved if values[n][0] <= new_hi), key=key)
    after = sorted((n for n in moved if values[n][0] > new_hi), key=key)
    merged = stay[:split] + inside
    start = split
    for name in after:
        at = bisect_left(stay, key(name), start, key=key)
        merged.extend(stay[start:at])
        merged.append(name)
        start = at
    merged.extend(stay[start:])
    return {n: values.get(n) or old[n] for n in merged}
