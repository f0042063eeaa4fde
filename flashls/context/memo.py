"""The context engine's per-line and per-text memos, and their bounds, in one place.

Typing re-reads mostly unchanged lines, so several steps memoize per line (its
identifiers, its token cost). Every memo is bounded; the bounds here are sized to a
working set (a 5,000-line file with its neighbors fits in `LINE_MEMO_SIZE` lines), not
to a whole day of editing, so a long session's memory levels off within the first
minutes of work instead of creeping up for hours.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Callable, Generic, Iterable, Mapping, Sequence, TypeVar

from cachetools import LRUCache

LINE_MEMO_SIZE = 16_384  # distinct lines remembered by each per-line memo
CHUNK_MEMO_SIZE = 8_192  # runs of lines (rendered outline chunks)
TEXT_MEMO_SIZE = 64  # whole texts (token estimates of assembled parts)

IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
FILE_MEMO_SIZE = 512  # files (neighbors are cached per file stamp, so analyses stay put)

V = TypeVar("V")


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_identifiers(line: str) -> frozenset[str]:
    """The distinct identifiers of a line."""
    return frozenset(IDENT.findall(line))


class PerAnalysis(Generic[V]):
    """`compute(analysis)` remembered per analysis object, bounded, thread-safe. Keyed
    by id and checked by identity (an id is reused once its analysis is freed)."""

    def __init__(self, compute: Callable[[object], V], maxsize: int = FILE_MEMO_SIZE) -> None:
        self.compute = compute
        self.cache: LRUCache = LRUCache(maxsize=maxsize)  # id -> (analysis, value)
        self._lock = threading.Lock()

    def __call__(self, analysis) -> V:
        with self._lock:
            hit = self.cache.get(id(analysis))
        if hit is not None and hit[0] is analysis:
            return hit[1]
        value = self.compute(analysis)
        with self._lock:
            self.cache[id(analysis)] = (analysis, value)
        return value


class ForLastNeighbors(Generic[V]):
    """`compute(files)` remembered for the last set of neighbor analyses (by identity):
    per keystroke the neighbors stay the same, so one entry is enough."""

    def __init__(self, compute: Callable[[Sequence], V]) -> None:
        self.compute = compute
        self._last: tuple[tuple, V] | None = None

    def __call__(self, files: Sequence) -> V:
        key = tuple(f.analysis for f in files)
        hit = self._last
        if hit is not None and len(hit[0]) == len(key) and \
                all(a is b for a, b in zip(hit[0], key)):
            return hit[1]
        value = self.compute(files)
        self._last = (key, value)
        return value


def union_of(maps: Iterable[Mapping[str, Iterable[str]]]) -> dict[str, frozenset[str]]:
    """Name -> the union of its sets over `maps` (the neighbors' facts in one)."""
    out: dict[str, set[str]] = {}
    for m in maps:
        for k, v in m.items():
            out.setdefault(k, set()).update(v)
    return {k: frozenset(v) for k, v in out.items()}
