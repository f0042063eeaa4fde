"""The HTTP client every adapter shares: pooled connections, cancellation that closes
the stream at once, typed errors; each adapter only says what to send and how to read
one line of its stream.

One `httpx.AsyncClient` per adapter (keep-alive, pooled). Every request streams so a
cancelled task closes its stream at once and the text generated so far is visible to
callers while it grows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Iterator, Literal, Mapping

import httpx

from .. import __version__
from .types import (AuthError, BadRequestError, BalanceError, ConnectError, ModelError,
                    ModelRequest, ModelResult, OnText, ProtocolError, RateLimitError,
                    ServerError, UpstreamTimeout, Usage)

MAX_ANSWER_CHARS = 64_000  # a runaway answer is cut here (far above any max_tokens)
DRAIN_TIMEOUT_S = 1.0
INLINE_DRAIN_S = 0.02
ABANDON_GRACE_S = 3.0  # a cancelled request's send may finish this long in the background
MAX_CHARS_PER_TOKEN = 32  # no real token is longer: more text is a runaway stream


def answer_limit(max_tokens: int) -> int:
    """Characters an answer of `max_tokens` tokens can plausibly have."""
    return min(MAX_ANSWER_CHARS, max(4096, max_tokens * MAX_CHARS_PER_TOKEN))


@dataclass
class StreamEvent:
    """One decoded line of a stream."""

    text: str = ""
    finish_reason: str | None = None
    usage: Usage | None = None
    end: bool = False  # the answer is complete: stop reading


Decoder = Callable[[str], StreamEvent | None]


@dataclass
class WireCall:
    """What an adapter sends for one request and how it reads the answer."""

    endpoint: Literal["fim", "chat"]
    url: str
    body: dict[str, Any]
    decode: Decoder
    clean: Callable[[str], str] = lambda text: text  # e.g. cut the model's own FIM tokens
    headers: dict[str, str] = field(default_factory=dict)


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def error_detail(raw: bytes) -> str:
    """The message of an error body: `{"error": {"message"}}` (OpenAI, DeepSeek,
    llama.cpp), `{"error": "text"}` (Ollama), `{"message": ...}` (vLLM, Mistral)."""
    try:
        data = json.loads(raw)
        error = data.get("error", data)
        if isinstance(error, dict):
            return str(error.get("message") or error.get("detail") or "")
        return str(error)
    except (ValueError, AttributeError):
        return raw[:200].decode("utf-8", "replace")


@dataclass(frozen=True)
class ErrorAdvice:
    """What a provider tells the user to fix for each kind of rejection."""

    label: str = "DeepSeek API"
    auth: str | None = None  # None: the error class's own advice
    bad_request: str | None = None
    balance: str | None = None


def error_for_status(status: int, detail: str, retry_after: float | None,
                     advice: ErrorAdvice = ErrorAdvice()) -> ModelError:
    detail = detail.strip()[:300]
    text = f"{advice.label} answered {status}" + (f": {detail}" if detail else "")
    if status in (401, 403) and (status == 401 or advice.auth):
        return AuthError(text, status=status, user_action=advice.auth)
    if status == 402:
        return BalanceError(text, status=status, user_action=advice.balance)
    if status in (400, 404, 422):
        return BadRequestError(text, status=status, user_action=advice.bad_request)
    if status == 429:
        return RateLimitError(text, status=status, retry_after_s=retry_after)
    if status >= 500:
        return ServerError(text, status=status, retry_after_s=retry_after)
    return ModelError(text, status=status)


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


class _Answer:
    """The answer as it streams in: text, usage, finish reason, time to first token."""

    def __init__(self, request: ModelRequest, call: WireCall, on_text: OnText | None):
        self.request = request
        self.call = call
        self.on_text = on_text
        self.started = time.perf_counter()
        self.result = ModelResult(text="", model=request.model, endpoint=call.endpoint)
        self.parts: list[str] = []
        self.size = 0
        self.finished = False

    def take(self, event: StreamEvent) -> None:
        if event.usage:
            self.result.usage = event.usage
        if event.text:
            self._grow(event.text)
        if event.finish_reason:
            self.result.finish_reason = event.finish_reason
            self.finished = True

    def _grow(self, piece: str) -> None:
        if self.result.first_token_s is None:
            self.result.first_token_s = time.perf_counter() - self.started
        self.parts.append(piece)
        self.size += len(piece)
        if self.size > answer_limit(self.request.max_tokens):
            raise ProtocolError(f"the API sent {self.size}+ characters for at most "
                                f"{self.request.max_tokens} tokens; answer dropped")
        if self.on_text:
            self.on_text(self.call.clean("".join(self.parts)))

    def complete_after(self, event: StreamEvent) -> bool:
        """Whether nothing more is needed: the end marker, or a finish with usage."""
        return event.end or (self.finished and event.usage is not None)

    def ran_out(self) -> None:
        if not self.finished:
            self.result.finish_reason = self.result.finish_reason or "eof"

    def final(self) -> ModelResult:
        self.result.text = self.call.clean("".join(self.parts))[:MAX_ANSWER_CHARS]
        self.result.total_s = time.perf_counter() - self.started
        return self.result


# The server's session listens to the HTTP steps of every model request (one slot
# each): its background work waits while a request is sent, and while an answer
# arrives (flashls.lsp.foreground.Foreground). `on_answer_started` returns the
# function to call when the answer is closed.
on_request_sent: Callable[[], None] | None = None
on_answer_started: Callable[[], Callable[[], None]] | None = None
_SENT = frozenset({"http11.send_request_body.complete", "http2.send_request_body.complete"})
_ANSWERING = frozenset({"http11.receive_response_headers.complete",
                        "http2.receive_response_headers.complete"})
_CLOSED = frozenset({"http11.response_closed.complete", "http11.response_closed.failed",
                     "http2.response_closed.complete", "http2.response_closed.failed"})


def _tracer() -> Callable[[str, Mapping[str, Any]], Any]:
    """httpcore's `trace` extension for one request: every step of it is reported."""
    done: list[Callable[[], None]] = []

    async def trace(event: str, info: Mapping[str, Any]) -> None:
        try:
            if event in _SENT and on_request_sent is not None:
                on_request_sent()
            elif event in _ANSWERING and on_answer_started is not None:
                done.append(on_answer_started())
            elif event in _CLOSED:
                while done:
                    done.pop()()
        except Exception:  # a listener's bug must not fail the request
            pass

    return trace


class StreamingClient:
    """Implements `CompletionModel` for one wire format; subclasses say what to send
    (`wire_call`) and how to list models."""

    advice = ErrorAdvice()

    def __init__(self, base_url: str, api_key: str, *, connect_timeout_s: float = 5.0,
                 idle_timeout_s: float = 30.0, transport: httpx.AsyncBaseTransport | None = None,
                 headers: Mapping[str, str] | None = None, fim_template: Any = "auto",
                 network: Mapping[str, Any] | None = None):
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.fim_template = fim_template  # used by the adapters that build FIM prompts
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(connect=connect_timeout_s, read=idle_timeout_s,
                                  write=10.0, pool=connect_timeout_s),
            limits=httpx.Limits(max_keepalive_connections=8, keepalive_expiry=120),
            headers={"User-Agent": f"flashls/{__version__}", **dict(headers or {})},
            transport=transport,
            **dict(network or {}),  # proxy / CA options: flashls.model.network.client_kwargs
        )
        self._draining: set[asyncio.Task] = set()

    def configure(self, base_url: str, api_key: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r})"  # never the key

    def wire_call(self, request: ModelRequest, *, timeout_s: float) -> WireCall:
        raise NotImplementedError

    def auth_headers(self) -> dict[str, str]:
        """`Authorization` only when a key is set: local servers need none."""
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _unkeyed(self, text: str) -> str:
        """An API that echoes the key in an error body must not put it in our errors."""
        key = self._api_key
        return text.replace(key, "<redacted>") if key and len(key) >= 4 else text

    def status_error(self, status: int, raw: bytes, headers: httpx.Headers) -> ModelError:
        return error_for_status(status, self._unkeyed(error_detail(raw)),
                                parse_retry_after(headers.get("retry-after")), self.advice)

    async def aclose(self) -> None:
        for task in list(self._draining):
            task.cancel()
        await asyncio.gather(*self._draining, return_exceptions=True)
        await self._client.aclose()

    # -- sending ------------------------------------------------------------------------
    def _build(self, method: str, url: str, **kwargs: Any) -> httpx.Request:
        """An HTTP request, or a ModelError saying which setting makes it unsendable."""
        kwargs.setdefault("extensions", {"trace": _tracer()})
        try:
            return self._client.build_request(method, url, **kwargs)
        except UnicodeEncodeError:
            if not self._api_key.isascii():
                raise AuthError("the API key contains a non-ASCII character (often an "
                                "invisible one pasted along with it)") from None
            raise BadRequestError("the request holds text that cannot be sent as UTF-8 "
                                  "(check flashls.model and flashls.headers)") from None

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

    @contextlib.contextmanager
    def _http_errors(self) -> Iterator[None]:
        """httpx's exceptions → our typed errors."""
        try:
            yield
        except httpx.TimeoutException as err:
            raise UpstreamTimeout(f"the API went silent ({type(err).__name__})") from err
        except httpx.ConnectError as err:
            raise ConnectError(f"cannot reach {self.base_url}: {err}") from err
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as err:
            raise ProtocolError(f"the connection broke mid-answer ({type(err).__name__})") from err
        except httpx.HTTPError as err:
            raise ModelError(f"HTTP error talking to the API: {type(err).__name__}") from err

    async def get_json(self, url: str, *, timeout_s: float = 10.0) -> Any:
        """A small JSON GET (model lists, health) with the same typed errors."""
        try:
            resp = await asyncio.wait_for(
                self._client.get(url, headers=self.auth_headers()), timeout_s)
        except (asyncio.TimeoutError, httpx.TimeoutException) as err:
            raise UpstreamTimeout(f"no answer from {self.base_url} within {timeout_s:.1f}s") from err
        except httpx.ConnectError as err:
            raise ConnectError(f"cannot reach {self.base_url}: {err}") from err
        except httpx.HTTPError as err:
            raise ModelError(f"HTTP error talking to the API: {type(err).__name__}") from err
        if resp.status_code != 200:
            raise self.status_error(resp.status_code, resp.content, resp.headers)
        try:
            return resp.json()
        except ValueError as err:
            raise ProtocolError(f"{url} did not answer JSON") from err

    async def list_models(self, *, timeout_s: float = 10.0) -> list[str]:
        """Model ids the server offers (OpenAI-style `GET /models`), for doctor."""
        data = await self.get_json(f"{self.base_url}/models", timeout_s=timeout_s)
        try:
            return [str(m["id"]) for m in data.get("data", [])
                    if isinstance(m, dict) and "id" in m]
        except (AttributeError, TypeError) as err:
            raise ProtocolError("the model list from the API is not what it promises") from err

    # -- streaming ----------------------------------------------------------------------
    async def generate(self, request: ModelRequest, *, timeout_s: float,
                       on_text: OnText | None = None) -> ModelResult:
        try:
            return await asyncio.wait_for(self._generate(request, on_text, timeout_s),
                                          timeout_s)
        except asyncio.TimeoutError as err:
            raise UpstreamTimeout(f"no complete answer within {timeout_s:.1f}s") from err

    async def _generate(self, request: ModelRequest, on_text: OnText | None,
                        timeout_s: float) -> ModelResult:
        call = self.wire_call(request, timeout_s=timeout_s)
        answer = _Answer(request, call, on_text)
        headers = {**self.auth_headers(), **call.headers}
        http_request = self._build("POST", call.url, json=call.body, headers=headers)
        response: httpx.Response | None = None
        try:
            with self._http_errors():
                response = await self._open(http_request)
                lines = response.aiter_lines()
                if await self._read(lines, call.decode, answer):
                    await self._hand_back(response, lines)
                    response = None
        finally:
            if response is not None:  # cancelled, failed or cut: close the stream now
                await asyncio.shield(response.aclose())
        return answer.final()

    async def _open(self, http_request: httpx.Request) -> httpx.Response:
        response = await self._send(http_request)
        if response.status_code != 200:
            try:
                raw = await response.aread()
            finally:
                await response.aclose()
            raise self.status_error(response.status_code, raw, response.headers)
        return response

    @staticmethod
    async def _read(lines: AsyncIterator[str], decode: Decoder, answer: _Answer) -> bool:
        """Consume the stream; True when it ended cleanly (the connection is reusable)."""
        async for line in lines:
            event = decode(line)
            if event is None:
                continue
            answer.take(event)
            if answer.complete_after(event):
                return True  # complete: the caller need not wait for the end marker
            if answer.size > MAX_ANSWER_CHARS:
                return False
        answer.ran_out()
        return True

    async def _hand_back(self, response: httpx.Response, lines: AsyncIterator[str]) -> None:
        """Drain the rest in the background so the connection returns to the pool."""
        if response.is_closed:
            return
        task = asyncio.ensure_future(_drain(response, lines))
        self._draining.add(task)
        task.add_done_callback(self._draining.discard)
        # the end marker is normally already on its way: give it a moment, so the
        # connection is back in the pool before the caller's next request (which
        # would otherwise open a second one); never wait long for it
        await asyncio.wait([task], timeout=INLINE_DRAIN_S)
