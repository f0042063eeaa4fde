"""Python: receivers typed by what is assigned to them, when that is no `T(..)` call.

`evidence.py` types `x = T(..)`, `x: T` and `except T as x`; `evidence_members` types
attributes a neighbor annotates or assigns in its `__init__`. Three common forms type
a receiver too and were read by neither:

* a call of a function whose return type is annotated: `base_style =
  self._get_base_style()` with `def _get_base_style(self) -> Style`, and in a
  neighbor's `__init__` `self.stream = environment._tokenize(..)` with `def
  _tokenize(..) -> TokenStream` (so `parser.stream.eos` is a `TokenStream`'s);
* a conditional expression naming a class on either side: `timeout = (self.timeout if
  isinstance(timeout, UseClientDefault) else Timeout(timeout))`;
* an `isinstance(x, T)` test (`assert isinstance(element, Link)`, `if isinstance(v,
  Whitespace) and ..`) above the cursor in the anchor.

Only the anchor's rows above the cursor are read (the cursor's own line is half
written), an assignment's value through its open brackets up to JOIN_ROWS rows. The
classes must be classes of the neighbor files or the current file (`evidence_members`
intersects them). A receiver assigned within FRESH_ROWS rows above the cursor is fresh
(`ranking.FRESH_RECEIVER_MEMBER`), as `x = T(..)` there is.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

RETURNS = True  # a call's annotated return type (flag: measured on the pool)
CONDITIONAL = True  # a class called on either side of `a if c else b`
ISINSTANCE = True  # `isinstance(x, T)` above the cursor in the anchor
INIT_RETURNS = True  # a neighbor's `self.q = x.f(..)` in `__init__`, `f` annotated
FRESH_ROWS = 10  # as `evidence.FRESH_ROWS`
JOIN_ROWS = 8  # rows an assignment's open brackets are followed through
MAX_ANCHOR_ROWS = 400  # an anchor longer than this is read this far above the cursor
MAX_INIT_LINES = 200  # as `init_attributes.MAX_INIT_LINES`

_ASSIGN = re.compile(r"^\s*([a-z_]\w*)\s*(?::\s*[^=]+?)?\s*=(?!=)\s*(.*)$")
_SELF_ASSIGN = re.compile(r"^\s*self\.([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$")
_CALLEE = re.compile(r"^\(?\s*(?:await\s+)?(?:[A-Za-z_]\w*\s*\.\s*)*([a-z_]\w*)\s*\(")
_CLASS_CALL = re.compile(r"(?<![\w.])(?:[a-z_]\w*\.)?([A-Z]\w*)\s*\(")
_ISINSTANCE = re.compile(r"\bisinstance\(\s*([a-z_]\w*)\s*,\s*\(?([\w.,\s]+?)\)?\s*\)")
_RETURN = re.compile(r"\)\s*->\s*(.+?)\s*:\s*(?:#.*)?$")
_WORD = re.compile(r"[A-Za-z_]\w*")

_RETURN_TABLES = IdentityMemo(256, HEAVY_ITEMS_WEIGHT)
_INIT_CALLS = IdentityMemo(256, HEAVY_ITEMS_WEIGHT)


def _capitalized(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text) if w[:1].isupper())


def _header(lines: Sequence[str]) -> str:
    """A definition's header, its decorators left out, up to the line ending in `:`."""
    parts = []
    for line in lines[:JOIN_ROWS * 2]:
        text = line.strip()
        if text.startswith("@") and not parts:
            continue
        parts.append(text)
        if text.split("#", 1)[0].rstrip().endswith(":"):
            break
    return " ".join(parts)


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
        m = _RETURN.search(_header(item.lines))
        if m:
            words = _capitalized(m.group(1))
            if words:
                out[item.name] = out.get(item.name, frozenset()) | words
    _RETURN_TABLES.put(items, out)
    return out


def init_calls(analysis) -> dict[str, frozenset[str]]:
    """attribute -> names of the functions `__init__` assigns it the result of
    (`self.stream = environment._tokenize(..)` -> {"_tokenize"}); memoized per items."""
    items = analysis.items
    hit = _INIT_CALLS.get(items)
    if hit is not None:
        return hit
    out: dict[str, frozenset[str]] = {}
    lines = analysis.lines
    for item in items:
        if item.name != "__init__" or item.parent < 0:
            continue
        for row in range(item.start, min(item.end, item.start + MAX_INIT_LINES) + 1):
            if row >= len(lines):
                break
            m = _SELF_ASSIGN.match(lines[row])
            if m is None:
                continue
            callee = _CALLEE.match(m.group(2))
            if callee:
                out[m.group(1)] = out.get(m.group(1), frozenset()) | {callee.group(1)}
    _INIT_CALLS.put(items, out)
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
    callee = _CALLEE.match(value) if RETURNS else None
    classes: frozenset[str] = frozenset()
    if CONDITIONAL and " if " in value and " else " in value:
        classes = frozenset(_CLASS_CALL.findall(value))
    return (callee.group(1) if callee else None), classes


def _returned(name: str, tables: list) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for t in tables:
        got = t.get(name)
        if got:
            out = out | got
    return out


def receivers(analysis, files: Sequence, ev, cursor_line: int, wanted: set[str],
              skip: frozenset[str] | set[str] = frozenset()
              ) -> tuple[dict[str, frozenset[str]], dict[str, int]]:
    """(qualifier -> capitalized names it holds, qualifier -> rows above the cursor of
    its assignment when within FRESH_ROWS): every variable the anchor's rows above the
    cursor assign or test (but those in `skip`), and the `wanted` attributes the
    neighbors' `__init__` calls assign."""
    out: dict[str, set[str]] = {}
    fresh: dict[str, int] = {}
    tables: list | None = None
    lines = analysis.lines
    lo = max(ev.anchor[0], cursor_line - MAX_ANCHOR_ROWS, 0)
    for row in range(lo, min(cursor_line, len(lines))):
        line = lines[row]
        if ISINSTANCE and "isinstance(" in line:
            for var, types in _ISINSTANCE.findall(line):
                if var not in skip:
                    found = {t.strip().split(".")[-1] for t in types.split(",")}
                    out.setdefault(var, set()).update(t for t in found if t[:1].isupper())
        if "=" not in line:
            continue
        m = _ASSIGN.match(line)
        if m is None or m.group(1) in skip:
            continue
        value = _joined(lines, row, m.group(2), cursor_line)
        callee, classes = _value_types(value)
        found = set(classes)
        if callee is not None:
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
    if INIT_RETURNS:
        for f in [*files, None]:
            a = analysis if f is None else f.analysis
            if a.spec.resolver != "python":
                continue
            calls = init_calls(a)
            for q in wanted.intersection(calls):
                if tables is None:
                    tables = [return_types(analysis.items)] + \
                        [return_types(g.analysis.items) for g in files
                         if g.analysis.spec.resolver == "python"]
                for callee in calls[q]:
                    got = _returned(callee, tables)
                    if got:
                        out.setdefault(q, set()).update(got)
    return {q: frozenset(ts) for q, ts in out.items()}, fresh
