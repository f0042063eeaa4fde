"""`flashls eval --vs-provider`: two providers' models side by side on the same cases."""

from __future__ import annotations

import json

from flashls.cli import main
from tests.fake_deepseek import FakeDeepSeek, Reply
from tests.fake_providers import FakeProvider


def write_repo(root) -> None:
    (root / "calc.py").write_text(
        "def add(a, b):\n    total = a + b\n    return total\n\n\n"
        "def scale(values, factor):\n    result = [v * factor for v in values]\n"
        "    return result\n\n\nclass Box:\n    def __init__(self, size):\n"
        "        self.size = size\n")


def test_deepseek_and_ollama_side_by_side(tmp_path, capsys):
    write_repo(tmp_path)
    ledger = tmp_path / "ledger.sqlite3"
    with FakeDeepSeek(lambda r: Reply(text="total = a + b")) as ds, \
            FakeProvider("ollama", lambda r: Reply(text="return total"),
                         models=("qwen2.5-coder:1.5b",)) as ollama:
        code = main(["eval", str(tmp_path), "--cases", "4", "--api-key", "sk-eval-1",
                     "--base-url", ds.url, "--vs-provider", "ollama", "--vs-base-url",
                     ollama.url, "--vs-model", "qwen2.5-coder:1.5b", "--ledger", str(ledger),
                     "--json"])
        ds_requests = ds.completion_requests()
        ollama_requests = ollama.completion_requests()
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["models"]) == {"deepseek:deepseek-flash", "ollama:qwen2.5-coder:1.5b"}
    assert len(ds_requests) == 4 and len(ollama_requests) == 4
    assert all(r.path == "/api/generate" for r in ollama_requests)
    assert "authorization" not in ollama_requests[0].headers  # the DeepSeek key stays there
    assert ds_requests[0].headers["authorization"] == "Bearer sk-eval-1"
    assert "headToHead" in report
    # the same cases on both sides
    cases = {}
    for row in report["perCase"]:
        cases.setdefault(row["model"], set()).add(row["caseId"])
    assert cases["deepseek:deepseek-flash"] == cases["ollama:qwen2.5-coder:1.5b"]
    targets = {t["label"]: t for t in report["run"]["targets"]}
    assert targets["ollama:qwen2.5-coder:1.5b"]["baseUrl"] == ollama.url
    local = report["models"]["ollama:qwen2.5-coder:1.5b"]
    assert local["costUsd"] == 0 and local["unpriced"] == 0  # self-hosted: priced at zero
    assert report["models"]["deepseek:deepseek-flash"]["costUsd"] > 0


def test_a_local_provider_needs_no_key(tmp_path, capsys, monkeypatch):
    write_repo(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeProvider("openai", lambda r: Reply(text="total = a + b"), models=("qwen-7b",)) as f:
        code = main(["eval", str(tmp_path), "--cases", "2", "--provider", "openai",
                     "--base-url", f.url + "/v1", "--model", "qwen-7b",
                     "--ledger", str(tmp_path / "l.sqlite3"), "--json"])
        assert len(f.completion_requests()) == 2
    assert code == 0
    assert set(json.loads(capsys.readouterr().out)["models"]) == {"qwen-7b"}
