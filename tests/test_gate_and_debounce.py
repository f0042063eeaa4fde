"""Upstream gate (stop/back off) and adaptive debounce, with a fake clock."""

from flashls.completion.debounce import MAX_MS, MIN_MS, Debouncer
from flashls.model.gate import UpstreamGate
from flashls.model.types import (AuthError, BadRequestError, BalanceError, RateLimitError,
                                 ServerError, UpstreamTimeout)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_auth_and_balance_close_the_gate_until_reset():
    for error in (AuthError("401", status=401), BalanceError("402", status=402)):
        gate = UpstreamGate(clock=Clock())
        gate.record_failure(error)
        assert gate.closed_reason()
        gate.reset()
        assert gate.closed_reason() is None


def test_retry_after_is_honoured():
    clock = Clock()
    gate = UpstreamGate(clock=clock)
    gate.record_failure(RateLimitError("429", status=429, retry_after_s=3))
    clock.now += 2.9
    assert gate.closed_reason()
    clock.now += 0.2
    assert gate.closed_reason() is None


def test_backoff_grows_and_success_resets_it():
    clock = Clock()
    gate = UpstreamGate(clock=clock)
    waits = []
    for _ in range(5):
        gate.record_failure(ServerError("500", status=500))
        waits.append(gate.backoff_until - clock.now)
    assert waits[-1] > waits[0] > 0
    gate.record_success()
    assert gate.closed_reason() is None


def test_rejected_requests_back_off_instead_of_repeating_every_keystroke():
    """A 400/422 would be sent again on the next keystroke; it pauses like a 5xx does."""
    clock = Clock()
    gate = UpstreamGate(clock=clock)
    waits = []
    for status in (400, 422, 400):
        gate.record_failure(BadRequestError(str(status), status=status))
        assert gate.closed_reason()
        assert gate.blocked_reason is None  # not a stop: the next request may succeed
        waits.append(gate.backoff_until - clock.now)
    assert waits[-1] > waits[0] > 0
    clock.now = gate.backoff_until + 0.01
    assert gate.closed_reason() is None
    gate.record_success()
    assert gate.failures == 0


def test_a_single_timeout_does_not_pause_completions():
    gate = UpstreamGate(clock=Clock())
    gate.record_failure(UpstreamTimeout("slow"))
    assert gate.closed_reason() is None


def test_debounce_learns_the_typing_rhythm():
    clock = Clock()
    fast, slow = Debouncer(clock=clock), Debouncer(clock=Clock())
    for _ in range(30):
        clock.now += 0.08
        fast.note_keystroke("a")
    for _ in range(30):
        slow.clock.now += 0.25
        slow.note_keystroke("a")
    assert fast.delay_ms("x = foo", "", None) < slow.delay_ms("x = foo", "", None)


def test_debounce_is_shorter_at_pause_points_and_clamped():
    d = Debouncer(clock=Clock())
    assert d.delay_ms("call(", "", None) < d.delay_ms("identif", ")", None)
    d.avg_gap_ms = 10_000
    assert d.delay_ms("x", "", None) == MAX_MS
    d.avg_gap_ms = 1
    assert d.delay_ms("x", "", None) == MIN_MS


def test_explicit_setting_overrides():
    assert Debouncer(clock=Clock()).delay_ms("x", "", 0) == 0
    assert Debouncer(clock=Clock()).delay_ms("x", "", 250) == 250


def test_the_wait_counts_from_the_keystroke_that_brought_the_request():
    clock = Clock()
    d = Debouncer(clock=clock)
    d.note_keystroke("a")  # at 100.0
    clock.now += 0.004  # the request is read and handled 4 ms later
    assert round(d.remaining_ms("a", 75, arrived=100.003), 6) == 71
    # a request with no recent keystroke (the cursor moved) waits the whole delay
    # from its own arrival, as does one for a document never typed in
    clock.now = 200.0
    assert d.remaining_ms("a", 75, arrived=200.0) == 75
    assert round(d.remaining_ms("b", 75, arrived=199.99), 6) == 65
    clock.now = 300.0
    assert d.remaining_ms("a", 75, arrived=299.0) == 0  # never negative
