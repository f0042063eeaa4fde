"""Java: break ties among equal-score neighbor entries by their words' kinship with
the identifiers near the cursor, where the name family is too big to earn a bonus.

`manager.getIntProperty(..)` on the next line: LogManager's forty members all score
70 (members of a type the lines around the cursor reach), and `getLevelProperty`
came after `ModType` and `updateConfiguration` only by its place in the file. The
family rule (`name_family.bonuses`) gives no bonus, rightly: `Property` is in more
than MAX_FAMILY of LogManager's names, so it says too little to raise one above
other evidence. It still says which of the tied ones is likelier: each unused entry
whose words a near identifier shares gets under TIE_POINTS, which reorders equal
scores and changes no other order by more than that. It runs after the floors of
`evidence_javacpp.revise` (`_next_to_cursor`'s 85, the guessed files' lifts), which
make most of the ties and would wipe a lift given before them.

Dev+tuning pool (800, JDK 17.0.19): 704 -> 706 at 1 point, 707 at 3, 706 at 6, 705 at
12 (before the floors); 708 at 3 after them, dev 177 -> 178 of 200.
"""

from __future__ import annotations

from typing import Sequence

from .name_family import FAMILY, KINDS, MAX_POSTING, bonuses, postings
from .unused_lift import lift_unused

TIE_POINTS = 3.0  # the largest lift (an identical-word-share relative on the next row)
TIE_RESOLVERS = frozenset({"java"})

_LAST: list = [None]  # [(near items, index, lifts)]: keystrokes on one line ask again


def tie_lifts(near: dict[str, int], files: Sequence) -> dict[str, float]:
    """Entry name -> its tie-break lift (0 < lift < TIE_POINTS): the family bonus
    with no limit on the family's size, scaled down (memoized for the last
    identifiers and neighbor index)."""
    index = postings(files)
    key = tuple(sorted(near.items()))
    hit = _LAST[0]
    if hit is not None and hit[1] is index and hit[0] == key:
        return hit[2]
    wide = bonuses(near, index, max_family=MAX_POSTING)
    scale = TIE_POINTS / (100 * FAMILY)
    found = {name: b * scale for name, b in wide.items()}
    _LAST[0] = (key, index, found)
    return found


def break_ties(resolver: str, cands: list, files: Sequence, ev, near: dict[str, int]
               ) -> list:
    """`cands` with the unused neighbor entries related to the cursor's identifiers
    lifted by under TIE_POINTS (Java only; the same list otherwise)."""
    if resolver not in TIE_RESOLVERS or not files or not near or not TIE_POINTS:
        return cands
    return lift_unused(cands, files, ev, tie_lifts(near, files), KINDS)
