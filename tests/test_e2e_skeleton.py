"""End to end: a real flashls process, a real HTTP client, the fake DeepSeek on loopback."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as lsp

from tests.conftest import base_settings, start_session
from tests.fake_deepseek import Reply
from tests.lsp_helpers import (cancel_request, change, inline, inline_params, open_doc,
                               send_cancellable)


async def test_initialize_advertises_inline_completion(client, fake, tmp_path):
    result = await start_session(client, fake, tmp_path)
    caps = result.capabilities
    assert caps.inline_completion_provider is not None
    assert caps.completion_provider is not None
    assert caps.text_document_sync.change == lsp.TextDocumentSyncKind.Incremental
    assert result.server_info.name == "flashls"


async def test_suggestion_is_the_models_text_at_the_cursor(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="b)")
    await start_session(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "m.py", "def add(a, b):\n    return add(a, \n")
    items = await inline(client, uri, 1, 18)
    assert [i.insert_text for i in items] == ["b)"]
    assert items[0].range.start == lsp.Position(1, 18)
    req = fake.completion_requests()[-1]
    assert req.path == "/beta/completions"
    assert req.body["model"] == "deepseek-flash"
    assert req.body["prompt"].endswith("def add(a, b):\n    return add(a, ")
    assert req.body["suffix"].startswith("\n")
    assert req.body["max_tokens"] <= 64
    assert req.body["stream"] is True
    assert req.headers["authorization"] == "Bearer sk-test-key-1234"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
async def test_multibyte_edits_keep_positions_exact(client, fake, tmp_path, encoding):
    """Emoji and CJK before the cursor must not shift it, whatever the encoding."""
    fake.responder = lambda req: Reply(text="done")
    await start_session(client, fake, tmp_path, encoding=encoding)
    text = "s = '😀中'\n"
    uri = open_doc(client, tmp_path / "e.py", text)
    units = (lambda s: len(s.encode("utf-16-le")) // 2) if encoding == "utf-16" else (
        lambda s: len(s.encode()))
    # type after the string, char by char, including more emoji
    line = "s = '😀中'"
    version = 1
    for ch in " + '🎉文字' # ":
        version += 1
        col = units(line)
        change(client, uri, version, (0, col), (0, col), ch)
        line += ch
    items = await inline(client, uri, 0, units(line))
    assert [i.insert_text for i in items] == ["done"]
    req = fake.completion_requests()[-1]
    assert req.body["prompt"].endswith(line)
    assert req.body["suffix"] == "\n"


async def test_chat_endpoint_disables_thinking_and_caps_tokens(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="x + 1")
    await start_session(client, fake, tmp_path,
                        settings=base_settings(fake, endpoint="chat", maxTokens=17))
    uri = open_doc(client, tmp_path / "c.py", "def inc(x):\n    return \n")
    items = await inline(client, uri, 1, 11)
    assert [i.insert_text for i in items] == ["x + 1"]
    req = fake.completion_requests()[-1]
    assert req.path == "/chat/completions"
    assert req.body["thinking"] == {"type": "disabled"}
    assert req.body["max_tokens"] == 17


async def test_invalid_setting_is_reported_and_previous_value_kept(client, fake, tmp_path):
    settings = base_settings(fake, endpoint="telepathy", maxTokens=-3)
    await start_session(client, fake, tmp_path, settings=settings)
    uri = open_doc(client, tmp_path / "v.py", "x = \n")
    items = await inline(client, uri, 0, 4)
    assert items  # still serving
    texts = [m.message for m in client.messages]
    # told once each, although the same object came as initializationOptions and pull
    assert len([t for t in texts if "completion.endpoint" in t and "telepathy" in t]) == 1
    assert len([t for t in texts if "completion.maxTokens" in t]) == 1
    req = fake.completion_requests()[-1]
    assert req.path == "/beta/completions" and req.body["max_tokens"] == 64


async def test_settings_change_applies_without_restart(client, fake, tmp_path):
    await start_session(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "s.py", "y = \n")
    await inline(client, uri, 0, 4)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"flashls": {**base_settings(fake), "model": "deepseek-v4-pro"}}))
    await inline(client, uri, 0, 4, invoked=True)
    assert fake.completion_requests()[-1].body["model"] == "deepseek-v4-pro"


async def test_cancel_during_debounce_makes_no_model_call(client, fake, tmp_path):
    await start_session(client, fake, tmp_path,
                        settings=base_settings(fake, debounceMs=500))
    uri = open_doc(client, tmp_path / "d.py", "z = \n")
    msg_id, future = send_cancellable(client, lsp.TEXT_DOCUMENT_INLINE_COMPLETION,
                                      inline_params(uri, 0, 4))
    cancel_request(client, msg_id)  # inside the 500 ms wait
    with pytest.raises(Exception, match="cancel"):
        await future
    stats = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.debugStats"))
    assert stats["jobs"] == 0 and stats["generations"] == 0  # nothing left to send later
    assert fake.completion_requests() == []


async def test_newer_request_supersedes_older_without_model_call(client, fake, tmp_path):
    await start_session(client, fake, tmp_path, settings=base_settings(fake, debounceMs=300))
    uri = open_doc(client, tmp_path / "n.py", "a = \n")
    first = asyncio.ensure_future(inline(client, uri, 0, 4))
    await asyncio.sleep(0)  # sent (the pipe keeps the order: the server sees it first)
    change(client, uri, 2, (0, 4), (0, 4), "1")
    second = await inline(client, uri, 0, 5)
    assert list(await first) == []
    assert [i.insert_text for i in second] == ["fake_completion()"]
    assert len(fake.completion_requests()) == 1
    assert fake.completion_requests()[0].body["prompt"].endswith("a = 1")


async def test_cancel_during_generation_aborts_the_stream(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="abcdefghijklmnop", chunk_delay_s=0.3, chunk_chars=1)
    await start_session(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "g.py", "b = \n")
    msg_id, future = send_cancellable(client, lsp.TEXT_DOCUMENT_INLINE_COMPLETION,
                                      inline_params(uri, 0, 4))
    await asyncio.to_thread(fake.wait_for_requests, 1)  # streaming: 4.8 s to go
    cancel_request(client, msg_id)
    with pytest.raises(Exception, match="cancel"):
        await future
    for _ in range(50):
        if fake.completion_requests()[0].aborted:
            break
        await asyncio.sleep(0.05)
    req = fake.completion_requests()[0]
    assert req.aborted and not req.completed


async def test_auth_error_told_once_then_no_more_requests(client, fake, tmp_path):
    fake.responder = lambda req: Reply(status=401)
    await start_session(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "k.py", "c = \n")
    for _ in range(3):
        assert await inline(client, uri, 0, 4) == []
    assert len(fake.completion_requests()) == 1
    errors = [m for m in client.messages if "401" in m.message]
    assert len(errors) == 1 and "apiKey" in errors[0].message
    assert "sk-test-key-1234" not in errors[0].message
    # a new key re-opens the gate
    fake.responder = lambda req: Reply(text="ok")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"flashls": {**base_settings(fake), "apiKey": "sk-new"}}))
    assert [i.insert_text for i in await inline(client, uri, 0, 4)] == ["ok"]


async def test_completion_fallback_for_clients_without_inline(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="total + 1")
    await start_session(client, fake, tmp_path, inline=False)
    uri = open_doc(client, tmp_path / "f.py", "total = 0\nnew = \n")
    result = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(1, 6)))
    assert len(result.items) == 1
    edit = result.items[0].text_edit
    assert edit.new_text == "total + 1"
    assert edit.range.start == lsp.Position(1, 6)


async def test_selected_completion_item_is_extended_over_its_range(client, fake, tmp_path):
    """With a popup item selected (`pri` → `print`), the suggestion starts with it."""
    fake.responder = lambda req: Reply(text="(total)")
    await start_session(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "p.py", "total = 3\npri\n")
    result = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(1, 3),
        context=lsp.InlineCompletionContext(
            trigger_kind=lsp.InlineCompletionTriggerKind.Automatic,
            selected_completion_info=lsp.SelectedCompletionInfo(
                range=lsp.Range(lsp.Position(1, 0), lsp.Position(1, 3)), text="print"))))
    items = list(result.items)
    assert [i.insert_text for i in items] == ["print(total)"]
    assert items[0].range == lsp.Range(lsp.Position(1, 0), lsp.Position(1, 3))
    assert fake.completion_requests()[-1].body["prompt"].endswith("total = 3\nprint")
