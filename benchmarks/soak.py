"""Soak: an hour of typing compressed into minutes against one real flashls process.

A simulated user types into many documents (bursts of keystrokes, pauses, opening and
closing files), asking for an inline completion after most keystrokes, against the
fake DeepSeek with a model latency. Every few seconds the benchmark samples the
server's RSS (from /proc/<pid>/status), the engine's cache sizes and in-flight state
(`flashls.debugStats`), and the fake's open connections; at the end it reports the RSS
slope after warm-up. A leak shows as a slope; a bounded process is flat.

    python -m benchmarks.soak            # ~2 minutes, 1 simulated hour
    python -m benchmarks.soak --quick    # ~10 s (used by the test suite)

`RawLsp` is a minimal stdio LSP client that does not wait for answers before sending
the next message (pipelining), so it can also pour garbage into a server (fuzzing)
and read the server's stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import string
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SERVER_COMMAND = [sys.executable, "-m", "flashls"]


# -- a raw, pipelining stdio client ---------------------------------------------------
class RawLsp:
    """Speak JSON-RPC to a server process with no framework in between."""

    def __init__(self, settings: dict | None = None):
        self.settings = settings or {}
        self.proc: asyncio.subprocess.Process | None = None
        self.pending: dict[Any, asyncio.Future] = {}
        self.notifications: list[dict] = []
        self.server_requests: list[dict] = []
        self.stderr = bytearray()
        self.max_stderr = 4_000_000
        self._ids = iter(range(1, 1 << 62))
        self._tasks: list[asyncio.Task] = []
        self.closed = asyncio.Event()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self, command: list[str] | None = None, env: dict | None = None) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *(command or SERVER_COMMAND), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **(env or {})}, limit=1 << 24)
        self._tasks = [asyncio.create_task(self._read()),
                       asyncio.create_task(self._read_stderr())]

    # -- sending ------------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write(data)

    def send(self, message: Any) -> None:
        body = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any = None, *, msg_id: Any = None) -> asyncio.Future:
        msg_id = next(self._ids) if msg_id is None else msg_id
        future = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = future
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return future

    def notify(self, method: str, params: Any = None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    async def drain(self) -> None:
        assert self.proc and self.proc.stdin
        await self.proc.stdin.drain()

    # -- receiving ----------------------------------------------------------------
    async def _read(self) -> None:
        assert self.proc and self.proc.stdout
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = await out.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                self._dispatch(json.loads(await out.readexactly(length)))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.closed.set()
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("server closed its output"))

    async def _read_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        while chunk := await self.proc.stderr.read(65536):
            self.stderr += chunk
            if len(self.stderr) > self.max_stderr:
                del self.stderr[: len(self.stderr) - self.max_stderr]

    def _dispatch(self, message: dict) -> None:
        if "method" in message and "id" in message:  # a request from the server
            self.server_requests.append(message)
            self.send({"jsonrpc": "2.0", "id": message["id"],
                       "result": self._answer(message["method"], message.get("params"))})
        elif "method" in message:
            self.notifications.append(message)
            if len(self.notifications) > 20000:
                del self.notifications[:10000]
        else:
            future = self.pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)

    def _answer(self, method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            return [self.settings if item.get("section") == "flashls" else None
                    for item in (params or {}).get("items", [])]
        return None

    def messages(self, method: str = "window/showMessage") -> list[str]:
        return [n["params"]["message"] for n in self.notifications if n["method"] == method]

    # -- lifecycle ----------------------------------------------------------------
    async def initialize(self, root: Path, *, encoding: str = "utf-16",
                         inline: bool = True) -> dict:
        caps = {"general": {"positionEncodings": [encoding]},
                "workspace": {"configuration": True, "workspaceFolders": True},
                "textDocument": {"synchronization": {}, "completion": {}}}
        if inline:
            caps["textDocument"]["inlineCompletion"] = {}
        result = await self.request("initialize", {
            "processId": os.getpid(), "capabilities": caps, "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": self.settings})
        self.notify("initialized", {})
        return result

    async def ask(self, method: str, params: Any = None, timeout_s: float = 30.0) -> dict:
        return await asyncio.wait_for(self.request(method, params), timeout_s)

    async def shutdown(self, timeout_s: float = 10.0) -> int | None:
        """shutdown + exit; returns the exit code (None if it had to be killed)."""
        assert self.proc
        try:
            if self.proc.returncode is None and not self.closed.is_set():
                await asyncio.wait_for(self.request("shutdown"), timeout_s)
                self.notify("exit")
                await self.drain()
        except (asyncio.TimeoutError, ConnectionError, BrokenPipeError):
            pass
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout_s)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            code = None
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        return code

    # -- conveniences -------------------------------------------------------------
    def open(self, uri: str, text: str, language: str = "python", version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": version, "text": text}})

    def change(self, uri: str, version: int, start: tuple[int, int], end: tuple[int, int],
               text: str) -> None:
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {
                "start": {"line": start[0], "character": start[1]},
                "end": {"line": end[0], "character": end[1]}}, "text": text}]})

    def close(self, uri: str) -> None:
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def inline(self, uri: str, line: int, character: int, invoked: bool = False
               ) -> asyncio.Future:
        return self.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character},
            "context": {"triggerKind": 1 if invoked else 2}})

    async def command(self, name: str, *args: Any, timeout_s: float = 30.0) -> dict:
        return await self.ask("workspace/executeCommand",
                              {"command": name, "arguments": list(args)}, timeout_s)


def rss_kb(pid: int) -> int:
    """Resident set size of a process, from /proc (no psutil needed)."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
