"""Mistral: Codestral's `/v1/fim/completions` (server-side `prompt` + `suffix`) and
`/v1/chat/completions`; OpenAI-style SSE (FIM chunks carry `delta.content`).
The base URL includes `/v1` (default https://api.mistral.ai/v1; Codestral's own
endpoint is https://codestral.mistral.ai/v1)."""

from __future__ import annotations

from typing import Any

from . import fim
from .openai_compat import chat_completions_body
from .sse import openai_decoder
from .streaming import ErrorAdvice, StreamingClient, WireCall
from .types import FimRequest, ModelRequest


def fim_body(req: FimRequest, template: fim.FimTemplate) -> dict[str, Any]:
    body: dict[str, Any] = {"model": req.model, "prompt": req.prompt, "suffix": req.suffix,
                            "max_tokens": req.max_tokens, "temperature": req.temperature,
                            "stream": True}
    stops = fim.stops_for(template, req.stop)
    if stops:
        body["stop"] = stops
    return body


class MistralClient(StreamingClient):
    advice = ErrorAdvice(
        "Mistral API",
        auth="Set flashls.apiKey (or MISTRAL_API_KEY) to a key from console.mistral.ai "
             "(Codestral keys work only with https://codestral.mistral.ai/v1).",
        bad_request="Check flashls.model (e.g. codestral-latest) and flashls.baseUrl.")

    def wire_call(self, request: ModelRequest, *, timeout_s: float = 0.0) -> WireCall:
        accept = {"Accept": "text/event-stream"}
        if isinstance(request, FimRequest):
            template = fim.resolve(self.fim_template, request.model)
            return WireCall("fim", f"{self.base_url}/fim/completions",
                            fim_body(request, template), openai_decoder,
                            lambda text: fim.strip_special(text, template), accept)
        body = chat_completions_body(request)
        body.pop("stream_options", None)  # Mistral sends usage in the last chunk anyway
        return WireCall("chat", f"{self.base_url}/chat/completions", body, openai_decoder,
                        headers=accept)
