"""Per-language enable and "why is nothing offered" status reasons, through LSP with a
real flashls process and the fake DeepSeek."""

from __future__ import annotations

import socket

import pytest
from lsprotocol import types as lsp

from tests.conftest import base_settings, start_session
from tests.fake_deepseek import Reply
from tests.lsp_helpers import inline, open_doc
from tests.test_actions_e2e import SOURCE, list_actions, start as start_actions

PY = "def total(xs):\n    return \n"


@pytest.fixture(autouse=True)
def _no_key_in_environment(monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)


def collect_statuses(client) -> list[dict]:
    statuses: list[dict] = []
    client.feature("flashls/status")(lambda params: statuses.append(_plain(params)))
    return statuses


def _plain(params) -> dict:
    raw = params._asdict() if hasattr(params, "_asdict") else dict(params)
    reason = raw.get("reason")
    if reason is not None and hasattr(reason, "_asdict"):
        raw["reason"] = reason._asdict()
    return raw


def reasons(statuses: list[dict]) -> list[tuple[str, str]]:
    return [(s["reason"]["code"], s["reason"].get("uri", "")) for s in statuses
            if s.get("reason")]


def languages_settings(fake, languages: dict) -> dict:
    settings = base_settings(fake)
    settings["completion"]["languages"] = languages
    return settings


async def test_disabled_language_is_not_sent_and_says_why(client, fake, tmp_path):
    statuses = collect_statuses(client)
    await start_session(client, fake, tmp_path, settings=languages_settings(
        fake, {"*": True, "markdown": False}))
    md = open_doc(client, tmp_path / "notes.md", "# Notes\n\nSome text ", "markdown")
    assert await inline(client, md, 2, 10) == []
    assert await inline(client, md, 2, 10, invoked=True) == []
    assert fake.completion_requests() == []
    assert reasons(statuses) == [("language_disabled", md)]  # said once, not per request
    disabled = next(s for s in statuses if s.get("reason"))
    assert disabled["state"] == "disabled" and "markdown" in disabled["reason"]["message"]

    py = open_doc(client, tmp_path / "t.py", PY)
    assert len(await inline(client, py, 1, 11)) == 1
    assert len(fake.completion_requests()) == 1
    after = statuses[statuses.index(disabled) + 1:]
    assert after and after[0].get("reason") is None  # the old reason is cleared


async def test_star_false_enables_only_listed_languages(client, fake, tmp_path):
    statuses = collect_statuses(client)
    await start_session(client, fake, tmp_path, settings=languages_settings(
        fake, {"*": False, "python": True}))
    go = open_doc(client, tmp_path / "m.go", "package main\n\nfunc main() {\n\t\n}\n", "go")
    assert await inline(client, go, 3, 1) == []
    py = open_doc(client, tmp_path / "t.py", PY)
    assert len(await inline(client, py, 1, 11)) == 1
    assert len(fake.completion_requests()) == 1
    assert reasons(statuses) == [("language_disabled", go)]


async def test_bad_languages_value_is_refused_and_keeps_the_previous(client, fake, tmp_path):
    await start_session(client, fake, tmp_path, settings=languages_settings(
        fake, {"*": True, "python": "no"}))
    py = open_doc(client, tmp_path / "t.py", PY)
    assert len(await inline(client, py, 1, 11)) == 1  # the default (all on) stays
    view = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showSettings"))
    assert view["completion.languages"] == {"*": True}
    assert any("flashls.completion.languages" in m.message for m in client.messages)


async def test_toggle_scoped_to_one_language(client, fake, tmp_path):
    statuses = collect_statuses(client)
    await start_session(client, fake, tmp_path)
    py = open_doc(client, tmp_path / "t.py", PY)
    js = open_doc(client, tmp_path / "t.js", "function f() {\n  return \n}\n", "javascript")
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.toggleCompletions", arguments=[{"languageId": "python"}]))
    assert result == {"enabled": True, "languageId": "python", "languageEnabled": False}
    assert await inline(client, py, 1, 11) == []
    assert fake.completion_requests() == []
    assert len(await inline(client, js, 1, 9)) == 1  # other languages keep going
    assert reasons(statuses) == [("language_disabled", py)]
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.toggleCompletions", arguments=[{"languageId": "python"}]))
    assert result["languageEnabled"] is True
    assert len(await inline(client, py, 1, 11)) == 1
    with pytest.raises(Exception, match="languageId"):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="flashls.toggleCompletions", arguments=[{"languageId": 3}]))


async def test_excluded_credential_and_too_large_files_say_why(client, fake, tmp_path):
    statuses = collect_statuses(client)
    await start_session(client, fake, tmp_path)
    env = open_doc(client, tmp_path / ".env", "TOKEN=", "dotenv")
    assert await inline(client, env, 0, 6) == []
    built = open_doc(client, tmp_path / "dist" / "app.js", "let x = 1\n", "javascript")
    assert await inline(client, built, 0, 9) == []
    big = open_doc(client, tmp_path / "big.py", "x = 1\n\x00\n")  # binary: never sent
    assert await inline(client, big, 1, 0) == []
    assert fake.completion_requests() == []
    assert reasons(statuses) == [("credential_file", env), ("excluded", built),
                                 ("too_large", big)]
    said = {s["reason"]["code"]: s["reason"]["message"] for s in statuses if s.get("reason")}
    assert "credential file" in said["credential_file"]
    assert "excluded" in said["excluded"] and "binary" in said["too_large"]


async def test_no_api_key_says_why_and_sends_nothing(client, fake, tmp_path):
    statuses = collect_statuses(client)
    settings = {**base_settings(fake), "apiKey": ""}
    await start_session(client, fake, tmp_path, settings=settings)
    py = open_doc(client, tmp_path / "t.py", PY)
    assert await inline(client, py, 1, 11, invoked=True) == []
    assert fake.completion_requests() == []
    assert reasons(statuses) == [("no_api_key", py)]
    status = next(s for s in statuses if s.get("reason"))
    assert status["state"] == "error" and "DEEPSEEK_API_KEY" in status["reason"]["message"]


async def test_backing_off_after_429_says_why(client, fake, tmp_path):
    fake.responder = lambda req: Reply(status=429, headers={"Retry-After": "30"})
    statuses = collect_statuses(client)
    await start_session(client, fake, tmp_path)
    py = open_doc(client, tmp_path / "t.py", PY)
    assert await inline(client, py, 1, 11) == []
    assert len(fake.completion_requests()) == 1
    assert await inline(client, py, 1, 11, invoked=True) == []
    assert len(fake.completion_requests()) == 1  # the gate held the second one
    assert reasons(statuses) == [("backing_off", py)]


async def test_unreachable_endpoint_is_offline(client, fake, tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    statuses = collect_statuses(client)
    settings = {**base_settings(fake), "baseUrl": f"http://127.0.0.1:{port}"}
    await start_session(client, fake, tmp_path, settings=settings)
    py = open_doc(client, tmp_path / "t.py", PY)
    assert await inline(client, py, 1, 11, invoked=True) == []
    offline = [s for s in statuses if s.get("reason") and s["reason"]["code"] == "offline"]
    assert offline and offline[0]["state"] == "error"
    assert f"127.0.0.1:{port}" in offline[0]["reason"]["message"]


async def test_code_actions_follow_the_language_switch(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="x")
    _result, uri = await start_actions(client, fake, tmp_path)

    async def actions(target: str) -> list:
        return await list_actions(client, target)

    assert await actions(uri) != []
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.toggleCompletions", arguments=[{"languageId": "python"}]))
    assert await actions(uri) == []
    md = open_doc(client, tmp_path / "n.md", SOURCE, "markdown")
    assert await actions(md) != []
