"""Adaptive debounce: wait about as long as the user's usual pause between keys.

A request is worth sending when the user has stopped typing, not on every key. We
learn the typing rhythm (EMA of keystroke gaps, outliers ignored) and wait a multiple
of it, less at a line end or after a non-word character (natural pause points), and
less when the model is slow (its latency is then the bigger cost to hide). An explicit
`completion.debounceMs` overrides everything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

MIN_MS = 60.0
MAX_MS = 600.0
GAP_FACTOR = 2.0
PAUSE_POINT_FACTOR = 0.6
IGNORE_GAP_MS = 600.0  # gaps longer than this are pauses, not rhythm


@dataclass
class Debouncer:
    clock: callable = field(default=time.monotonic)
    avg_gap_ms: float = 140.0  # a fast typist's gap until we learn better
    avg_latency_ms: float = 400.0
    min_ms: float = MIN_MS
    max_ms: float = MAX_MS
    ignore_gap_ms: float = IGNORE_GAP_MS
    _last_key: dict[str, float] = field(default_factory=dict)

    def note_keystroke(self, uri: str) -> None:
        now = self.clock()
        last = self._last_key.get(uri)
        self._last_key[uri] = now
        if last is None:
            return
        gap = (now - last) * 1000.0
        if 0 < gap < self.ignore_gap_ms:
            self.avg_gap_ms += 0.2 * (gap - self.avg_gap_ms)

    def remaining_ms(self, uri: str, delay_ms: float, arrived: float) -> float:
        """What is left of a `delay_ms` wait for a request that arrived at `arrived` (on
        this clock): counted from the last keystroke on `uri` when that came less than
        the delay before the request (the keystroke that brought it: the time its
        messages took to be read and handled is part of the wait, not added to it),
        else from the arrival (the cursor moved: the whole delay from there)."""
        key = self._last_key.get(uri)
        start = key if key is not None and 0 <= arrived - key < delay_ms / 1000.0 \
            else arrived
        return max(0.0, delay_ms - (self.clock() - start) * 1000.0)

    def note_latency(self, seconds: float) -> None:
        self.avg_latency_ms += 0.2 * (seconds * 1000.0 - self.avg_latency_ms)

    def forget(self, uri: str) -> None:
        self._last_key.pop(uri, None)

    def delay_ms(self, line_before_cursor: str, line_after_cursor: str,
                 fixed_ms: int | None) -> float:
        if fixed_ms is not None:
            return float(fixed_ms)
        delay = GAP_FACTOR * self.avg_gap_ms
        last = line_before_cursor[-1:] if line_before_cursor else ""
        at_line_end = not line_after_cursor.strip()
        if at_line_end and (not last or not (last.isalnum() or last == "_")):
            delay *= PAUSE_POINT_FACTOR
        if self.avg_latency_ms > 1500:
            delay *= 0.75
        return max(self.min_ms, min(self.max_ms, delay))
