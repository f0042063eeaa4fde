"""Java: how near the cursor line itself a name is used, to order names the
anchor uses equally.

Evidence distances are measured to the anchor (the definition around the cursor), so
every name a long Java method or a C++ class uses is "inside the anchor" and scores
the same; the budget then goes to whichever come first. A small bonus for uses near
the cursor line orders them by what the next line most likely needs: the names of
the lines just above and below it. It is small against the evidence weights (it never
lifts a loose member over a named import), so it only reorders near-equals; and while
the cursor stays in one anchor, `ranking.select_stable` keeps the previous selection
first, so moving the cursor does not churn the prompt.
"""

from __future__ import annotations

from typing import Sequence

LOCALITY_LANGUAGES = frozenset({"java"})  # LanguageSpec.resolver values (C/C++: -2.5 on dev)
LOCALITY_POINTS = 20.0  # the bonus of a use on the lines next to the cursor (10: dev -1 point)
LOCALITY_SCALE = 30.0  # lines at which the bonus has halved (12: dev -0.5)
FAR_LINES = 10_000  # uses on import lines only: no bonus


def locality_bonus(distance: int) -> float:
    return LOCALITY_POINTS / (1.0 + distance / LOCALITY_SCALE)


def with_locality(cands: list, analysis, cursor_line: int, files: Sequence,
                  resolver: str) -> list:
    """`cands` with the bonus added to every entry named like something used near the
    cursor line (the current file's outline and the neighbors' signatures alike)."""
    if resolver not in LOCALITY_LANGUAGES or not cands:
        return cands
    outline_items = analysis.items
    items_of = [f.analysis.items for f in files]
    names_of = [(items_of[c.file] if c.file >= 0 else outline_items)[c.item].name
                for c in cands]  # one lookup per candidate, for both walks
    names = {name for name in names_of if name}
    near = analysis.usage_distances(names, cursor_line, FAR_LINES)
    if not near:
        return cands
    out = []
    for c, name in zip(cands, names_of):
        d = near.get(name)
        if d is not None and d < FAR_LINES and c.score >= LOCALITY_POINTS:
            c = c.rescored(c.score + locality_bonus(d))
        out.append(c)
    return out
