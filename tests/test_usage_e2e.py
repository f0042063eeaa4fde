"""A real editor session against the fake DeepSeek: the ledger, flashls.showUsage and
`flashls stats --json` must agree with what the fake actually billed."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from lsprotocol import types as lsp

from tests.conftest import ROOT, base_settings, start_session
from tests.fake_deepseek import Reply
from tests.lsp_helpers import cancel_request, inline, inline_params, open_doc, send_cancellable

# Same price day and night, so the expected cost does not depend on when tests run.
PRICES = {"deepseek-flash": {"offPeak": [1.0, 10.0, 100.0], "peak": [1.0, 10.0, 100.0]}}


@pytest.fixture(autouse=True)
def _state_dir(tmp_path, monkeypatch):
    state = tmp_path / "xdg-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


def usage_settings(fake, ledger) -> dict:
    return {**base_settings(fake), "usage": {"ledgerPath": str(ledger), "prices": PRICES}}


def expected_from_fake(fake) -> dict:
    reqs = [r for r in fake.completion_requests() if r.completed]
    prompt = sum(r.usage["prompt_tokens"] for r in reqs)
    hit = sum(r.usage["prompt_cache_hit_tokens"] for r in reqs)
    miss = sum(r.usage["prompt_cache_miss_tokens"] for r in reqs)
    out = sum(r.usage["completion_tokens"] for r in reqs)
    return {"requests": len(reqs), "prompt": prompt, "hit": hit, "out": out,
            "cost": (hit * 1.0 + miss * 10.0 + out * 100.0) / 1e6}


async def test_session_ledger_counts_tokens_cache_and_cost(client, fake, tmp_path, _state_dir):
    replies = iter(["total += x", "return total", "print(total)", "x = 1"])
    fake.responder = lambda req: Reply(text=next(replies))
    statuses: list[dict] = []
    client.feature("flashls/status")(lambda params: statuses.append(params._asdict()))
    ledger = tmp_path / "ledger" / "usage.sqlite3"
    await start_session(client, fake, tmp_path, settings=usage_settings(fake, ledger))
    header = "".join(f"CONSTANT_{i} = {i} * 2  # a stable prefix\n" for i in range(12))
    text = header + "def total(xs):\n    total = 0\n    for x in xs:\n        \n    \n\n"
    uri = open_doc(client, tmp_path / "t.py", text)
    items = []
    for line, col in ((15, 8), (16, 4), (17, 0)):
        got = await inline(client, uri, line, col)
        assert len(got) == 1
        items.append(got[0])
    # the user accepts the first and the last suggestion (the client runs the command)
    for item in (items[0], items[2]):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command=item.command.command, arguments=item.command.arguments))

    view = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showUsage"))
    expected = expected_from_fake(fake)
    assert expected["requests"] == 3 and expected["hit"] > 0  # the cache was exercised
    week = view["json"]["last7Days"]
    assert week["requests"] == 3
    assert week["byOutcome"]["shown"] == 3
    assert week["suggestionsShown"] == 3
    assert week["suggestionsAccepted"] == 2
    assert week["acceptanceRate"] == pytest.approx(2 / 3)
    assert week["tokens"]["prompt"] == expected["prompt"]
    assert week["tokens"]["cacheHit"] == expected["hit"]
    assert week["tokens"]["completion"] == expected["out"]
    assert week["cacheHitRatio"] == pytest.approx(expected["hit"] / expected["prompt"])
    assert week["costUsd"] == pytest.approx(expected["cost"])
    assert week["latencyMs"]["p50"] is not None
    assert view["json"]["session"]["costUsd"] == pytest.approx(expected["cost"], abs=1e-6)
    assert "| suggestions accepted | 2 (66.7%)" in view["markdown"]
    # editors show the session's cost from the status notification
    costs = [s.get("sessionCostUsd") for s in statuses if "sessionCostUsd" in s]
    assert costs and costs[-1] == pytest.approx(expected["cost"], abs=1e-6)

    # the CLI reads the same ledger
    proc = subprocess.run([sys.executable, "-m", "flashls", "stats", "--json", "--ledger",
                           str(ledger)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    # (not "today": a run that crosses midnight puts the requests in yesterday)
    for window in ("last7Days",):
        assert report[window]["requests"] == 3
        assert report[window]["suggestionsAccepted"] == 2
        assert report[window]["tokens"]["cacheHit"] == expected["hit"]
        assert report[window]["costUsd"] == pytest.approx(expected["cost"])
    assert not (_state_dir / "flashls").exists()  # the configured path, nothing else


async def test_ledger_never_stores_code_by_default(client, fake, tmp_path):
    import sqlite3
    fake.responder = lambda req: Reply(text="secret_value_42")
    ledger = tmp_path / "usage.sqlite3"
    await start_session(client, fake, tmp_path, settings=usage_settings(fake, ledger))
    uri = open_doc(client, tmp_path / "s.py", "zqx_marker = \n")
    assert (await inline(client, uri, 0, 13))[0].insert_text == "secret_value_42"
    await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showUsage"))  # flushes the writer
    raw = ledger.read_bytes() + (tmp_path / "usage.sqlite3-wal").read_bytes()
    assert b"secret_value_42" not in raw and b"zqx_marker" not in raw
    rows = sqlite3.connect(ledger).execute("SELECT chars, text FROM suggestions").fetchall()
    assert rows == [(len("secret_value_42"), None)]


async def test_errors_and_cancellations_are_counted(client, fake, tmp_path):
    """One request the editor cancels while it streams, one the API fails: the ledger
    says exactly that (and bills neither)."""
    fake.responder = lambda req: Reply(text="slow_answer_text", chunk_chars=1,
                                       chunk_delay_s=0.2)
    ledger = tmp_path / "usage.sqlite3"
    await start_session(client, fake, tmp_path, settings=usage_settings(fake, ledger))
    uri = open_doc(client, tmp_path / "e.py", "a = \nb = \n")
    msg_id, answer = send_cancellable(client, lsp.TEXT_DOCUMENT_INLINE_COMPLETION,
                                      inline_params(uri, 0, 4, invoked=True))
    await asyncio.to_thread(fake.wait_for_requests, 1)  # streaming now (3 s to go)
    cancel_request(client, msg_id)
    with pytest.raises(Exception, match="cancel|Cancel"):
        await answer
    assert await until(lambda: fake.completion_requests()[0].aborted)  # stream closed

    fake.responder = lambda req: Reply(status=500)
    assert await inline(client, uri, 1, 4, invoked=True) == []
    view = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showUsage", arguments=[{"days": 1}]))
    day = view["json"]["last1Days"]
    assert len(fake.completion_requests()) == 2
    assert day["requests"] == 2
    assert day["byOutcome"] == {"shown": 0, "cancelled": 1, "error": 1}
    assert day["costUsd"] == 0


async def until(predicate, timeout_s: float = 10.0) -> bool:
    """Wait for a condition the fake or the server reports (no fixed sleep)."""
    for _ in range(int(timeout_s / 0.02)):
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return predicate()
