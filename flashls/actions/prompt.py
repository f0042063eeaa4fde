"""Chat messages for code actions.

Laid out for DeepSeek's prefix cache: a fixed system message, then signatures from
imported files, the file's outline and the enclosing scope (shared by every action on
the same code), the selection, and the instruction last. A retry appends the rejected
answer and the reason, so the retry request starts with the first one's bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model.types import ChatMessage
from .context import MARKER, ActionContext

REWRITE_SYSTEM = (
    "You are flashls, a code-editing assistant inside a code editor. The user selected "
    "some code and asks you to change it. Reply with exactly one fenced code block "
    "holding only the code that replaces the selection: no explanation before or after "
    "it, no code from outside the selection. Keep the language, the style and the "
    "relative indentation of the selection; it is shown with its common indentation "
    "removed and your answer is re-indented the same way. When the selection is only "
    "part of a statement or block, answer only with the replacement for that part.")

EXPLAIN_SYSTEM = (
    "You are flashls, a coding assistant inside a code editor. The user selected some "
    "code and asks what it does. Answer in Markdown, concisely, for a developer who "
    "will keep reading the code. Do not rewrite the code.")


@dataclass(frozen=True)
class DiagnosticNote:
    """A diagnostic the editor reported in the selection (for "Fix this code")."""

    line: int  # 1-based, relative to the selection's first line
    message: str
    severity: str = "error"
    source: str = ""
    code: str = ""

    def render(self) -> str:
        origin = f" [{self.source}{' ' + self.code if self.code else ''}]" if \
            self.source or self.code else ""
        return f"- line {self.line}: {self.severity}: {self.message}{origin}"


def fence(text: str, info: str = "") -> str:
    """`text` in a Markdown fence longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def _context_blocks(ctx: ActionContext) -> list[str]:
    parts = []
    for source, text in ctx.signatures:
        parts.append(f"Signatures from {source}, which this file imports:\n" +
                     fence(text.rstrip("\n"), ctx.language))
    parts.append(f"File: {ctx.path}" + (f" ({ctx.language})" if ctx.language else ""))
    if ctx.outline:
        parts.append("Outline of the file (bodies elided):\n" + fence(ctx.outline, ctx.language))
    if ctx.scope:
        parts.append(f"Where the selection sits: {ctx.scope_label}, with the selection "
                     f"replaced by {MARKER}:\n" + fence(ctx.scope, ctx.language))
    return parts


def rewrite_messages(ctx: ActionContext, body: str, instruction: str,
                     diagnostics: tuple[DiagnosticNote, ...] = ()) -> tuple[ChatMessage, ...]:
    parts = _context_blocks(ctx)
    parts.append("The selection (common indentation removed):\n" + fence(body, ctx.language))
    if diagnostics:
        parts.append("Problems the editor reports in the selection:\n" +
                     "\n".join(d.render() for d in diagnostics))
    parts.append(f"Instruction: {instruction}\n\nAnswer with the replacement code only, "
                 "in one fenced block.")
    return (ChatMessage("system", REWRITE_SYSTEM), ChatMessage("user", "\n\n".join(parts)))


def retry_messages(answer: str, reason: str) -> tuple[ChatMessage, ...]:
    """Appended after a rejected answer: what was wrong, and to try again."""
    return (ChatMessage("assistant", answer),
            ChatMessage("user", f"That answer cannot be used: {reason}. Answer again with "
                                "the complete, corrected replacement code only, in one "
                                "fenced block."))


def explain_messages(ctx: ActionContext, body: str, instruction: str) -> tuple[ChatMessage, ...]:
    parts = _context_blocks(ctx)
    parts.append("The selection:\n" + fence(body, ctx.language))
    parts.append(instruction)
    return (ChatMessage("system", EXPLAIN_SYSTEM), ChatMessage("user", "\n\n".join(parts)))
