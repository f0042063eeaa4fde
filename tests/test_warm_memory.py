"""Typing in a big document keeps memory flat: the per-version tables the context
keeps (the stable tier's key index, the items' starts, the outline levels) are bounded
in versions, and no keystroke builds a table over every item that stays alive. Before
`item_keys`, each keystroke indexed every outline key of its version (and built every
moved item after an Enter) into a memo of 128 versions: 60-70 MB on the 15,000-line
file (`benchmarks.bigfiles`' RSS after the run: 195 MB, 124 MB without); and after
each idle reparse of a half-typed file every moved item was built again to find the
current file's cost, and kept in a memo of 256 versions."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from benchmarks.bigfiles import synthetic_python
from flashls.context import analysis, ranking, syntax
from flashls.context.assemble import assemble_context, prepare_document
from flashls.context.background import preparation_steps
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    monkeypatch.setattr(syntax, "REGION_MIN_BYTES", 0)  # the big document's path
    analysis.clear()
    ranking.forget()
    yield
    analysis.clear()
    ranking.forget()


def _traced_mb() -> float:
    gc.collect()
    return tracemalloc.get_traced_memory()[0] / 1e6


def test_enters_and_typing_in_a_big_document_keep_memory_flat():
    uri = "file:///w/big.py"
    pdoc = ParsedDocument.open(Document(uri, synthetic_python(1200), "python", 1), uri)
    pdoc.background = True
    for _ in preparation_steps(pdoc):  # as the server opens a big document
        pass
    line = pdoc.doc.text.split("\n").index("def handler_600(value, scale=5):") + 2
    tracemalloc.start()
    try:
        samples = []
        for step in range(150):
            col = len(pdoc.doc.line_text(line))
            if step % 3:  # an Enter (every following item moves), or a character
                pdoc.apply_change((line, col), (line, col), "\n    ")
                line, col = line + 1, 4
            else:
                pdoc.apply_change((line, col), (line, col), "x")
                col += 1
            pdoc.doc.version += 1
            snap = pdoc.snapshot()
            assemble_context(snap, snap.doc.offset_at(line, col), budget_tokens=2048)
            if step % 4 == 3:
                prepare_document(pdoc)  # a pause: the idle reparse
            if step in (100, 149):  # the memos are full by the first sample
                samples.append(_traced_mb())
    finally:
        tracemalloc.stop()
    grew = samples[1] - samples[0]  # (memos cleared when full swing by about 1 MB;
    #                                  before the fix it grew 16 MB)
    assert grew < 4.0, f"{grew:.1f} MB more over 49 keystrokes"
