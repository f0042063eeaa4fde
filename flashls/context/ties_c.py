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
MAX_REORDERED = 256  # only the best this many: the cut falls far above (fill beyond)


def order(cands: list, outline_items: Sequence, files: Sequence,
          width: float = TIE_WIDTH) -> list:
    """`cands` (best first) with each band of near-equal scores ordered by entry cost
    (neighbor costs are memoized per items tuple: `ranking.entry_costs`)."""
    if width < 0 or not cands:
        return cands
    from .ranking import entry_costs
    rest = cands[MAX_REORDERED:]
    cands = cands[:MAX_REORDERED]
    tables = [entry_costs(f.analysis.items) for f in files]
    costs = [tables[c.file][c.item] if c.file >= 0 else entry_cost(outline_items[c.item])
             for c in cands]
    if width == 0:
        keys = [(-c.score, k, c.file, c.item) for c, k in zip(cands, costs)]
    else:
        keys = [(-(c.score // width), k, c.file, c.item) for c, k in zip(cands, costs)]
    return [cands[i] for i in sorted(range(len(cands)), key=keys.__getitem__)] + rest
