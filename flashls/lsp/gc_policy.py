"""When the cyclic garbage collector runs: between keystrokes, not on them.

With CPython's default thresholds (700, 10, 10) a keystroke on a big file allocates
enough to trigger young collections on most requests and a full one every few
dozen; a full collection rescans every unfrozen object (a warm analysis of a
15,000-line file: several hundred thousand), 10-40 ms that land on whichever
keystroke crosses the threshold (most of the warm p99 on big files). The policy:

- **while serving**, raised thresholds (`SERVING_THRESHOLDS`): young collections
  are rare and automatic full ones practically never happen;
- **between keystrokes** (right after a request was sent upstream, or `YOUNG_QUIET_S`
  without a message; never while a request needs the loop or waits in its debounce),
  the young generations are collected, so they stay small;
- **when idle** (no request held in the foreground, none upstream, no background
  preparation, and `IDLE_QUIET_S` since the last message), one full collection of
  what was allocated since the last one, so garbage cycles are freed at a pause; what
  survives it is frozen, so the next one scans only newer objects;
- **never unbounded**: when the server has been busy for `MAX_DEFER_S` with garbage
  pending, the next check collects anyway (once per that period at most), and
  rescans the frozen set too once it doubled (`FORCED_DEEP_GROWTH`);
- **during a big document's preparation** the collector is paused (it would rescan
  hundreds of thousands of new objects, 100-900 ms pauses) and the survivors are
  frozen after it: long-lived tables, freed by reference counting when replaced;
- **the frozen objects are not forever**: cycles among them (a closed big document's
  tables) are only freed by unfreezing. After a long quiet (`DEEP_QUIET_S`), when the
  frozen set grew by `DEEP_GROWTH` since the last time, they are unfrozen, collected
  once and frozen again.

`FLASHLS_GC_POLICY=off` keeps CPython's thresholds and does no idle collection (the
preparation pause stays): the benchmarks' baseline for comparing the two.
"""

from __future__ import annotations

import dataclasses
import gc
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

log = logging.getLogger(__name__)

# gen0: allocations between young collections (CPython: 700); gen1: young collections
# per middle one (10); gen2: middle ones per full one (10; CPython also waits until a
# quarter of the long-lived objects are new). Measured in session 5 on the 15,000-line
# file: warm p99 per keystroke 6-11 -> 5.3 ms, invoked Enter 37-39 -> 13-14 ms.
SERVING_THRESHOLDS = (100_000, 50, 1000)
IDLE_QUIET_S = 1.0  # no message this long: the user paused, collect now
CHECK_EVERY_S = 0.25  # how often a busy server looks again for an idle moment
# the young generations are collected between keystrokes, so they never grow large
# enough to make the collection a keystroke's allocations trigger expensive (in the
# soak, with none in between, one took 0.5-0.9 s at load 8-10): right after a request
# was sent upstream (the loop has nothing to do until the model answers), or after
# this long without a message when no request is waiting in its debounce
YOUNG_QUIET_S = 0.3
YOUNG_AFTER_SEND_S = 0.03  # the request on the wire first (no CPU taken from its send)
MAX_DEFER_S = 60.0  # garbage never waits longer than this for an idle moment
DEEP_QUIET_S = 15.0  # this long without a message: the frozen set may be rescanned
DEEP_GROWTH = 1.5  # ...when it grew by half since the last rescan
DEEP_MIN_GROWTH = 100_000  # ...and by at least this many objects
FORCED_DEEP_GROWTH = 2.0  # never a long quiet: a forced collection rescans it on doubling
ENV_SWITCH = "FLASHLS_GC_POLICY"
_PAUSES = [0]  # background preparations running with the collector paused
# policies started in this process (tests run several servers in one), and the
# thresholds found before the first: restored when the last one stops
_SERVING = [0]
_SAVED: list[tuple[int, ...] | None] = [None]


@dataclass
class Collector:
    """The `gc` functions the policy calls (tests count them, or run the real ones)."""
    collect: Callable[..., int] = gc.collect
    freeze: Callable[[], None] = gc.freeze
    unfreeze: Callable[[], None] = gc.unfreeze
    freeze_count: Callable[[], int] = gc.get_freeze_count
    get_threshold: Callable[[], tuple[int, ...]] = gc.get_threshold
    set_threshold: Callable[..., None] = gc.set_threshold
    enable: Callable[[], None] = gc.enable
    disable: Callable[[], None] = gc.disable


@dataclass
class GcStats:
    """What the policy did (`flashls.debugStats` → `gcPolicy`)."""
    young_collections: int = 0  # generations 0 and 1, in a pause between keystrokes
    idle_collections: int = 0
    forced_collections: int = 0  # busy for MAX_DEFER_S: collected anyway
    deep_collections: int = 0  # the frozen set unfrozen, collected, frozen again
    collected_objects: int = 0  # unreachable objects found by the policy's collections
    last_collection_ms: float = 0.0
    max_collection_ms: float = 0.0
    # every collection in the process, the automatic ones included, by generation:
    # how many, and the longest (ms): what a keystroke may have waited for
    collections: list[int] = field(default_factory=lambda: [0, 0, 0])
    longest_ms: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])


class CollectionTimer:
    """A `gc.callbacks` entry timing each collection into a `GcStats`."""

    def __init__(self, stats: GcStats):
        self.stats = stats
        self._started = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        generation = min(2, max(0, int(info.get("generation", 0))))
        ms = (time.perf_counter() - self._started) * 1000
        self.stats.collections[generation] += 1
        if ms > self.stats.longest_ms[generation]:
            self.stats.longest_ms[generation] = round(ms, 2)


def enabled_by_environment(env: dict[str, str] | None = None) -> bool:
    value = (os.environ if env is None else env).get(ENV_SWITCH, "").strip().lower()
    return value not in ("off", "0", "false", "no")


@dataclass
class GcPolicy:
    """Thresholds while serving, collections at idle moments (see the module doc).

    `busy` says whether anything is being served right now; `clock` and `collector`
    are injectable so the decisions can be driven without waiting. `check()` is the
    idle hook: the event-loop timer calls it, tests call it directly."""
    busy: Callable[[], bool] = lambda: False
    # a request needs the loop now (a young collection waits); None: `busy`
    loop_busy: Callable[[], bool] | None = None
    clock: Callable[[], float] = time.monotonic
    collector: Collector = field(default_factory=Collector)
    enabled: bool = True
    serving_thresholds: tuple[int, int, int] = SERVING_THRESHOLDS
    stats: GcStats = field(default_factory=GcStats)
    started: bool = False
    saved_thresholds: tuple[int, ...] | None = None
    last_activity: float = 0.0
    pending_since: float | None = None  # first activity not collected yet
    last_collection: float = 0.0
    last_young: float = 0.0
    sent_since_young: bool = False  # a request went upstream since the last young one
    frozen_at_deep: int = 0  # the frozen set's size after the last (deep) rescan
    _timer: Any = None
    _timer_at: float = 0.0
    _loop: Any = None
    _callback: Any = None

    # -- lifecycle -----------------------------------------------------------------
    def start(self, loop: Any = None) -> None:
        """Apply the serving thresholds (once) and start looking for idle moments on
        `loop` (a running asyncio loop; None: `check` is called by hand)."""
        self._loop = loop
        if self._callback is None and self.collector.collect is gc.collect:
            self._callback = CollectionTimer(self.stats)  # the real collector: time it
            gc.callbacks.append(self._callback)
        if not self.enabled or self.started:
            return
        self.started = True
        if not _SERVING[0]:  # the first policy started in this process
            _SAVED[0] = tuple(self.collector.get_threshold())
            self.collector.set_threshold(*self.serving_thresholds)
        _SERVING[0] += 1
        self.saved_thresholds = _SAVED[0]
        now = self.clock()
        self.last_activity = self.last_collection = now
        self.pending_since = now  # what `initialize` allocated
        self.frozen_at_deep = self.collector.freeze_count()
        self._arm(IDLE_QUIET_S)

    def stop(self) -> None:
        """Stop the timer; the last policy of the process to stop restores the
        thresholds the first one found."""
        self._disarm()
        if self._callback is not None and self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
        self._callback = None
        if self.started:
            _SERVING[0] = max(0, _SERVING[0] - 1)
            if not _SERVING[0] and _SAVED[0] is not None:  # the last one stopped
                self.collector.set_threshold(*_SAVED[0])
        self.started = False
        self._loop = None

    # -- what the server tells it ----------------------------------------------------
    def note_activity(self) -> None:
        """A message arrived: the quiet period starts again, and there is garbage."""
        now = self.clock()
        self.last_activity = now
        if self.pending_since is None:
            self.pending_since = now
        if self.started and self._timer is None:
            self._arm(IDLE_QUIET_S)

    def note_request_sent(self) -> None:
        """A request's body was sent upstream: the loop is free until its answer, the
        moment for a young collection."""
        self.sent_since_young = True
        if self.pending_since is None:
            self.pending_since = self.clock()
        if self.started:
            self._arm(YOUNG_AFTER_SEND_S, sooner=True)

    def pause(self) -> None:
        """A background preparation starts: no collection until it ends (the count
        is the process's: the collector is one for every session in it)."""
        _PAUSES[0] += 1
        self.collector.disable()

    def resume(self) -> None:
        """A preparation ended: what it built is long-lived, frozen out of every
        later scan (a collection here would scan all of it once: the pause again)."""
        _PAUSES[0] = max(0, _PAUSES[0] - 1)
        if not _PAUSES[0]:
            self.collector.freeze()
            self.collector.enable()
            if self.pending_since is None:
                self.pending_since = self.clock()
            if self.started:
                self._arm(IDLE_QUIET_S)

    # -- the idle hook ------------------------------------------------------------------
    def check(self) -> str | None:
        """Collect if this is an idle moment (or garbage waited MAX_DEFER_S), or the
        young generations in a pause between keystrokes; returns what was done:
        "deep", "idle", "forced", "young" or None."""
        if not self.started or _PAUSES[0]:
            return None
        now = self.clock()
        quiet = now - self.last_activity
        if self._deep_due(now, quiet):
            return self._deep(now)
        if self.pending_since is None:
            return None
        if quiet >= IDLE_QUIET_S and not self.busy():
            self._collect(now)
            self.stats.idle_collections += 1
            return "idle"
        if now - self.last_collection >= MAX_DEFER_S:
            if self._frozen_grew(FORCED_DEEP_GROWTH):  # never idle long: bound it anyway
                self._deep(now)
            else:
                self._collect(now)
            self.stats.forced_collections += 1
            return "forced"
        if self._young_due(quiet):
            self._collect_young(now)
            return "young"
        return None

    def _young_due(self, quiet: float) -> bool:
        paused = quiet >= YOUNG_QUIET_S and self.last_young < self.last_activity
        if not (self.sent_since_young or paused):
            return False
        return not (self.loop_busy or self.busy)()

    def _collect_young(self, now: float) -> None:
        started = time.perf_counter()
        found = self.collector.collect(1)
        self.stats.collected_objects += found or 0
        self.stats.young_collections += 1
        self.last_young = now
        self.sent_since_young = False
        log.debug("gc: young collection, %d objects in %.1f ms", found or 0,
                  (time.perf_counter() - started) * 1000)

    def _deep_due(self, now: float, quiet: float) -> bool:
        return quiet >= DEEP_QUIET_S and self._frozen_grew() and not self.busy()

    def _frozen_grew(self, growth: float = DEEP_GROWTH) -> bool:
        frozen = self.collector.freeze_count()
        return frozen >= max(self.frozen_at_deep * growth,
                             self.frozen_at_deep + DEEP_MIN_GROWTH)

    def _deep(self, now: float) -> str:
        self.collector.unfreeze()
        self._collect(now)  # (and freezes what survived)
        self.frozen_at_deep = self.collector.freeze_count()
        self.stats.deep_collections += 1
        return "deep"

    def _collect(self, now: float) -> None:
        """A full collection of the unfrozen objects, then what survived it is frozen:
        it is long-lived, and the next collection scans only what is newer (a full
        collection over the caches and analyses of a long session took 0.6 s at load
        6 in the soak). Cycles among frozen objects wait for the deep rescan."""
        started = time.perf_counter()
        try:
            found = self.collector.collect()
        finally:
            self.collector.freeze()
        ms = (time.perf_counter() - started) * 1000
        self.stats.collected_objects += found or 0
        self.stats.last_collection_ms = round(ms, 2)
        self.stats.max_collection_ms = max(self.stats.max_collection_ms, round(ms, 2))
        self.last_collection = self.last_young = now
        self.sent_since_young = False
        self.pending_since = None
        log.debug("gc: collected %d objects in %.1f ms", found or 0, ms)

    # -- the timer -----------------------------------------------------------------------
    def _on_timer(self) -> None:
        self._timer = None
        try:
            self.check()
        except Exception as err:  # a collection policy must never break serving
            log.debug("gc policy check failed: %s", err)
        if self.started and self._wants_another_look():
            self._arm(self._next_delay())

    def _wants_another_look(self) -> bool:
        """Garbage is pending, or the frozen set may need its long-quiet rescan."""
        return self.pending_since is not None or self._frozen_grew()

    def _next_delay(self) -> float:
        """Until the next moment something may be due; a moment that passed (the
        server was busy then) is looked at again in CHECK_EVERY_S."""
        now = self.clock()
        if self.pending_since is None:  # only the deep rescan is left to wait for
            return max(CHECK_EVERY_S, self.last_activity + DEEP_QUIET_S - now)
        due = [self.last_activity + IDLE_QUIET_S, self.last_collection + MAX_DEFER_S]
        if self.sent_since_young:
            due.append(now + YOUNG_AFTER_SEND_S)
        elif self.last_young < self.last_activity:
            due.append(self.last_activity + YOUNG_QUIET_S)
        delay = min(due) - now
        return delay if delay > 0 else CHECK_EVERY_S

    def _arm(self, delay: float, sooner: bool = False) -> None:
        """Look again in `delay` s (unless a look is due already; `sooner`: or due
        later than that, which is then replaced)."""
        if self._loop is None:
            return
        if self._timer is not None:
            if not sooner or self._timer_at <= self.clock() + delay:
                return
            self._disarm()
        try:
            self._timer = self._loop.call_later(delay, self._on_timer)
            self._timer_at = self.clock() + delay
        except RuntimeError:  # the loop is closed: nothing more to serve
            self._timer = None

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def preparations_paused() -> int:
    """Background preparations running with the collector paused (tests, stats)."""
    return _PAUSES[0]


def stats_dict(policy: GcPolicy | None) -> dict[str, Any]:
    """`debugStats`' view of the policy."""
    if policy is None:
        return {}
    return {"enabled": policy.enabled and policy.started,
            "thresholds": list(gc.get_threshold()), **dataclasses.asdict(policy.stats)}
