"""Fuzz: 10,000+ random LSP messages into ONE server process, then a normal request.

Seeded. Messages are pipelined (nothing waits for an answer), mixing well-shaped
traffic (opens, edits, completions, commands, settings, cancels) at random positions
and uris with garbage: wrong param shapes, random JSON, unknown methods, broken frames.
The server must end alive, answer every request it was sent (no request left hanging),
never answer with an internal error, and still complete normally afterwards.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from pathlib import Path

import pytest

from benchmarks.soak import RawLsp
from tests.fake_deepseek import FakeDeepSeek, Reply

SEED = 20261130
MESSAGES = 10_500
KEY = "sk-fuzz-key-00112233445566"
INTERNAL_ERROR = -32603

METHODS = [
    "textDocument/didOpen", "textDocument/didChange", "textDocument/didChange",
    "textDocument/didChange", "textDocument/didClose", "textDocument/didSave",
    "textDocument/inlineCompletion", "textDocument/inlineCompletion",
    "textDocument/completion", "workspace/executeCommand", "workspace/executeCommand",
    "workspace/didChangeConfiguration", "workspace/didChangeWorkspaceFolders",
    "$/cancelRequest", "textDocument/codeAction", "codeAction/resolve", "textDocument/hover",
    "$/setTrace", "workspace/didChangeWatchedFiles", "textDocument/definition",
]
COMMANDS = ["flashls.showContext", "flashls.showSettings", "flashls.toggleCompletions",
            "flashls.accepted", "flashls.showUsage", "flashls.debugStats", "flashls.rewrite",
            "flashls.explain", "flashls.insertExplanation", "flashls.nope"]
LANGUAGES = ["python", "javascript", "typescript", "go", "rust", "c", "cpp", "java",
             "typescriptreact", "plaintext", "zzlang", ""]
FRAGMENTS = ["def f(x):\n", "    return x\n", "{", "}", "(", ")", "\"", "'", "\n", "\r\n",
             "\t", "😀", "中文", "é", "\x00", "\ud83d", "sk-abcdefghijklmnopqrstuv", " ", "x",
             "-----BEGIN PRIVATE KEY-----\n", "class A:\n    pass\n", "//", "/*", "*/", "#"]


def clear_command_error(method: str, message: str) -> bool:
    """Commands refuse bad arguments with a ValueError that says what is wrong; pygls
    reports it with the internal-error code. Anything else internal is a bug."""
    return method == "workspace/executeCommand" and message.startswith("ValueError: ")


class Fuzzer:
    def __init__(self, rng: random.Random, root: Path):
        self.rng = rng
        self.uris = [(root / f"f{i}.{ext}").as_uri() for i, ext in
                     enumerate(["py", "js", "ts", "go", "rs", "c", "java", "txt", "py", "tsx"])]
        self.uris += ["untitled:Untitled-1", "file:///outside/x.py", "not a uri", ""]
        self.versions: dict[str, int] = {}

    # -- values -------------------------------------------------------------------
    def text(self, n: int | None = None) -> str:
        r = self.rng
        return "".join(r.choice(FRAGMENTS) for _ in range(r.randint(0, 12) if n is None else n))

    def number(self) -> int:
        r = self.rng
        return r.choice([0, 0, 1, 2, 3, 5, 10, 80, r.randint(0, 400), -1, 2 ** 31 - 1,
                         2 ** 31, 2 ** 53, -(2 ** 40)])

    def position(self) -> dict:
        return {"line": self.number() if self.rng.random() < 0.3 else self.rng.randint(0, 6),
                "character": self.number() if self.rng.random() < 0.3
                else self.rng.randint(0, 30)}

    def uri(self) -> str:
        return self.rng.choice(self.uris)

    def junk(self, depth: int = 0):
        r = self.rng
        kind = r.randint(0, 7 if depth < 2 else 4)
        if kind == 0:
            return None
        if kind == 1:
            return r.choice([True, False])
        if kind == 2:
            return self.number()
        if kind == 3:
            return r.random() * 1e6
        if kind == 4:
            return self.text(r.randint(0, 4))
        if kind == 5:
            return [self.junk(depth + 1) for _ in range(r.randint(0, 3))]
        return {r.choice(["uri", "textDocument", "position", "range", "text", "x", "settings",
                          "context", "command", "arguments", "id"]): self.junk(depth + 1)
                for _ in range(r.randint(0, 4))}

    # -- params per method ----------------------------------------------------------
    def params(self, method: str):
        r = self.rng
        if r.random() < 0.12:
            return self.junk()
        uri = self.uri()
        if method == "textDocument/didOpen":
            self.versions[uri] = r.randint(0, 3)
            return {"textDocument": {"uri": uri, "languageId": r.choice(LANGUAGES),
                                     "version": self.versions[uri],
                                     "text": self.text(r.randint(0, 60))}}
        if method == "textDocument/didChange":
            version = self.versions.get(uri, 0) + r.choice([1, 1, 1, 2, 0, -1, 50])
            self.versions[uri] = version
            if r.random() < 0.1:
                changes = [{"text": self.text(r.randint(0, 30))}]
            else:
                changes = [{"range": {"start": self.position(), "end": self.position()},
                            "text": self.text()} for _ in range(r.randint(0, 3))]
            return {"textDocument": {"uri": uri, "version": version},
                    "contentChanges": changes}
        if method in ("textDocument/didClose", "textDocument/didSave"):
            return {"textDocument": {"uri": uri}}
        if method == "textDocument/inlineCompletion":
            return {"textDocument": {"uri": uri}, "position": self.position(),
                    "context": {"triggerKind": r.choice([1, 2, 2, 3, 0])}}
        if method in ("textDocument/completion", "textDocument/hover",
                      "textDocument/definition"):
            return {"textDocument": {"uri": uri}, "position": self.position()}
        if method == "textDocument/codeAction":
            return {"textDocument": {"uri": uri},
                    "range": {"start": self.position(), "end": self.position()},
                    "context": {"diagnostics": []}}
        if method == "codeAction/resolve":
            return {"title": self.text(3), "data": self.junk()}
        if method == "workspace/executeCommand":
            command = r.choice(COMMANDS)
            args = r.choice([[], [self.junk()], [{"uri": uri, "position": self.position()}],
                             [{"uri": uri, "range": {"start": self.position(),
                                                     "end": self.position()},
                               "instruction": self.text(3)}], [{"days": self.number()}]])
            return {"command": command, "arguments": args}
        if method == "workspace/didChangeConfiguration":
            return {"settings": r.choice([
                None, {}, self.junk(),
                {"flashls": {"completion": {"enable": r.choice([True, False, "x"]),
                                            "timeoutMs": self.number(),
                                            "debounceMs": r.choice([0, None, -3, "a"])},
                             "model": self.text(2), "logLevel": r.choice(["debug", "x"]),
                             "exclude": r.choice([["**/*.go"], ["[", 3], "x"])}}])}
        if method == "workspace/didChangeWorkspaceFolders":
            return {"event": {"added": [{"uri": uri, "name": "w"}], "removed": []}}
        if method == "$/cancelRequest":
            return {"id": r.choice([self.number(), self.text(2)])}
        return self.junk()

    def message(self, msg_id: int) -> tuple[dict | bytes, bool]:
        """(message or raw frame, whether it is a request we must get an answer to)."""
        r = self.rng
        roll = r.random()
        if roll < 0.01:  # a broken but well-framed body
            body = r.choice([b"{", b"[]", b"null", b"{\"jsonrpc\": \"2.0\", \"id\": ",
                             bytes(r.randrange(256) for _ in range(20))])
            return b"Content-Length: %d\r\n\r\n" % len(body) + body, False
        if roll < 0.03:
            method = "".join(r.choice(string.ascii_letters + "/$") for _ in range(8))
        else:
            method = r.choice(METHODS)
        message: dict = {"jsonrpc": "2.0", "method": method}
        params = self.params(method)
        if params is not None or r.random() < 0.5:
            message["params"] = params
        notification = method.startswith(("textDocument/did", "workspace/didChange", "$/"))
        is_request = (not notification) if r.random() < 0.95 else notification
        if is_request:
            message["id"] = msg_id if r.random() < 0.9 else f"s{msg_id}"
        # a notification method sent with an id is garbage too (pygls does not answer
        # it); only real requests must be answered
        return message, is_request and not notification


@pytest.fixture
def fake():
    server = FakeDeepSeek(lambda req: Reply(text="fz()")).start()
    yield server
    server.stop()


async def test_ten_thousand_random_messages_then_a_normal_completion(fake, tmp_path):
    settings = {"baseUrl": fake.url, "apiKey": KEY,
                "completion": {"debounceMs": 0, "timeoutMs": 2000}}
    client = RawLsp(settings)
    await client.start()
    await client.initialize(tmp_path)
    fuzzer = Fuzzer(random.Random(SEED), tmp_path)
    pending: dict = {}
    for n in range(MESSAGES):
        message, is_request = fuzzer.message(1_000_000 + n)
        if isinstance(message, bytes):
            client.send_raw(message)
        elif is_request or "id" in message:
            msg_id = message["id"]
            future = client.request(message["method"], message.get("params"), msg_id=msg_id) \
                if "params" in message else client.request(message["method"], msg_id=msg_id)
            if is_request:
                pending[msg_id] = (message["method"], future)
        else:
            client.send(message)
        if n % 200 == 0:
            await client.drain()
            assert client.proc.returncode is None, client.stderr[-3000:].decode(errors="replace")
    await client.drain()
    futures = [f for _, f in pending.values()]
    done, not_done = await asyncio.wait(futures, timeout=60)
    assert client.proc.returncode is None
    hanging = [(m, i) for i, (m, f) in pending.items() if not f.done()]
    assert hanging == [], f"{len(hanging)} requests never answered, e.g. {hanging[:5]}"
    internal = [(m, f.result()["error"]["message"][:120]) for m, f in pending.values()
                if "error" in f.result() and f.result()["error"]["code"] == INTERNAL_ERROR
                and not clear_command_error(m, f.result()["error"]["message"])]
    assert internal == [], f"{len(internal)} internal errors, e.g. {internal[:5]}"

    # afterwards: a user with good settings gets a normal completion
    client.notify("workspace/didChangeConfiguration", {"settings": {"flashls": settings}})
    uri = (tmp_path / "after.py").as_uri()
    client.open(uri, "def ok():\n    return \n")
    answer = await client.ask("textDocument/inlineCompletion", {
        "textDocument": {"uri": uri}, "position": {"line": 1, "character": 11},
        "context": {"triggerKind": 1}}, timeout_s=30)
    assert [i["insertText"] for i in answer["result"]["items"]] == ["fz()"]
    assert KEY.encode() not in client.stderr
    assert not any(KEY in json.dumps(n) for n in client.notifications)
    assert await client.shutdown() == 0
