"""One token budget for everything sent, shared by the tiers.

* The cursor window may use up to `WINDOW_SHARE` of the budget. When the file is
  larger than the window and the window does not reach its top, it reserves that
  whole share, so the budget of the stable
  tiers (and so their text, which comes first in the prompt) does not change with
  every typed character; whatever the window leaves unused goes to recent code. When
  the whole file fits, it reserves its size rounded up to a step of budget/16.
* The rest is shared by two tiers: `stable` (the same-file outline and the neighbor
  signatures, which compete for it entry by entry: see `ranking.py`) and `recent`.
  Each is guaranteed its share; what the stable tier leaves goes to recent, with
  whatever the window reserved but did not use. Recent code never takes budget back
  from the stable tier, whose text comes first in the prompt (prefix cache).
* Tiers take whole entries only; the checked total never exceeds the budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

WINDOW_SHARE = 0.55
TIER_SHARES = {"stable": 0.80, "recent": 0.20}
RESERVE_DIVISOR = 16
TOP_DIVISOR = 8

T = TypeVar("T")


def window_cap(budget: int) -> int:
    return max(0, int(budget * WINDOW_SHARE))


def window_reservation(window_tokens: int, budget: int, *, whole_file: bool,
                       top_fits: bool = False) -> int:
    """What the window holds back from the stable tiers. When the window reaches the
    top of the file (a short file, or a cursor near its top), its size rounded up to a
    coarser step (budget/8): the stable tiers get the rest, and their budget changes
    only every few lines of typing."""
    cap = max(window_cap(budget), window_tokens)
    if not whole_file and not top_fits:
        return cap
    step = max(1, budget // (RESERVE_DIVISOR if whole_file else TOP_DIVISOR))
    return min(cap, int(math.ceil(window_tokens / step) * step))


@dataclass
class Fill(Generic[T]):
    """One tier's selection: what it took, its cost, and whether it wanted more."""

    result: T
    used: int
    demand: int  # cost of everything it could take

    @property
    def satisfied(self) -> bool:
        return self.used >= self.demand


Filler = Callable[[int], Fill]


def distribute(remaining: int, fillers: dict[str, Filler], *, recent_extra: int = 0
               ) -> dict[str, Fill]:
    """Run the tier fillers (keys of TIER_SHARES, in priority order) within `remaining`;
    `recent_extra` (budget the window reserved but did not use) goes to recent only."""
    remaining = max(0, remaining)
    recent_extra = max(0, recent_extra)
    fills: dict[str, Fill] = {}
    names = [n for n in TIER_SHARES if n in fillers]
    shares = {n: TIER_SHARES[n] for n in names}
    # a tier with nothing to offer does not hold a share
    probe = {n: fillers[n](0) for n in names}
    active = [n for n in names if probe[n].demand > 0]
    total_share = sum(shares[n] for n in active) or 1.0
    for n in names:
        if n not in active:
            fills[n] = probe[n]
            continue
        cap = int(remaining * shares[n] / total_share)
        fills[n] = fillers[n](cap)
    stable = [n for n in ("stable",) if n in active]
    spare = remaining - sum(fills[n].used for n in names)
    spare_stable = sum(int(remaining * shares[n] / total_share) - fills[n].used
                       for n in stable)
    pool = min(spare, spare_stable)
    for n in stable:  # stable tiers share what stable tiers left
        if pool <= 0 or fills[n].satisfied:
            continue
        before = fills[n].used
        fills[n] = fillers[n](before + pool)
        pool -= fills[n].used - before
    if "recent" in active and not fills["recent"].satisfied:
        spare = remaining + recent_extra - sum(fills[n].used for n in names)
        if spare > 0:
            fills["recent"] = fillers["recent"](fills["recent"].used + spare)
    return fills


def share_out(remaining: int, stable: Filler | None, recent: Filler | None, *,
              recent_extra: int = 0, freed: int = 0) -> dict[str, Fill]:
    """The stable tier and recent code within `remaining` (+ `recent_extra`, budget
    the window reserved but did not use, of which `freed` is what a window reaching
    the top of the file gave back). Recent code is guaranteed its share and gets
    whatever the stable tier leaves; of `freed`, the stable tier gets what recent code
    would not use. Each filler runs once (the stable one ranks the whole neighborhood)."""
    remaining = max(0, remaining)
    recent_extra = max(0, recent_extra)
    freed = max(0, min(freed, recent_extra))
    fills: dict[str, Fill] = {}
    demand = recent(0).demand if recent is not None else 0
    share = int(remaining * TIER_SHARES["recent"]) if demand else 0
    cap = remaining - share
    wants = max(0, demand - (share + recent_extra - freed))  # what recent needs of freed
    cap += max(0, freed - wants)
    used = 0
    if stable is not None:
        fills["stable"] = stable(cap)
        used = fills["stable"].used
    if recent is not None:
        fills["recent"] = recent(max(0, remaining + recent_extra - used)) if demand \
            else recent(0)
    return fills
