"""Bad input from the client: clear errors or safe no-ops, never a crash or a corrupt document.

The server runs as a subprocess driven by a raw JSON-RPC client (`benchmarks.soak.RawLsp`)
so the tests can write bytes no well-behaved client library would. Document text is
verified through `flashls.showContext`, which shows exactly what would be sent.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import pytest_asyncio

from benchmarks.soak import RawLsp
from tests.fake_deepseek import FakeDeepSeek, Reply

KEY = "sk-badinput-key-0123456789"
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INVALID_REQUEST = -32600


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def fake():
    server = FakeDeepSeek(lambda req: Reply(text="ok()")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def tmp_path(tmp_path_factory):
    """One workspace for the module: every test uses its own file names in it."""
    return tmp_path_factory.mktemp("ws")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(fake, tmp_path):
    """ONE server process takes all the bad input of this module, test after test."""
    client = RawLsp({"baseUrl": fake.url, "apiKey": KEY,
                     "completion": {"debounceMs": 0, "timeoutMs": 3000}})
    await client.start()
    await client.initialize(tmp_path)
    yield client
    assert await client.shutdown() == 0  # ...and still exits cleanly at the end
    assert KEY.encode() not in client.stderr


@pytest_asyncio.fixture(loop_scope="module")
async def raw(server):
    yield server
    # after every test: the server is alive, answers, and never echoed the key
    alive = await server.command("flashls.showSettings")
    assert "result" in alive, alive
    assert server.proc.returncode is None
    assert not any(KEY in json.dumps(n) for n in server.notifications)


async def context_at(raw: RawLsp, uri: str, line: int, character: int) -> dict:
    answer = await raw.command("flashls.showContext",
                               {"uri": uri, "position": {"line": line, "character": character}})
    return answer


async def text_around(raw: RawLsp, uri: str, line: int, character: int) -> tuple[str, str]:
    """(prompt, suffix) the server would send at a position: its view of the text."""
    answer = await context_at(raw, uri, line, character)
    assert "result" in answer, answer
    return answer["result"]["prompt"], answer["result"]["suffix"]


async def items(raw: RawLsp, uri: str, line: int, character: int, **params) -> list:
    answer = await asyncio.wait_for(raw.inline(uri, line, character, invoked=True), 15)
    assert "result" in answer, answer
    return [i["insertText"] for i in (answer["result"] or {}).get("items", [])]


async def test_malformed_json_rpc_is_skipped_and_the_server_keeps_answering(raw, tmp_path):
    garbage = [b"{not json}", b"[1, 2, 3]", b'"just a string"', b"null", b"42",
               b'{"jsonrpc": "2.0"}', b'{"jsonrpc": "2.0", "method": 17}',
               b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "initialize"}',
               b'{"id": 5, "method": "textDocument/inlineCompletion", "params": "nope"}',
               "{\"method\": \"\u00e9\u0000\"}".encode(), b"\xff\xfe\x00garbage"]
    for body in garbage:
        raw.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    raw.send_raw(b"X-Nonsense-Header: 1\r\n")  # a header line that is not Content-Length
    raw.send_raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n")
    raw.send_raw(b"Content-Length: 2\r\n\r\n{}")
    uri = (tmp_path / "a.py").as_uri()
    raw.open(uri, "a = \n")
    assert await items(raw, uri, 0, 4) == ["ok()"]


async def test_unknown_methods_get_method_not_found_and_notifications_are_ignored(raw):
    for method in ("foo/bar", "textDocument/teleport", "$/unknownRequest", ""):
        answer = await raw.ask(method, {"x": 1})
        assert answer["error"]["code"] == METHOD_NOT_FOUND, (method, answer)
        answer = await raw.ask(method)  # no params at all (JSON-RPC allows that)
        assert answer["error"]["code"] == METHOD_NOT_FOUND, (method, answer)
    raw.notify("workspace/frobnicate", {"a": [1, 2]})
    raw.notify("$/setTrace", {"value": "verbose"})
    raw.notify("$/progress", {"token": "t", "value": {"kind": "end"}})
    answer = await raw.command("flashls.noSuchCommand")
    assert "error" in answer


async def test_a_notification_sent_with_an_id_is_answered_and_not_applied(raw, tmp_path):
    """JSON-RPC: a message with an id is a request and gets an answer, or the client
    waits forever. A notification method sent that way is refused and changes nothing."""
    uri = (tmp_path / "as_request.py").as_uri()
    raw.open(uri, "kept = 1\n")
    for method, params in (
            ("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                       "version": 9, "text": "replaced\n"}}),
            ("textDocument/didChange", {"textDocument": {"uri": uri, "version": 10},
                                        "contentChanges": [{"text": "changed\n"}]}),
            ("textDocument/didClose", {"textDocument": {"uri": uri}}),
            ("workspace/didChangeConfiguration", {"settings": {"flashls": {"enable": False}}}),
            ("$/cancelRequest", {"id": 12345}), ("initialized", {})):
        answer = await raw.ask(method, params, timeout_s=10)
        assert answer["error"]["code"] == INVALID_REQUEST, (method, answer)
        assert "notification" in answer["error"]["message"], answer
    prompt, suffix = await text_around(raw, uri, 0, 0)
    assert suffix == "kept = 1\n"
    assert await items(raw, uri, 0, 8) == ["ok()"]


async def test_commands_with_bad_arguments_get_invalid_params(raw, tmp_path):
    uri = (tmp_path / "cmd_args.py").as_uri()
    raw.open(uri, "x = 1\n")
    bad = ([], ["a string"], [{"uri": uri}], [{"uri": uri, "position": "top"}],
           [{"uri": uri, "position": {"line": "a", "character": 0}}],
           [{"uri": uri, "position": {"line": 0}}], [{"uri": 5, "position": {"line": 0,
                                                                             "character": 0}}])
    for args in bad:
        answer = await raw.command("flashls.showContext", *args)
        assert answer["error"]["code"] == INVALID_PARAMS, (args, answer)
        assert "showContext" in answer["error"]["message"], answer
        assert "Traceback" not in json.dumps(answer) and "traceback" not in answer["error"]
    for name in ("flashls.rewrite", "flashls.explain", "flashls.insertExplanation"):
        answer = await raw.command(name, {"bad": 1}, 5)
        assert answer["error"]["code"] == INVALID_PARAMS, (name, answer)


async def test_requests_for_documents_never_opened(raw, tmp_path):
    uri = (tmp_path / "ghost.py").as_uri()
    assert await items(raw, uri, 0, 0) == []
    answer = await raw.ask("textDocument/completion", {
        "textDocument": {"uri": uri}, "position": {"line": 3, "character": 1}})
    assert answer["result"]["items"] == []
    answer = await context_at(raw, uri, 0, 0)
    assert "not open" in answer["error"]["message"] or "no open" in answer["error"]["message"]
    raw.change(uri, 2, (0, 0), (0, 0), "x")  # didChange / didClose for it: no-ops
    raw.close(uri)
    for bad_uri in ("", "not a uri", "file:///", "untitled:Untitled-1", "http://x/y.py",
                    "file:///%ZZ/bad.py"):
        assert await items(raw, bad_uri, 0, 0) == []


async def test_positions_past_the_end_are_clamped_not_applied_elsewhere(raw, tmp_path):
    uri = (tmp_path / "p.py").as_uri()
    raw.open(uri, "ab\ncd\n")
    assert await items(raw, uri, 0, 99) == ["ok()"]  # end of line 0
    assert await items(raw, uri, 99, 0) == ["ok()"]  # end of the file
    prompt, suffix = await text_around(raw, uri, 0, 99)
    assert prompt.endswith("ab") and suffix == "\ncd\n"
    raw.change(uri, 2, (0, 50), (0, 60), "X")  # past the end of line 0: its end
    raw.change(uri, 3, (40, 0), (41, 0), "Z")  # past the end of the file: the end
    prompt, suffix = await text_around(raw, uri, 0, 0)
    assert suffix == "abX\ncd\nZ"
    for line, character in ((-1, 0), (0, -5), (2 ** 40, 0)):
        answer = await raw.ask("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character},
            "context": {"triggerKind": 1}}, timeout_s=10)
        assert answer["error"]["code"] == INVALID_PARAMS  # answered, never left waiting
    raw.change(uri, 4, (-1, 0), (0, 1), "?")  # a negative position is rejected, not applied
    prompt, suffix = await text_around(raw, uri, 0, 0)
    assert suffix == "abX\ncd\nZ"


async def test_positions_inside_a_surrogate_pair_never_split_a_character(raw, tmp_path):
    uri = (tmp_path / "s.py").as_uri()
    raw.open(uri, "s = '😀😀'\n")  # each emoji is two UTF-16 code units
    assert await items(raw, uri, 0, 6) == ["ok()"]  # inside the first emoji
    raw.change(uri, 2, (0, 6), (0, 6), "x")  # snaps to the emoji's start
    raw.change(uri, 3, (0, 9), (0, 10), "")  # a range ending inside the second emoji
    prompt, suffix = await text_around(raw, uri, 0, 0)
    assert suffix == "s = 'x😀'\n"  # whole characters inserted before and deleted


async def test_lone_surrogates_from_the_client_do_not_break_requests(raw, fake, tmp_path):
    """JSON may carry "\\ud83d" alone (half an emoji); it must never crash a request."""
    uri = (tmp_path / "half.py").as_uri()
    raw.open(uri, 'x = "\ud83d"\ny = \n')
    answer = await asyncio.wait_for(raw.inline(uri, 1, 4, invoked=True), 15)
    assert "error" not in answer, answer
    assert [i["insertText"] for i in answer["result"]["items"]] == ["ok()"]
    sent = fake.completion_requests()[-1].body["prompt"]
    assert 'x = "\ufffd"' in sent  # replaced, not dropped or passed on as invalid UTF-8
    states = [n["params"]["state"] for n in raw.notifications if n["method"] == "flashls/status"]
    assert states and states[-1] != "thinking"


async def test_a_50_mb_document_is_tracked_but_never_sent(raw, fake, tmp_path):
    uri = (tmp_path / "huge.py").as_uri()
    line = "value = compute(alpha, beta)  # filler filler filler filler\n"
    raw.open(uri, line * (50_000_000 // len(line)))
    await raw.drain()
    raw.change(uri, 2, (0, 0), (0, 0), "# edited\n")
    assert await items(raw, uri, 0, 9) == []
    assert "error" in await context_at(raw, uri, 0, 0)
    raw.close(uri)
    small = (tmp_path / "small.py").as_uri()
    raw.open(small, "z = \n")
    assert await items(raw, small, 0, 4) == ["ok()"]
    assert all(len(json.dumps(r.body)) < 1_000_000 for r in fake.completion_requests())


async def test_binary_content_is_never_sent(raw, fake, tmp_path):
    uri = (tmp_path / "blob.py").as_uri()
    before = len(fake.completion_requests())
    raw.open(uri, "PK\x03\x04\x00\x00\x01\x02binary\x00junk\n\x7fELF\x00\n")
    assert await items(raw, uri, 0, 2) == []
    raw.change(uri, 2, (1, 0), (1, 0), "more\x00")
    assert await items(raw, uri, 1, 0) == []
    assert len(fake.completion_requests()) == before


async def test_unknown_language_still_completes_from_the_cursor_window(raw, tmp_path):
    uri = (tmp_path / "prog.zzlang").as_uri()
    raw.open(uri, "frobnicate the widget\nnext: \n", language="zzlang")
    assert await items(raw, uri, 1, 6) == ["ok()"]
    prompt, suffix = await text_around(raw, uri, 1, 6)
    assert prompt.endswith("frobnicate the widget\nnext: ") and suffix == "\n"


async def test_did_change_version_gap_and_bad_ranges(raw, tmp_path):
    uri = (tmp_path / "v.py").as_uri()
    raw.open(uri, "one\ntwo\n", version=1)
    raw.change(uri, 7, (0, 3), (0, 3), "!")  # versions may skip (LSP): applied exactly
    prompt, suffix = await text_around(raw, uri, 0, 0)
    assert suffix == "one!\ntwo\n"
    raw.change(uri, 8, (1, 2), (0, 1), "zzz")  # end before start: refused, doc paused
    assert await items(raw, uri, 0, 0) == []
    assert "error" in await context_at(raw, uri, 0, 0)  # never a half-applied text
    raw.open(uri, "fresh\n", version=9)  # reopening starts clean
    prompt, suffix = await text_around(raw, uri, 0, 0)
    assert suffix == "fresh\n"
    raw.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 10},
                                          "contentChanges": [{"text": "whole\n"}]})
    prompt, suffix = await text_around(raw, uri, 0, 0)
    assert suffix == "whole\n"


async def test_params_of_the_wrong_shape_are_refused_without_side_effects(raw, tmp_path):
    uri = (tmp_path / "w.py").as_uri()
    raw.open(uri, "keep = 1\n")
    raw.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "text": 12345}})
    raw.notify("textDocument/didChange", {"textDocument": {"uri": uri},
                                          "contentChanges": "not a list"})
    raw.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                          "contentChanges": [{"range": "x", "text": 5}]})
    raw.notify("textDocument/didClose", {})
    raw.notify("workspace/didChangeConfiguration", {"settings": "garbage"})
    raw.notify("workspace/didChangeConfiguration", {"settings": {"flashls": [1, 2]}})
    for params in ({"textDocument": {"uri": uri}}, {"position": {"line": "a"}}, [], None):
        answer = await raw.ask("textDocument/inlineCompletion", params, timeout_s=10)
        assert answer["error"]["code"] == INVALID_PARAMS, (params, answer)
    prompt, suffix = await text_around(raw, uri, 0, 0)
    assert suffix == "keep = 1\n"
    assert await items(raw, uri, 0, 8) == ["ok()"]


async def test_unsendable_settings_are_told_once_never_an_internal_error(raw, fake, tmp_path):
    """A key pasted with an invisible character, a model name with half an emoji: the
    user is told what to fix, requests return empty, the server keeps going."""
    uri = (tmp_path / "cfg.py").as_uri()
    raw.open(uri, "a = \n")
    base = {"baseUrl": fake.url, "completion": {"debounceMs": 0, "timeoutMs": 3000}}
    shown_before = len(raw.messages())
    raw.notify("workspace/didChangeConfiguration",
               {"settings": {"flashls": {**base, "apiKey": "sk-pasted-key\u200b"}}})
    for _ in range(3):
        answer = await asyncio.wait_for(raw.inline(uri, 0, 4, invoked=True), 15)
        assert answer.get("result", {}).get("items") == [], answer
    told = raw.messages()[shown_before:]
    assert len(told) == 1 and "apiKey" in told[0], told
    raw.notify("workspace/didChangeConfiguration",
               {"settings": {"flashls": {**base, "apiKey": KEY, "model": "flash\ud83d"}}})
    answer = await asyncio.wait_for(raw.inline(uri, 0, 4, invoked=True), 15)
    assert answer.get("result", {}).get("items") == [], answer
    raw.notify("workspace/didChangeConfiguration", {"settings": {"flashls": {**base,
                                                                             "apiKey": KEY}}})
    assert await items(raw, uri, 0, 4) == ["ok()"]


async def test_handled_messages_leave_nothing_behind_in_the_protocol(raw, tmp_path):
    """pygls keeps a future per handled notification (didOpen/didChange/didClose,
    $/setTrace) and per command, keyed by a fresh id, and never drops it: a leak of
    ~1.5 KB per keystroke (~25 MB per hour of typing in the soak). Nothing may stay."""
    uri = (tmp_path / "leak.py").as_uri()
    raw.open(uri, "x = 1\n")
    for version in range(2, 302):
        raw.change(uri, version, (0, 5), (0, 5), "1")
        raw.notify("$/setTrace", {"value": "off"})
    for _ in range(20):
        await raw.command("flashls.accepted", "no-such-suggestion")
    raw.close(uri)
    for _ in range(50):  # entries go a loop turn after their work: let it turn
        stats = (await raw.command("flashls.debugStats"))["result"]
        if stats["protocolPending"]["_request_futures"] <= 1:
            break
        await asyncio.sleep(0.05)
    assert stats["protocolPending"]["_request_futures"] <= 1, stats["protocolPending"]


async def test_pipelined_messages_take_effect_in_the_order_sent(raw, fake, tmp_path):
    """A settings change followed at once by a request (one write, no waiting): the
    request sees the new settings. The configuration handler is a coroutine; when
    stdin is read on the loop, a message already buffered must still wait for the
    previous message's handler to start."""
    uri = (tmp_path / "order.py").as_uri()
    raw.open(uri, "def f(x):\n    return x\n")
    base = {"baseUrl": fake.url, "apiKey": KEY,
            "completion": {"debounceMs": 0, "timeoutMs": 3000}}
    selection = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 12}}
    params = {"textDocument": {"uri": uri}, "range": selection,
              "context": {"diagnostics": []}}
    for enable in (False, True, False, True):
        raw.notify("workspace/didChangeConfiguration",
                   {"settings": {"flashls": {**base, "actions": {"enable": enable}}}})
        answer = await raw.ask("textDocument/codeAction", params)
        assert bool(answer["result"]) is enable, (enable, answer)


async def test_a_pause_after_typing_brings_the_syntax_tree_up_to_date(raw, tmp_path):
    """Edits only mark the tree stale; without a request nobody reparsed it, so an
    explicit invocation after a pause paid the reparse (up to tens of ms on a large,
    broken file). A short pause now reparses in the background (every open document:
    the other tests' documents were opened and never asked for a completion)."""
    uri = (tmp_path / "idle.py").as_uri()
    raw.open(uri, "def f(x):\n    return x\n")
    await raw.command("flashls.debugStats")  # the open is handled
    raw.change(uri, 2, (1, 12), (1, 12), " + (1")
    for _ in range(100):
        stats = (await raw.command("flashls.debugStats"))["result"]
        if stats["staleTrees"] == 0:
            break
        await asyncio.sleep(0.05)
    assert stats["staleTrees"] == 0, stats
    raw.close(uri)


async def test_startup_objects_are_kept_out_of_garbage_collections(raw):
    """A full collection rescans every tracked object; the ~70,000 built at startup
    live forever, so they are frozen once the client has initialized."""
    stats = (await raw.command("flashls.debugStats"))["result"]
    assert stats["gcFrozen"] > 10_000, stats["gcFrozen"]
