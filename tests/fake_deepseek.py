"""A fake DeepSeek API on loopback: real sockets, real HTTP/1.1, real SSE streaming.

It runs its own event loop in a background thread so that in-process tests, tests
that drive the server as a subprocess, benchmarks and `flashls eval` tests can all
talk to it. It records every request, simulates DeepSeek's prefix cache, a model
latency, and injects faults (status codes, hangs, resets, garbage, huge answers).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

_TOKEN = re.compile(r"\w+|[^\w\s]|\s+")


def tokenize(text: str) -> list[str]:
    """A stand-in tokenizer: words, single punctuation marks and whitespace runs."""
    return _TOKEN.findall(text)


@dataclass
class Reply:
    """What the fake model answers to one request."""

    text: str = ""
    status: int = 200
    error_body: str = '{"error": {"message": "fake error"}}'
    headers: dict[str, str] = field(default_factory=dict)
    fault: str | None = None  # hang_after_first | never_answer | reset_mid_stream
    #                           | malformed | no_done | keepalive_first
    first_token_delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    chunk_chars: int = 4
    finish_reason: str = "stop"


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float
    aborted: bool = False  # the client closed the connection before the end
    completed: bool = False
    finished_at: float = 0.0  # monotonic time the last byte was sent
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def model(self) -> str:
        return self.body.get("model", "")


Responder = Callable[[Recorded], Reply | str]


def default_responder(req: Recorded) -> Reply:
    return Reply(text="fake_completion()")


class PrefixCache:
    """DeepSeek's rule: a hit only for a stored unit that fully prefixes the input.

    Units are stored at the end of each request's input and every `interval` tokens.
    """

    def __init__(self, interval: int = 64):
        self.interval = interval
        self.units: dict[int, set[str]] = {}

    @staticmethod
    def _key(tokens: list[str], length: int) -> str:
        return hashlib.blake2b("".join(tokens[:length]).encode("utf-8", "surrogatepass"),
                               digest_size=16).hexdigest()

    def lookup_and_store(self, tokens: list[str]) -> int:
        hit = 0
        for length in sorted(self.units, reverse=True):
            if length <= len(tokens) and self._key(tokens, length) in self.units[length]:
                hit = length
                break
        for length in list(range(self.interval, len(tokens), self.interval)) + [len(tokens)]:
            self.units.setdefault(length, set()).add(self._key(tokens, length))
        return hit

    def clear(self) -> None:
        self.units.clear()


async def _finish(task: asyncio.Future) -> None:
    """Stop the hang-up watcher so the connection can read its next request."""
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


class ChunkedSender:
    """Chunked-transfer writes that stop as soon as the client hangs up: `send` one
    chunk, `pause` (wakes early on a hang-up). Shared by every fake's stream."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.eof = asyncio.ensure_future(reader.read())  # completes when the client hangs up

    async def send(self, data: bytes) -> None:
        if self.eof.done():
            raise ConnectionResetError
        self.writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        await self.writer.drain()

    async def pause(self, seconds: float) -> None:
        if seconds > 0:
            await asyncio.wait([self.eof], timeout=seconds)
        if self.eof.done():
            raise ConnectionResetError


def request_input(path: str, body: dict[str, Any]) -> str:
    """The model input the cache sees: FIM prompt then suffix; chat messages in order."""
    if path.endswith("/beta/completions"):
        return f"{body.get('prompt', '')}<|fim_hole|>{body.get('suffix', '')}"
    return "".join(f"<|{m.get('role')}|>{m.get('content')}" for m in body.get("messages", []))


class FakeDeepSeek:
    def __init__(self, responder: Responder | None = None, *, latency_s: float = 0.0,
                 cache_interval: int = 64, api_key: str | None = None):
        self.responder: Responder = responder or default_responder
        self.latency_s = latency_s  # added before the first token of every answer
        self.api_key = api_key  # when set, other keys get 401
        self.cache = PrefixCache(cache_interval)
        self.requests: list[Recorded] = []
        self.connections = 0
        self.open_connections = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self.port = 0

    # -- lifecycle ----------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "FakeDeepSeek":
        self._thread = threading.Thread(target=self._run, name="fake-deepseek", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop and self._server:
            async def close() -> None:
                self._server.close()
                for task in asyncio.all_tasks():
                    if task is not asyncio.current_task():
                        task.cancel()
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread:
            self._thread.join(5)

    def __enter__(self) -> "FakeDeepSeek":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    # -- inspection ---------------------------------------------------------
    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
        self.cache.clear()

    def completion_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("completions")]

    def wait_for_requests(self, count: int, timeout_s: float = 5.0) -> list[Recorded]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            reqs = self.completion_requests()
            if len(reqs) >= count:
                return reqs
            time.sleep(0.01)
        return self.completion_requests()

    # -- HTTP ---------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0"))
                raw = await reader.readexactly(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {"_invalid_json": raw[:200].decode("latin-1")}
                keep = await self._respond(method, path, headers, body, reader, writer)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self.open_connections -= 1
            try:
                writer.close()
            except Exception:
                pass

    async def _respond(self, method: str, path: str, headers: dict[str, str],
                       body: dict[str, Any], reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter) -> bool:
        if method == "GET" and path.rstrip("/").endswith("/models"):
            payload = json.dumps({"object": "list", "data": [
                {"id": "deepseek-flash", "object": "model"},
                {"id": "deepseek-v4-pro", "object": "model"}]}).encode()
            status = 200
            if self.api_key and headers.get("authorization") != f"Bearer {self.api_key}":
                status, payload = 401, b'{"error": {"message": "Authentication Fails"}}'
            await self._simple(writer, status, payload)
            return True
        record = Recorded(path=path, headers=headers, body=body, received_at=time.monotonic())
        with self._lock:
            self.requests.append(record)
        if self.api_key and headers.get("authorization") != f"Bearer {self.api_key}":
            await self._simple(writer, 401, b'{"error": {"message": "Authentication Fails"}}')
            record.completed = True
            return True
        reply = self.responder(record)
        if isinstance(reply, str):
            reply = Reply(text=reply)
        if reply.status != 200:
            await self._simple(writer, reply.status, reply.error_body.encode(), reply.headers)
            record.completed = True
            return True
        if reply.fault == "never_answer":
            await reader.read()  # until the client gives up
            record.aborted = True
            return False
        tokens = tokenize(request_input(path, body))
        hit = self.cache.lookup_and_store(tokens)
        out_tokens = len(tokenize(reply.text))
        record.usage = {"prompt_tokens": len(tokens), "prompt_cache_hit_tokens": hit,
                        "prompt_cache_miss_tokens": len(tokens) - hit,
                        "completion_tokens": out_tokens, "total_tokens": len(tokens) + out_tokens}
        return await self._stream(path, record, reply, reader, writer)

    async def _simple(self, writer: asyncio.StreamWriter, status: int, payload: bytes,
                      extra: dict[str, str] | None = None) -> None:
        head = [f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}",
                "Content-Type: application/json", f"Content-Length: {len(payload)}"]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await writer.drain()

    async def _stream(self, path: str, record: Recorded, reply: Reply,
                      reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        fim = path.endswith("/beta/completions")
        chunks = ChunkedSender(reader, writer)
        eof, send, pause = chunks.eof, chunks.send, chunks.pause

        def event(piece: str | None, finish: str | None, usage: dict | None = None) -> bytes:
            if piece is None:
                choices = []
            elif fim:
                choices = [{"text": piece, "index": 0, "finish_reason": finish}]
            else:
                choices = [{"index": 0, "delta": {"content": piece} if piece else {},
                            "finish_reason": finish}]
            obj = {"id": "fake", "object": "text_completion" if fim else "chat.completion.chunk",
                   "model": record.model, "choices": choices, "usage": usage}
            return f"data: {json.dumps(obj)}\n\n".encode()

        try:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n")
            await writer.drain()
            if reply.fault == "keepalive_first":
                await send(b": keep-alive\n\n")
            await pause(self.latency_s + reply.first_token_delay_s)
            if reply.fault == "malformed":
                await send(b"data: {not json at all\n\n")
                await send(b"data: [DONE]\n\n")
                writer.write(b"0\r\n\r\n")
                record.completed = True
                await _finish(eof)
                return True
            text = reply.text
            pieces = [text[i:i + reply.chunk_chars] for i in range(0, len(text), reply.chunk_chars)]
            for index, piece in enumerate(pieces):
                if index and reply.chunk_delay_s:
                    await pause(reply.chunk_delay_s)
                await send(event(piece, None))
                if reply.fault == "hang_after_first":
                    await reader.read()
                    raise ConnectionResetError
                if reply.fault == "reset_mid_stream" and index >= len(pieces) // 2:
                    writer.transport.abort()
                    record.aborted = False
                    await _finish(eof)
                    return False
            await send(event("", reply.finish_reason))
            # the answer is complete once its last event goes out: mark it before that
            # write, so a client that returns on reading it never sees it "incomplete"
            record.finished_at = time.monotonic()
            record.completed = True
            if reply.fault != "no_done":
                await send(event(None, None, record.usage))
                await send(b"data: [DONE]\n\n")
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            await _finish(eof)
            return True
        except (ConnectionError, asyncio.CancelledError):
            record.aborted = True
            await _finish(eof)
            return False
