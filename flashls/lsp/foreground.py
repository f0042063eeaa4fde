"""Requests being answered come before the background work of big documents.

The server prepares big documents (`context.background`) in short slices on the event
loop. Interleaved one slice per turn of the loop, they used to follow each step of the
request being answered: on the first completion after opening a big file that was a
third of its server time. Requests now take a hold on the foreground while they need
the loop; the background work waits for its turn between two slices.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import time
from typing import Callable

# a request holds the preparation back at most this long: one that waits longer is
# waiting on something else (the model, a debounce), not on the loop
HOLD_MAX_S = 0.5
HOLD_POLL_S = 0.001  # how often a held-back preparation looks again
# after a request whose model answer held the foreground is answered, the preparation
# waits this long: the editor's next message often follows at once (an invoked
# completion's next edit and request), and a step begun just then, such as the whole
# tree's reparse that cannot be halted, delayed it (`benchmarks.latency`, 5,000 lines
# invoked after each edit: p50 7 -> 17 ms before the upstream request without it)
AFTER_ANSWER_S = 0.03


# the hold kind of the request whose handling runs in this context (set by the server
# around each message; tasks started for it inherit it): an answer arriving for an
# invoked completion holds the preparation back, one for an automatic one does not
handling: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "flashls_foreground_request", default=None)
# ...and the hold token that request took: its answer renews it (`hold_again`) until
# the request is answered
handling_token: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "flashls_foreground_token", default=None)


class Foreground:
    """Requests being answered come before the background preparation.

    The server takes a hold when a request arrives and releases it once the request no
    longer needs the loop (its answer is sent, or its upstream call has left); a
    message still unread on the input counts too. Between two slices the preparation
    waits for its turn (`turn`), so a request's own steps are not each followed by a
    slice of background work (on the first completion after opening a big file, that
    was a third of the server's time). Holds expire after HOLD_MAX_S: a forgotten one
    delays the preparation, never stops it."""

    def __init__(self, max_hold_s: float = HOLD_MAX_S):
        self.max_hold_s = max_hold_s
        self.input_pending: Callable[[], bool] = lambda: False
        self._holds: dict[int, tuple[str, float]] = {}  # token -> (kind, expires at)
        self._open: set[int] = set()  # tokens not released yet (expired or not)
        self._answered: set[int] = set()  # tokens a model answer renewed (`hold_again`)
        self._quiet_until = 0.0  # a moment after an answered request (AFTER_ANSWER_S)
        self._tokens = itertools.count(1)
        self.waits = 0  # turns that had to wait (debugStats, tests)

    def hold(self, kind: str = "") -> int:
        token = next(self._tokens)
        self._holds[token] = (kind, time.monotonic() + self.max_hold_s)
        self._open.add(token)
        return token

    def hold_again(self, token: int, kind: str = "") -> bool:
        """Renew a hold its upstream call let go (`release_all`) while its request is
        still being answered: the model's answer arrives, and the clean-up and the
        editor's answer after it should not each wait behind a slice. False when
        the token was released already (its request is answered)."""
        if token not in self._open:
            return False
        self._holds[token] = (kind, time.monotonic() + self.max_hold_s)
        self._answered.add(token)
        return True

    def release(self, token: int) -> None:
        self._holds.pop(token, None)
        self._open.discard(token)
        if token in self._answered:
            self._answered.discard(token)
            self._quiet_until = time.monotonic() + AFTER_ANSWER_S

    def release_all(self, after_s: float = 0.0) -> None:
        """Every hold, `after_s` from now: an upstream call is on its way, and the
        request behind it needs the loop only for its send (with several requests in
        flight, the others lose their hold early: the preparation runs a little
        sooner, nothing waits longer)."""
        expires = time.monotonic() + after_s
        for token, (kind, at) in list(self._holds.items()):
            self._holds[token] = (kind, min(at, expires))

    def busy(self, now: float | None = None) -> bool:
        if self.input_pending():
            return True
        now = time.monotonic() if now is None else now
        if now < self._quiet_until:
            return True
        for token, (_, expires) in list(self._holds.items()):
            if now >= expires:
                del self._holds[token]
        return bool(self._holds)

    async def turn(self) -> None:
        """Return when no request needs the loop (at once when none does)."""
        if not self.busy():
            return
        self.waits += 1
        while self.busy():
            await asyncio.sleep(HOLD_POLL_S)
