"""`flashls eval` on fixtures/eval_sample against the fake DeepSeek, and case selection."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flashls.settings import DEFAULT_EXCLUDE
from flashls.tools.eval_cases import build_cases
from flashls.tools.eval_metrics import score
from tests.conftest import ROOT
from tests.fake_deepseek import FakeDeepSeek, Reply

SAMPLE = ROOT / "fixtures" / "eval_sample"
N = 12


def knowing_responder(cases, *, flash_knows=lambda i: i % 3 == 0, fail=lambda i: False):
    """Answers the hidden line when the request is for a known case: always for
    deepseek-v4-pro, for every third case for deepseek-flash."""
    def norm(text: str) -> str:  # context assembly may fold blank lines
        return re.sub(r"\s+", " ", text)

    keys = [(norm(c.text[:c.offset])[-100:], norm(c.text[c.offset:])[:50]) for c in cases]

    def respond(req):
        prompt = norm(req.body.get("prompt", ""))
        suffix = norm(req.body.get("suffix", ""))
        for i, case in enumerate(cases):
            if prompt.endswith(keys[i][0]) and suffix.startswith(keys[i][1]):
                if fail(i):
                    return Reply(status=500)
                if req.model == "deepseek-v4-pro" or flash_knows(i):
                    return Reply(text=case.expected)
                return Reply(text="wrong_guess()")
        return Reply(text="unknown_case()")
    return respond


def run_eval(fake_url: str, ledger: Path, *models: str, extra: tuple[str, ...] = (),
             key: str = "sk-eval") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "DEEPSEEK_API_KEY"}
    args = [sys.executable, "-m", "flashls", "eval", str(SAMPLE), "--cases", str(N),
            "--seed", "7", "--base-url", fake_url, "--api-key", key, "--ledger", str(ledger),
            "--concurrency", "3"]
    for m in models:
        args += ["--model", m]
    return subprocess.run(args + list(extra), capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)


@pytest.fixture
def cases():
    return build_cases(SAMPLE, N, 7, DEFAULT_EXCLUDE)


def test_two_models_side_by_side_then_resumed_from_the_ledger(tmp_path, cases):
    assert len(cases) == N
    ledger = tmp_path / "usage.sqlite3"
    report_md = tmp_path / "report.md"
    with FakeDeepSeek(knowing_responder(cases)) as fake:
        proc = run_eval(fake.url, ledger, "deepseek-flash", "deepseek-v4-pro",
                        extra=("--report", str(report_md)))
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        flash_exact = sum(1 for i in range(N) if i % 3 == 0)
        assert f"{N} cases from" in out
        assert "deepseek-v4-pro vs deepseek-flash" in out  # the comparison column
        assert f"({flash_exact}/{N})" in out and f"({N}/{N})" in out
        for metric in ("exact match", "edit similarity", "latency p50 / p95",
                       "cache-hit ratio", "cost (per case)"):
            assert metric in out
        assert f"only deepseek-v4-pro exact {N - flash_exact}" in out
        assert f"{N * 2}/{N * 2}" in proc.stderr  # the progress bar reached the end
        sent = fake.completion_requests()
        assert len(sent) == 2 * N
        assert all(r.path == "/beta/completions" for r in sent)
        assert "| exact match |" in report_md.read_text()

        # same arguments again: every case comes from the ledger, nothing is sent
        again = run_eval(fake.url, ledger, "deepseek-flash", "deepseek-v4-pro",
                         extra=("--json",))
        assert again.returncode == 0, again.stderr
        assert len(fake.completion_requests()) == 2 * N
        report = json.loads(again.stdout)
    flash, pro = report["models"]["deepseek-flash"], report["models"]["deepseek-v4-pro"]
    assert flash["exactMatches"] == flash_exact and pro["exactMatches"] == N
    assert pro["editSimilarity"] == 1.0 and 0 < flash["editSimilarity"] < 1.0
    assert flash["cases"] == pro["cases"] == N
    assert flash["promptTokens"] > 0 and flash["costUsd"] > 0
    assert 0 <= flash["cacheHitRatio"] <= 1
    assert report["headToHead"] == {"cases": N, "onlyA": 0, "onlyB": N - flash_exact,
                                    "both": flash_exact, "neither": 0}


def test_adding_a_model_reuses_results_and_failed_cases_are_retried(tmp_path, cases):
    ledger = tmp_path / "usage.sqlite3"
    failing = {1, 4}
    with FakeDeepSeek(knowing_responder(cases, fail=lambda i: i in failing)) as fake:
        first = run_eval(fake.url, ledger, "deepseek-flash", extra=("--json",))
        assert first.returncode == 0, first.stderr
        flash = json.loads(first.stdout)["models"]["deepseek-flash"]
        assert flash["outcomes"]["error"] >= len(failing)
        first_count = len(fake.completion_requests())

        fake.responder = knowing_responder(cases)  # the upstream recovers
        second = run_eval(fake.url, ledger, "deepseek-flash", "deepseek-v4-pro",
                          extra=("--json",))
        assert second.returncode == 0, second.stderr
        retried = fake.completion_requests()[first_count:]
    report = json.loads(second.stdout)
    errors_before = flash["outcomes"]["error"]
    # only the failed flash cases and the new model's cases were sent
    assert sum(1 for r in retried if r.model == "deepseek-flash") == errors_before
    assert sum(1 for r in retried if r.model == "deepseek-v4-pro") == N
    assert report["models"]["deepseek-flash"]["outcomes"]["error"] == 0


def test_rejected_key_stops_the_run_with_the_fix(tmp_path):
    with FakeDeepSeek(lambda req: Reply(text="x"), api_key="sk-right") as fake:
        proc = run_eval(fake.url, tmp_path / "l.sqlite3", "deepseek-flash", key="sk-wrong")
    assert proc.returncode == 1
    assert "401" in proc.stderr and "DEEPSEEK_API_KEY" in proc.stderr
    assert "sk-wrong" not in proc.stderr + proc.stdout


def test_bad_arguments_are_clear_errors(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DEEPSEEK_API_KEY"}
    base = [sys.executable, "-m", "flashls", "eval", "--ledger", str(tmp_path / "l")]
    no_key = subprocess.run(base + [str(SAMPLE)], capture_output=True, text=True, env=env,
                            cwd=ROOT, timeout=60)
    assert no_key.returncode == 2 and "no API key" in no_key.stderr
    missing = subprocess.run(base + [str(tmp_path / "nope"), "--api-key", "k"],
                             capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert missing.returncode == 2 and "is not a folder" in missing.stderr
    assert not (tmp_path / "l").exists()


# -- case selection -------------------------------------------------------------------
def test_selection_is_seeded_and_cases_hide_exactly_one_line(cases):
    assert [c.case_id for c in build_cases(SAMPLE, N, 7, DEFAULT_EXCLUDE)] == \
        [c.case_id for c in cases]
    assert [c.case_id for c in build_cases(SAMPLE, N, 8, DEFAULT_EXCLUDE)] != \
        [c.case_id for c in cases]
    for case in cases:
        original = (SAMPLE / case.rel).read_text()
        line = original.split("\n")[case.line]
        assert line.strip() == case.expected
        indent = line[: len(line) - len(line.lstrip())]
        # the document is the original with that line's content removed after its indent
        assert case.text[:case.offset].endswith("\n" + indent) or case.offset == len(indent)
        assert case.text[:case.offset] + line.lstrip() + case.text[case.offset:] == original


def test_only_allowed_files_inside_the_root_are_read(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "node_modules" / "dep").mkdir(parents=True)
    body = "def visible_function(value):\n    return value * 2\n"
    (root / "src" / "app.py").write_text(body)
    (root / "secrets.py").write_text("def leaked_secret(x):\n    return 'hunter2'\n")
    (root / "ignored.py").write_text("def ignored_by_git(x):\n    return x\n")
    (root / ".gitignore").write_text("ignored.py\n")
    (root / "node_modules" / "dep" / "index.js").write_text("function dep() {\n  return 1;\n}\n")
    (root / "blob.py").write_bytes(b"def x():\n    return 1\x00\x00\n")
    outside = tmp_path / "outside.py"
    outside.write_text("def outside_root(x):\n    return x + 1\n")
    (root / "link.py").symlink_to(outside)
    (root / "linkdir").symlink_to(tmp_path, target_is_directory=True)
    cases = build_cases(root, 100, 0, DEFAULT_EXCLUDE)
    assert {c.rel for c in cases} == {"src/app.py"}
    assert [c.expected for c in cases] == ["return value * 2"]
    extra = build_cases(root, 100, 0, DEFAULT_EXCLUDE + ["src/**"])
    assert extra == []


def test_scoring():
    assert score("return x + 1\nmore", "return x + 1") == (True, 1.0)
    assert score("  return x + 1  ", "return x + 1")[0] is True
    exact, sim = score("return x + 2", "return x + 1")
    assert not exact and 0.8 < sim < 1.0
    assert score("", "return x") == (False, 0.0)
