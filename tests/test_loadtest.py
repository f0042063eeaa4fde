"""`flashls loadtest` against a fake server with a fixed number of concurrent slots and
a queue: the knee it finds is the slot count (±1 step) and the developer estimate
follows from the throughput there; bounded, and refuses a paid API."""

from __future__ import annotations

import json
import math

import pytest

from flashls.cli import main
from flashls.tools import loadtest_report as rep
from flashls.tools.loadtest import Budget, LoadOptions, cost_estimate, loadtest
from tests.fake_deepseek import FakeDeepSeek, Reply
from tests.fake_providers import FakeProvider, base_url_for

SLOTS = 4
SERVICE_S = 0.3  # every answer takes this long once it holds a slot


def write_repo(root) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "calc.py").write_text(
        "def add(a, b):\n    total = a + b\n    return total\n\n\n"
        "def scale(values, factor):\n    result = [v * factor for v in values]\n"
        "    return result\n")
    (root / "pkg" / "names.py").write_text(
        "class Greeter:\n    def __init__(self, name):\n        self.name = name\n\n"
        "    def greet(self):\n        message = f'hello {self.name}'\n        return message\n")


def test_ramp_steps_double_up_to_the_maximum():
    assert rep.ramp_steps(16) == [1, 2, 4, 8, 16]
    assert rep.ramp_steps(12) == [1, 2, 4, 8, 12]
    assert rep.ramp_steps(1) == [1]


def step(c, p99, rps=10.0, errors=0):
    return {"concurrency": c, "p99Ms": p99, "throughputRps": rps, "errors": errors}


def test_knee_is_the_last_step_before_p99_turns_up():
    assert rep.find_knee([step(1, 100), step(2, 105), step(4, 120), step(8, 230)]) == 4
    assert rep.find_knee([step(1, 100), step(2, 400)]) == 1
    assert rep.find_knee([step(1, 100), step(2, 110), step(4, 100, errors=3)]) == 2
    assert rep.find_knee([]) is None
    # a slow first step (cold connection, warm-up) does not hide the turn
    assert rep.find_knee([step(1, 550), step(2, 470), step(4, 340), step(8, 790)]) == 4


def test_developers_follow_littles_law():
    assert rep.developers_served(10.0, 300) == 120  # 36,000 requests/h over 300 each
    assert rep.developers_served(0.0, 300) == 0
    cap = rep.capacity([step(1, 100, 5.0), step(2, 110, 9.0), step(4, 300, 9.5)], 200, 360)
    assert cap["knee"] == 2 and cap["developersAtKnee"] == 90
    assert cap["atTarget"] == 2 and cap["developersAtTarget"] == 90


def test_budget_caps_requests_and_time():
    now = [0.0]
    budget = Budget(10, 5.0, clock=lambda: now[0])
    assert budget.take(4) == 4 and budget.take(8) == 6 and budget.stopped == "request limit reached"
    budget = Budget(100, 5.0, clock=lambda: now[0])
    now[0] = 6.0
    assert budget.take(1) == 0 and budget.stopped == "time limit reached"


def test_cost_estimate_is_zero_for_an_unpriced_local_model_and_positive_for_deepseek():
    opts = LoadOptions(root=".", model="deepseek-flash")
    assert cost_estimate(opts, 1500) > 0
    assert cost_estimate(LoadOptions(root=".", model="local-model"), 1500) is None


async def test_the_knee_is_the_servers_slot_count(tmp_path):
    write_repo(tmp_path)
    with FakeProvider("openai", lambda r: Reply(text="x = 1", first_token_delay_s=SERVICE_S),
                      models=("qwen2.5-coder-7b",), slots=SLOTS) as fake:
        opts = LoadOptions(root=str(tmp_path), provider="openai", base_url=base_url_for(fake),
                           model="qwen2.5-coder-7b", max_concurrency=16, long_requests=1,
                           repeat=8, requests_per_dev_hour=360, p99_target_ms=10_000,
                           context_limit=2048, ledger=str(tmp_path / "none.sqlite3"))
        lines: list[str] = []
        report = await loadtest(opts, say=lines.append)
        sent = len(fake.completion_requests())
        peak = fake.peak_active
    assert peak == SLOTS  # the fake really queued the rest
    cap = report["capacity"]
    assert cap["knee"] in (SLOTS // 2, SLOTS, SLOTS * 2)
    knee_step = next(s for s in report["ramp"] if s["concurrency"] == cap["knee"])
    assert cap["developersAtKnee"] == math.floor(knee_step["throughputRps"] * 3600 / 360)
    assert report["requestsPerDevHourSource"] == "given"
    # the ramp stops two steps past the knee; everything that went out is counted
    assert report["ramp"][-1]["concurrency"] <= cap["knee"] * 4
    assert sent == report["requestsSent"]
    assert report["longInput"]["errors"] == 0 and report["longInput"]["promptTokens"] > 1000
    assert report["stability"] == {"requests": 8, "errors": 0, "distinctOutputs": 1,
                                   "mostCommonShare": 1.0}
    assert any("concurrency   4" in line for line in lines)  # progress per step
    assert "knee" in rep.render_text(report)


async def test_the_run_is_bounded_in_requests(tmp_path):
    write_repo(tmp_path)
    with FakeProvider("ollama", lambda r: Reply(text="x"), models=("m",)) as fake:
        opts = LoadOptions(root=str(tmp_path), provider="ollama", base_url=fake.url, model="m",
                           max_concurrency=64, max_requests=30, long_requests=1, repeat=5,
                           requests_per_dev_hour=300)
        report = await loadtest(opts, say=lambda _: None)
        assert len(fake.completion_requests()) == report["requestsSent"] <= 30
    assert report["stoppedEarly"] == "request limit reached"


async def test_the_run_is_bounded_in_time(tmp_path):
    """A run out of time stops taking requests mid-step: the fake's log, not a clock,
    shows that the ramp did not run to the end."""
    write_repo(tmp_path)
    with FakeProvider("ollama", lambda r: Reply(text="x", first_token_delay_s=0.2),
                      models=("m",)) as fake:
        opts = LoadOptions(root=str(tmp_path), provider="ollama", base_url=fake.url, model="m",
                           max_concurrency=64, max_requests=10_000, max_seconds=1.0,
                           long_requests=1, repeat=5, requests_per_dev_hour=300)
        report = await loadtest(opts, say=lambda _: None)
        sent = len(fake.completion_requests())
    assert report["stoppedEarly"] == "time limit reached"
    assert sent == report["requestsSent"] < 100  # a full ramp to 64 would send ~500


async def test_long_input_errors_are_reported(tmp_path):
    write_repo(tmp_path)
    def responder(req):
        too_long = len(req.body.get("prompt", "")) > 3000
        return Reply(status=400) if too_long else Reply(text="y")
    with FakeProvider("openai", responder, models=("m",)) as fake:
        opts = LoadOptions(root=str(tmp_path), provider="openai", base_url=base_url_for(fake),
                           model="m", max_concurrency=2, long_requests=2, repeat=2,
                           context_limit=4096, requests_per_dev_hour=300)
        report = await loadtest(opts, say=lambda _: None)
    assert report["longInput"]["errors"] == 2
    assert "BadRequestError 400" in report["longInput"]["errorKinds"][0]


def test_cli_refuses_a_paid_api_without_the_flag_and_prints_a_cost(tmp_path, capsys):
    write_repo(tmp_path)
    with FakeDeepSeek(lambda r: Reply(text="z")) as fake:
        code = main(["loadtest", str(tmp_path), "--base-url", fake.url,
                     "--api-key", "sk-test", "--out", str(tmp_path / "out")])
        assert fake.completion_requests() == []
    err = capsys.readouterr().err
    assert code == 2 and "paid API" in err and "$" in err and "--allow-paid" in err
    assert not (tmp_path / "out").exists()


def test_cli_writes_json_and_chart_with_the_flag(tmp_path, capsys):
    write_repo(tmp_path)
    out = tmp_path / "out"
    with FakeDeepSeek(lambda r: Reply(text="z")) as fake:
        code = main(["loadtest", str(tmp_path), "--base-url", fake.url, "--api-key", "sk-t",
                     "--allow-paid", "--max-concurrency", "2", "--long-requests", "1",
                     "--repeat", "2", "--context-limit", "1024", "--out", str(out),
                     "--requests-per-dev-hour", "200"])
    assert code == 0
    data = json.loads((out / "loadtest.json").read_text())
    assert [s["concurrency"] for s in data["ramp"]] == [1, 2]
    err = capsys.readouterr().err
    try:
        import matplotlib  # noqa: F401
        assert (out / "loadtest.png").read_bytes()[:4] == b"\x89PNG"
    except ImportError:
        assert "matplotlib is not installed" in err and not (out / "loadtest.png").exists()


@pytest.mark.parametrize("argv,message", [
    (["--max-concurrency", "0"], "--max-concurrency"),
    (["--base-url", "ftp://x"], "http(s)"),
    (["--fim-template", "nope"], "--fim-template"),
    (["--header", "X Bad=1"], "not a valid HTTP header name"),
])
def test_cli_rejects_bad_options(tmp_path, capsys, argv, message):
    try:
        code = main(["loadtest", str(tmp_path), "--provider", "ollama", *argv])
    except SystemExit as exit_:  # argparse's own rejection
        code = exit_.code
    assert code == 2 and message in capsys.readouterr().err
