"""A small time-to-live memo for the workspace's per-keystroke lookups.

`Workspace.real`, `verdict` and the imports' cache are asked hundreds of times per
request (every neighbor file's path, several times). `cachetools.TTLCache` costs a few
microseconds per lookup in Python code (its timer context, link list and expiry
walk); this is one dict lookup and one comparison. Same rule: an entry is reused for
`ttl` seconds after it was stored, then computed again; at `maxsize` the expired
entries go first, then the oldest stored (down to three quarters of it).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Hashable, Iterator

_MISSING = object()


class TimedCache:
    """Mapping-like: `get`, `[key]`, `[key] = value`, `in`, `len`, `clear`."""

    def __init__(self, maxsize: int, ttl: float,
                 timer: Callable[[], float] = time.monotonic):
        self.maxsize = maxsize
        self.ttl = ttl
        self.timer = timer
        self._data: dict[Hashable, tuple[Any, float]] = {}  # key -> (value, expires)
        self._lock = threading.Lock()

    def get(self, key: Hashable, default: Any = None) -> Any:
        hit = self._data.get(key)
        if hit is None or hit[1] <= self.timer():
            return default
        return hit[0]

    def __getitem__(self, key: Hashable) -> Any:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key: Hashable) -> bool:
        return self.get(key, _MISSING) is not _MISSING

    def __setitem__(self, key: Hashable, value: Any) -> None:
        now = self.timer()
        with self._lock:
            data = self._data
            data.pop(key, None)  # stored again: the newest
            if len(data) >= self.maxsize:
                self._evict(now)
            data[key] = (value, now + self.ttl)

    def _evict(self, now: float) -> None:
        data = self._data
        for k in [k for k, (_, expires) in data.items() if expires <= now]:
            del data[k]
        if len(data) >= self.maxsize:  # down to three quarters: amortized over inserts
            for k in list(data)[:len(data) - self.maxsize * 3 // 4]:
                del data[k]  # the oldest stored (dicts keep insertion order)

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(list(self._data))

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
