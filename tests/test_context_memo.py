"""The context engine's memos keep what is reused: typing in one place of a large file
must not evict (and so re-extract) the rest of the file's definitions."""

from __future__ import annotations

from benchmarks.context_bench import _big_module
from flashls.context import analysis
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument


def test_typing_in_a_large_file_reextracts_only_the_edited_code():
    analysis.clear()
    text = _big_module()  # the 5,000-line module of the context benchmark
    pdoc = ParsedDocument.open(Document("file:///big_module.py", text, "python", 1))
    target = text.index("    def reserve(self, order: Order) -> None:", len(text) // 2)
    line = text[:target].count("\n") + 2
    assemble_context(pdoc, target, budget_tokens=2048)
    pdoc.apply_change((line, 0), (line, 0), "        \n")
    col = 8
    extracted = []
    for ch in "total = self.price_book.order_total(order) + pricing.round_money(x)" * 4:
        pdoc.apply_change((line, col), (line, col), ch)
        col += 1
        pdoc.doc.version += 1
        before = analysis.stats["chunks_extracted"]
        assemble_context(pdoc, pdoc.doc.offset_at(line, col), budget_tokens=2048)
        extracted.append(analysis.stats["chunks_extracted"] - before)
    # each keystroke re-extracts the edited definition and a few around it, never a
    # large part of the file (with oldest-first eviction one keystroke re-extracted 334)
    assert max(extracted) <= 20, sorted(extracted)[-5:]
