"""Partial accept (a word or a line at a time), through LSP with a real flashls process:
the rest of the suggestion comes from the suggestion cache with no new upstream
request, and `textDocument/didPartiallyAcceptCompletion` is counted by characters in
the ledger, `flashls.showUsage` and `flashls stats`."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from lsprotocol import types as lsp

from flashls.lsp.partial_accept import parse, utf16_prefix_chars
from tests.conftest import ROOT, base_settings, start_session
from tests.fake_deepseek import Reply
from tests.lsp_helpers import change, inline, open_doc

TEXT = "def total(xs):\n    \n"
REPLY = ("result = 0\n    for x in xs:\n        result = result + x * 2  "
         "# doubled, then added to the running total")
PARTIAL = "textDocument/didPartiallyAcceptCompletion"


def next_word(text: str) -> str:
    """What VS Code's acceptNextWord takes: leading blanks, then a word or a run of
    punctuation (a line break alone is a step too)."""
    return re.match(r"\n|[ \t]*(?:\w+|[^\w\s]+)|[ \t]+", text).group(0)


def next_line(text: str) -> str:
    end = text.find("\n")
    return text if end < 0 else text[:end + 1]


def position_after(start: tuple[int, int], inserted: str) -> tuple[int, int]:
    lines = inserted.split("\n")
    if len(lines) == 1:
        return start[0], start[1] + len(inserted)
    return start[0] + len(lines) - 1, len(lines[-1])


async def accept_step_by_step(client, uri: str, cursor: tuple[int, int], suggestion: str,
                              step, version: int = 1) -> list[str]:
    """Insert the suggestion one step at a time, asking for a completion after each
    step as an editor does; return what was offered at each new position."""
    offered = []
    remaining = suggestion
    while remaining.strip():
        piece = step(remaining)
        version += 1
        change(client, uri, version, cursor, cursor, piece)
        cursor = position_after(cursor, piece)
        remaining = remaining[len(piece):]
        if not remaining.strip():
            break
        items = await inline(client, uri, *cursor)
        offered.append(items[0].insert_text if items else None)
        assert offered[-1] == remaining, (piece, remaining)
    return offered


@pytest.fixture
def multiline_fake(fake):
    fake.responder = lambda req: Reply(text=REPLY)
    return fake


def multiline_settings(fake, ledger=None) -> dict:
    settings = base_settings(fake, multiline="always")
    if ledger is not None:
        settings["usage"] = {"ledgerPath": str(ledger)}
    return settings


async def first_suggestion(client, fake, tmp_path, ledger=None):
    await start_session(client, fake, tmp_path, settings=multiline_settings(fake, ledger))
    uri = open_doc(client, tmp_path / "t.py", TEXT)
    items = await inline(client, uri, 1, 4)
    assert len(items) == 1
    suggestion = items[0].insert_text
    assert suggestion.count("\n") == 2 and len(suggestion) > 100  # 3 lines, long
    assert len(fake.completion_requests()) == 1
    return uri, items[0]


async def test_word_by_word_is_served_without_a_new_request(client, multiline_fake, tmp_path):
    uri, item = await first_suggestion(client, multiline_fake, tmp_path)
    offered = await accept_step_by_step(client, uri, (1, 4), item.insert_text, next_word)
    assert len(offered) > 15  # every word of all three lines
    assert len(multiline_fake.completion_requests()) == 1


async def test_line_by_line_is_served_without_a_new_request(client, multiline_fake, tmp_path):
    uri, item = await first_suggestion(client, multiline_fake, tmp_path)
    offered = await accept_step_by_step(client, uri, (1, 4), item.insert_text, next_line)
    assert len(offered) == 2
    assert len(multiline_fake.completion_requests()) == 1


async def test_partial_accept_is_counted_in_characters(client, multiline_fake, tmp_path):
    ledger = tmp_path / "usage.sqlite3"
    uri, item = await first_suggestion(client, multiline_fake, tmp_path, ledger)
    as_sent = {"insertText": item.insert_text,
               "command": {"title": item.command.title, "command": item.command.command,
                           "arguments": list(item.command.arguments)}}
    first = next_word(item.insert_text)
    two = first + next_word(item.insert_text[len(first):])
    for kept in (first, two):  # cumulative, as editors send it
        client.protocol.notify(PARTIAL, {"item": as_sent, "acceptedLength": len(kept)})
    client.protocol.notify(PARTIAL, {"item": as_sent, "acceptedLength": "x"})  # ignored
    view = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showUsage"))
    week = view["json"]["last7Days"]
    assert week["charsShown"] == len(item.insert_text)
    assert week["charsAccepted"] == len(two)
    assert week["suggestionsPartlyAccepted"] == 1
    assert week["suggestionsAccepted"] == 0
    assert "characters accepted" in view["markdown"]

    # accepting the rest afterwards counts the whole suggestion
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=item.command.command, arguments=item.command.arguments))
    await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showUsage"))  # flushes the writer
    proc = subprocess.run([sys.executable, "-m", "flashls", "stats", "--json", "--ledger",
                           str(ledger)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["last7Days"]
    assert report["charsAccepted"] == len(item.insert_text)
    assert report["suggestionsAccepted"] == 1 and report["suggestionsPartlyAccepted"] == 0
    text = subprocess.run([sys.executable, "-m", "flashls", "stats", "--ledger", str(ledger)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60).stdout
    assert "characters accepted" in text


def test_utf16_lengths_become_characters():
    assert utf16_prefix_chars("a😀b", 1) == 1
    assert utf16_prefix_chars("a😀b", 2) == 1  # half a surrogate pair is not kept
    assert utf16_prefix_chars("a😀b", 3) == 2
    assert utf16_prefix_chars("a😀b", 99) == 3


def test_foreign_or_malformed_items_are_ignored():
    ours = {"insertText": "abc", "command": {"command": "flashls.accepted",
                                             "arguments": ["s1"]}}
    assert parse({"item": ours, "acceptedLength": 2}).chars == 2
    assert parse({"item": ours, "acceptedLength": -1}) is None
    assert parse({"item": ours, "acceptedLength": True}) is None
    assert parse({"item": {"insertText": "abc"}, "acceptedLength": 2}) is None
    assert parse({"item": {**ours, "command": {"command": "other", "arguments": ["s1"]}},
                  "acceptedLength": 2}) is None
