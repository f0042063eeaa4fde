"""Ollama: `/api/generate` for completions, `/api/chat` for chat; NDJSON streams.

With `suffix` Ollama applies the model's own FIM template; when the user picked a
template explicitly (`completion.fimTemplate` other than `auto`) the prompt is
rendered client-side and sent `raw`. `keep_alive` keeps the model loaded between
bursts of typing. Each stream line is one JSON object; the last has `"done": true`
and the token counts.
"""

from __future__ import annotations

from typing import Any

from . import fim
from .sse import json_event
from .streaming import ErrorAdvice, StreamEvent, StreamingClient, WireCall
from .types import ChatRequest, FimRequest, ModelRequest, ServerError, Usage

KEEP_ALIVE = "30m"


def _options(max_tokens: int, temperature: float, stop: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {"num_predict": max_tokens, "temperature": temperature}
    if stop:
        options["stop"] = stop
    return options


def generate_body(req: FimRequest, template: fim.FimTemplate, *, raw: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"model": req.model, "stream": True, "keep_alive": KEEP_ALIVE,
                            "options": _options(req.max_tokens, req.temperature,
                                                fim.stops_for(template, req.stop))}
    if raw:
        body.update(prompt=fim.render_prompt(template, req), raw=True)
    else:
        body.update(prompt=req.prompt, suffix=req.suffix)
    return body


def chat_body(req: ChatRequest) -> dict[str, Any]:
    return {"model": req.model, "stream": True, "keep_alive": KEEP_ALIVE,
            "messages": [{"role": m.role, "content": m.content} for m in req.messages],
            "options": _options(req.max_tokens, req.temperature, list(req.stop[:16]))}


def _count(raw: Any) -> int:
    try:
        return max(0, int(raw or 0))
    except (TypeError, ValueError):
        return 0


def decode_ndjson_line(line: str) -> StreamEvent | None:
    line = line.strip()
    if not line:
        return None
    event = json_event(line, "Ollama")
    if "error" in event:
        raise ServerError(f"Ollama error in stream: {str(event['error'])[:200]}")
    message = event.get("message")
    text = event.get("response")
    if text is None and isinstance(message, dict):
        text = message.get("content")
    text = text if isinstance(text, str) else ""
    if not event.get("done"):
        return StreamEvent(text=text)
    prompt = _count(event.get("prompt_eval_count"))
    usage = Usage(prompt_tokens=prompt, cache_miss_tokens=prompt,
                  completion_tokens=_count(event.get("eval_count")))
    reason = str(event.get("done_reason") or "stop")
    return StreamEvent(text=text, finish_reason=reason, usage=usage, end=True)


class OllamaClient(StreamingClient):
    advice = ErrorAdvice(
        "Ollama",
        auth="Ollama itself has no keys: a proxy in front of it rejected the request; set "
             "flashls.apiKey or flashls.headers for that proxy.",
        bad_request="Check flashls.model: run `ollama list`, and `ollama pull <model>` if it "
                    "is missing.")

    def wire_call(self, request: ModelRequest, *, timeout_s: float = 0.0) -> WireCall:
        if isinstance(request, FimRequest):
            template = fim.resolve(self.fim_template, request.model)
            raw = self.fim_template != "auto"
            return WireCall("fim", f"{self.base_url}/api/generate",
                            generate_body(request, template, raw=raw), decode_ndjson_line,
                            lambda text: fim.strip_special(text, template))
        return WireCall("chat", f"{self.base_url}/api/chat", chat_body(request),
                        decode_ndjson_line)

    async def list_models(self, *, timeout_s: float = 10.0) -> list[str]:
        """Local models (`GET /api/tags`); `name:latest` is also offered as `name`."""
        data = await self.get_json(f"{self.base_url}/api/tags", timeout_s=timeout_s)
        items = data.get("models", []) if isinstance(data, dict) else []
        names: list[str] = []
        for item in items:
            name = str(item.get("name") or item.get("model") or "") if isinstance(item, dict) else ""
            if name:
                names.append(name)
                if name.endswith(":latest"):
                    names.append(name[:-len(":latest")])
        return names
