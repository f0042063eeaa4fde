"""Typing a text one character at a time into a document, a context per keystroke
(shared by the tests of the budget hold and of the suffix giving way)."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking
from flashls.context.assemble import AssembledContext, assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument


def type_at_top(ws, path: Path, text: str, at: int, typed: str, budget: int
                ) -> list[AssembledContext]:
    """The contexts of `typed[:k]` inserted at `at`, for every k, from a fresh memory;
    the window must reach the top of the file in each."""
    ranking.forget()
    out = []
    for k in range(len(typed) + 1):
        doc = text[:at] + typed[:k] + text[at:]
        pdoc = ParsedDocument.open(Document(path.as_uri(), doc, "", 1), str(path))
        ctx = assemble_context(pdoc, at + k, budget_tokens=budget, workspace=ws)
        assert ctx.window_start_line == 0, "the window reaches the top of the file"
        out.append(ctx)
    ranking.forget()
    return out


def stable_head(ctx: AssembledContext) -> tuple:
    """The neighbor and outline parts, as sent."""
    return tuple((p.tier, p.source, p.text) for p in ctx.parts
                 if p.tier in ("neighbors", "outline"))
