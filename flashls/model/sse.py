"""OpenAI-style server-sent events: the stream DeepSeek, vLLM, SGLang, LM Studio,
llama.cpp's `/v1/*` routes and Mistral all speak (`data: {json}` lines, `[DONE]`)."""

from __future__ import annotations

import json
from typing import Any

from .streaming import Decoder, StreamEvent
from .types import ProtocolError, ServerError, Usage

DONE = object()  # the stream's `data: [DONE]`


def json_event(payload: str, source: str) -> dict[str, Any]:
    """One streamed JSON object (an SSE `data:` payload or an NDJSON line); a
    ProtocolError naming `source` when it is not one."""
    try:
        event = json.loads(payload)
    except ValueError as err:
        raise ProtocolError(f"malformed stream data from {source}: {payload[:80]!r}") from err
    if not isinstance(event, dict):
        raise ProtocolError(f"malformed stream event from {source}")
    return event


def parse_sse_line(line: str) -> dict[str, Any] | object | None:
    """One SSE line → its JSON event, DONE, or None for lines that carry nothing."""
    if not line or line.startswith(":"):
        return None  # blank separators and `: keep-alive`
    if line.startswith("error:"):  # llama.cpp reports a failure mid-stream this way
        raise ServerError(f"API error in stream: {line[6:].strip()[:200]}")
    if not line.startswith("data:"):
        return None  # event:/id:/retry: fields carry nothing we use
    payload = line[5:].strip()
    if payload == "[DONE]":
        return DONE
    event = json_event(payload, "the API")
    if "error" in event and not event.get("choices"):
        raise ServerError(f"API error in stream: {str(event['error'])[:200]}")
    return event


def _int(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def openai_usage(raw: Any) -> Usage | None:
    """Usage of an OpenAI-style event: DeepSeek's `prompt_cache_hit_tokens` or the
    OpenAI/vLLM `prompt_tokens_details.cached_tokens`; misses are the rest."""
    if not isinstance(raw, dict):
        return None
    details = raw.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    hit = _int(raw.get("prompt_cache_hit_tokens") or cached)
    prompt = _int(raw.get("prompt_tokens"))
    miss = _int(raw.get("prompt_cache_miss_tokens")) or max(0, prompt - hit)
    return Usage(prompt_tokens=prompt or hit + miss, cache_hit_tokens=hit,
                 cache_miss_tokens=miss, completion_tokens=_int(raw.get("completion_tokens")))


def _piece(choice: dict[str, Any]) -> str:
    """Completion chunks carry `text`; chat chunks (and Mistral's FIM) `delta.content`."""
    text = choice.get("text")
    if text is None:
        delta = choice.get("delta")
        text = delta.get("content") if isinstance(delta, dict) else None
    return text if isinstance(text, str) else ""


def decode_openai_line(line: str) -> StreamEvent | None:
    event = parse_sse_line(line)
    if event is None:
        return None
    if event is DONE:
        return StreamEvent(end=True)
    choices = event.get("choices") or []
    choice = choices[0] if choices and isinstance(choices[0], dict) else {}
    finish = choice.get("finish_reason")
    return StreamEvent(text=_piece(choice), usage=openai_usage(event.get("usage")),
                       finish_reason=str(finish) if finish else None)


openai_decoder: Decoder = decode_openai_line
