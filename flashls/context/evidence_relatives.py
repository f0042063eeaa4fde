"""Python: which of a big class's (or a module's) unused names the lines around the
cursor point at.

A method called for the first time on a typed receiver (`ctx: Context`, then
`ctx.get_parameter_source(..)`) ties with every other public method of the class, and a
module's first-used name (`defaults.COMMENT_END_STRING`) with all its other top-level
names: the tie is broken by file order, and a class of 40 methods does not fit. The
lines around the cursor often name a relative of the one needed: `ParameterSource`
a line below `get_parameter_source`, the anchor `value_from_envvar` around
`split_envvar_value`, `object_type` beside `ensure_object`. An entry that already has
some evidence (its class has a receiver, its module is used as `mod.X`, it is used
far from the cursor: `self.type.split_envvar_value` 500 lines above) and is not used
inside the anchor is lifted by the family bonus of `name_family` (Dice share of words
with an identifier near the cursor, the cursor's own line left out, fading with rows;
common themes excluded). Entries with no evidence at all are left alone: a relative
alone is weak evidence (Go's rule lifts them too; for Python that lost as many tasks
as it won on dev).
"""

from __future__ import annotations

from typing import Sequence

from .name_family import KINDS, bonuses, relatives, words
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

RESOLVERS = frozenset({"python"})
MIN_SCORE = 10.0  # base score of a tie member (fill entries score 1-3)
SCALE = 1.0  # of name_family's bonus
USED_TOO = True  # names used far from the anchor too (used inside it: evidence enough)

_LAST: list = [None]  # (key, bonuses, items): one line's keystrokes ask alike


_POSTINGS = IdentityMemo(512, HEAVY_ITEMS_WEIGHT)


def file_postings(items: Sequence) -> dict[str, frozenset[str]]:
    """word -> names of one neighbor file's entries having it (memoized per items
    tuple: a fresh document's neighbor set differs, its files' items do not)."""
    hit = _POSTINGS.get(items)
    if hit is not None:
        return hit
    found: dict[str, set[str]] = {}
    for item in items:
        if item.name and item.kind in KINDS:
            for w in words(item.name):
                found.setdefault(w, set()).add(item.name)
    out = {w: frozenset(names) for w, names in found.items()}
    _POSTINGS.put(items, out)
    return out


class _Index:
    """`name_family`'s word index over the neighbor files, merged per word on demand
    (a request asks for the words of a few dozen identifiers, not all of them)."""

    __slots__ = ("_files", "_merged")

    def __init__(self, files: Sequence) -> None:
        self._files = [file_postings(f.analysis.items) for f in files]
        self._merged: dict[str, frozenset[str]] = {}

    def get(self, word: str, default=frozenset()):
        hit = self._merged.get(word)
        if hit is None:
            parts = [p[word] for p in self._files if word in p]
            hit = frozenset().union(*parts) if parts else frozenset()
            self._merged[word] = hit
        return hit if hit else default


def _bonuses(lines: Sequence[str], cursor_line: int, anchor: tuple[int, int],
             files: Sequence) -> dict[str, float]:
    near = relatives(lines, cursor_line, anchor)
    key = (tuple(sorted(near.items())), tuple(id(f.analysis.items) for f in files))
    hit = _LAST[0]
    if hit is not None and hit[0] == key:
        return hit[1]
    found = bonuses(near, _Index(files))
    _LAST[0] = (key, found, [f.analysis.items for f in files])  # keeps the ids valid
    return found


def lift(analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """`cands` with the unused tie members that have a relative near the cursor raised
    (the same list when none has)."""
    if not SCALE or not files or analysis.spec.resolver not in RESOLVERS:
        return cands
    found = _bonuses(analysis.lines, cursor_line, ev.anchor, files)
    if not found:
        return cands
    out = cands
    for k, c in enumerate(cands):
        if c.file < 0 or c.score < MIN_SCORE:
            continue
        item = files[c.file].analysis.items[c.item]
        b = found.get(item.name)
        if not b:
            continue
        use = ev.uses.get(item.name)
        if use is not None and (not USED_TOO or use.distance == 0):
            continue
        if out is cands:
            out = list(cands)
        out[k] = c.rescored(c.score + SCALE * b)
    return out
