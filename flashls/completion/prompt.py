"""Prompt layout: most stable text first, so DeepSeek's prefix cache keeps hitting.

Order: fixed header → neighbor-file signatures → same-file outline → recent code →
the cursor window. Every part renders byte-identically while its source is unchanged
(no timestamps, no counters, deterministic order), so consecutive requests in one file
share everything up to the window, which itself starts on a snapped line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from ..model.types import ChatMessage, ChatRequest, ContextFile, FimRequest, ModelRequest

FILL = "<|fill|>"

CHAT_SYSTEM = (
    "You are a code completion engine inside an editor. The user shows a file with the "
    f"marker {FILL} at the cursor. Reply with exactly the code to insert at {FILL}: no "
    "explanations, no Markdown fences, no repetition of code before or after the marker. "
    "Reply with nothing if nothing fits."
)


class PartLike(Protocol):
    tier: str
    source: str
    text: str


class ContextLike(Protocol):
    parts: Sequence[PartLike]
    prefix: str
    suffix: str


@dataclass(frozen=True)
class PromptInputs:
    path: str  # workspace-relative path of the file being edited
    language: str  # LSP languageId
    comment: str  # the language's line comment ("#", "//"); "" when unknown


TIER_TITLES = {"neighbors": "from", "outline": "outline of", "recent": "recently edited in"}


def _comment_block(text: str, comment: str) -> str:
    prefix = f"{comment} " if comment else ""
    return "".join(f"{prefix}{line}".rstrip() + "\n" for line in text.splitlines())


def render_fim_context(ctx: ContextLike, inputs: PromptInputs) -> str:
    """The stable head of a FIM prompt: context parts as comments, then the file's path."""
    c = inputs.comment
    lead = f"{c} " if c else ""
    out = []
    for part in ctx.parts:
        out.append(f"{lead}--- {TIER_TITLES.get(part.tier, part.tier)} {part.source} ---\n")
        out.append(_comment_block(part.text, c))
    out.append(f"{lead}--- {inputs.path} ---\n")
    return "".join(out)


def fim_request(ctx: ContextLike, inputs: PromptInputs, *, model: str, max_tokens: int,
                stop: tuple[str, ...] = ()) -> FimRequest:
    return FimRequest(model=model, prompt=render_fim_context(ctx, inputs) + ctx.prefix,
                      suffix=ctx.suffix, max_tokens=max_tokens, stop=stop,
                      # the same context, structured, for adapters that lay it out
                      # themselves (file-separator tokens, llama.cpp's input_extra)
                      path=inputs.path, code_prefix=ctx.prefix,
                      files=tuple(ContextFile(p.source, p.text) for p in ctx.parts))


def chat_request(ctx: ContextLike, inputs: PromptInputs, *, model: str, max_tokens: int,
                 stop: tuple[str, ...] = ()) -> ChatRequest:
    blocks = []
    for part in ctx.parts:
        blocks.append(f"{TIER_TITLES.get(part.tier, part.tier).capitalize()} {part.source}:\n"
                      f"```\n{part.text.rstrip()}\n```\n")
    blocks.append(f"File {inputs.path} ({inputs.language}):\n```\n"
                  f"{ctx.prefix}{FILL}{ctx.suffix}\n```")
    return ChatRequest(model=model, max_tokens=max_tokens, stop=stop, messages=(
        ChatMessage("system", CHAT_SYSTEM), ChatMessage("user", "\n".join(blocks))))


def sent_text(request: ModelRequest) -> str:
    """Everything a request sends as model input (what `completion.contextTokens` bounds)."""
    if isinstance(request, FimRequest):
        return request.prompt + request.suffix
    return "".join(m.content for m in request.messages)


def build_request(endpoint: str, ctx: ContextLike, inputs: PromptInputs, *, model: str,
                  max_tokens: int, stop: tuple[str, ...] = ()) -> ModelRequest:
    build = fim_request if endpoint == "fim" else chat_request
    return build(ctx, inputs, model=model, max_tokens=max_tokens, stop=stop)
