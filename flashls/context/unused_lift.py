"""Raise the neighbor entries the file does not use yet by a bonus per name.

The name-family rule (Go, Java, C/C++) and Go's package co-use rule each compute a bonus
per name; adding it to the candidates (neighbor entries of a weighed kind, not used in
the file yet) is the same last step for both, kept here once.
"""

from __future__ import annotations

from typing import Sequence


def lift_unused(cands: list, files: Sequence, ev, bonuses: dict[str, float],
                kinds: frozenset[str]) -> list:
    """`cands` with each unused neighbor entry of a kind in `kinds` raised by its
    name's bonus (the same list when there is no bonus)."""
    if not bonuses:
        return cands
    items_of = [f.analysis.items for f in files]
    out = list(cands)
    for k, c in enumerate(cands):
        if c.file < 0:
            continue
        item = items_of[c.file][c.item]
        b = bonuses.get(item.name)
        if b and item.kind in kinds and item.name not in ev.uses:
            out[k] = c.rescored(c.score + b)
    return out
