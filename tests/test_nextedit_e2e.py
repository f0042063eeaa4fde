"""Next edit suggestions end to end: a real flashls process, pytest-lsp, fake DeepSeek.

The fake model here is scripted: it reads the editable region (the last fenced block
of the last user message) and answers it rewritten, the way the contract says.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from lsprotocol import types as lsp

from tests.conftest import base_settings, start_session
from tests.fake_deepseek import Recorded, Reply
from tests.lsp_helpers import change, open_doc, send_cancellable

METHOD = "textDocument/copilotInlineEdit"
CURSOR = "<|user_cursor|>"
MAX_TOKENS = 77

SOURCE = ("import math\n"
          "\n"
          "\n"
          "def area(width, height):\n"
          "    total = width * height\n"
          "    print('width', width)\n"
          "    return total\n"
          "\n"
          "\n"
          "print(area(2, 3))\n")
RENAMED = SOURCE.replace("width", "size").replace("'size'", "'width'")

_FENCE = re.compile(r"^(`{3,})[^\n]*\n(.*?)\n\1$", re.S | re.M)


def blocks(text: str) -> list[str]:
    return [m.group(2) for m in _FENCE.finditer(text)]


def region_of(req: Recorded) -> str:
    """The editable region: the last fenced block of the last user message."""
    user = [m for m in req.body["messages"] if m["role"] == "user"][-1]["content"]
    return blocks(user)[-1]


def rename_body(req: Recorded) -> Reply:
    region = region_of(req).replace(CURSOR, "")
    rewritten = re.sub(r"(?<!')\bwidth\b(?!')", "size", region)
    return Reply(text=f"```python\n{rewritten}\n```")


def unchanged(req: Recorded) -> Reply:
    return Reply(text=f"```python\n{region_of(req).replace(CURSOR, '')}\n```")


def settings(fake, **next_edit) -> dict:
    return {**base_settings(fake), "nextEdit": {"maxTokens": MAX_TOKENS, **next_edit}}


async def start(client, fake, tmp_path, **next_edit):
    return await start_session(client, fake, tmp_path, settings=settings(fake, **next_edit))


def rename_parameter(client, uri: str) -> int:
    """Select `width` in the signature and type `size` over it, one key at a time
    (as an editor sends it); returns the last version."""
    change(client, uri, 2, (3, 9), (3, 14), "")
    version = 2
    for i, ch in enumerate("size"):
        version += 1
        change(client, uri, version, (3, 9 + i), (3, 9 + i), ch)
    return version


async def next_edits(client, uri: str, line: int, character: int, version: int | None
                     ) -> list[dict]:
    doc = {"uri": uri} if version is None else {"uri": uri, "version": version}
    result = await client.protocol.send_request_async(
        METHOD, {"textDocument": doc, "position": {"line": line, "character": character}})
    edits = result["edits"] if isinstance(result, dict) else result.edits
    return [e if isinstance(e, dict) else _as_dict(e) for e in edits]


def _as_dict(obj):
    if hasattr(obj, "_asdict"):
        return {k: _as_dict(v) for k, v in obj._asdict().items()}
    if isinstance(obj, list):
        return [_as_dict(v) for v in obj]
    return obj


def apply(text: str, edits: list[dict]) -> str:
    lines = text.split("\n")

    def offset(p: dict) -> int:
        return sum(len(line) + 1 for line in lines[:p["line"]]) + p["character"]

    for e in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        text = text[:offset(e["range"]["start"])] + e["text"] + text[offset(e["range"]["end"]):]
    return text


async def test_rename_in_signature_suggests_updating_the_uses(client, fake, tmp_path):
    fake.responder = rename_body
    result = await start(client, fake, tmp_path)
    caps = result.capabilities.experimental
    assert caps["nextEditSuggestions"]["method"] == METHOD
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)

    edits = await next_edits(client, uri, 3, 13, version)

    assert edits, "a rename in the signature must suggest updating the body"
    assert apply(SOURCE.replace("def area(width", "def area(size"), edits) == RENAMED
    assert all(e["textDocument"] == {"uri": uri, "version": version} for e in edits)
    assert {e["command"]["command"] for e in edits} == {"flashls.nextEdit.accepted"}
    # minimal: only the uses change, not the whole region
    assert [e["text"] for e in edits] == ["size", "size"]
    (req,) = fake.completion_requests()
    body = req.body
    assert req.path.endswith("/chat/completions")
    assert body["thinking"] == {"type": "disabled"}
    assert body["max_tokens"] == MAX_TOKENS
    user = body["messages"][-1]["content"]
    diffs = [b for b in blocks(user) if b.startswith("--- a/")]
    assert diffs, "the edit history is sent as unified diffs"
    assert "-def area(width, height):" in diffs[-1]
    assert "+def area(size, height):" in diffs[-1]
    # the burst of keystrokes is one edit, not one hunk per key
    assert len(diffs) == 1
    assert CURSOR in region_of(req)
    assert region_of(req).startswith("import math")  # the region is verbatim lines
    assert user.rstrip().endswith("```")  # the region is the last block of the message


async def test_an_unchanged_answer_gives_no_edit(client, fake, tmp_path):
    fake.responder = unchanged
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    assert await next_edits(client, uri, 3, 13, version) == []
    assert len(fake.completion_requests()) == 1


@pytest.mark.parametrize("answer", [
    "I would rename the uses of width.",  # prose, no block
    "```python\ndef area(size, height):\n",  # cut off inside the block
    "```python\nx = 1\n```\n\n```python\ny = 2\n```",  # two blocks
])
async def test_a_garbled_answer_gives_no_edit(client, fake, tmp_path, answer):
    fake.responder = lambda req: Reply(text=answer)
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    assert await next_edits(client, uri, 3, 13, version) == []


async def test_an_answer_rewriting_what_the_user_types_gives_no_edit(client, fake, tmp_path):
    def undo_the_rename(req):
        region = region_of(req).replace(CURSOR, "")
        return Reply(text="```python\n" + region.replace("area(size", "area(width") + "\n```")

    fake.responder = undo_the_rename
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    assert await next_edits(client, uri, 3, 13, version) == []


async def test_a_stale_version_gets_no_edit_and_no_request(client, fake, tmp_path):
    fake.responder = rename_body
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    assert await next_edits(client, uri, 3, 13, version - 1) == []
    assert fake.completion_requests() == []


async def test_a_newer_request_cancels_the_older(client, fake, tmp_path):
    replies = iter([Reply(text="```python\nnever\n```", first_token_delay_s=60)])
    fake.responder = lambda req: next(replies, None) or rename_body(req)
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    params = {"textDocument": {"uri": uri, "version": version},
              "position": {"line": 3, "character": 13}}
    _, first = send_cancellable(client, METHOD, params)
    fake.wait_for_requests(1)
    second = await next_edits(client, uri, 3, 13, version)
    older = await asyncio.wait_for(first, 10)
    older_edits = older["edits"] if isinstance(older, dict) else older.edits
    assert list(older_edits) == []
    assert second and apply(SOURCE.replace("def area(width", "def area(size"),
                            second) == RENAMED
    first_req = fake.completion_requests()[0]
    assert first_req.aborted  # its upstream stream was closed, not left running


async def test_rate_limit_gives_no_edit_and_no_popup(client, fake, tmp_path):
    fake.responder = lambda req: Reply(status=429, headers={"Retry-After": "30"})
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    for _ in range(3):
        assert await next_edits(client, uri, 3, 13, version) == []
    assert len(fake.completion_requests()) == 1  # the gate backs off: no hammering
    assert not [m for m in client.messages if "429" in m.message]


async def test_excluded_files_never_enter_the_history_or_a_request(client, fake, tmp_path):
    fake.responder = rename_body
    await start(client, fake, tmp_path)
    env = open_doc(client, tmp_path / ".env", "TOKEN=abc\n", language="dotenv")
    change(client, env, 2, (0, 6), (0, 9), "SECRETVALUE42")
    assert await next_edits(client, env, 0, 10, 2) == []
    assert fake.completion_requests() == []
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    await next_edits(client, uri, 3, 13, version)
    (req,) = fake.completion_requests()
    sent = "".join(m["content"] for m in req.body["messages"])
    assert "SECRETVALUE42" not in sent and ".env" not in sent


async def test_untitled_and_outside_documents_never_enter_another_files_history(
        client, fake, tmp_path):
    """An untitled buffer (and, with outsideWorkspace "allow", a file outside the
    folders) may get next edits for itself, but is never context for another file."""
    fake.responder = rename_body
    await start_session(client, fake, tmp_path / "ws", settings={
        **settings(fake), "completion": {"outsideWorkspace": "allow"}})
    scratch = "untitled:Untitled-1"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
        uri=scratch, language_id="python", version=1, text="x = 1\n")))
    change(client, scratch, 2, (0, 4), (0, 5), "UNTITLEDMARK7")
    outside = open_doc(client, tmp_path / "elsewhere.py", "y = 2\n")
    change(client, outside, 2, (0, 4), (0, 5), "OUTSIDEMARK9")
    (tmp_path / "ws").mkdir(exist_ok=True)
    uri = open_doc(client, tmp_path / "ws" / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    await next_edits(client, uri, 3, 13, version)
    (req,) = fake.completion_requests()
    sent = "".join(m["content"] for m in req.body["messages"])
    assert "size" in sent  # the file's own edit is in the history
    assert "UNTITLEDMARK7" not in sent and "OUTSIDEMARK9" not in sent


async def test_shown_and_accepted_are_counted(client, fake, tmp_path):
    fake.responder = rename_body
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    edits = await next_edits(client, uri, 3, 13, version)
    command = edits[0]["command"]
    client.protocol.notify("textDocument/didShowInlineEdit", {"item": {"command": command}})
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=command["command"], arguments=command["arguments"]))
    stats = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.nextEdit.stats"))
    stats = stats if isinstance(stats, dict) else stats._asdict()
    assert (stats["suggested"], stats["shown"], stats["accepted"], stats["rejected"]) == \
        (1, 1, 1, 0)
    view = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showUsage"))
    week = view["json"]["last7Days"]
    assert week["suggestionsShown"] == 1 and week["suggestionsAccepted"] == 1


async def test_disabled_means_no_request(client, fake, tmp_path):
    fake.responder = rename_body
    await start(client, fake, tmp_path, enable=False)
    uri = open_doc(client, tmp_path / "geometry.py", SOURCE)
    version = rename_parameter(client, uri)
    assert await next_edits(client, uri, 3, 13, version) == []
    assert fake.completion_requests() == []


SECRET_SOURCE = SOURCE.replace("import math\n", "import math\nAPI_KEY = 'sk-live-0123456789abcdef0123'\n")


async def test_a_secret_in_the_region_is_redacted_and_its_line_never_edited(client, fake,
                                                                            tmp_path):
    fake.responder = rename_body
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", SECRET_SOURCE)
    change(client, uri, 2, (4, 9), (4, 14), "")
    version = 2
    for i, ch in enumerate("size"):
        version += 1
        change(client, uri, version, (4, 9 + i), (4, 9 + i), ch)
    edits = await next_edits(client, uri, 4, 13, version)
    renamed = SECRET_SOURCE.replace("def area(width", "def area(size")
    assert apply(renamed, edits) == RENAMED.replace(
        "import math\n", "import math\nAPI_KEY = 'sk-live-0123456789abcdef0123'\n")
    (req,) = fake.completion_requests()
    sent = "".join(m["content"] for m in req.body["messages"])
    assert "sk-live-0123456789abcdef0123" not in sent and "<redacted>" in region_of(req)

    def rewrite_the_secret_line(req):
        region = region_of(req).replace(CURSOR, "")
        return Reply(text="```python\n" + region.replace("<redacted>", "oops") + "\n```")

    fake.responder = rewrite_the_secret_line
    assert await next_edits(client, uri, 4, 13, version) == []


async def test_related_signatures_come_first_and_an_accepted_edit_joins_the_history(
        client, fake, tmp_path):
    fake.responder = rename_body
    (tmp_path / "shapes.py").write_text(
        "def scale(value, factor=2):\n    return value * factor\n", encoding="utf-8")
    source = "from shapes import scale\n" + SOURCE.replace(
        "    return total\n", "    return scale(total)\n")
    await start(client, fake, tmp_path)
    uri = open_doc(client, tmp_path / "geometry.py", source)
    change(client, uri, 2, (4, 9), (4, 14), "")
    version = 2
    for i, ch in enumerate("size"):
        version += 1
        change(client, uri, version, (4, 9 + i), (4, 9 + i), ch)
    edits = await next_edits(client, uri, 4, 13, version)
    assert edits
    (first,) = fake.completion_requests()
    user = first.body["messages"][-1]["content"]
    assert "Signatures from shapes.py" in user and "def scale(value, factor=2)" in user
    assert user.index("Signatures from shapes.py") < user.index("Recent edits")
    # the editor applies the accepted edit: it arrives as didChange, bottom first
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"],
                                          e["range"]["start"]["character"]), reverse=True):
        version += 1
        r = e["range"]
        change(client, uri, version, (r["start"]["line"], r["start"]["character"]),
               (r["end"]["line"], r["end"]["character"]), e["text"])
    fake.responder = unchanged
    assert await next_edits(client, uri, 6, 0, version) == []
    second = fake.completion_requests()[-1]
    later = second.body["messages"][-1]["content"]
    assert "+    total = size * height" in later  # the accepted suggestion is history
    # the stable part is byte-identical between the two requests (prefix cache)
    assert first.body["messages"][0] == second.body["messages"][0]
    assert later.startswith(user[:user.index("Recent edits")])
