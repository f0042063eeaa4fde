"""`flashls doctor --provider X` against each provider's fake: what passes, and what it
tells the user to fix when the server is down, the model missing or FIM unsupported."""

from __future__ import annotations

import json
import socket

import pytest

from flashls.cli import main
from tests.fake_deepseek import Reply
from tests.fake_providers import KINDS, FakeProvider, base_url_for

MODEL = {"openai": "Qwen/Qwen2.5-Coder-7B", "llamacpp": "qwen2.5-coder-1.5b",
         "ollama": "qwen2.5-coder:1.5b", "mistral": "codestral-latest"}


def doctor(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["doctor", "--json", "--timeout", "5", *argv])
    return code, json.loads(capsys.readouterr().out)


def by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


@pytest.mark.parametrize("kind", KINDS)
def test_every_check_passes_against_a_working_server(kind, capsys, monkeypatch):
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    key = "mk-test-1234" if kind == "mistral" else None
    with FakeProvider(kind, lambda r: Reply(text="a + b"), models=(MODEL[kind],),
                      api_key=key) as fake:
        args = ["--provider", kind, "--base-url", base_url_for(fake), "--model", MODEL[kind]]
        code, report = doctor(capsys, *args, *(["--api-key", key] if key else []))
        paths = {r.path for r in fake.completion_requests()}
    checks = by_name(report)
    assert code == 0 and report["ok"], report
    assert checks["FIM template"]["detail"].startswith("qwen" if kind != "mistral" else "codestral")
    assert checks["FIM completion"]["status"] == "ok"
    assert checks["Chat (code actions)"]["status"] == "ok"
    assert len(paths) == 2  # the FIM and the chat endpoint were both really called
    if kind != "mistral":
        assert checks["API key"]["status"] == "ok" and "none set" in checks["API key"]["detail"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_unreachable_server_says_how_to_start_it(kind, capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens once closed
    code, report = doctor(capsys, "--provider", kind, "--base-url", f"http://127.0.0.1:{port}",
                          "--model", MODEL[kind], "--api-key", "k")
    checks = by_name(report)
    assert code == 1 and checks["Endpoint reachable"]["status"] == "fail"
    hint = {"openai": "vllm serve", "llamacpp": "llama-server", "ollama": "ollama serve",
            "mistral": "HTTPS_PROXY"}[kind]
    assert hint in checks["Endpoint reachable"]["fix"]
    assert checks["FIM completion"]["status"] == "skip"


def test_a_missing_ollama_model_says_to_pull_it(capsys):
    with FakeProvider("ollama", models=("llama3:8b",)) as fake:
        code, report = doctor(capsys, "--provider", "ollama", "--base-url", fake.url,
                              "--model", "qwen2.5-coder:1.5b")
    checks = by_name(report)
    assert code == 1 and checks["Model present"]["status"] == "fail"
    assert "ollama pull qwen2.5-coder:1.5b" in checks["Model present"]["fix"]
    assert "llama3:8b" in checks["Model present"]["detail"]


def test_llamacpp_without_fim_tokens_points_at_the_chat_endpoint(capsys):
    def responder(req):
        if req.path == "/infill":
            return Reply(status=501)
        return Reply(text="OK")
    with FakeProvider("llamacpp", responder) as fake:
        code, report = doctor(capsys, "--provider", "llamacpp", "--base-url", fake.url,
                              "--model", "tiny")
    checks = by_name(report)
    assert code == 1 and checks["FIM completion"]["status"] == "fail"
    assert "endpoint" in checks["FIM completion"]["fix"] and "chat" in checks["FIM completion"]["fix"]
    assert checks["Chat (code actions)"]["status"] == "ok"
    assert checks["FIM template"]["status"] == "warn"  # "tiny" names no model family


def test_mistral_without_a_key_fails_the_key_check(capsys, monkeypatch):
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    with FakeProvider("mistral", models=("codestral-latest",), api_key="mk-1") as fake:
        code, report = doctor(capsys, "--provider", "mistral", "--base-url", base_url_for(fake),
                              "--model", "codestral-latest")
    checks = by_name(report)
    assert code == 1 and checks["API key"]["status"] == "fail"
    assert "MISTRAL_API_KEY" in checks["API key"]["fix"]
    assert checks["Key accepted"]["status"] == "fail"
