"""What a keystroke in a big document leaves as it was, told to the per-keystroke
ranking so that it costs the edit, not the file.

* **The items a splice kept.** `analysis` builds a version's outline items from the
  last version's: the items before the edit are the same objects, those after it are
  the same entries moved by the lines the edit added (`note_splice`). After an Enter
  none of the following items compares equal any more, and `rank_memo`'s demand
  (the current file's whole cost) summed every one of them again; `splice_ends` says
  which items can only have kept their cost.
* **The anchor's first line being typed.** `rank_memo` keys an anchor on its first
  line. Typing at the end of that line (a signature being written) made every
  keystroke a new anchor, and a new anchor is ranked again; the line being typed at
  its end is not evidence (`rank_memo`'s rule), so `typed_anchor` gives it the key it
  was remembered under.
"""

from __future__ import annotations

import threading
from typing import Mapping, Sequence

SPLICES_KEPT = 8  # recent versions whose splice is remembered (a few documents)

_SPLICES: dict[int, tuple[object, object, int, int]] = {}
_LOCK = threading.Lock()


def note_splice(old: Sequence, new: Sequence, head: int, tail: int) -> None:
    """`new` was made from `old`: its first `head` items are `old`'s, its last `tail`
    items are `old`'s last `tail` moved by whole lines (the same entries, other
    positions)."""
    with _LOCK:
        if len(_SPLICES) >= SPLICES_KEPT:
            del _SPLICES[next(iter(_SPLICES))]
        _SPLICES[id(new)] = (new, old, head, tail)


def splice_ends(old: Sequence, new: Sequence) -> tuple[int, int] | None:
    """(p, q): `new[:p]` and `new[len(new) - q:]` are `old`'s first p and last q items
    (the last ones possibly moved), when `new` was spliced from `old` itself; else
    None (compare them)."""
    with _LOCK:
        hit = _SPLICES.get(id(new))
    if hit is None or hit[0] is not new or hit[1] is not old:
        return None
    return hit[2], hit[3]


def splice_of(new: Sequence) -> tuple[Sequence, int, int] | None:
    """(old, head, tail) of the `note_splice` that made `new`, while remembered."""
    with _LOCK:
        hit = _SPLICES.get(id(new))
    if hit is None or hit[0] is not new:
        return None
    return hit[1], hit[2], hit[3]


def typed_anchor(anchor, anchors: Mapping, typing_line: int):
    """`anchor`, under the key a remembered anchor of the same kind starting on the
    same line has, when its first line is the one being typed at its end (its key
    holds that line's text: every keystroke would be a new anchor)."""
    key = anchor.key
    if key is None or key in anchors or typing_line != anchor.lo or typing_line < 0:
        return anchor
    for known in reversed(anchors):
        if known is not None and known[:2] == key[:2]:
            return type(anchor)(known, anchor.lo, anchor.hi)
    return anchor


def forget() -> None:
    with _LOCK:
        _SPLICES.clear()
