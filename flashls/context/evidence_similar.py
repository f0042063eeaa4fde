"""Python: names the file's code most like the anchor uses, and the anchor not yet.

Code repeats itself: httpx's `Client` and `AsyncClient` are twins method by method,
jinja2's `visit_*` methods follow one pattern. When a function elsewhere in the file
is much like the one around the cursor (its identifiers, weighed by how rare they are
in the file), the names it uses that the anchor does not use yet are likely next: the
twin's `response.reason_phrase` 440 lines away. A name used only far away was weak
evidence before (its use's distance); names used near the cursor have their own.

Per function or method of the current file: its identifier set, memoized per
analysis and per the function's lines (an edit re-reads the function it changed).
Per request: the anchor's identifiers (its own line range, the cursor's line left
out), a weighted Jaccard share with every other function (each identifier weighs
log(functions / functions using it)), and for the names of the MOST_SIMILAR functions
above MIN_SIMILARITY that the anchor lacks, a bonus of WEIGHT x their share. Neighbor
entries with that name gain it (once, the best share). Measured on Python's dev pool
(JS/TS: +1 of 669 on its pool, dev unchanged; not enabled).
"""

from __future__ import annotations

import math
import threading
from typing import Sequence

from cachetools import LRUCache

from .memo import CHUNK_MEMO_SIZE, PerAnalysis, line_identifiers

RESOLVERS = frozenset({"python"})
WEIGHT = 0.6  # x100: the bonus for a name of an identical function
MIN_SIMILARITY = 0.3  # weighted Jaccard share below which a function is no relative
MOST_SIMILAR = 3  # functions read for names
MIN_FUNCTIONS = 4  # fewer functions in the file: no statistics to weigh by
MAX_FUNCTIONS = 2000  # more (generated code, a 15,000-line module): not read
_FUNCTION_KINDS = frozenset({"function", "method"})
_KEYWORDS = {
    "python": frozenset("""self cls None True False return if else elif for in while try
        except finally with as def class pass raise import from not and or is lambda
        yield await async break continue global nonlocal del assert""".split()),
    "js": frozenset("""this const let var function return if else for in of while try
        catch finally new null undefined true false typeof instanceof switch case
        default export import from class extends await async break continue throw
        void delete yield static get set""".split()),
}


class _Functions:
    """The current file's functions: line ranges and identifier sets, and each
    identifier's weight (its rarity among them)."""

    __slots__ = ("ranges", "idents", "weight", "df")

    def __init__(self, analysis) -> None:
        lines = analysis.lines
        keywords = _KEYWORDS.get(analysis.spec.resolver, frozenset())
        self.ranges: list[tuple[int, int]] = []
        self.idents: list[frozenset[str]] = []
        for item in analysis.items:
            if item.kind not in _FUNCTION_KINDS or item.end <= item.start:
                continue
            self.ranges.append((item.start, item.end))
            self.idents.append(_function_idents(
                tuple(lines[item.start:min(item.end, len(lines) - 1) + 1]), keywords))
        n = len(self.idents)
        last = _LAST[0]
        if last is not None and len(last.idents) == n:
            # the last version's counts, patched by the functions whose identifier
            # sets are new objects (the others came from the same `_IDENTS` entry)
            changed = [k for k in range(n) if self.idents[k] is not last.idents[k]]
            if len(changed) <= MAX_CHANGED:
                self.df, self.weight = _patched(last, [last.idents[k] for k in changed],
                                                [self.idents[k] for k in changed], n)
                _LAST[0] = self
                return
        df: dict[str, int] = {}
        for s in self.idents:
            for t in s:
                df[t] = df.get(t, 0) + 1
        self.df = df
        self.weight = {t: math.log((n + 1) / c) for t, c in df.items()}
        _LAST[0] = self


MAX_CHANGED = 16  # functions an edit changed, past which the counts are made anew
_LAST: list = [None]  # the last `_Functions` built (the previous version's, usually)


def _patched(last: _Functions, old: list[frozenset[str]], new: list[frozenset[str]], n: int
             ) -> tuple[dict[str, int], dict[str, float]]:
    """`last`'s identifier counts and weights with the sets `old` replaced by `new`
    (as many functions: the same n), equal to counting every function again; only the
    weights of the identifiers whose counts changed are computed."""
    df = dict(last.df)
    weight = dict(last.weight)
    touched: set[str] = set()
    for s in old:
        for t in s:
            df[t] -= 1
        touched |= s
    for s in new:
        for t in s:
            df[t] = df.get(t, 0) + 1
        touched |= s
    for t in touched:
        c = df[t]
        if c:
            weight[t] = math.log((n + 1) / c)
        else:
            del df[t]
            del weight[t]
    return df, weight


functions = PerAnalysis(_Functions)
_IDENTS: LRUCache = LRUCache(maxsize=CHUNK_MEMO_SIZE)  # a function's lines -> identifiers
_LOCK = threading.Lock()


def _function_idents(rows: tuple[str, ...], keywords: frozenset[str]) -> frozenset[str]:
    """The identifiers of a function's lines, remembered by the lines: a new version
    of the file re-reads only the functions an edit changed."""
    key = (rows, keywords)
    with _LOCK:
        hit = _IDENTS.get(key)
    if hit is None:
        found: set[str] = set()
        for line in rows:
            found |= line_identifiers(line)
        hit = frozenset(found - keywords)
        with _LOCK:
            _IDENTS[key] = hit
    return hit


def similar_names(analysis, anchor: tuple[int, int], cursor_line: int) -> dict[str, float]:
    """name -> the best share of a function much like the anchor that uses it and the
    anchor does not."""
    lo, hi = anchor
    if hi - lo < 1:
        return {}
    count = sum(1 for it in analysis.items if it.kind in _FUNCTION_KINDS)
    if not MIN_FUNCTIONS <= count <= MAX_FUNCTIONS:
        return {}
    fns = functions(analysis)
    if len(fns.idents) < MIN_FUNCTIONS:
        return {}
    lines = analysis.lines
    mine: set[str] = set()
    for row in range(max(0, lo), min(hi, len(lines) - 1) + 1):
        if row != cursor_line:
            mine |= line_identifiers(lines[row])
    mine -= _KEYWORDS.get(analysis.spec.resolver, frozenset())
    if not mine:
        return {}
    w = fns.weight
    mass = sum(w.get(t, 0.0) for t in mine)
    shares = []
    for (start, end), theirs in zip(fns.ranges, fns.idents):
        if start <= cursor_line <= end or (lo <= start and end <= hi) or \
                (start <= lo and hi <= end):
            continue  # the anchor itself, a function inside it or around it
        common = sum(w[t] for t in mine & theirs)
        if not common:
            continue
        union = mass + sum(w[t] for t in theirs - mine)
        share = common / union if union else 0.0
        if share >= MIN_SIMILARITY:
            shares.append((share, start, theirs))
    shares.sort(key=lambda s: (-s[0], s[1]))
    out: dict[str, float] = {}
    for share, _, theirs in shares[:MOST_SIMILAR]:
        for t in theirs - mine:
            if share > out.get(t, 0.0):
                out[t] = share
    return out


def lift(analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """`cands` with the neighbor entries a similar function uses raised (the same list
    when there are none)."""
    if not WEIGHT or not files or analysis.spec.resolver not in RESOLVERS:
        return cands
    found = similar_names(analysis, ev.anchor, cursor_line)
    if not found:
        return cands
    out = cands
    for k, c in enumerate(cands):
        if c.file < 0:
            continue  # the file's own definitions: partly in the window already
        item = files[c.file].analysis.items[c.item]
        share = found.get(item.name)
        if not share:
            continue
        if out is cands:
            out = list(cands)
        out[k] = c.rescored(c.score + 100 * WEIGHT * share)
    return out
