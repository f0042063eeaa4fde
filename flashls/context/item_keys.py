"""Which outline keys a version's items have, carried from the last version's.

The stable tier remembers its entries by key (`rank_memo._key`: name, kind, first
line; no row). Every keystroke asked whether each remembered outline key still exists
(`rank_memo._vanished`), which indexed every item of the new version: 3,000 keys,
and on a version moved by an Enter every item built first (`MovedItems.flat`), a few
ms per keystroke on the 15,000-line file. A key has no row, so the items an edit only
moved keep theirs: the version's key counts are the last version's minus the items
the edit replaced plus those it put in (the splice `analysis` reports,
`bigfile_fastpath.note_splice`).
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

from .bigfile_fastpath import splice_of
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

_COUNTS = IdentityMemo(16, HEAVY_ITEMS_WEIGHT)  # items -> {key: count}
SPLICES_BACK = 3  # splices followed back to a version whose counts are known


def outline_key(item) -> tuple:
    """`rank_memo._key("", item)`: how the stable tier names an outline entry."""
    return ("", item.name, item.kind, item.lines[:1])


def key_counts(items: Sequence) -> Mapping[tuple, int]:
    """{outline_key(it): how many items have it} for `items` (read-only)."""
    counts = _carried(items, SPLICES_BACK)
    if counts is None:
        counts = {}
        for it in items:
            k = outline_key(it)
            counts[k] = counts.get(k, 0) + 1
        _COUNTS.put(items, counts)
    return counts


def _carried(items: Sequence, depth: int) -> dict | None:
    """The counts of `items` when known, or carried from a version a few splices back
    whose counts are (after a whole-tree reparse a version is spliced from the last
    exact one, through the idle reparse's version no request asked about)."""
    hit = _COUNTS.get(items)
    if hit is not None:
        return hit
    splice = splice_of(items) if depth else None
    if splice is None:
        return None
    old, head, tail = splice
    base = _carried(old, depth - 1)
    if base is None:
        return None
    counts = _from_splice(base, old, items, head, tail)
    _COUNTS.put(items, counts)
    return counts


def _from_splice(base: dict, old: Sequence, items: Sequence, head: int, tail: int) -> dict:
    """`old`'s counts `base` less the items the splice replaced, plus those it put in."""
    gone = [outline_key(it) for it in old[head:len(old) - tail]]
    added = [outline_key(it) for it in items[head:len(items) - tail]]
    if Counter(gone) == Counter(added):  # an Enter, a body edit: the same keys
        return base
    counts = dict(base)  # (a copy: the last version's may be asked again)
    for k in gone:
        left = counts[k] - 1
        if left:
            counts[k] = left
        else:
            del counts[k]
    for k in added:
        counts[k] = counts.get(k, 0) + 1
    return counts


def forget() -> None:
    _COUNTS.clear()
