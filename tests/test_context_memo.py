"""The context engine's memos keep what is reused: typing in one place of a large file
must not evict (and so re-extract) the rest of the file's definitions."""

from __future__ import annotations

from flashls.context import analysis
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument


def big_module(functions: int, methods: int) -> str:
    helpers = "".join(f"def helper_{i}(value: int) -> int:\n    return value + {i}\n\n\n"
                      for i in range(functions))
    body = "".join(f"    def method_{j}(self, value: int) -> int:\n"
                   f"        return value * {j}\n\n" for j in range(methods))
    return "import os\n\n\n" + helpers + f"class Big:\n{body}"


def test_typing_in_one_class_reextracts_only_that_class():
    analysis.clear()
    # many small definitions first, then one large class typed in: each keystroke's
    # new entry for the class weighs a lot against the memo's byte budget
    text = big_module(2000, 1500)
    uri = "file:///big.py"
    pdoc = ParsedDocument.open(Document(uri, text, "python", 1))
    line = text[: text.index("    def method_700(")].count("\n") + 1
    assemble_context(pdoc, 0, budget_tokens=2048)
    extracted = []
    for i in range(120):
        col = len(pdoc.doc.line_text(line))
        pdoc.apply_change((line, col), (line, col), "x")
        pdoc.doc.version += 1
        before = analysis.stats["chunks_extracted"]
        assemble_context(pdoc, pdoc.doc.offset_at(line, col + 1), budget_tokens=2048)
        extracted.append(analysis.stats["chunks_extracted"] - before)
    # each keystroke re-extracts the edited class (and perhaps a neighbour), never the file
    assert max(extracted[10:]) <= 4, extracted
