"""The GC policy: serving thresholds, collections at idle moments, bounded deferral.

Driven by a fake clock and a recording collector (or the real `gc` for the garbage
workload); the event-loop timer is a recording fake whose callbacks the test fires.
"""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass, field

import pytest

from benchmarks.soak import RawLsp
from flashls.lsp import gc_policy
from flashls.lsp.gc_policy import (DEEP_QUIET_S, IDLE_QUIET_S, MAX_DEFER_S,
                                   SERVING_THRESHOLDS, YOUNG_AFTER_SEND_S, YOUNG_QUIET_S,
                                   Collector, GcPolicy,
                                   enabled_by_environment, preparations_paused)
from tests.fake_deepseek import FakeDeepSeek, Reply


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Recorder:
    """A collector that records the calls (and keeps its own thresholds)."""
    calls: list[str] = field(default_factory=list)
    threshold: tuple[int, ...] = (700, 10, 10)
    frozen: int = 0

    def collector(self) -> Collector:
        def record(name, result=None):
            def call(*args):
                self.calls.append(name)
                return result
            return call

        def set_threshold(*values):
            self.calls.append("set_threshold")
            self.threshold = values

        def collect(*generation):  # collect(1): the young generations only
            self.calls.append("young" if generation else "collect")
            return 0

        return Collector(collect=collect, freeze=record("freeze"),
                         unfreeze=record("unfreeze"), freeze_count=lambda: self.frozen,
                         get_threshold=lambda: self.threshold, set_threshold=set_threshold,
                         enable=record("enable"), disable=record("disable"))


@dataclass
class FakeLoop:
    """`call_later` recorded; the test fires the callbacks (no waiting)."""
    timers: list = field(default_factory=list)

    def call_later(self, delay, callback):
        handle = FakeHandle(delay, callback)
        self.timers.append(handle)
        return handle

    def fire(self) -> FakeHandle:
        live = [t for t in self.timers if not t.cancelled and not t.fired]
        assert len(live) == 1, f"expected one armed timer, found {len(live)}"
        live[0].fired = True
        live[0].callback()
        return live[0]


@dataclass
class FakeHandle:
    delay: float
    callback: object
    cancelled: bool = False
    fired: bool = False

    def cancel(self) -> None:
        self.cancelled = True


def policy(busy=lambda: False, **kw):
    clock, rec = Clock(), Recorder()
    return GcPolicy(busy=busy, clock=clock, collector=rec.collector(), **kw), clock, rec


@pytest.fixture(autouse=True)
def no_policy_left_running():
    yield
    assert gc_policy._SERVING[0] == 0, "a test left a policy started"


def test_thresholds_applied_while_serving_and_restored_by_the_last_to_stop():
    first, _, rec = policy()
    second = GcPolicy(clock=Clock(), collector=rec.collector())
    first.start()
    assert rec.threshold == SERVING_THRESHOLDS
    second.start()
    first.stop()
    assert rec.threshold == SERVING_THRESHOLDS  # another server still serves
    second.stop()
    assert rec.threshold == (700, 10, 10)


def test_disabled_policy_keeps_the_thresholds_and_never_collects():
    p, clock, rec = policy(enabled=False)
    p.start()
    p.note_activity()
    clock.now += MAX_DEFER_S * 2
    assert p.check() is None
    assert rec.threshold == (700, 10, 10) and "collect" not in rec.calls
    p.stop()
    assert enabled_by_environment({}) and enabled_by_environment({"FLASHLS_GC_POLICY": "on"})
    assert not enabled_by_environment({"FLASHLS_GC_POLICY": "off"})


def test_collects_once_after_the_quiet_period_and_not_while_busy():
    busy = [False]
    p, clock, rec = policy(busy=lambda: busy[0], loop_busy=lambda: True)
    p.start()
    try:
        p.note_activity()
        clock.now += IDLE_QUIET_S / 2
        assert p.check() is None  # typing goes on
        busy[0] = True
        clock.now += IDLE_QUIET_S
        assert p.check() is None  # quiet, but a request is upstream
        busy[0] = False
        assert p.check() == "idle"
        assert rec.calls == ["set_threshold", "collect", "freeze"]  # survivors frozen
        clock.now += IDLE_QUIET_S * 5
        assert p.check() is None  # nothing new allocated: no second collection
        p.note_activity()
        clock.now += IDLE_QUIET_S
        assert p.check() == "idle" and p.stats.idle_collections == 2
    finally:
        p.stop()


def test_the_young_generations_are_collected_between_keystrokes():
    upstream, loop_busy = [True], [False]
    p, clock, rec = policy(busy=lambda: upstream[0] or loop_busy[0],
                           loop_busy=lambda: loop_busy[0])
    p.start()
    try:
        for _ in range(3):  # a keystroke, its request sent upstream, the model's wait
            clock.now += 0.15
            p.note_activity()
            assert p.check() is None  # typing, nothing sent
            p.note_request_sent()
            assert p.check() == "young"
            assert p.check() is None  # once per request sent
        clock.now += YOUNG_QUIET_S * 1.5
        upstream[0] = False
        p.note_activity()  # a keystroke whose answer came from the cache: no request
        clock.now += YOUNG_QUIET_S * 1.5
        assert p.check() == "young"  # a pause without a message does it
        p.note_activity()
        p.note_request_sent()
        loop_busy[0] = True  # another request is being handled, or waits its debounce
        clock.now += YOUNG_QUIET_S * 1.5
        assert p.check() is None
        assert rec.calls.count("young") == 4 and "collect" not in rec.calls
        assert p.stats.young_collections == 4
    finally:
        p.stop()


def test_garbage_never_waits_longer_than_the_deferral_bound():
    p, clock, rec = policy(busy=lambda: True)
    p.start()
    try:
        for _ in range(int(MAX_DEFER_S / 0.25) - 1):  # a keystroke every 250 ms
            clock.now += 0.25
            p.note_activity()
            assert p.check() is None
        clock.now += 0.5
        p.note_activity()
        assert p.check() == "forced"
        assert rec.calls.count("collect") == 1 and p.stats.forced_collections == 1
        clock.now += 0.25
        p.note_activity()
        assert p.check() is None  # the bound counts again from that collection
    finally:
        p.stop()


def test_the_event_loop_timer_runs_the_idle_collection():
    loop = FakeLoop()
    p, clock, rec = policy()
    p.start(loop)
    try:
        clock.now += IDLE_QUIET_S
        loop.fire()  # start counts as activity: the first quiet moment collects
        assert rec.calls.count("collect") == 1
        assert not [t for t in loop.timers if not t.fired]  # nothing pending: no timer
        clock.now += 0.01
        p.note_activity()  # a message re-arms the idle hook
        assert loop.timers[-1].delay == IDLE_QUIET_S
        p.note_request_sent()  # its request left: sooner, for the young generations
        assert loop.timers[-2].cancelled and loop.timers[-1].delay == YOUNG_AFTER_SEND_S
        clock.now += YOUNG_AFTER_SEND_S
        loop.fire()
        assert rec.calls[-1] == "young" and p.stats.young_collections == 1
        clock.now += IDLE_QUIET_S
        loop.fire()  # then the idle moment
        assert rec.calls.count("collect") == 2 and p.stats.idle_collections == 2
    finally:
        p.stop()
    assert all(t.cancelled or t.fired for t in loop.timers)


def test_preparation_pauses_collection_and_freezes_what_it_built():
    loop = FakeLoop()
    p, clock, rec = policy()
    p.start(loop)
    try:
        clock.now += IDLE_QUIET_S
        loop.fire()
        rec.calls.clear()
        p.pause()
        assert preparations_paused() == 1 and rec.calls == ["disable"]
        clock.now += MAX_DEFER_S * 2
        assert p.check() is None  # never during a preparation, not even forced
        p.resume()
        assert rec.calls == ["disable", "freeze", "enable"] and preparations_paused() == 0
        clock.now += IDLE_QUIET_S
        loop.fire()  # resuming armed the idle hook: the preparation's garbage goes
        assert rec.calls[-2:] == ["collect", "freeze"]
    finally:
        p.stop()


def test_frozen_set_is_rescanned_after_a_long_quiet_when_it_grew():
    p, clock, rec = policy()
    rec.frozen = 70_000
    p.start()
    try:
        rec.frozen = 400_000  # a big document's preparation froze its tables
        p.note_activity()
        clock.now += IDLE_QUIET_S
        assert p.check() == "idle"
        clock.now += DEEP_QUIET_S
        rec.calls.clear()
        assert p.check() == "deep"
        assert rec.calls == ["unfreeze", "collect", "freeze"]
        clock.now += DEEP_QUIET_S * 4
        assert p.check() is None  # no growth since

    finally:
        p.stop()

def test_a_never_quiet_server_rescans_the_frozen_set_once_it_doubled():
    p, clock, rec = policy(busy=lambda: True)
    rec.frozen = 200_000
    p.start()
    try:
        clock.now += MAX_DEFER_S
        p.note_activity()
        rec.calls.clear()
        rec.frozen = 350_000  # grew, not doubled: the forced collection spares it
        assert p.check() == "forced" and rec.calls == ["collect", "freeze"]
        clock.now += MAX_DEFER_S
        p.note_activity()
        rec.calls.clear()
        rec.frozen = 450_000
        assert p.check() == "forced" and rec.calls == ["unfreeze", "collect", "freeze"]
        assert p.stats.deep_collections == 1 and p.frozen_at_deep == 450_000
    finally:
        p.stop()


def test_cycle_garbage_is_collected_at_idle_with_the_real_collector():
    class Node:
        pass

    p = GcPolicy(clock=(clock := Clock()))
    gc.collect()  # generation counts start at zero: the workload stays under gen0
    p.start()
    try:
        refs = []
        for _ in range(200):
            a, b = Node(), Node()
            a.other, b.other = b, a
            refs.append(weakref.ref(a))
        del a, b
        assert all(r() is not None for r in refs)  # cycles: reference counting keeps them
        p.note_activity()
        clock.now += IDLE_QUIET_S
        assert p.check() == "idle"
        assert all(r() is None for r in refs)
        assert p.stats.collected_objects >= 400
        assert p.stats.collections[2] >= 1  # the process's collections are timed too
    finally:
        p.stop()


async def test_server_serves_with_the_policy_and_reports_it(tmp_path):
    fake = FakeDeepSeek(lambda req: Reply(text="x = 1"), latency_s=0.0).start()
    client = RawLsp({"baseUrl": fake.url, "apiKey": "sk-test"})
    try:
        await client.start()
        await client.initialize(tmp_path)
        stats = (await client.command("flashls.debugStats"))["result"]["gcPolicy"]
        assert stats["enabled"] and stats["thresholds"] == list(SERVING_THRESHOLDS)
    finally:
        await client.shutdown()
        fake.stop()

    off = RawLsp({"baseUrl": fake.url, "apiKey": "sk-test"})
    fake = FakeDeepSeek(lambda req: Reply(text="x = 1"), latency_s=0.0).start()
    try:
        await off.start(env={"FLASHLS_GC_POLICY": "off"})
        await off.initialize(tmp_path)
        stats = (await off.command("flashls.debugStats"))["result"]["gcPolicy"]
        assert not stats["enabled"] and stats["thresholds"] == list(gc.get_threshold())
    finally:
        await off.shutdown()
        fake.stop()
