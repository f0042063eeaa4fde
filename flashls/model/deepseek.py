"""DeepSeek adapter: the only code that knows DeepSeek's endpoints and wire format.

One `httpx.AsyncClient` for the process (keep-alive, pooled connections). Every
request streams (SSE) so a cancelled task closes its stream at once and the text
generated so far is visible to callers while it grows.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, AsyncIterator

import httpx

from .. import __version__
from .types import (AuthError, BadRequestError, BalanceError, ChatRequest, ConnectError,
                    FimRequest, ModelError, ModelRequest, ModelResult, OnText,
                    ProtocolError, RateLimitError, ServerError, UpstreamTimeout, Usage)

log = logging.getLogger(__name__)

MAX_ANSWER_CHARS = 64_000  # a runaway answer is cut here (far above any max_tokens)
DRAIN_TIMEOUT_S = 1.0
INLINE_DRAIN_S = 0.02
ABANDON_GRACE_S = 3.0  # a cancelled request's send may finish this long in the background
MAX_CHARS_PER_TOKEN = 32  # no real token is longer: more text is a runaway stream


def answer_limit(max_tokens: int) -> int:
    """Characters an answer of `max_tokens` tokens can plausibly have."""
    return min(MAX_ANSWER_CHARS, max(4096, max_tokens * MAX_CHARS_PER_TOKEN))


def fim_body(req: FimRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": req.model, "prompt": req.prompt, "suffix": req.suffix,
        "max_tokens": req.max_tokens, "temperature": req.temperature,
        "stream": True, "stream_options": {"include_usage": True},
    }
    if req.stop:
        body["stop"] = list(req.stop[:16])
    return body


def chat_body(req: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": req.model,
        "messages": [{"role": m.role, "content": m.content} for m in req.messages],
        "max_tokens": req.max_tokens, "temperature": req.temperature,
        "thinking": {"type": "disabled"},  # thinking is pure latency for us
        "stream": True, "stream_options": {"include_usage": True},
    }
    if req.stop:
        body["stop"] = list(req.stop[:16])
    return body


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def error_for_status(status: int, detail: str, retry_after: float | None) -> ModelError:
    detail = detail.strip()[:300]
    text = f"DeepSeek API answered {status}" + (f": {detail}" if detail else "")
    if status == 401:
        return AuthError(text, status=status)
    if status == 402:
        return BalanceError(text, status=status)
    if status in (400, 404, 422):
        return BadRequestError(text, status=status)
    if status == 429:
        return RateLimitError(text, status=status, retry_after_s=retry_after)
    if status >= 500:
        return ServerError(text, status=status, retry_after_s=retry_after)
    return ModelError(text, status=status)


def _error_detail(raw: bytes) -> str:
    try:
        data = json.loads(raw)
        error = data.get("error", data)
        return str(error.get("message", "")) if isinstance(error, dict) else str(error)
    except (ValueError, AttributeError):
        return raw[:200].decode("utf-8", "replace")


DONE = object()  # the stream's `data: [DONE]`


def parse_sse_line(line: str) -> dict[str, Any] | object | None:
    """One SSE line → its JSON event, DONE, or None for lines that carry nothing."""
    if not line or line.startswith(":"):
        return None  # blank separators and `: keep-alive`
    if not line.startswith("data:"):
        return None  # event:/id:/retry: fields carry nothing we use
    payload = line[5:].strip()
    if payload == "[DONE]":
        return DONE
    try:
        event = json.loads(payload)
    except ValueError as err:
        raise ProtocolError(f"malformed stream data from the API: {payload[:80]!r}") from err
    if not isinstance(event, dict):
        raise ProtocolError("malformed stream event from the API")
    if "error" in event and not event.get("choices"):
        raise ServerError(f"API error in stream: {str(event['error'])[:200]}")
    return event


async def _drain(response: httpx.Response, lines: AsyncIterator[str]) -> None:
    """Read what is left of a finished answer (`[DONE]`, the chunk terminator) so the
    connection goes back to the pool instead of being closed; give up quickly."""
    try:
        async def rest() -> None:
            async for _ in lines:
                pass
        await asyncio.wait_for(rest(), DRAIN_TIMEOUT_S)
    except (Exception, asyncio.CancelledError):
        pass
    finally:
        await response.aclose()


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    hit = int(raw.get("prompt_cache_hit_tokens") or 0)
    prompt = int(raw.get("prompt_tokens") or 0)
    miss = int(raw.get("prompt_cache_miss_tokens") or max(0, prompt - hit))
    return Usage(prompt_tokens=prompt or hit + miss, cache_hit_tokens=hit,
                 cache_miss_tokens=miss,
                 completion_tokens=int(raw.get("completion_tokens") or 0))


class DeepSeekClient:
    """Implements `CompletionModel` over DeepSeek's FIM and chat endpoints."""

    def __init__(self, base_url: str, api_key: str, *, connect_timeout_s: float = 5.0,
                 idle_timeout_s: float = 30.0, transport: httpx.AsyncBaseTransport | None = None,
                 network: dict[str, Any] | None = None):
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(connect=connect_timeout_s, read=idle_timeout_s,
                                  write=10.0, pool=connect_timeout_s),
            limits=httpx.Limits(max_keepalive_connections=8, keepalive_expiry=120),
            headers={"User-Agent": f"flashls/{__version__}"},
            transport=transport,
            **(network or {}),  # proxy / CA options: flashls.model.network.client_kwargs
        )
        self._draining: set[asyncio.Task] = set()

    def configure(self, base_url: str, api_key: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key

    def __repr__(self) -> str:
        return f"DeepSeekClient({self.base_url!r})"  # never the key

    def _unkeyed(self, text: str) -> str:
        """An API that echoes the key in an error body must not put it in our errors."""
        key = self._api_key
        return text.replace(key, "<redacted>") if key and len(key) >= 4 else text

    async def aclose(self) -> None:
        for task in list(self._draining):
            task.cancel()
        await asyncio.gather(*self._draining, return_exceptions=True)
        await self._client.aclose()

    def _build(self, method: str, url: str, **kwargs: Any) -> httpx.Request:
        """An HTTP request, or a ModelError saying which setting makes it unsendable."""
        try:
            return self._client.build_request(method, url, **kwargs)
        except UnicodeEncodeError:
            if not self._api_key.isascii():
                raise AuthError("the API key contains a non-ASCII character (often an "
                                "invisible one pasted along with it)") from None
            raise BadRequestError("the request holds text that cannot be sent as UTF-8 "
                                  "(check flashls.model)") from None

    async def _send(self, http_request: httpx.Request) -> httpx.Response:
        """Send, shielded from cancellation: a cancel that lands while httpcore sets up
        a connection leaves it in the pool forever, neither reusable nor closed
        (encode/httpcore#1093), and editors cancel most requests. The abandoned send
        finishes in the background (at most ABANDON_GRACE_S) and its answer is closed."""
        task = asyncio.ensure_future(self._client.send(http_request, stream=True))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            self._draining.add(task)
            task.add_done_callback(self._close_abandoned)
            asyncio.get_running_loop().call_later(ABANDON_GRACE_S, task.cancel)
            raise

    def _close_abandoned(self, task: asyncio.Task) -> None:
        self._draining.discard(task)
        if task.cancelled() or task.exception() is not None:
            return
        closing = asyncio.ensure_future(task.result().aclose())
        self._draining.add(closing)
        closing.add_done_callback(self._draining.discard)

    async def list_models(self, *, timeout_s: float = 10.0) -> list[str]:
        """Model ids the API offers (`GET /models`), for `flashls doctor`."""
        headers = {"Authorization": f"Bearer {self._api_key}"}
        try:
            resp = await asyncio.wait_for(
                self._client.get(f"{self.base_url}/models", headers=headers), timeout_s)
        except (asyncio.TimeoutError, httpx.TimeoutException) as err:
            raise UpstreamTimeout(f"no answer from {self.base_url} within {timeout_s:.1f}s") from err
        except httpx.ConnectError as err:
            raise ConnectError(f"cannot reach {self.base_url}: {err}") from err
        except httpx.HTTPError as err:
            raise ModelError(f"HTTP error talking to the API: {type(err).__name__}") from err
        if resp.status_code != 200:
            raise error_for_status(resp.status_code, self._unkeyed(_error_detail(resp.content)),
                                   parse_retry_after(resp.headers.get("retry-after")))
        try:
            data = resp.json().get("data", [])
            return [str(m["id"]) for m in data if isinstance(m, dict) and "id" in m]
        except (ValueError, AttributeError, TypeError) as err:
            raise ProtocolError("the model list from the API is not what it promises") from err

    async def generate(self, request: ModelRequest, *, timeout_s: float,
                       on_text: OnText | None = None) -> ModelResult:
        try:
            return await asyncio.wait_for(self._generate(request, on_text), timeout_s)
        except asyncio.TimeoutError as err:
            raise UpstreamTimeout(f"no complete answer within {timeout_s:.1f}s") from err

    async def _generate(self, request: ModelRequest, on_text: OnText | None) -> ModelResult:
        if isinstance(request, FimRequest):
            endpoint, url, body = "fim", f"{self.base_url}/beta/completions", fim_body(request)
        else:
            endpoint, url, body = "chat", f"{self.base_url}/chat/completions", chat_body(request)
        headers = {"Authorization": f"Bearer {self._api_key}", "Accept": "text/event-stream"}
        started = time.perf_counter()
        result = ModelResult(text="", model=request.model, endpoint=endpoint)
        parts: list[str] = []
        size = 0
        response: httpx.Response | None = None
        reusable = False
        http_request = self._build("POST", url, json=body, headers=headers)
        try:
            response = await self._send(http_request)
            if response.status_code != 200:
                raw = await response.aread()
                raise error_for_status(response.status_code, self._unkeyed(_error_detail(raw)),
                                       parse_retry_after(response.headers.get("retry-after")))
            lines = response.aiter_lines()
            finished = False
            async for line in lines:
                event = parse_sse_line(line)
                if event is None:
                    continue
                if event is DONE:
                    reusable = True
                    break
                usage = _usage(event.get("usage"))
                if usage:
                    result.usage = usage
                choices = event.get("choices") or []
                if choices:
                    choice = choices[0] if isinstance(choices[0], dict) else {}
                    piece = (choice.get("text") if endpoint == "fim"
                             else (choice.get("delta") or {}).get("content")) or ""
                    if piece:
                        if result.first_token_s is None:
                            result.first_token_s = time.perf_counter() - started
                        parts.append(piece)
                        size += len(piece)
                        if size > answer_limit(request.max_tokens):
                            raise ProtocolError(
                                f"the API sent {size}+ characters for at most "
                                f"{request.max_tokens} tokens; answer dropped")
                        if on_text:
                            on_text("".join(parts))
                    if choice.get("finish_reason"):
                        result.finish_reason = choice["finish_reason"]
                        finished = True
                if finished and usage:
                    reusable = True
                    break  # complete: the caller need not wait for [DONE]
                if size > MAX_ANSWER_CHARS:
                    break
            else:
                reusable = True
                if not finished:
                    result.finish_reason = result.finish_reason or "eof"
            if reusable and not response.is_closed:
                task = asyncio.ensure_future(_drain(response, lines))
                self._draining.add(task)
                task.add_done_callback(self._draining.discard)
                response = None
                # `[DONE]` is normally already on its way: give it a moment, so the
                # connection is back in the pool before the caller's next request
                # (which would otherwise open a second one); never wait long for it
                await asyncio.wait([task], timeout=INLINE_DRAIN_S)
        except httpx.TimeoutException as err:
            raise UpstreamTimeout(f"the API went silent ({type(err).__name__})") from err
        except httpx.ConnectError as err:
            raise ConnectError(f"cannot reach {self.base_url}: {err}") from err
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as err:
            raise ProtocolError(f"the connection broke mid-answer ({type(err).__name__})") from err
        except httpx.HTTPError as err:
            raise ModelError(f"HTTP error talking to the API: {type(err).__name__}") from err
        finally:
            if response is not None:  # cancelled, failed or cut: close the stream now
                await asyncio.shield(response.aclose())
        result.text = "".join(parts)[:MAX_ANSWER_CHARS]
        result.total_s = time.perf_counter() - started
        return result
