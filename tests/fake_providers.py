"""Fake model servers for the non-DeepSeek wire formats, on loopback with real sockets.

Each follows its server's documented wire format (routes, request fields, stream
framing, error bodies): `openai` (vLLM/SGLang: `/v1/completions` without `suffix`,
`/v1/chat/completions`, `/v1/models`), `llamacpp` (`/infill`, `/v1/chat/completions`,
`/health`, `/v1/models`), `ollama` (`/api/generate`, `/api/chat`, `/api/tags`, NDJSON)
and `mistral` (`/v1/fim/completions`, `/v1/chat/completions`). Built on FakeDeepSeek's
HTTP handling, request log and fault injection (`Reply`). `slots` limits how many
answers stream at once; the rest queue, like a serving engine at its concurrency cap.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Callable

from tests.fake_deepseek import ChunkedSender, FakeDeepSeek, Recorded, Reply, Responder, _finish, tokenize

KINDS = ("openai", "llamacpp", "ollama", "mistral")

ROUTES: dict[str, dict[str, str]] = {
    "openai": {"fim": "/v1/completions", "chat": "/v1/chat/completions", "models": "/v1/models"},
    "llamacpp": {"fim": "/infill", "chat": "/v1/chat/completions", "models": "/v1/models"},
    "ollama": {"fim": "/api/generate", "chat": "/api/chat", "models": "/api/tags"},
    "mistral": {"fim": "/v1/fim/completions", "chat": "/v1/chat/completions",
                "models": "/v1/models"},
}


def error_body(kind: str, status: int, message: str) -> bytes:
    """Each server's own error shape."""
    if kind == "ollama":
        return json.dumps({"error": message}).encode()
    if kind == "openai":  # vLLM's ErrorResponse
        return json.dumps({"object": "error", "message": message, "type": "BadRequestError",
                           "param": None, "code": status}).encode()
    if kind == "mistral":
        return json.dumps({"object": "error", "message": message, "type": "invalid_request",
                           "code": str(status)}).encode()
    return json.dumps({"error": {"code": status, "message": message,
                                 "type": "invalid_request_error"}}).encode()


def model_input(kind: str, endpoint: str, body: dict[str, Any]) -> str:
    if endpoint == "chat":
        return "".join(f"<|{m.get('role')}|>{m.get('content')}" for m in body.get("messages", []))
    if kind == "llamacpp":
        extra = "".join(f"{c.get('filename')}\n{c.get('text')}" for c in body.get("input_extra", []))
        return f"{extra}<PRE>{body.get('input_prefix', '')}<SUF>{body.get('input_suffix', '')}"
    return f"{body.get('prompt', '')}<SUF>{body.get('suffix', '')}"


class FakeProvider(FakeDeepSeek):
    def __init__(self, kind: str, responder: Responder | None = None, *,
                 models: tuple[str, ...] = ("qwen2.5-coder-1.5b",), latency_s: float = 0.0,
                 api_key: str | None = None, slots: int | None = None):
        if kind not in KINDS:
            raise ValueError(kind)
        super().__init__(responder, latency_s=latency_s, api_key=api_key)
        self.kind = kind
        self.models = models
        self.slots = slots
        self._slot_sem: asyncio.Semaphore | None = None
        self.active = 0
        self.peak_active = 0

    # -- inspection ---------------------------------------------------------------------
    def completion_requests(self) -> list[Recorded]:
        with self._lock:
            return list(self.requests)

    def endpoint_of(self, path: str) -> str | None:
        routes = ROUTES[self.kind]
        return next((name for name in ("fim", "chat") if routes[name] == path), None)

    # -- HTTP ---------------------------------------------------------------------------
    def _authorized(self, headers: dict[str, str]) -> bool:
        return not self.api_key or headers.get("authorization") == f"Bearer {self.api_key}"

    async def _respond(self, method, path, headers, body, reader, writer) -> bool:
        if method == "GET":
            return await self._get(path, headers, writer)
        endpoint = self.endpoint_of(path)
        if endpoint is None:
            await self._simple(writer, 404, error_body(self.kind, 404, f"no route {path}"))
            return True
        record = Recorded(path=path, headers=headers, body=body, received_at=time.monotonic())
        with self._lock:
            self.requests.append(record)
        rejected = self._reject(endpoint, headers, body)
        if rejected:
            await self._simple(writer, rejected[0], error_body(self.kind, *rejected))
            record.completed = True
            return True
        reply = self.responder(record)
        if isinstance(reply, str):
            reply = Reply(text=reply)
        if reply.status != 200:
            await self._simple(writer, reply.status, error_body(self.kind, reply.status,
                                                                "fake error"), reply.headers)
            record.completed = True
            return True
        if reply.fault == "never_answer":
            await reader.read()
            record.aborted = True
            return False
        tokens = tokenize(model_input(self.kind, endpoint, body))
        hit = self.cache.lookup_and_store(tokens)
        record.usage = {"prompt_tokens": len(tokens), "cached": hit,
                        "completion_tokens": len(tokenize(reply.text))}
        return await self._queued_stream(endpoint, record, reply, reader, writer)

    def _reject(self, endpoint: str, headers: dict[str, str],
                body: dict[str, Any]) -> tuple[int, str] | None:
        """What the real server refuses, with its status."""
        if not self._authorized(headers):
            return 401, "Unauthorized"
        model = body.get("model")
        if self.kind != "llamacpp" and model not in self.models:
            status = 404
            return status, f"model '{model}' not found, try pulling it first"
        if self.kind == "openai" and endpoint == "fim" and body.get("suffix"):
            return 400, "suffix is not currently supported"
        if self.kind == "llamacpp" and endpoint == "fim" and "input_prefix" not in body:
            return 400, "\"input_prefix\" is required"
        return None

    async def _get(self, path: str, headers: dict[str, str], writer) -> bool:
        if not self._authorized(headers):
            await self._simple(writer, 401, error_body(self.kind, 401, "Unauthorized"))
            return True
        if path == ROUTES[self.kind]["models"]:
            if self.kind == "ollama":
                payload = {"models": [{"name": m, "model": m} for m in self.models]}
            else:
                payload = {"object": "list", "data": [{"id": m, "object": "model"}
                                                      for m in self.models]}
            await self._simple(writer, 200, json.dumps(payload).encode())
        elif self.kind == "llamacpp" and path == "/health":
            await self._simple(writer, 200, b'{"status": "ok"}')
        else:
            await self._simple(writer, 404, error_body(self.kind, 404, f"no route {path}"))
        return True

    async def _queued_stream(self, endpoint, record, reply, reader, writer) -> bool:
        if self.slots is None:
            return await self._stream_format(endpoint, record, reply, reader, writer)
        if self._slot_sem is None:
            self._slot_sem = asyncio.Semaphore(self.slots)
        async with self._slot_sem:
            self.active += 1
            self.peak_active = max(self.peak_active, self.active)
            try:
                return await self._stream_format(endpoint, record, reply, reader, writer)
            finally:
                self.active -= 1

    # -- stream framing -----------------------------------------------------------------
    def _frame(self, endpoint: str, record: Recorded, piece: str) -> bytes:
        if self.kind == "ollama":
            key = {"response": piece} if endpoint == "fim" else {
                "message": {"role": "assistant", "content": piece}}
            return (json.dumps({"model": record.model, "created_at": "2026-01-01T00:00:00Z",
                                **key, "done": False}) + "\n").encode()
        if self.kind == "llamacpp" and endpoint == "fim":
            return f"data: {json.dumps({'content': piece, 'stop': False})}\n\n".encode()
        if self.kind == "openai" and endpoint == "fim":
            choice = {"index": 0, "text": piece, "finish_reason": None}
        else:  # chat everywhere, and Mistral's FIM chunks
            choice = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
        return f"data: {json.dumps({'id': 'x', 'model': record.model, 'choices': [choice]})}\n\n".encode()

    def _closing(self, endpoint: str, record: Recorded, finish: str) -> list[bytes]:
        u = record.usage
        prompt, hit, out = u["prompt_tokens"], u["cached"], u["completion_tokens"]
        if self.kind == "ollama":
            return [(json.dumps({"model": record.model, "done": True, "done_reason": finish,
                                 "prompt_eval_count": prompt - hit, "eval_count": out,
                                 **({"response": ""} if endpoint == "fim" else
                                    {"message": {"role": "assistant", "content": ""}})})
                     + "\n").encode()]
        if self.kind == "llamacpp" and endpoint == "fim":
            final = {"content": "", "stop": True,
                     "stop_type": "limit" if finish == "length" else "eos",
                     "tokens_evaluated": prompt, "tokens_cached": hit, "tokens_predicted": out,
                     "timings": {"cache_n": hit, "prompt_n": prompt - hit, "predicted_n": out}}
            return [f"data: {json.dumps(final)}\n\n".encode()]
        fim = self.kind == "openai" and endpoint == "fim"
        choice = ({"index": 0, "text": "", "finish_reason": finish} if fim else
                  {"index": 0, "delta": {}, "finish_reason": finish})
        usage = {"prompt_tokens": prompt, "completion_tokens": out,
                 "total_tokens": prompt + out}
        if self.kind in ("openai", "llamacpp"):
            usage["prompt_tokens_details"] = {"cached_tokens": hit}
        return [f"data: {json.dumps({'id': 'x', 'choices': [choice]})}\n\n".encode(),
                f"data: {json.dumps({'id': 'x', 'choices': [], 'usage': usage})}\n\n".encode(),
                b"data: [DONE]\n\n"]

    def _garbage(self) -> bytes:
        return b"{not json\n" if self.kind == "ollama" else b"data: {not json at all\n\n"

    async def _stream_format(self, endpoint, record, reply, reader, writer) -> bool:
        chunks = ChunkedSender(reader, writer)
        eof, send, pause = chunks.eof, chunks.send, chunks.pause

        content_type = b"application/x-ndjson" if self.kind == "ollama" else b"text/event-stream"
        try:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: " + content_type +
                         b"\r\nTransfer-Encoding: chunked\r\n\r\n")
            await writer.drain()
            await pause(self.latency_s + reply.first_token_delay_s)
            if reply.fault == "malformed":
                await send(self._garbage())
                writer.write(b"0\r\n\r\n")
                record.completed = True
                await _finish(eof)
                return True
            text = reply.text
            pieces = [text[i:i + reply.chunk_chars] for i in range(0, len(text), reply.chunk_chars)]
            for index, piece in enumerate(pieces):
                if index and reply.chunk_delay_s:
                    await pause(reply.chunk_delay_s)
                await send(self._frame(endpoint, record, piece))
                if reply.fault == "hang_after_first":
                    await reader.read()
                    raise ConnectionResetError
                if reply.fault == "reset_mid_stream" and index >= len(pieces) // 2:
                    writer.transport.abort()
                    await _finish(eof)
                    return False
            record.finished_at = time.monotonic()
            record.completed = True
            for frame in self._closing(endpoint, record, reply.finish_reason):
                await send(frame)
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            await _finish(eof)
            return True
        except (ConnectionError, asyncio.CancelledError):
            record.aborted = True
            await _finish(eof)
            return False


def start_fake(kind: str, responder: Callable[[Recorded], Reply | str] | None = None,
               **kwargs: Any) -> FakeProvider:
    return FakeProvider(kind, responder, **kwargs).start()


def base_url_for(fake: FakeProvider) -> str:
    """The `flashls.baseUrl` a user would set for this server."""
    return fake.url + ("/v1" if fake.kind in ("openai", "mistral") else "")
