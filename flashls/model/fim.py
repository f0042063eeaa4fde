"""FIM prompt templates: how a code model wants prefix, suffix and other files laid out.

Servers without a FIM endpoint (vLLM's and SGLang's `/v1/completions` ignore
`suffix`) get a raw prompt rendered here. Every template also names the special
tokens the model knows, so an answer can never carry them into the editor: they are
sent as stop sequences and, because a server may ignore stops, cut client-side.
Pure functions, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .types import FimRequest


@dataclass(frozen=True)
class FimTemplate:
    name: str
    prefix: str  # token before the code before the cursor
    suffix: str  # token before the code after the cursor
    middle: str  # token after which the model writes
    file_separator: str = ""  # token before each file of repository context, if any
    suffix_first: bool = False  # Codestral: [SUFFIX]…[PREFIX]…
    extra_stops: tuple[str, ...] = ()  # end-of-text and other special tokens

    def special_tokens(self) -> tuple[str, ...]:
        seen: list[str] = []
        for token in (self.prefix, self.suffix, self.middle, self.file_separator,
                      *self.extra_stops):
            token = token.strip()
            if token and token not in seen:
                seen.append(token)
        return tuple(seen)


PRESETS: dict[str, FimTemplate] = {
    "deepseek": FimTemplate(
        "deepseek", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>",
        extra_stops=("<｜end▁of▁sentence｜>", "<|EOT|>")),
    "qwen": FimTemplate(
        "qwen", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_sep|>",
        extra_stops=("<|endoftext|>", "<|fim_pad|>", "<|repo_name|>", "<|im_start|>",
                     "<|im_end|>")),
    "codellama": FimTemplate(
        "codellama", "<PRE> ", " <SUF>", " <MID>", extra_stops=("<EOT>", "</s>")),
    "starcoder": FimTemplate(
        "starcoder", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>",
        extra_stops=("<|endoftext|>", "<fim_pad>", "<repo_name>", "<filename>")),
    "codestral": FimTemplate(
        "codestral", "[PREFIX]", "[SUFFIX]", "", suffix_first=True,
        extra_stops=("[MIDDLE]", "</s>")),
}

# model-name fragment -> preset, checked in order (first match wins)
AUTO_RULES: tuple[tuple[str, str], ...] = (
    ("qwen", "qwen"), ("starcoder", "starcoder"), ("codellama", "codellama"),
    ("code-llama", "codellama"), ("codestral", "codestral"), ("devstral", "codestral"),
    ("mistral", "codestral"), ("deepseek", "deepseek"),
)
AUTO_FALLBACK = "qwen"  # the most common self-hosted code model family

CUSTOM_KEYS = ("prefix", "suffix", "middle", "fileSeparator")


class TemplateError(ValueError):
    pass


def auto_template_name(model: str) -> tuple[str, bool]:
    """The preset for a model name and whether it was recognised (False: a guess)."""
    lowered = model.lower()
    for fragment, name in AUTO_RULES:
        if fragment in lowered:
            return name, True
    return AUTO_FALLBACK, False


def custom_template(raw: Mapping[str, Any]) -> FimTemplate:
    """A template from `{prefix, suffix, middle, fileSeparator?}`, or TemplateError."""
    unknown = sorted(set(raw) - set(CUSTOM_KEYS))
    if unknown:
        raise TemplateError(f"unknown key(s) {', '.join(unknown)}; allowed: "
                            f"{', '.join(CUSTOM_KEYS)}")
    values = {}
    for key in CUSTOM_KEYS:
        value = raw.get(key, "")
        if not isinstance(value, str):
            raise TemplateError(f"{key} must be a string")
        values[key] = value
    if not (values["prefix"] and values["suffix"] and values["middle"]):
        raise TemplateError("prefix, suffix and middle must all be set")
    return FimTemplate("custom", values["prefix"], values["suffix"], values["middle"],
                       values["fileSeparator"])


def check_setting(value: Any) -> Any:
    """Validate a `completion.fimTemplate` value; return it unchanged or raise."""
    if isinstance(value, str):
        if value != "auto" and value not in PRESETS:
            raise TemplateError(f"{value!r} is not auto or one of {', '.join(PRESETS)}")
        return value
    if isinstance(value, Mapping):
        custom_template(value)
        return dict(value)
    raise TemplateError("expected \"auto\", a preset name or an object "
                        "{prefix, suffix, middle, fileSeparator}")


def resolve(setting: Any, model: str) -> FimTemplate:
    """The template a request for `model` uses under the `fimTemplate` setting."""
    if isinstance(setting, Mapping):
        return custom_template(setting)
    if isinstance(setting, str) and setting in PRESETS:
        return PRESETS[setting]
    return PRESETS[auto_template_name(model)[0]]


def render_prompt(template: FimTemplate, request: FimRequest) -> str:
    """The raw prompt for a FIM request. With a file separator, context files become
    repository-level blocks; otherwise they stay the comment head of `request.prompt`."""
    if template.file_separator and request.code_prefix is not None:
        sep = template.file_separator
        head = "".join(f"{sep}{f.filename}\n{f.text.rstrip()}\n" for f in request.files)
        before = f"{head}{sep}{request.path or 'untitled'}\n{request.code_prefix}"
    else:
        before = request.prompt
    if template.suffix_first:
        return f"{template.suffix}{request.suffix}{template.prefix}{before}{template.middle}"
    return f"{template.prefix}{before}{template.suffix}{request.suffix}{template.middle}"


def stops_for(template: FimTemplate, request_stops: tuple[str, ...],
              limit: int = 16) -> list[str]:
    """The request's own stops first (they shape the answer), then the template's."""
    out: list[str] = []
    for stop in (*request_stops, *template.special_tokens()):
        if stop and stop not in out:
            out.append(stop)
    return out[:limit]


MIN_PARTIAL_TOKEN = 3  # a shorter trailing "<|" may be real code


def strip_special(text: str, template: FimTemplate) -> str:
    """Cut the answer at the first special token (what follows it is not code for
    this cursor), and drop a trailing piece of one cut off by the token limit."""
    tokens = template.special_tokens()
    cut = len(text)
    for token in tokens:
        at = text.find(token)
        if at != -1:
            cut = min(cut, at)
    text = text[:cut]
    for token in tokens:
        for size in range(len(token) - 1, MIN_PARTIAL_TOKEN - 1, -1):
            if text.endswith(token[:size]):
                return text[:-size]
    return text
