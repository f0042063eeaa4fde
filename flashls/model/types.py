"""What the pipelines ask of a model and what they get back: no wire format here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal, Protocol


@dataclass(frozen=True)
class ContextFile:
    """One piece of repository context (another file, an outline) by its path."""

    filename: str
    text: str


@dataclass(frozen=True)
class FimRequest:
    """Fill in the middle: the model writes what goes between prompt and suffix.

    `prompt` is the whole text before the cursor with the context rendered as comments
    (what a server-side FIM endpoint gets). Adapters that render repository context
    their own way (file-separator tokens, llama.cpp's `input_extra`) use `path`,
    `code_prefix` (the file's own text before the cursor) and `files` instead.
    """

    model: str
    prompt: str  # ends exactly at the cursor
    suffix: str  # starts exactly after the cursor
    max_tokens: int
    stop: tuple[str, ...] = ()
    temperature: float = 0.0
    path: str = ""  # workspace-relative path of the edited file, when known
    code_prefix: str | None = None  # None: `prompt` has no separate context head
    files: tuple[ContextFile, ...] = ()


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: tuple[ChatMessage, ...]
    max_tokens: int
    stop: tuple[str, ...] = ()
    temperature: float = 0.0


ModelRequest = FimRequest | ChatRequest


@dataclass
class Usage:
    prompt_tokens: int = 0
    cache_hit_tokens: int = 0
    cache_miss_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class ModelResult:
    text: str
    model: str
    endpoint: Literal["fim", "chat"]
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    first_token_s: float | None = None  # time to first token
    total_s: float = 0.0


OnText = Callable[[str], None]  # receives the text generated so far, as it grows


class CompletionModel(Protocol):
    """Anything that can answer a request, streaming partial text to `on_text`."""

    async def generate(self, request: ModelRequest, *, timeout_s: float,
                       on_text: OnText | None = None) -> ModelResult: ...


class ModelError(Exception):
    """An upstream failure, phrased for the user. Never contains the API key."""

    retryable = False
    user_action: str | None = None  # what the user must do, when anything

    def __init__(self, message: str, *, status: int | None = None,
                 retry_after_s: float | None = None, user_action: str | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s
        if user_action is not None:  # a provider's own advice instead of the class's
            self.user_action = user_action


class AuthError(ModelError):
    user_action = "Set a valid DeepSeek API key (setting flashls.apiKey or DEEPSEEK_API_KEY)."


class BalanceError(ModelError):
    user_action = "Top up your DeepSeek balance (the API answered 402 Insufficient Balance)."


class BadRequestError(ModelError):
    user_action = "Check flashls.model and flashls.baseUrl; the API rejected the request."


class RateLimitError(ModelError):
    retryable = True


class ServerError(ModelError):
    retryable = True


class UpstreamTimeout(ModelError):
    retryable = True


class ProtocolError(ModelError):
    """A broken stream or an answer that is not what the API promises."""

    retryable = True


class ConnectError(ModelError):
    retryable = True
