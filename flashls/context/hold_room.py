"""When the stable tier's budget may be held while the window grows, and by how much.

The window gives back what it does not use of its reservation in steps of budget/8
when it reaches the top of the file (`budget.window_reservation`), and for the
languages of `evidence_pyjs.LENDERS` (Python, JS/TS, Java, C/C++, Go, Rust) wherever
it is (`evidence_pyjs.lent_window`). A step taken at once drops kept entries from the
prompt, and every byte after the first of them misses the prefix cache;
`rank_memo.held_share` holds the last value while the last selection still fits in
what the window really leaves (`room`). For JS/TS, Java and Go that room keeps back
the share of the window the estimate may run low by, as the lent amount itself does
(a request over the budget in real tokens otherwise).

Go and Rust lend with hysteresis (`SETTLE`, session 11): their windows mostly sit near
the full share, so what they lend flips between nothing and one step as typing grows
the window. A larger lent amount is taken only after the window offered it for
SETTLE requests in a row, and their room keeps the error back only off the top of the
file, where the lent amount keeps it back too (a window at the top gives back its
budget/8 step without it, so holding that step with it dropped entries the fresh
request would keep: logrus' `logger.go` in `replay_trace --lang go`)."""

from __future__ import annotations

from . import evidence_pyjs

# requests in a row a larger lent amount must be offered before it is taken. Session
# 11, Go and Rust lending: replay_trace hit Go 0.898 -> 0.898, Rust 0.899 -> 0.912
# (2 tasks each; 6 tasks: 0.881 -> 0.881, 0.876 -> 0.885), where lending without it
# gave 0.867 / 0.893
SETTLE = {"go": 3, "rust": 3}


def hold_room(spec, reserved: int, window_tokens: int, at_top: bool) -> tuple[int, bool]:
    """(what the window leaves of its reservation for the stable tier, whether what it
    gives back moves in steps)."""
    resolver = spec.resolver if spec is not None else ""
    lends = evidence_pyjs.lends(resolver)
    error = int(window_tokens * evidence_pyjs.WINDOW_ERROR.get(resolver, 0.0)) if lends else 0
    if at_top and resolver in SETTLE:
        error = 0  # the step at the top is given back without it (`budget`)
    return max(0, reserved - window_tokens - error), at_top or lends


def settle_for(spec) -> int:
    """How many requests in a row the window must offer a larger lent amount before
    the stable tier takes it (`rank_memo.held_share`); 1: at once."""
    resolver = spec.resolver if spec is not None else ""
    return SETTLE.get(resolver, 1) if evidence_pyjs.lends(resolver) else 1
