"""C/C++: a small namespace the file qualifies names with offers its other names.

`base64::decode(..)` in cereal's `json.hpp` says the file uses cereal's `base64`
namespace; the line being written may well be `base64::encode(..)`, which nothing in
the file names yet (it scored as fill, 2 points, beside `decode`'s 41). Python's
`mod.X` rule (`ranking.MODULE`) gives a module's unused names some evidence; here an
unused member of a namespace block whose name the file uses as a qualifier
(`ns::name`) scores at least NS_MEMBER x100 x the qualifier's proximity, divided by
how many members the block has beyond NS_SMALL (`detail` blocks of hundreds of
functions say little about any one of them).
"""

from __future__ import annotations

from typing import Sequence

NAMESPACE_KINDS = frozenset({"module"})
NS_MEMBER = 0.45
NS_SMALL = 8  # blocks of at most this many members get the whole score


def _near(distance: int) -> float:
    from .ranking import _near as near
    return near(distance)


def lift(analysis, files: Sequence, ev, cands: list) -> list:
    """The candidates, unused members of qualifier-used namespace blocks lifted."""
    if analysis.spec.resolver != "c" or not files or NS_MEMBER <= 0:
        return cands
    qualifiers: set[str] = set()
    for use in ev.uses.values():
        qualifiers.update(use.qualifiers)
    if not qualifiers:
        return cands
    floors: dict[tuple[int, int], float] = {}  # (file, namespace item) -> floor
    out = list(cands)
    for k, c in enumerate(cands):
        if c.file < 0:
            continue
        items = files[c.file].analysis.items
        item = items[c.item]
        if item.parent == -1 or item.name in ev.uses or not item.name:
            continue
        parent = items[item.parent]
        if parent.kind not in NAMESPACE_KINDS or parent.name not in qualifiers:
            continue
        key = (c.file, item.parent)
        floor = floors.get(key)
        if floor is None:
            members = sum(1 for it in items if it.parent == item.parent)
            use = ev.uses.get(parent.name)
            floor = 100 * NS_MEMBER * _near(use.distance) * min(1.0, NS_SMALL / max(1, members)) \
                if use is not None else 0.0
            floors[key] = floor
        if floor > c.score:
            out[k] = c.rescored(floor)
    return out
