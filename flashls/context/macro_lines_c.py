"""C/C++: macros the file writes as lines of their own, for a cursor between definitions.

Header libraries open and close namespaces, declare members and register types with
statement macros: `PYBIND11_NAMESPACE_BEGIN(detail)`, range-v3's `CPP_member`,
`RANGES_SATISFY_BOOST_RANGE(..)`. A cursor outside any function body (at namespace or
class level) is often on the next such line, but the macro is used everywhere in the
file, far from the cursor, so it scored like any name used 500 lines off (28-37
points, behind the 40-odd names of the definitions around it). A neighbor macro that
the current file uses as a whole line (`NAME`, `NAME(..)`, `NAME(..);`) scores at
least MACRO_LINE x100 x the proximity of its nearest such line, when no function
encloses the cursor.
"""

from __future__ import annotations

import re
from typing import Sequence

MACRO_LINE = 0.6
MIN_NEAR = 0.8  # the proximity counts no less than this (such lines open and close a file)
FUNCTION_KINDS = frozenset({"function", "method"})


def _near(distance: int) -> float:
    from .ranking import _near as near
    return near(distance)


def _line_rows(analysis, names: frozenset[str]) -> dict[str, list[int]]:
    """Rows of the current file using each of `names` (one walk of its per-node
    identifier tables, which the analysis keeps)."""
    out: dict[str, list[int]] = {}
    for first, _last, idents, rows in analysis.usages:
        for name in names & idents if len(names) < len(idents) else idents & names:
            out.setdefault(name, []).extend(first + r for r in rows.get(name, ()))
    return out


def _macro_line(name: str) -> re.Pattern:
    return re.compile(rf"^\s*{re.escape(name)}\s*(?:\(.*\))?\s*;?\s*(?://.*)?$")


def _in_function(items: Sequence, cursor_line: int) -> bool:
    return any(it.kind in FUNCTION_KINDS and it.start < cursor_line <= it.end for it in items)


def lift(analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """The candidates, neighbor macros the file writes as whole lines lifted."""
    if analysis.spec.resolver != "c" or not files or MACRO_LINE <= 0 or \
            _in_function(analysis.items, cursor_line):
        return cands
    wanted: dict[int, str] = {}
    for k, c in enumerate(cands):
        if c.file >= 0 and c.score < 100 * MACRO_LINE:
            item = files[c.file].analysis.items[c.item]
            if item.kind == "macro" and item.name in ev.uses:
                wanted[k] = item.name
    if not wanted:
        return cands
    floors: dict[str, float] = {}
    lines = analysis.lines
    for name, used in _line_rows(analysis, frozenset(wanted.values())).items():
        pattern = _macro_line(name)
        rows = [r for r in used if r != cursor_line and r < len(lines) and pattern.match(lines[r])]
        if rows:
            floors[name] = 100 * MACRO_LINE * max(MIN_NEAR, _near(min(abs(r - cursor_line) for r in rows)))
    if not floors:
        return cands
    out = list(cands)
    for k, name in wanted.items():
        f = floors.get(name)
        if f is not None and f > cands[k].score:
            out[k] = cands[k].rescored(f)
    return out
