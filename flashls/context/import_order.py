"""Which of a Python or JS/TS file's imports are read first when not all of them fit.

Neighbor files are read in import order up to `neighbors.MAX_NEIGHBOR_FILES`. A file
importing more (lodash-es' `lodash.default.js` imports 37 modules, eleven of them
barrels of a hundred files, and binds `lodash` from the 37th) never reached the one
its every line uses. When the imports outnumber the room, the files whose imported
names most of the file's top-level nodes use come first; ties keep import order. The
order depends on the file's use counts only, not on the cursor, so it does not move
while typing inside one definition.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .imports import imported_names

RESOLVERS = frozenset({"python", "js"})
UNUSED_FIRST = frozenset({"python"})  # files whose imported names are used nowhere yet first
MAX_EXTRA = 8  # ... and read beyond the room, at most this many


def by_use(spec, path: str, symbols, files: Sequence[str], workspace, *,
           room: int) -> list[str]:
    """`files` (the resolved imports, in import order), most used first when more than
    `room` of them; unchanged otherwise and for other languages."""
    return by_use_room(spec, path, symbols, files, workspace, room=room)[0]


def by_use_room(spec, path: str, symbols, files: Sequence[str], workspace, *,
                room: int) -> tuple[list[str], int]:
    """`by_use`'s order, and how many files more than `room` are worth reading: with
    UNUSED_FIRST (Python), the files whose imported names are used nowhere yet (each
    counted once, on its import line: `from .screen import Screen`, its one use the
    line being typed) come first, and up to MAX_EXTRA of them are read beyond `room`
    rather than pushing out the most used files (0 for other languages)."""
    if spec.resolver not in RESOLVERS or len(files) <= room:
        return list(files), 0
    names = imported_names(spec, path, symbols, workspace)
    if not names:
        return list(files), 0
    counts = _use_counts(symbols)
    real = {f: workspace.real(f) for f in files}
    by_real: dict[str, frozenset[str]] = {}
    for f, bound in names.items():
        r = workspace.real(f)
        by_real[r] = by_real.get(r, frozenset()) | bound
    score = {f: sum(counts.get(n, 0) for n in by_real.get(real[f], ())) for f in files}
    extra = 0
    if spec.resolver in UNUSED_FIRST:
        for f in files:
            bound = by_real.get(real[f], ())
            if bound and score[f] <= len(bound):
                score[f] = float("inf")  # likeliest next (`ranking.UNUSED_IMPORT`)
                extra += 1
    order = sorted(range(len(files)), key=lambda i: -score[files[i]])
    return [files[i] for i in order], min(extra, MAX_EXTRA)


def _use_counts(symbols) -> Mapping[str, int]:
    """identifier -> how many top-level nodes use it (the analysis' table, or counted
    from its usages when it has none)."""
    counts = getattr(symbols, "ident_counts", None)
    if counts:
        return counts
    out: dict[str, int] = {}
    for node in getattr(symbols, "usages", ()):
        for name in node[2]:
            out[name] = out.get(name, 0) + 1
    return out
