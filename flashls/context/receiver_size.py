"""Python: a declared receiver's unused members, fewer of a big class at full score.

`ranking` scores every unused public member of a class some receiver near the cursor is
declared with (`text=Text(..)`, `url = URL(raw)`) at the receiver's score, whatever the
class's size: rich's `Text` has some 60 methods, and a `Text(..)` argument one row away
put all of them at 69 above the module constant the line needed (`SPINNERS`).
`evidence_members` already scales the members of receivers typed elsewhere, and a
declared receiver's members at its nearest use, by `evidence_members._size_factor`
(1 up to SMALL_CLASS public members, then (SMALL_CLASS / n) ** 0.5); this scales the
declared receivers' own scores the same way, before `evidence_members` raises any.
"""

from __future__ import annotations

from typing import Sequence

RESOLVERS = frozenset({"python"})
SCALED = True  # flag: measured on the pool


def revise(analysis, files: Sequence, ev, cands: list) -> list:
    """`cands` with the unused members of big declared-receiver classes scaled down
    (the same list when none is)."""
    if not SCALED or not files or analysis.spec.resolver not in RESOLVERS or \
            not ev.receiver_types:
        return cands
    from .evidence_members import _size_factor
    rtypes, uses = ev.receiver_types, ev.uses
    out = cands
    for k, c in enumerate(cands):
        if c.file < 0:
            continue
        items = files[c.file].analysis.items
        item = items[c.item]
        if item.parent < 0 or not item.name or item.name in uses:
            continue
        cls = items[item.parent].name
        if cls not in rtypes:
            continue
        f = _size_factor(items, cls)
        if f < 1.0:
            if out is cands:
                out = list(cands)
            out[k] = c.rescored(c.score * f)
    return out
