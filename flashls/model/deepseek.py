"""DeepSeek adapter: DeepSeek's hosted endpoints and request bodies.

FIM goes to `/beta/completions` (server-side `prompt` + `suffix`), chat to
`/chat/completions` with thinking disabled; both stream OpenAI-style SSE with
DeepSeek's prefix-cache counts in `usage`. The shared HTTP machinery is in
`streaming.py`, the SSE reading in `sse.py`.
"""

from __future__ import annotations

from typing import Any


from . import fim
from .sse import DONE, openai_decoder, openai_usage, parse_sse_line
from .streaming import (ABANDON_GRACE_S, DRAIN_TIMEOUT_S, INLINE_DRAIN_S, MAX_ANSWER_CHARS,
                        MAX_CHARS_PER_TOKEN, ErrorAdvice, StreamingClient, WireCall,
                        answer_limit, error_detail, parse_retry_after)
from .streaming import error_for_status as _error_for_status
from .types import ChatRequest, FimRequest, ModelError, ModelRequest

__all__ = ["DeepSeekClient", "fim_body", "chat_body", "parse_sse_line", "DONE",
           "parse_retry_after", "error_for_status", "answer_limit", "MAX_ANSWER_CHARS",
           "DRAIN_TIMEOUT_S", "INLINE_DRAIN_S", "ABANDON_GRACE_S", "MAX_CHARS_PER_TOKEN"]

_usage = openai_usage
_error_detail = error_detail


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


def error_for_status(status: int, detail: str, retry_after: float | None) -> ModelError:
    return _error_for_status(status, detail, retry_after)


class DeepSeekClient(StreamingClient):
    """Implements `CompletionModel` over DeepSeek's FIM and chat endpoints."""

    advice = ErrorAdvice("DeepSeek API")

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"}  # the hosted API always needs one

    def wire_call(self, request: ModelRequest, *, timeout_s: float = 0.0) -> WireCall:
        accept = {"Accept": "text/event-stream"}
        if isinstance(request, FimRequest):
            # the server applies the model's template; its tokens are still cut client-side
            template = fim.resolve(self.fim_template, request.model)
            return WireCall("fim", f"{self.base_url}/beta/completions", fim_body(request),
                            openai_decoder, lambda text: fim.strip_special(text, template),
                            accept)
        return WireCall("chat", f"{self.base_url}/chat/completions", chat_body(request),
                        openai_decoder, headers=accept)
