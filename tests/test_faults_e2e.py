"""Upstream faults, end to end: a real flashls process between a client and the fake API.

What the user sees matters here: every request returns (nothing to show), the user is
told once when there is something to do (key, balance), never a popup per keystroke,
back-off holds requests back, and the API key appears in no message and no log line.
"""

from __future__ import annotations

import asyncio
import itertools

from lsprotocol import types as lsp

from tests.conftest import base_settings, start_session
from tests.fake_deepseek import Reply
from tests.lsp_helpers import change, inline, open_doc
from tests.test_faults_engine import FAULTS

TIMEOUT_MS = 1000
BOUND_S = TIMEOUT_MS / 1000 + 10.0  # generous: catches hangs, not slowness


class Typist:
    """Types one character per request so no cache can answer for the model."""

    def __init__(self, client, uri: str, line: int, col: int):
        self.client, self.uri, self.line, self.col = client, uri, line, col
        self.version = 1
        self.chars = itertools.cycle("abcdefghij")

    async def request(self) -> list[lsp.InlineCompletionItem]:
        self.version += 1
        change(self.client, self.uri, self.version, (self.line, self.col),
               (self.line, self.col), next(self.chars))
        self.col += 1
        return await asyncio.wait_for(
            inline(self.client, self.uri, self.line, self.col, invoked=True), BOUND_S)


def all_text(client) -> str:
    return "\n".join([m.message for m in client.messages]
                     + [m.message for m in client.log_messages])


def reconfigure(client, fake, key: str) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"flashls": {**base_settings(fake, timeoutMs=TIMEOUT_MS), "apiKey": key}}))


async def test_every_fault_returns_nothing_tells_once_and_recovers(client, fake, tmp_path,
                                                                   capfd):
    settings = base_settings(fake, timeoutMs=TIMEOUT_MS)
    await start_session(client, fake, tmp_path, settings=settings)
    uri = open_doc(client, tmp_path / "f.py", "def f():\n    x = \n")
    typist = Typist(client, uri, 1, 8)
    keys = [settings["apiKey"]]
    for index, fault in enumerate(FAULTS):
        keys.append(f"sk-fault-{index:02d}-abcdefghijklmnop")
        reconfigure(client, fake, keys[-1])  # a settings change: clean gate, fresh messages
        fake.responder = lambda req, reply=fault.reply: reply
        shown_before = len(client.messages)
        sent_before = len(fake.completion_requests())
        for _ in range(3):
            assert await typist.request() == [], fault.name
        sent = len(fake.completion_requests()) - sent_before
        shown = [m.message for m in client.messages[shown_before:]]
        if fault.after in ("blocked", "backoff"):
            assert sent == 1, (fault.name, sent)  # the rest were held back
        elif fault.after == "transient":
            # the first broken stream is free, the second opens a back-off window of at
            # least 0.5 s, and the third keystroke follows at once: held back
            assert sent == 2, (fault.name, sent)
        else:  # an answer that is merely empty is no failure: nothing holds back
            assert sent == 3, (fault.name, sent)
        if fault.name == "401":
            assert len(shown) == 1 and "apiKey" in shown[0], shown
        elif fault.name == "402":
            assert len(shown) == 1 and "balance" in shown[0].lower(), shown
        elif fault.name in ("400", "422"):
            assert len(shown) <= 1, (fault.name, shown)  # "check flashls.model", once
        else:
            assert shown == [], (fault.name, shown)  # transient trouble: no popup at all
        # recovery
        fake.responder = lambda req: Reply(text="recovered()")
        keys.append(f"sk-recovered-{index:02d}-abcdefghijklm")
        reconfigure(client, fake, keys[-1])
        assert [i.insert_text for i in await typist.request()] == ["recovered()"], fault.name
    # a request after the last log line the test waits for: everything before is in
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.showSettings"))
    text = all_text(client) + capfd.readouterr().err
    for key in keys:
        assert key not in text
    assert sum(r.headers.get("authorization") == f"Bearer {keys[-1]}"
               for r in fake.completion_requests()) == 1  # the new key is really used


async def test_retry_after_holds_requests_back_until_settings_change(client, fake, tmp_path):
    """Retry-After is honoured: a minute of keystrokes sends nothing (expiry by time is
    checked against the gate's own clock in test_faults_engine); a settings change
    lifts it."""
    fake.responder = lambda req: Reply(status=429, headers={"Retry-After": "60"})
    await start_session(client, fake, tmp_path,
                        settings=base_settings(fake, timeoutMs=TIMEOUT_MS))
    uri = open_doc(client, tmp_path / "r.py", "y = \n")
    typist = Typist(client, uri, 0, 4)
    assert await typist.request() == []
    fake.responder = lambda req: Reply(text="later()")
    for _ in range(10):  # the user keeps typing: every keystroke is held back
        assert await typist.request() == []
    assert len(fake.completion_requests()) == 1
    assert not [m for m in client.messages if "429" in m.message]  # no popup for it
    reconfigure(client, fake, "sk-after-retry-abcdefghijklmnop")
    assert [i.insert_text for i in await typist.request()] == ["later()"]
    assert len(fake.completion_requests()) == 2


async def test_repeated_overload_backs_off(client, fake, tmp_path):
    """Keystrokes against a 503ing API are held back while it backs off: the fake's
    own request log, not a wall-clock window, says how many went out."""
    fake.responder = lambda req: Reply(status=503)
    await start_session(client, fake, tmp_path,
                        settings=base_settings(fake, timeoutMs=TIMEOUT_MS))
    uri = open_doc(client, tmp_path / "o.py", "z = \n")
    typist = Typist(client, uri, 0, 4)
    asked = 0
    while len(fake.completion_requests()) < 3 and asked < 2000:
        assert await typist.request() == []
        asked += 1
        if asked == 1:  # right after the first 503 (a window of 0.25 s at least)
            assert await typist.request() == []
            asked += 1
            assert len(fake.completion_requests()) == 1  # held back
        await asyncio.sleep(0.01)  # the typist's pace, not a synchronisation
    assert len(fake.completion_requests()) == 3  # it recovers to try again, and again
    assert asked > 3 * 3  # many more keystrokes than requests
    assert not [m for m in client.messages if "503" in m.message]  # no popup storm
