"""`flashls doctor` against the fake DeepSeek: each failure is named, with its fix."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from contextlib import contextmanager

import pytest

from tests.conftest import ROOT
from tests.fake_deepseek import FakeDeepSeek, Reply

KEY = "sk-doctor-good-key"


def doctor(*args: str, env_key: str | None = None) -> tuple[int, dict, str]:
    env = {k: v for k, v in os.environ.items() if k != "DEEPSEEK_API_KEY"}
    if env_key is not None:
        env["DEEPSEEK_API_KEY"] = env_key
    proc = subprocess.run([sys.executable, "-m", "flashls", "doctor", "--json", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


@pytest.fixture
def guarded():
    with FakeDeepSeek(lambda req: Reply(text="OK"), api_key=KEY) as server:
        yield server


@contextmanager
def refusing_port():
    """A loopback port bound for the whole block but never listening: connections are
    refused, and no other process can take the port meanwhile (a closed port can)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def test_all_checks_pass_and_requests_are_tiny(guarded):
    code, report, _ = doctor("--base-url", guarded.url, env_key=KEY)
    assert code == 0 and report["ok"]
    checks = by_name(report)
    assert {c["status"] for c in checks.values()} == {"ok"}
    assert set(checks) >= {"API key", "Endpoint reachable", "Key accepted", "Model name",
                           "Chat (thinking disabled)", "FIM endpoint", "Round trip"}
    chat = [r for r in guarded.requests if r.path == "/chat/completions"]
    fim = [r for r in guarded.requests if r.path == "/beta/completions"]
    assert chat and chat[0].body["thinking"] == {"type": "disabled"}
    assert chat[0].body["max_tokens"] == 1 and chat[0].body["model"] == "deepseek-flash"
    assert fim and all(r.body["max_tokens"] == 1 for r in fim)
    assert "ms" in checks["Round trip"]["detail"]


def test_missing_key_is_reported_with_fix(guarded):
    code, report, _ = doctor("--base-url", guarded.url)
    assert code == 1 and not report["ok"]
    key = by_name(report)["API key"]
    assert key["status"] == "fail" and "DEEPSEEK_API_KEY" in key["fix"]
    assert by_name(report)["Endpoint reachable"]["status"] == "ok"
    assert guarded.completion_requests() == []  # nothing billable without a key


def test_rejected_key_401_is_reported_with_fix(guarded):
    code, report, _ = doctor("--base-url", guarded.url, "--api-key", "sk-wrong")
    assert code == 1
    check = by_name(report)["Key accepted"]
    assert check["status"] == "fail" and "401" in check["detail"]
    assert "platform.deepseek.com" in check["fix"]
    assert by_name(report)["FIM endpoint"]["status"] == "skip"
    assert "sk-wrong" not in json.dumps(report)


def test_unreachable_endpoint_is_reported_with_fix():
    with refusing_port() as port:
        code, report, _ = doctor("--base-url", f"http://127.0.0.1:{port}", "--timeout", "3",
                                 env_key=KEY)
    assert code == 1
    check = by_name(report)["Endpoint reachable"]
    assert check["status"] == "fail" and "cannot reach" in check["detail"]
    assert "--base-url" in check["fix"] and "HTTPS_PROXY" in check["fix"]
    assert by_name(report)["Chat (thinking disabled)"]["status"] == "skip"


def test_unknown_model_and_broken_fim_are_reported(guarded):
    guarded.responder = lambda req: (Reply(status=404, error_body='{"error": {"message": '
                                           '"no such endpoint"}}')
                                     if req.path == "/beta/completions" else Reply(text="OK"))
    code, report, _ = doctor("--base-url", guarded.url, "--model", "deepseek-nope",
                             env_key=KEY)
    assert code == 1
    checks = by_name(report)
    assert checks["Model name"]["status"] == "fail"
    assert "deepseek-flash" in checks["Model name"]["detail"]  # what is offered
    assert checks["FIM endpoint"]["status"] == "fail"
    assert "completion.endpoint" in checks["FIM endpoint"]["fix"]


def test_text_output_names_failures_and_fixes(guarded):
    env = {k: v for k, v in os.environ.items() if k != "DEEPSEEK_API_KEY"}
    proc = subprocess.run([sys.executable, "-m", "flashls", "doctor", "--base-url",
                           guarded.url, "--api-key", "sk-wrong"], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)
    assert proc.returncode == 1
    assert "FAIL  Key accepted" in proc.stdout
    assert "fix: The API rejected the key (401)" in proc.stdout
    assert "1 check(s) failed: Key accepted" in proc.stdout
