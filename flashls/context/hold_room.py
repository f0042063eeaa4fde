"""When the stable tier's budget may be held while the window grows, and by how much.

The window gives back what it does not use of its reservation in steps of budget/8
when it reaches the top of the file (`budget.window_reservation`), and for the
languages of `evidence_pyjs.LENDERS` (Python, JS/TS, Java, C/C++) wherever it is
(`evidence_pyjs.lent_window`). A step taken at once drops kept entries from the
prompt, and every byte after the first of them misses the prefix cache;
`rank_memo.held_share` holds the last value while the last selection still fits in
what the window really leaves (`room`). For JS/TS and Java that room keeps back
the share of the window the estimate may run low by, as the lent amount itself does
(a request over the budget in real tokens otherwise)."""

from __future__ import annotations

from . import evidence_pyjs


def hold_room(spec, reserved: int, window_tokens: int, at_top: bool) -> tuple[int, bool]:
    """(what the window leaves of its reservation for the stable tier, whether what it
    gives back moves in steps)."""
    resolver = spec.resolver if spec is not None else ""
    lends = evidence_pyjs.LEND_WINDOW and resolver in evidence_pyjs.LENDERS
    error = int(window_tokens * evidence_pyjs.WINDOW_ERROR.get(resolver, 0.0)) if lends else 0
    return max(0, reserved - window_tokens - error), at_top or lends
