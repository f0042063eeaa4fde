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


def by_use(spec, path: str, symbols, files: Sequence[str], workspace, *,
           room: int) -> list[str]:
    """`files` (the resolved imports, in import order), most used first when more than
    `room` of them; unchanged otherwise and for other languages."""
    if spec.resolver not in RESOLVERS or len(files) <= room:
        return list(files)
    names = imported_names(spec, path, symbols, workspace)
    if not names:
        return list(files)
    counts = _use_counts(symbols)
    real = {f: workspace.real(f) for f in files}
    by_real: dict[str, frozenset[str]] = {}
    for f, bound in names.items():
        r = workspace.real(f)
        by_real[r] = by_real.get(r, frozenset()) | bound
    score = {f: sum(counts.get(n, 0) for n in by_real.get(real[f], ())) for f in files}
    order = sorted(range(len(files)), key=lambda i: -score[files[i]])
    return [files[i] for i in order]


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
