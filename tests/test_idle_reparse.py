"""A pause in the typing on a big document: the whole tree's reparse in slices behind
the foreground, ending in exactly the fresh tree and context."""

from __future__ import annotations

import asyncio

import pytest

from flashls.context import analysis
from flashls.context.assemble import assemble_context
from flashls.context.background import (idle_reparse_steps, idle_reparse_wanted,
                                        needs_background, preparation_steps)
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.lsp.server import create_server
from tests.test_bigfiles import URI, _background_doc, _edit, _fresh_context, _summary


@pytest.fixture(autouse=True)
def _clean():
    analysis.clear()
    yield
    analysis.clear()


def _prepared_doc() -> ParsedDocument:
    pdoc = _background_doc()
    while needs_background(pdoc):
        for _ in preparation_steps(pdoc):
            pass
    return pdoc


def test_the_idle_reparse_of_a_big_document_runs_in_slices_to_the_fresh_tree():
    pdoc = _prepared_doc()
    _edit(pdoc, 700, 0, "def broken(:\n")  # tree-sitter's error recovery: a long parse
    assert idle_reparse_wanted(pdoc)
    slices = sum(1 for _ in idle_reparse_steps(pdoc, slice_s=0.0))
    assert slices >= 2 and not pdoc.syntax.dirty
    fresh = ParsedDocument.open(Document(URI, pdoc.doc.text, "python", 9), URI)
    assert str(pdoc.syntax.tree.root_node) == str(fresh.tree().root_node)
    assert not idle_reparse_wanted(pdoc)  # up to date: nothing left for the next pause


def test_an_edit_during_the_sliced_idle_reparse_ends_it_and_loses_nothing():
    pdoc = _prepared_doc()
    _edit(pdoc, 700, 0, "x = 1\n")
    steps = idle_reparse_steps(pdoc, slice_s=0.0)
    next(steps)
    _edit(pdoc, 900, 0, "y = 2\n")
    assert list(steps) == [] and pdoc.syntax.dirty  # gave up: the next pause starts over
    offset = pdoc.doc.offset_at(901, 0)
    got = _summary(assemble_context(pdoc.snapshot(), offset, budget_tokens=3000))
    assert got == _fresh_context(pdoc.doc.text, offset)


async def test_the_servers_idle_parse_of_a_big_document_does_not_parse_on_the_spot():
    server = create_server()
    session = server.session
    pdoc = _prepared_doc()
    session.documents[URI] = pdoc
    _edit(pdoc, 700, 0, "x = 1\n")
    try:
        session._idle_parse(URI)
        assert pdoc.syntax.dirty  # left for the background slices, not done in this call
        task = session._reparsing[URI]
        await asyncio.wait_for(task, 60)
        assert not pdoc.syntax.dirty and URI not in session._reparsing
    finally:
        await session.close()


class _CountingParser:
    """A parser that records whether each parse could be halted (had a progress
    callback) and what it was given."""

    def __init__(self, real, calls: list):
        self._real, self._calls = real, calls

    def parse(self, source, *args, **kwargs):
        self._calls.append((callable(source), "progress_callback" in kwargs))
        return self._real.parse(source, *args, **kwargs)


def test_the_idle_reparse_ends_without_a_whole_parse_in_one_call(monkeypatch):
    """The tree the sliced parse made is kept (its node texts read back through the
    read callback): the reparse of the same bytes that made it hold them was one
    unsliced call of 10-14 ms on 3,000 functions, holding the loop. What follows
    reads its texts: the analysis and the next request's context are the fresh ones."""
    pdoc = _prepared_doc()
    spec = pdoc.syntax.spec
    calls: list = []
    real = type(spec).parser
    monkeypatch.setattr(type(spec), "parser", lambda self: _CountingParser(real(self), calls))
    for line, text in ((700, "def added(value):\n    return value\n"), (1200, "\n\n")):
        _edit(pdoc, line, 0, text)
        calls.clear()
        for _ in idle_reparse_steps(pdoc, slice_s=0.0):
            pass
        assert calls and all(halting for _, halting in calls), calls
        assert not pdoc.syntax.dirty
        fresh = ParsedDocument.open(Document(URI, pdoc.doc.text, "python", 9), URI)
        assert str(pdoc.syntax.tree.root_node) == str(fresh.tree().root_node)
        offset = pdoc.doc.offset_at(line + 1, 4)
        got = _summary(assemble_context(pdoc.snapshot(), offset, budget_tokens=3000))
        assert got == _fresh_context(pdoc.doc.text, offset)
