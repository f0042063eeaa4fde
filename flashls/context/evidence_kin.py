"""Python: a used module's unused names that are kin of its names used near the cursor (same base class, or between two used entries).

`nodes.Neg(..)` is typed three lines above `nodes.Pos(..)`: the first use of a name
of a big module (`nodes` has some 80 classes) ties with all its other unused names
at the module's score (`ranking.MODULE`), and the tie is broken by file order. The
classes used near the cursor say which family is at work: `Neg`, `Pos` and `Not`
all derive from `UnaryExpr`, and the parser that builds one builds its kin. An
unused top-level class of a neighbor file used as `mod.X` whose direct base is also
the base of a class of that file used near the cursor scores KIN at the nearest such
use, less for big families (a base with 20 subclasses says little about which one).
An unused top-level entry whose previous and next entries are both used near the
cursor is kin too (BETWEEN: `defaults.TRIM_BLOCKS` above, `defaults.NEWLINE_SEQUENCE`
below, `LSTRIP_BLOCKS` between them in `defaults.py`): code walking a module's list
in order skips none of it.

Tables (class -> bases, base -> classes) are memoized per items tuple.
"""

from __future__ import annotations

from typing import Sequence

from .evidence import FAR
from .evidence_bases import class_bases
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

RESOLVERS = frozenset({"python"})
KIN = 0.75  # of a kin class's score (x100), times `ranking._near` of the used sibling
SMALL_FAMILY = 4  # subclasses a base may have before each is worth less
BETWEEN = True  # an unused entry between two used ones (flag: measured on the pool)
NEAR = 120  # rows: a sibling used farther than this says nothing of the cursor's line

_TABLES = IdentityMemo(256, HEAVY_ITEMS_WEIGHT)


def families(items: Sequence) -> tuple[dict[int, tuple[str, ...]], dict[str, tuple[str, ...]],
                                      dict[str, tuple[str, ...]], tuple[int, ...]]:
    """(top-level class index -> its bases, base -> names of the classes deriving
    from it, class name -> its bases, the top-level named entries' indexes in file
    order) of one file; memoized per items tuple."""
    hit = _TABLES.get(items)
    if hit is not None:
        return hit
    bases: dict[int, tuple[str, ...]] = {}
    by_name: dict[str, tuple[str, ...]] = {}
    kin: dict[str, list[str]] = {}
    order: list[int] = []
    for index, item in enumerate(items):
        if item.parent < 0 and item.name and item.kind != "import":
            order.append(index)
        if item.kind != "class" or item.parent >= 0 or not item.name:
            continue
        found = class_bases(item)
        if found:
            bases[index] = found
            by_name[item.name] = found
            for b in found:
                kin.setdefault(b, []).append(item.name)
    out = (bases, {b: tuple(names) for b, names in kin.items()}, by_name, tuple(order))
    _TABLES.put(items, out)
    return out


def lift(analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """`cands` with the unused kin of near-used classes of `mod.X` modules lifted
    (the same list when there are none)."""
    if not files or analysis.spec.resolver not in RESOLVERS:
        return cands
    from .ranking import _near, module_name
    lifted: dict[tuple[int, int], float] = {}
    for f_index, f in enumerate(files):
        qualifier = module_name(f.path, f.analysis.package)
        module = ev.uses.get(qualifier)
        if module is None or module.distance >= FAR or qualifier not in ev.bound:
            continue
        bases, kin, by_name, order = families(f.analysis.items)
        items = f.analysis.items
        if BETWEEN:
            _between(f_index, items, order, ev, lifted, _near)
        if not bases:
            continue
        near: dict[str, int] = {}  # base -> nearest use of one of its classes
        for names in kin.values():
            for n in names:
                d = _used_near(ev, n)
                if d is not None:
                    for b in by_name[n]:
                        if d < near.get(b, FAR):
                            near[b] = d
        if not near:
            continue
        for index, bs in bases.items():
            name = items[index].name
            if name in ev.uses or name[:1] == "_":
                continue
            best = 0.0
            for b in bs:
                d = near.get(b)
                if d is not None:
                    size = len(kin[b])
                    factor = 1.0 if size <= SMALL_FAMILY else (SMALL_FAMILY / size) ** 0.5
                    best = max(best, 100 * KIN * _near(d) * factor)
            if best > lifted.get((f_index, index), 0.0):
                lifted[(f_index, index)] = best
    if not lifted:
        return cands
    out = cands
    for k, c in enumerate(cands):
        score = lifted.get((c.file, c.item))
        if score is not None and score > c.score:
            if out is cands:
                out = list(cands)
            out[k] = c.rescored(score)
    return out


def _used_near(ev, name: str) -> int | None:
    """How far from the cursor `name` is used as `mod.X`, if within NEAR rows."""
    use = ev.uses.get(name)
    if use is not None and use.attribute and use.distance <= NEAR:
        return use.distance
    return None


def _between(f_index: int, items: Sequence, order: tuple[int, ...], ev, lifted: dict,
             near) -> None:
    """Lift (into `lifted`) each unused top-level entry whose neighbors in file order
    are both used as `mod.X` within NEAR rows of the cursor."""
    for k in range(1, len(order) - 1):
        name = items[order[k]].name
        if name in ev.uses or name[:1] == "_":
            continue
        before = _used_near(ev, items[order[k - 1]].name)
        after = _used_near(ev, items[order[k + 1]].name)
        if before is not None and after is not None:
            lifted[(f_index, order[k])] = 100 * KIN * near(max(before, after))
