"""Python: receivers typed by what is assigned to them, when that is no `T(..)` call.

`evidence.py` types `x = T(..)`, `x: T` and `except T as x`; `evidence_members` types
attributes a neighbor annotates or assigns in its `__init__`. Two common assignments
type a local receiver too and were read by neither:

* a call of a function whose return type is annotated (RETURNS): `base_style =
  self._get_base_style()` with `def _get_base_style(self) -> Style` (the current
  file's functions and the neighbors');
* a conditional expression calling a class on either side (CONDITIONAL): `timeout = (
  self.timeout if isinstance(timeout, UseClientDefault) else Timeout(timeout))`.

Only the anchor's rows above the cursor are read (the cursor's own line is half
written), an assignment's value through its open brackets up to JOIN_ROWS rows. The
classes must be classes of the neighbor files (`evidence_members` intersects them). A
receiver assigned within FRESH_ROWS rows above the cursor is fresh
(`ranking.FRESH_RECEIVER_MEMBER`), as `x = T(..)` there is. Tried and not kept (no
pool task either way): `isinstance(x, T)` above the cursor, and a neighbor's
`self.q = x.f(..)` in `__init__` with `f` annotated (jinja2's `parser.stream`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

RETURNS = True  # a call's annotated return type (flag: measured on the pool)
CONDITIONAL = True  # a class called on either side of `a if c else b`
FRESH_ROWS = 10  # as `evidence.FRESH_ROWS`
JOIN_ROWS = 8  # rows an assignment's open brackets are followed through
MAX_ANCHOR_ROWS = 400  # an anchor longer than this is read this far above the cursor

_ASSIGN = re.compile(r"^\s*([a-z_]\w*)\s*(?::\s*[^=]+?)?\s*=(?!=)\s*(.*)$")
_CALLEE = re.compile(r"^\(?\s*(?:await\s+)?(?:[A-Za-z_]\w*\s*\.\s*)*([a-z_]\w*)\s*\(")
_CLASS_CALL = re.compile(r"(?<![\w.])(?:[a-z_]\w*\.)?([A-Z]\w*)\s*\(")
_RETURN = re.compile(r"\)\s*->\s*(.+?)\s*:\s*(?:#.*)?$")
_WORD = re.compile(r"[A-Za-z_]\w*")

_RETURN_TABLES = IdentityMemo(256, HEAVY_ITEMS_WEIGHT)


def _capitalized(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text) if w[:1].isupper())


@lru_cache(maxsize=16_384)
def header_return(lines: tuple[str, ...]) -> frozenset[str]:
    """Capitalized words of a definition's return annotation, from its rendered lines
    (its decorators left out, up to the line ending in `:`); memoized per lines, so a
    keystroke's new version of the current file reads only the definitions it changed."""
    parts = []
    for line in lines[:JOIN_ROWS * 2]:
        text = line.strip()
        if text.startswith("@") and not parts:
            continue
        parts.append(text)
        if text.split("#", 1)[0].rstrip().endswith(":"):
            break
    m = _RETURN.search(" ".join(parts))
    return _capitalized(m.group(1)) if m else frozenset()


def return_types(items: Sequence) -> dict[str, frozenset[str]]:
    """function or method name -> capitalized words of its return annotation, in one
    file (memoized per items tuple)."""
    hit = _RETURN_TABLES.get(items)
    if hit is not None:
        return hit
    out: dict[str, frozenset[str]] = {}
    for item in items:
        if item.kind not in ("function", "method") or not item.name:
            continue
        words = header_return(item.lines)
        if words:
            out[item.name] = out.get(item.name, frozenset()) | words
    _RETURN_TABLES.put(items, out)
    return out


def _joined(lines: Sequence[str], row: int, value: str, stop: int) -> str:
    """`value` followed through its open brackets (up to JOIN_ROWS rows, not past
    `stop`)."""
    depth = sum(value.count(c) for c in "([{") - sum(value.count(c) for c in ")]}")
    parts = [value]
    r = row
    while depth > 0 and r + 1 < stop and r - row < JOIN_ROWS:
        r += 1
        text = lines[r].strip()
        parts.append(text)
        depth += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
    return " ".join(parts)


@lru_cache(maxsize=4096)
def _value_types(value: str) -> tuple[str | None, frozenset[str]]:
    """(the callee a value is the result of, classes a conditional value calls)."""
    callee = _CALLEE.match(value)
    classes: frozenset[str] = frozenset()
    if " if " in value and " else " in value:
        classes = frozenset(_CLASS_CALL.findall(value))
    return (callee.group(1) if callee else None), classes


def _returned(name: str, tables: list) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for t in tables:
        got = t.get(name)
        if got:
            out = out | got
    return out


def receivers(analysis, files: Sequence, ev, cursor_line: int,
              skip: frozenset[str] | set[str] = frozenset()
              ) -> tuple[dict[str, frozenset[str]], dict[str, int]]:
    """(variable -> capitalized names it holds, variable -> rows above the cursor of
    its assignment when within FRESH_ROWS) for every variable the anchor's rows above
    the cursor assign (but those in `skip`)."""
    out: dict[str, set[str]] = {}
    fresh: dict[str, int] = {}
    tables: list | None = None
    lines = analysis.lines
    lo = max(ev.anchor[0], cursor_line - MAX_ANCHOR_ROWS, 0)
    for row in range(lo, min(cursor_line, len(lines))):
        line = lines[row]
        if "=" not in line:
            continue
        m = _ASSIGN.match(line)
        if m is None or m.group(1) in skip:
            continue
        value = _joined(lines, row, m.group(2), cursor_line)
        callee, classes = _value_types(value)
        found = set(classes) if CONDITIONAL else set()
        if callee is not None and RETURNS:
            if tables is None:
                tables = [return_types(analysis.items)] + \
                    [return_types(f.analysis.items) for f in files
                     if f.analysis.spec.resolver == "python"]
            found |= _returned(callee, tables)
        if found:
            var = m.group(1)
            out.setdefault(var, set()).update(found)
            up = cursor_line - row
            if up <= FRESH_ROWS:
                fresh[var] = min(up, fresh.get(var, up))
    return {q: frozenset(ts) for q, ts in out.items()}, fresh
