"""Rust: of a big `lib.rs` / `mod.rs`'s modules, the ones the code near the cursor needs first.

A crate root declares dozens of modules (itertools' `lib.rs`: 44) and only
`neighbors.MAX_NEIGHBOR_FILES` of them are read. `evidence_lang.order_files` puts first
the files defining what the whole file uses, which in a 3,600-line `lib.rs` is every
module about as much: `tee.rs` and `unziptuple.rs` were left out while the method being
written was `fn tee(..) -> (Tee<Self>, Tee<Self>) { tee::new(self) }`.

So when more files are imported than are read, the files defining a name used within
NEAR_ROWS lines of the cursor (comment lines aside), or whose module the code there
qualifies (`tee::new`), move to the front, by the share of those names they define (a
name defined by k of the files counts 1 / k, a qualified module QUALIFIER more); the
others keep their order behind them. Memoized per (files, near names).
"""

from __future__ import annotations

import math
from typing import Sequence

from cachetools import LRUCache

from .evidence import line_attributes
from .evidence_lang import _defined_names, _module_stem
from .memo import line_identifiers

NEAR_ROWS = 12
QUALIFIER = 2.0
MIN_SCORE = 1.0  # a name of its own near the cursor, or its module qualified there
NEAR_FILES = True
MEMO_SIZE = 256
_MEMO: LRUCache = LRUCache(maxsize=MEMO_SIZE)


def near_names(lines: Sequence[str], cursor_line: int) -> tuple[frozenset[str], frozenset[str]]:
    """(identifiers, `x::` qualifiers) of the lines within NEAR_ROWS of the cursor,
    comments and the cursor line left out."""
    names: set[str] = set()
    quals: set[str] = set()
    for row in range(max(0, cursor_line - NEAR_ROWS), min(len(lines), cursor_line + NEAR_ROWS + 1)):
        line = lines[row]
        if row == cursor_line or line.lstrip().startswith("//"):
            continue
        names |= line_identifiers(line)
        if "::" in line:
            quals.update(q for q, _ in line_attributes(line) if q)
    return frozenset(names), frozenset(quals)


def near_first(resolver: str, symbols, cursor_line: int | None, paths: Sequence[str],
               workspace, room: int) -> list[str]:
    """`paths` with the files the code near the cursor uses first (Rust, when more
    than `room` files are imported; otherwise unchanged)."""
    if resolver != "rust" or cursor_line is None or not NEAR_FILES or \
            room <= 0 or len(paths) <= room:
        return list(paths)
    names, quals = near_names(symbols.lines, cursor_line)
    if not names and not quals:
        return list(paths)
    key = (tuple(paths), names, quals)
    hit = _MEMO.get(key)
    if hit is None:
        hit = _order(paths, names, quals, workspace)
        _MEMO[key] = hit
    return list(hit)


def _order(paths: Sequence[str], names: frozenset[str], quals: frozenset[str],
           workspace) -> tuple[str, ...]:
    defined = [_defined_names(p, workspace) & names for p in paths]
    files_defining: dict[str, int] = {}
    for found in defined:
        for n in found:
            files_defining[n] = files_defining.get(n, 0) + 1
    scores = []
    for p, found in zip(paths, defined):
        s = math.fsum(1.0 / files_defining[n] for n in found)
        if _module_stem(p) in quals:
            s += QUALIFIER
        scores.append(s)
    front = sorted((i for i in range(len(paths)) if scores[i] >= MIN_SCORE),
                   key=lambda i: (-scores[i], i))
    taken = set(front)
    return tuple([paths[i] for i in front] + [p for i, p in enumerate(paths) if i not in taken])
