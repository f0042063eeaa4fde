"""C/C++: candidates of nearly the same score go cheapest first.

Dozens of a C++ header's entries score alike: every name used inside a long anchor
gets the same weight and proximity, and the members of a big `detail` namespace one
floor. `ranking.rank` broke such ties by file and entry order, so one 60-token
multi-line signature took the room of three one-line ones with the same evidence at
the cut. Within a band of TIE_WIDTH points (scores floored to the band) the cheaper
entry goes first; the bands themselves keep their order. Dev + tuning pool
(`real_context_pool --tuning`, 720 tasks): exact ties 633 -> 634, bands of 1 or 2
points 635, 4 points 633.
"""

from __future__ import annotations

from typing import Sequence

from .neighbors import entry_cost

TIE_WIDTH = 1.0  # score band treated as a tie (0: exact ties only)


def order(cands: list, outline_items: Sequence, files: Sequence,
          width: float = TIE_WIDTH) -> list:
    """`cands` (best first) with each band of near-equal scores ordered by entry cost
    (neighbor costs are memoized per items tuple: `ranking.entry_costs`)."""
    if width < 0 or not cands:
        return cands
    from .ranking import entry_costs
    tables: dict[int, tuple[int, ...]] = {}

    def cost(c) -> int:
        if c.file < 0:
            return entry_cost(outline_items[c.item])
        t = tables.get(c.file)
        if t is None:
            t = tables[c.file] = entry_costs(files[c.file].analysis.items)
        return t[c.item]

    if width == 0:
        return sorted(cands, key=lambda c: (-c.score, cost(c), c.file, c.item))
    return sorted(cands, key=lambda c: (-(c.score // width), cost(c), c.file, c.item))
