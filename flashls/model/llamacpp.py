"""llama.cpp's `llama-server`: `/infill` for completions, `/v1/chat/completions` for chat.

`/infill` takes the cursor's prefix and suffix and the context engine's other files as
`input_extra` chunks; the server renders them with the model's own FIM and
file-separator tokens. `cache_prompt` keeps the KV cache of the shared prefix between
keystrokes; `t_max_predict_ms` bounds generation time on slow hardware. The stream is
`data: {json}` lines whose last one has `"stop": true` and the token counts.
"""

from __future__ import annotations

from typing import Any

import httpx

from . import fim
from .openai_compat import chat_completions_body
from .sse import json_event, openai_decoder
from .streaming import (ErrorAdvice, StreamEvent, StreamingClient, WireCall, error_detail,
                        error_for_status)
from .types import (BadRequestError, FimRequest, ModelError, ModelRequest,
                    ServerError, Usage)

STOP_TYPES = {"eos": "stop", "word": "stop", "limit": "length"}
MAX_PREDICT_MS = 2000  # llama.vim's order of magnitude; the request timeout caps it too


def infill_body(req: FimRequest, template: fim.FimTemplate, *, timeout_s: float) -> dict[str, Any]:
    structured = req.code_prefix is not None
    budget_ms = int(timeout_s * 1000 * 0.8) if timeout_s > 0 else MAX_PREDICT_MS
    return {
        "input_prefix": req.code_prefix if structured else req.prompt,
        "input_suffix": req.suffix,
        "input_extra": [{"filename": f.filename, "text": f.text} for f in req.files]
        if structured else [],
        "n_predict": req.max_tokens, "temperature": req.temperature,
        "stop": fim.stops_for(template, req.stop),
        "cache_prompt": True, "t_max_predict_ms": max(100, min(MAX_PREDICT_MS, budget_ms)),
        "stream": True,
    }


def _count(raw: Any) -> int:
    try:
        return max(0, int(raw or 0))
    except (TypeError, ValueError):
        return 0


def infill_usage(event: dict[str, Any]) -> Usage:
    timings = event.get("timings") if isinstance(event.get("timings"), dict) else {}
    prompt = _count(event.get("tokens_evaluated"))
    cached = _count(timings.get("cache_n", event.get("tokens_cached")))
    hit = min(cached, prompt) if prompt else cached
    return Usage(prompt_tokens=prompt or hit, cache_hit_tokens=hit,
                 cache_miss_tokens=max(0, prompt - hit),
                 completion_tokens=_count(event.get("tokens_predicted")
                                          or timings.get("predicted_n")))


def decode_infill_line(line: str) -> StreamEvent | None:
    if not line or line.startswith(":"):
        return None
    if line.startswith("error:"):
        raise ServerError(f"llama.cpp error in stream: {line[6:].strip()[:200]}")
    if not line.startswith("data:"):
        return None
    payload = line[5:].strip()
    event = json_event(payload, "llama.cpp")
    if "error" in event:
        raise ServerError(f"llama.cpp error in stream: {str(event['error'])[:200]}")
    content = event.get("content")
    text = content if isinstance(content, str) else ""
    if not event.get("stop"):
        return StreamEvent(text=text)
    reason = STOP_TYPES.get(str(event.get("stop_type", "eos")), "stop")
    return StreamEvent(text=text, finish_reason=reason, usage=infill_usage(event), end=True)


class LlamaCppClient(StreamingClient):
    advice = ErrorAdvice(
        "llama.cpp server",
        auth="The server was started with --api-key: set flashls.apiKey (or LLAMA_API_KEY) "
             "to the same value.",
        bad_request="Check that llama-server runs a code model with FIM tokens "
                    "(e.g. Qwen2.5-Coder) and flashls.baseUrl (no /v1).")

    def status_error(self, status: int, raw: bytes, headers: httpx.Headers) -> ModelError:
        if status == 501:  # "not supported": this model has no FIM tokens; retrying won't help
            return BadRequestError(f"llama.cpp server answered 501: "
                                   f"{self._unkeyed(error_detail(raw))[:300]}", status=status,
                                   user_action="Serve a model with FIM tokens, or set "
                                   "flashls.completion.endpoint to \"chat\".")
        return super().status_error(status, raw, headers)

    def wire_call(self, request: ModelRequest, *, timeout_s: float = 0.0) -> WireCall:
        if isinstance(request, FimRequest):
            template = fim.resolve(self.fim_template, request.model)
            return WireCall("fim", f"{self.base_url}/infill",
                            infill_body(request, template, timeout_s=timeout_s),
                            decode_infill_line, lambda text: fim.strip_special(text, template))
        return WireCall("chat", f"{self.base_url}/v1/chat/completions",
                        chat_completions_body(request), openai_decoder,
                        headers={"Accept": "text/event-stream"})

    async def list_models(self, *, timeout_s: float = 10.0) -> list[str]:
        data = await self.get_json(f"{self.base_url}/v1/models", timeout_s=timeout_s)
        items = data.get("data", []) if isinstance(data, dict) else []
        return [str(m["id"]) for m in items if isinstance(m, dict) and "id" in m]

    async def health(self, *, timeout_s: float = 10.0) -> str:
        data = await self.get_json(f"{self.base_url}/health", timeout_s=timeout_s)
        return str(data.get("status", "")) if isinstance(data, dict) else ""


__all__ = ["LlamaCppClient", "infill_body", "decode_infill_line", "error_for_status"]
