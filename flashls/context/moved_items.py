"""What an edit changed in a file's entry cost, not counting entries it only moved.

An Enter shifts every following outline item by a line: a new Item tuple each, with
the very same brief form (`Item.brief`, the only thing an entry's cost reads). The
current file's whole cost used to be re-summed over every shifted item (twice: the
old ones and the new ones), 900 items and 10-20 ms per Enter on `lib.dom.d.ts`.
"""

from __future__ import annotations

from itertools import compress, count
from operator import is_not, itemgetter
from typing import Sequence

from .neighbors import entry_cost

BRIEF = 9  # Item.brief's index (an Item is a NamedTuple)
_brief = itemgetter(BRIEF)


def cost_change(old: Sequence, new: Sequence) -> int:
    """sum(entry_cost(new)) - sum(entry_cost(old)), where an item whose brief form is
    the same object as its counterpart's (moved, not changed) costs nothing: runs of
    one length are compared pair by pair (in C), and
    otherwise the common ends by brief identity are skipped."""
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
