"""How many top-level nodes use each identifier, kept across a document's versions
as a small difference against a shared table instead of a copy per version.

A keystroke re-extracts one or two nodes; copying the whole table for the new
version (thousands of names in a big file) cost 1-5 ms per request with the
objects cold in the cache. `IdentCounts` is a read-only mapping: a base table that
is never written again, plus the counts of the names the edits since changed.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Mapping

FLAT_MIN = 512  # changed names a version may carry before it gets a table of its own
FLAT_RATIO = 8  # ... or this fraction of the base table's names, when that is more


class IdentCounts(Mapping):
    """identifier -> count (> 0). Never changed once made (versions share `_base`)."""

    __slots__ = ("_base", "_delta", "_len")

    def __init__(self, base: Mapping[str, int], delta: dict[str, int] | None = None,
                 length: int | None = None):
        self._base = base
        self._delta = delta or {}  # name -> count now; 0: no longer used
        self._len = len(base) if length is None else length

    def get(self, name, default=None):
        count = self._delta.get(name)
        if count is None:
            return self._base.get(name, default)
        return count if count else default

    def __getitem__(self, name: str) -> int:
        count = self.get(name)
        if count is None:
            raise KeyError(name)
        return count

    def __contains__(self, name) -> bool:
        return self.get(name) is not None

    def __iter__(self) -> Iterator[str]:
        delta = self._delta
        for name in self._base:
            if delta.get(name, 1):
                yield name
        for name, count in delta.items():
            if count and name not in self._base:
                yield name

    def __len__(self) -> int:
        return self._len


def updated(counts: Mapping[str, int], removed: Iterable[Iterable[str]],
            added: Iterable[Iterable[str]]) -> IdentCounts:
    """`counts` minus one per name of each set in `removed` (nodes the edit replaced),
    plus one per name of each set in `added` (the nodes that replace them). `counts`
    itself is left as it is."""
    if isinstance(counts, IdentCounts):
        base, delta = counts._base, dict(counts._delta)
    else:
        base, delta = counts, {}
    length = len(counts)
    for names in removed:
        for name in names:
            count = delta.get(name)
            if count is None:
                count = base[name]
            delta[name] = count - 1
            if count == 1:
                length -= 1
    for names in added:
        for name in names:
            count = delta.get(name)
            if count is None:
                count = base.get(name, 0)
            delta[name] = count + 1
            if count == 0:
                length += 1
    if len(delta) > max(FLAT_MIN, len(base) // FLAT_RATIO):
        flat = {name: count for name, count in base.items() if delta.get(name, 1)}
        flat.update((name, count) for name, count in delta.items() if count)
        return IdentCounts(flat, None, length)
    return IdentCounts(base, delta, length)
