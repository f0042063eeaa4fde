"""Python: a class whose private members the file calls through a receiver.

`ranking` scores a receiver's unused `_private` members at PRIVATE (a quarter) of its
public ones: from outside a class they are seldom called. A file that calls one of
them through a receiver of that class (pluggy's `_manager.py`: `hook._add_hookimpl(..)`
on `hook: HookCaller`) is the class's friend, and its other private members are as
likely next as the public ones (`hook._maybe_apply_history(hookimpl)` the line above).
For a class some receiver near the cursor is declared with, when a private member of
it is used as `q._name` with `q` such a receiver, its unused private members score as
its public ones would (`ranking.RECEIVER_MEMBER`, fresh: `FRESH_RECEIVER_MEMBER`).
"""

from __future__ import annotations

from typing import Sequence

from .evidence_members import held_members

RESOLVERS = frozenset({"python"})
FRIENDS = True  # flag: measured on the pool


def _friend_classes(ev) -> set[str]:
    """Classes of declared receivers through which the file uses a private member."""
    holders: dict[str, set[str]] = {}
    for q, types in (ev.receivers or {}).items():
        for t in types:
            holders.setdefault(t, set()).add(q)
    out: set[str] = set()
    if not holders:
        return out
    via: set[str] = set()
    for name, use in ev.uses.items():
        if name[:1] == "_" and name[:2] != "__" and use.attribute:
            via |= use.qualifiers
    if not via:
        return out
    for t, qs in holders.items():
        if not qs.isdisjoint(via):
            out.add(t)
    return out


def lift(analysis, files: Sequence, ev, cands: list) -> list:
    """`cands` with the unused private members of friend classes scored as public
    ones (the same list when there are none)."""
    if not FRIENDS or not files or analysis.spec.resolver not in RESOLVERS or \
            not ev.receiver_types:
        return cands
    friends = _friend_classes(ev) & ev.receiver_types.keys()
    if not friends:
        return cands
    from .ranking import FRESH_RECEIVER_MEMBER, RECEIVER_MEMBER, _near
    fresh = ev.fresh_receivers or {}
    out = cands
    for k, c, items, item, _ in held_members(cands, files, {cls: {cls} for cls in friends}):
        if item.name[:1] != "_" or item.name[:2] == "__" or item.name in ev.uses:
            continue
        cls = items[item.parent].name
        weight = FRESH_RECEIVER_MEMBER if cls in fresh else RECEIVER_MEMBER
        score = 100 * weight * _near(ev.receiver_types[cls])
        if score > c.score:
            if out is cands:
                out = list(cands)
            out[k] = c.rescored(score)
    return out
