"""When the window outgrows what the budget hold keeps, the suffix gives way first.

While the stable tier's budget is held (`rank_memo.held_share`: a window at the top of
the file, or any Python / JS window, gives back its unused reservation in steps of
budget/8), the window grows with every line typed. Once the kept selection no longer
fits beside it, the hold used to give up: the stable tier's budget stepped down by
budget/8, kept entries left the prompt, and everything after the first of them (the
whole window included) missed the prefix cache. The suffix misses on every request
anyway (it follows the prompt in FIM), so shortening it by what the prefix grew costs
no cache hit and keeps the prompt's head: the window is rebuilt with a shorter suffix,
down to `FLOOR_DIVISOR`, and only then the step is taken (the suffix is whole again)."""

from __future__ import annotations

from .tokens import estimate_tokens

FLOOR_DIVISOR = 24  # the suffix keeps at least window budget / 24 tokens (46 at 2,048:
#                    the next three to five lines)


def suffix_cap_for(window, shortfall: int, window_budget: int) -> int | None:
    """The suffix budget that frees `shortfall` tokens of `window`'s suffix, or None
    when that leaves it under the floor."""
    if shortfall <= 0:
        return None
    cap = estimate_tokens(window.suffix) - shortfall
    return cap if cap >= floor(window_budget) else None


def suffix_kept(window, window_budget: int) -> bool:
    """Whether a shortened window's suffix (whole lines) is still at the floor."""
    return estimate_tokens(window.suffix) >= floor(window_budget)


def floor(window_budget: int) -> int:
    return window_budget // FLOOR_DIVISOR
