"""OpenAI-compatible servers (vLLM, SGLang, LM Studio, LiteLLM and other gateways).

Their `/v1/completions` has no working `suffix` (vLLM and SGLang ignore or reject it),
so FIM is a raw prompt rendered client-side by the model's template, with the
template's special tokens as stop sequences. Actions and chat completions use
`/v1/chat/completions`. The base URL includes `/v1`, as in OpenAI's own clients.
"""

from __future__ import annotations

from typing import Any


from . import fim
from .sse import openai_decoder
from .streaming import ErrorAdvice, StreamingClient, WireCall
from .types import ChatRequest, FimRequest, ModelRequest


def completions_body(req: FimRequest, template: fim.FimTemplate) -> dict[str, Any]:
    return {
        "model": req.model, "prompt": fim.render_prompt(template, req),
        "max_tokens": req.max_tokens, "temperature": req.temperature,
        "stop": fim.stops_for(template, req.stop),
        "stream": True, "stream_options": {"include_usage": True},
    }


def chat_completions_body(req: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": req.model,
        "messages": [{"role": m.role, "content": m.content} for m in req.messages],
        "max_tokens": req.max_tokens, "temperature": req.temperature,
        "stream": True, "stream_options": {"include_usage": True},
    }
    if req.stop:
        body["stop"] = list(req.stop[:16])
    return body


class OpenAICompatClient(StreamingClient):
    advice = ErrorAdvice(
        "OpenAI-compatible server",
        auth="The server wants a key: set flashls.apiKey (or OPENAI_API_KEY) to the value "
             "it was started with (vLLM/SGLang --api-key), or the gateway's key.",
        bad_request="Check flashls.model (it must be a model the server serves, see "
                    "`flashls doctor`) and flashls.baseUrl (it ends in /v1).")

    def wire_call(self, request: ModelRequest, *, timeout_s: float = 0.0) -> WireCall:
        accept = {"Accept": "text/event-stream"}
        if isinstance(request, FimRequest):
            template = fim.resolve(self.fim_template, request.model)
            return WireCall("fim", f"{self.base_url}/completions",
                            completions_body(request, template), openai_decoder,
                            lambda text: fim.strip_special(text, template), accept)
        return WireCall("chat", f"{self.base_url}/chat/completions",
                        chat_completions_body(request), openai_decoder, headers=accept)
