"""The stable head of the prompt stays byte-identical while the user types.

DeepSeek's prefix cache only hits on a byte-identical prefix, so everything before the
cursor window (neighbors, outline, recent) must not change while the user types in one
place — including when the cursor is inside a docstring whose definition the outline
would otherwise list, and while that docstring is still unterminated.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flashls.completion.factory import WorkspaceContext
from flashls.completion.prompt import PromptInputs, render_fim_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.settings import Settings

WS = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces" / "py_inventory"
PRICING = WS / "inventory" / "pricing.py"


def heads_while_typing(text: str, at: int, typed: str, budget: int) -> list[str]:
    uri = PRICING.as_uri()
    pdoc = ParsedDocument.open(Document(uri, text, "python", 1))
    docs = {uri: pdoc}
    provider = WorkspaceContext(lambda: Settings(), docs, lambda: [WS])
    inputs = PromptInputs("inventory/pricing.py", "python", "#")
    heads = []
    cursor = at
    for ch in typed:
        line, col = pdoc.doc.position_at(cursor)
        pdoc.apply_change((line, col), (line, col), ch)
        cursor += 1
        ctx = provider(pdoc, cursor, budget)
        assert pdoc.doc.text[:cursor].endswith(ctx.prefix[-20:])
        heads.append(render_fim_context(ctx, inputs))
    return heads


@pytest.mark.parametrize("budget", [1024, 2048])
def test_typing_inside_a_docstring_keeps_the_head_identical(budget):
    text = PRICING.read_text(encoding="utf-8")
    line = '    """Round to whole cents, half up, as invoices require."""'
    at = text.index(line) + len('    """Round to whole')
    heads = heads_while_typing(text, at, " and exact", budget)
    assert len(set(heads)) == 1


def test_typing_an_unterminated_docstring_keeps_the_head_identical():
    text = PRICING.read_text(encoding="utf-8")
    line = '    """Round to whole cents, half up, as invoices require."""\n'
    start = text.index(line)
    retyped = text[:start] + '    """Round' + text[start + len(line):]  # no closing quotes
    heads = heads_while_typing(retyped, start + len('    """Round'), " to whole cents", 2048)
    assert len(set(heads)) == 1
    assert "Round to" not in heads[-1]  # the line being typed is only in the window
