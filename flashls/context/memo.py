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
from collections import OrderedDict
from functools import lru_cache
from typing import Any, Callable, Generic, Hashable, Iterable, Mapping, Sequence, TypeVar

from cachetools import LRUCache

LINE_MEMO_SIZE = 16_384  # distinct lines remembered by each per-line memo
CHUNK_MEMO_SIZE = 8_192  # runs of lines (rendered outline chunks)
TEXT_MEMO_SIZE = 64  # whole texts (token estimates of assembled parts)

IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def word_char(ch: str, extra: str = "$") -> bool:
    r"""What the regular expression class `[\w<extra>]` matches on a `str` (`\w` is
    `isalnum()` or `_`): a look-around tested in Python on a match, not by the
    engine at every position."""
    return ch.isalnum() or ch == "_" or ch in extra

FILE_MEMO_SIZE = 512  # files (neighbors are cached per file stamp, so analyses stay put)
# items (or rows) all the versions one per-version memo keeps weigh together: a few
# versions of a 6,000-item file, or hundreds of ordinary neighbor files
ITEMS_WEIGHT = 65_536
HEAVY_ITEMS_WEIGHT = 16_384  # memos that keep a dict or list entry per item

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


class IdentityMemo:
    """A value per object (a version's items, a file's rows), found by `id` and checked
    by identity (an id is reused once its object is freed), bounded by entries and by
    weight: each entry weighs `len(obj)`, so a memo keeps a few versions of a big
    file's tables or many small files', never hundreds of the big file's (entry
    counts alone let a 512-entry memo hold 512 versions of a 6,000-item file).
    Least recently used first out; the newest entry always stays."""

    __slots__ = ("max_entries", "max_weight", "weight", "_data", "_lock")

    def __init__(self, max_entries: int, max_weight: int = ITEMS_WEIGHT) -> None:
        self.max_entries = max_entries
        self.max_weight = max_weight
        self.weight = 0
        self._data: OrderedDict[Hashable, tuple[object, Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, obj: object, extra: Hashable = None) -> Any:
        """The value remembered for `obj` (and `extra`), or None."""
        key = (id(obj), extra)
        with self._lock:
            hit = self._data.get(key)
            if hit is None or hit[0] is not obj:
                return None
            self._data.move_to_end(key)
        return hit[1]

    def put(self, obj: object, value: Any, extra: Hashable = None,
            weight: int | None = None) -> Any:
        """Remember `value` for `obj` (weighing `weight`, default `len(obj)`); returns it."""
        key = (id(obj), extra)
        w = 1 + (len(obj) if weight is None else weight)  # type: ignore[arg-type]
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.weight -= old[2]
            self._data[key] = (obj, value, w)
            self.weight += w
            while len(self._data) > 1 and (len(self._data) > self.max_entries
                                           or self.weight > self.max_weight):
                _, (_, _, gone) = self._data.popitem(last=False)
                self.weight -= gone
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.weight = 0

    def __len__(self) -> int:
        return len(self._data)
