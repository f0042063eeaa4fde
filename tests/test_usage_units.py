"""Pricing, the ledger's schema and write-behind, the event sink and aggregation."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time
from datetime import datetime, timezone

import pytest

from flashls.completion.service import Suggestion
from flashls.model.types import AuthError, ModelResult, Usage
from flashls.settings import DEFAULT_PRICES, Settings
from flashls.usage.ledger import (SCHEMA_VERSION, Ledger, LedgerError, LedgerWriter,
                                  RequestRow, SuggestionRow, resolve_path)
from flashls.usage.pricing import is_peak, price_for, request_cost
from flashls.usage.sink import LedgerSink
from flashls.usage.stats import percentile, summarize


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


# -- pricing ----------------------------------------------------------------------------
@pytest.mark.parametrize("moment, peak", [
    (utc(2026, 11, 30, 0, 59), False),  # Monday
    (utc(2026, 11, 30, 1, 0), True),
    (utc(2026, 11, 30, 3, 59), True),
    (utc(2026, 11, 30, 4, 0), False),
    (utc(2026, 11, 30, 6, 0), True),
    (utc(2026, 11, 30, 9, 59), True),
    (utc(2026, 11, 30, 10, 0), False),
    (utc(2026, 12, 5, 2, 0), False),  # Saturday
    (utc(2026, 12, 6, 7, 0), False),  # Sunday
])
def test_peak_hours_are_weekday_utc_windows(moment, peak):
    assert is_peak(moment) is peak
    assert is_peak(moment.timestamp()) is peak


def test_cost_uses_the_tier_of_the_moment():
    tokens = dict(prompt_tokens=1_000_000, cache_hit_tokens=400_000,
                  cache_miss_tokens=600_000, completion_tokens=100_000)
    off = request_cost(DEFAULT_PRICES, "deepseek-flash", utc(2026, 11, 30, 12), **tokens)
    peak = request_cost(DEFAULT_PRICES, "deepseek-flash", utc(2026, 11, 30, 2), **tokens)
    assert off == pytest.approx(0.4 * 0.003 + 0.6 * 0.15 + 0.1 * 0.60)
    assert peak == pytest.approx(2 * off)


def test_unpriced_or_malformed_models_cost_nothing_known():
    when = utc(2026, 11, 30, 12)
    assert price_for(DEFAULT_PRICES, "some-other-model", when) is None
    assert price_for({"m": {"offPeak": [1, "x", 3]}}, "m", when) is None
    assert price_for({"m": "free"}, "m", when) is None
    only_peak = {"m": {"peak": [1, 2, 3]}}
    assert price_for(only_peak, "m", when).cache_miss == 2.0  # one tier applies all day
    assert request_cost({}, "m", when, prompt_tokens=5, cache_hit_tokens=0,
                        cache_miss_tokens=5, completion_tokens=1) is None


# -- ledger -------------------------------------------------------------------------------
def test_default_path_follows_xdg_state_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert resolve_path("") == tmp_path / "flashls" / "usage.sqlite3"
    assert resolve_path("~/x.db").is_absolute()


def test_schema_is_versioned_and_reopening_does_not_migrate_again(tmp_path):
    path = tmp_path / "deep" / "l.sqlite3"
    ledger = Ledger(path)
    assert ledger.schema_version == SCHEMA_VERSION
    ledger.write([RequestRow(1.0, "s", "m", "fim", "completion", "shown", 3, 1, 2, 1)])
    ledger.close()
    again = Ledger(path)
    assert len(again.requests_between(0, 2)) == 1
    versions = again.db.execute("SELECT version FROM schema_version").fetchall()
    assert versions == [(v,) for v in range(1, SCHEMA_VERSION + 1)]
    tables = {r[0] for r in again.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables >= {"requests", "suggestions", "eval_runs", "eval_results", "schema_version"}
    assert again.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again.close()


def test_a_newer_schema_is_refused_with_a_clear_error(tmp_path):
    path = tmp_path / "l.sqlite3"
    Ledger(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_version VALUES (?, 0)", (SCHEMA_VERSION + 1,))
    db.commit()
    db.close()
    with pytest.raises(LedgerError, match="newer than this flashls"):
        Ledger(path)


def test_garbage_file_is_a_ledger_error(tmp_path):
    path = tmp_path / "l.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(LedgerError):
        Ledger(path)


def test_writer_batches_off_thread_and_flush_waits(tmp_path):
    path = tmp_path / "l.sqlite3"
    writer = LedgerWriter(path)
    for i in range(200):
        writer.submit("request", RequestRow(float(i), "s", "m", "fim", "completion", "shown"))
    writer.submit("suggestion", SuggestionRow("s", "s1", 1.0, "m"))
    writer.submit("accepted", ("s", "s1", 2.0))
    writer.submit("accepted", ("s", "s1", 3.0))  # a second accept does not move the time
    assert writer.flush()
    ledger = Ledger(path)
    assert len(ledger.requests_between(0, 1000)) == 200
    assert [s.accepted_ts for s in ledger.suggestions_between(0, 10)] == [2.0]
    ledger.close()
    writer.close()


def test_writer_on_an_unusable_path_drops_rows_without_raising(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    writer = LedgerWriter(blocker / "sub" / "l.sqlite3")  # parent is a file
    writer.submit("request", RequestRow(1.0, "s", "m", "fim", "completion", "shown"))
    assert not writer.wait_open()
    assert writer.error and "cannot open" in writer.error
    assert writer.flush()
    writer.close()


# -- sink ---------------------------------------------------------------------------------
def settings_with(path, **usage) -> Settings:
    s = Settings()
    return dataclasses.replace(s, usage=dataclasses.replace(s.usage, ledger_path=str(path),
                                                            **usage))


def result(model="deepseek-flash", hit=10, miss=30, out=5) -> ModelResult:
    return ModelResult("x", model, "fim", "stop", Usage(hit + miss, hit, miss, out), 0.02, 0.05)


def test_sink_pairs_concurrent_requests_by_task_and_counts_cost(tmp_path):
    prices = {"a": {"offPeak": [1, 2, 3], "peak": [1, 2, 3]},
              "b": {"offPeak": [10, 20, 30], "peak": [10, 20, 30]}}
    settings = settings_with(tmp_path / "l.sqlite3", prices=prices)
    starts = {"a": 1000.0, "b": 2000.0}  # the start time each request's row must carry
    now = {"t": 0.0}
    sink = LedgerSink(lambda: settings, clock=lambda: now["t"])

    async def one(model: str, finish_after: "asyncio.Event | None", fail: bool,
                  done: asyncio.Event) -> None:
        now["t"] = starts[model]
        sink.request_started("completion", model)
        await asyncio.sleep(0)  # let the other request start in between
        if finish_after is not None:
            await finish_after.wait()  # "a" started first and finishes last
        if fail:
            sink.request_finished("completion", None, AuthError("no", status=401), "error")
        else:
            sink.request_finished("completion", result(model), None, "shown")
        done.set()

    async def main() -> None:
        a_done, b_done = asyncio.Event(), asyncio.Event()
        await asyncio.gather(one("a", b_done, True, a_done), one("b", None, False, b_done))

    asyncio.run(main())
    assert sink.flush()
    ledger = Ledger(tmp_path / "l.sqlite3")
    rows = {r.model: r for r in ledger.requests_between(0, time.time() + 1)}
    ledger.close()
    sink.close()
    assert rows["a"].outcome == "error" and rows["a"].error == "AuthError 401"
    assert rows["a"].cost_usd is None
    assert (rows["a"].ts, rows["b"].ts) == (starts["a"], starts["b"])  # its own start
    assert rows["b"].cost_usd == pytest.approx((10 * 10 + 30 * 20 + 5 * 30) / 1e6)
    assert sink.session_cost_usd == pytest.approx(rows["b"].cost_usd)


def test_sink_stores_suggestion_text_only_when_opted_in(tmp_path):
    path = tmp_path / "l.sqlite3"
    for store in (False, True):
        settings = settings_with(path, store_code=store)
        sink = LedgerSink(lambda: settings)
        sink.suggestion_shown(Suggestion("s1", "line1\nline2", 0, 0, "m", "model"))
        sink.suggestion_accepted("s1")
        assert sink.flush()
        sink.close()
    ledger = Ledger(path)
    rows = ledger.suggestions_between(0, time.time() + 1)
    ledger.close()
    assert [(r.text, r.lines, r.accepted_ts is not None) for r in rows] == \
        [(None, 2, True), ("line1\nline2", 2, True)]


def test_sink_never_raises_into_the_engine(tmp_path):
    def broken_settings():
        raise RuntimeError("settings exploded")

    sink = LedgerSink(broken_settings)
    sink.request_started("completion", "m")
    sink.request_finished("completion", result(), None, "shown")
    sink.suggestion_shown(object())
    sink.suggestion_accepted("s1")
    assert sink.flush()


def test_sink_opens_nothing_until_the_first_event(tmp_path):
    path = tmp_path / "later.sqlite3"
    LedgerSink(lambda: settings_with(path))
    assert not path.exists()


# -- aggregation --------------------------------------------------------------------------
def test_percentiles_are_nearest_rank():
    values = list(range(1, 101))
    assert percentile(values, 50) == 50
    assert percentile(values, 95) == 95
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 50) is None


def test_summarize_counts_rates_and_latency_of_answered_requests_only():
    reqs = [RequestRow(1, "s", "m", "fim", "completion", "shown", 100, 75, 25, 10,
                       20.0, 100.0, 0.5),
            RequestRow(2, "s", "m", "fim", "completion", "shown", 100, 25, 75, 10,
                       30.0, 300.0, 0.25),
            RequestRow(3, "s", "m", "fim", "completion", "cancelled", total_ms=5000.0),
            RequestRow(4, "s", "x", "fim", "completion", "shown", 10, 0, 10, 1,
                       None, 50.0, None)]
    sugs = [SuggestionRow("s", "1", 1, "m", accepted_ts=2), SuggestionRow("s", "2", 2, "m")]
    out = summarize(reqs, sugs)
    assert out["requests"] == 4
    assert out["byOutcome"] == {"shown": 3, "cancelled": 1, "error": 0}
    assert out["acceptanceRate"] == 0.5
    assert out["cacheHitRatio"] == pytest.approx(100 / 210)
    assert out["latencyMs"] == {"p50": 100.0, "p95": 300.0}  # the cancelled 5 s is not in
    assert out["costUsd"] == pytest.approx(0.75)
    assert out["unpricedRequests"] == 1
    assert out["byModel"]["m"]["requests"] == 3
