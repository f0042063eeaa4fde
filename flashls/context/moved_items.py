"""What an edit changed in a file's entry cost, not counting entries it only moved.

An Enter shifts every following outline item by a line: a new Item tuple each, with
the very same brief form (`Item.brief`, the only thing an entry's cost reads). The
current file's whole cost used to be re-summed over every shifted item (twice: the
old ones and the new ones), 900 items and 10-20 ms per Enter on `lib.dom.d.ts`.
"""

from __future__ import annotations
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

from bisect import bisect_right
from itertools import compress, count
from operator import is_not, itemgetter
from typing import Sequence


BRIEF = 9  # Item.brief's index (an Item is a NamedTuple)
_brief = itemgetter(BRIEF)


def cost_change(old: Sequence, new: Sequence) -> int:
    """sum(entry_cost(new)) - sum(entry_cost(old)), where an item whose brief form is
    the same object as its counterpart's (moved, not changed) costs nothing: runs of
    one length are compared pair by pair (in C), and
    otherwise the common ends by brief identity are skipped."""
    from .neighbors import entry_cost  # neighbors -> analysis -> this module
    n, m = len(old), len(new)
    if n == m:  # the indices whose brief changed, found in C
        changed = compress(count(), map(is_not, map(_brief, old), map(_brief, new)))
        return sum(entry_cost(new[k]) - entry_cost(old[k]) for k in changed)
    p = 0
    while p < n and p < m and old[p][BRIEF] is new[p][BRIEF]:
        p += 1
    q = 0
    while q < n - p and q < m - p and old[n - 1 - q][BRIEF] is new[m - 1 - q][BRIEF]:
        q += 1
    return sum(entry_cost(b) for b in new[p:m - q]) - sum(entry_cost(a) for a in old[p:n - q])


# -- items moved by whole rows, lazily -------------------------------------------------
MAX_PIECES = 8  # pieces of a MovedItems before it is flattened into one tuple
_START, _END, _PARENT = 3, 4, 7  # Item field indices
_new = tuple.__new__


def moved(item, dr: int, di: int):
    """`item` moved down `dr` rows, its parent index (if any) moved by `di`."""
    x = item
    return _new(type(x), (x[0], x[1], x[2], x[3] + dr, x[4] + dr, x[5], x[6],
                          x[7] + di if x[7] != -1 else -1, x[8], x[9]))


class MovedItems(Sequence):
    """A version's outline items as runs of earlier versions' item tuples, each moved
    by whole rows (and its parent indices by the items the edit added).

    An Enter moves every following item one row down: one new Item each (1,500 on the
    15,000-line file, a millisecond per keystroke). Here it adds a row to a run
    instead; an item is moved when it is read, and the whole tuple is built only
    for a reader that iterates (`flat`, once per version). `starts` gives the items'
    first lines without building them (what the per-keystroke anchor lookup reads).
    """

    __slots__ = ("_pieces", "_ends", "_flat", "_starts", "_read")
    _move = staticmethod(moved)

    def __init__(self, pieces: Sequence[tuple[tuple, int, int, int, int]]):
        """pieces: (source tuple, lo, hi, dr, di): source[lo:hi], moved by (dr, di)."""
        merged: list = []
        for p in pieces:
            if p[2] <= p[1]:
                continue
            if merged:  # a run continued by the next one: one piece
                q = merged[-1]
                if q[0] is p[0] and q[2] == p[1] and q[3] == p[3] and q[4] == p[4]:
                    merged[-1] = (q[0], q[1], p[2], q[3], q[4])
                    continue
            merged.append(p)
        self._pieces = tuple(merged)
        ends, n = [], 0
        for _, lo, hi, _, _ in self._pieces:
            n += hi - lo
            ends.append(n)
        self._ends = ends
        self._flat: tuple | None = None
        self._starts: list[int] | None = None
        self._read: dict[int, object] = {}  # index -> the item moved, once read

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def flat(self) -> tuple:
        """The items as one tuple (built once)."""
        if self._flat is None:
            out: list = []
            for src, lo, hi, dr, di in self._pieces:
                if dr or di:
                    move = self._move
                    out.extend([move(x, dr, di) for x in src[lo:hi]])
                else:
                    out.extend(src[lo:hi])
            self._flat = tuple(out)
        return self._flat

    def starts(self) -> list[int]:
        """[it.start for it in self], from the sources' starts (built once)."""
        if self._starts is None:
            if self._flat is not None:
                self._starts = [x[_START] for x in self._flat]
            else:
                out: list[int] = []
                for src, lo, hi, dr, _ in self._pieces:
                    run = item_starts(src)[lo:hi]
                    out.extend([s + dr for s in run] if dr else run)
                self._starts = out
        return self._starts

    def pieces(self, lo: int, hi: int, dr: int = 0, di: int = 0) -> list:
        """Items lo..hi as pieces, moved by (dr, di) more."""
        out = []
        start = 0
        for (src, a, b, pdr, pdi), end in zip(self._pieces, self._ends):
            piece_lo, piece_hi = max(lo, start), min(hi, end)
            if piece_lo < piece_hi:
                out.append((src, a + piece_lo - start, a + piece_hi - start, pdr + dr, pdi + di))
            start = end
        return out

    def __getitem__(self, index):
        if self._flat is not None:
            return self._flat[index]
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return self.flat()[index]
            return MovedItems(self.pieces(start, stop)).flat() if start < stop else ()
        item = self._read.get(index)
        if item is not None:  # the outline and the ranking read their items repeatedly
            return item
        n = len(self)
        at = index + n if index < 0 else index
        if not 0 <= at < n:
            raise IndexError(index)
        k = bisect_right(self._ends, at)
        src, lo, _, dr, di = self._pieces[k]
        item = src[lo + at - (self._ends[k - 1] if k else 0)]
        if dr or di:
            item = self._move(item, dr, di)
        self._read[index] = item
        return item

    def __iter__(self):
        return iter(self.flat())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MovedItems):
            other = other.flat()
        if isinstance(other, tuple):
            return self.flat() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.flat())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.flat()!r})"


def moved_usage(usage, dr: int, di: int = 0):
    """A node's usages entry (first, last, identifiers, rows) moved down `dr` rows."""
    return (usage[0] + dr, usage[1] + dr, usage[2], usage[3])


class MovedUsages(MovedItems):
    """`Analysis.usages` after an Enter, moved lazily as the items are (one entry per
    top-level node: 3,000 new tuples per Enter on the 15,000-line file)."""

    __slots__ = ()
    _move = staticmethod(moved_usage)


def pieces_of(items: Sequence, lo: int, hi: int, dr: int = 0, di: int = 0) -> list:
    """items[lo:hi] moved by (dr, di) as MovedItems pieces."""
    if isinstance(items, MovedItems):
        return items.pieces(lo, hi, dr, di)
    return [(items, lo, hi, dr, di)] if hi > lo else []


def spliced(head: list, mid: tuple, tail: list, moving: bool = True,
            kind: type[MovedItems] = MovedItems):
    """The items of `head` pieces, the new `mid` items and `tail` pieces: a MovedItems
    while edits move items (Enter, a paste), else a plain tuple. Reading a MovedItems
    costs a Python call per item (the outline and the ranking read hundreds per
    request), so an edit that moves nothing (typing) builds the tuple, once after the
    last move; so do too many runs."""
    pieces = head + ([(mid, 0, len(mid), 0, 0)] if mid else []) + tail
    result = kind(pieces)
    if not moving or len(result._pieces) > MAX_PIECES or \
            not any(p[3] or p[4] for p in result._pieces):
        return result.flat()
    return result


def lazy_spliced(head: list, mid: tuple, tail: list, kind: type[MovedItems] = MovedItems):
    """`spliced`, kept as pieces even when nothing moves (for entries only ever
    iterated: building the tuple is the first reader's work, not every edit's); one
    tuple once there are too many runs."""
    result = kind(head + ([(mid, 0, len(mid), 0, 0)] if mid else []) + tail)
    return result.flat() if len(result._pieces) > MAX_PIECES else result


_STARTS = IdentityMemo(32, HEAVY_ITEMS_WEIGHT)


def item_starts(items: Sequence) -> list[int]:
    """[it.start for it in items], remembered per items tuple (read-only)."""
    if isinstance(items, MovedItems):
        return items.starts()
    hit = _STARTS.get(items)
    if hit is not None:
        return hit
    starts = [x[_START] for x in items]
    _STARTS.put(items, starts)
    return starts
