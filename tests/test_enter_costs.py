"""An Enter in a big file costs its edit: the entries it only moved are not re-costed,
and recent code reads the lines it needs without splitting the whole document; both
give exactly what the whole computation gives."""

from __future__ import annotations

import random

import pytest

from benchmarks.bigfiles import synthetic_python
from flashls.context import analysis
from flashls.context.analysis import analyze
from flashls.context.doc_lines import DocumentLines
from flashls.context.document import Document
from flashls.context.languages import language_for
from flashls.context.moved_items import cost_change
from flashls.context.neighbors import entry_cost
from flashls.context.symbols import split_lines


@pytest.fixture(autouse=True)
def _clean():
    analysis.clear()
    yield
    analysis.clear()


def _random_edit(rng: random.Random, doc: Document) -> None:
    text = doc.text
    lines = text.count("\n")
    line = rng.randrange(lines)
    col = rng.randrange(len(doc.line_text(line)) + 1)
    roll = rng.random()
    if roll < 0.4:
        doc.apply_change((line, col), (line, col), "\n" + " " * rng.choice((0, 4)))
    elif roll < 0.6:
        doc.apply_change((line, col), (line, col), rng.choice(("x", "(", "\r\n", "é")))
    elif roll < 0.75:
        doc.apply_change((line, 0), (line, 0), f"def added_{rng.randrange(999)}(a):\n"
                         "    return a\n\n")
    else:
        end = min(lines, line + rng.randint(1, 3))
        doc.apply_change((line, col), (end, 0), "")
    doc.version += 1


def test_the_line_view_reads_the_lines_split_lines_gives():
    rng = random.Random(5)
    doc = Document("file:///w/a.py", "a = 1\r\nb = 2\n\n" + synthetic_python(60), "python", 1)
    for _ in range(120):
        _random_edit(rng, doc)
        want = split_lines(doc.text)
        view = DocumentLines(doc)
        assert len(view) == len(want)
        start = rng.randrange(len(want))
        assert view[start:start + 24] == want[start:start + 24]
        assert view[start] == want[start] and view[-1] == want[-1]
    assert [view[i] for i in range(len(view))] == split_lines(doc.text)
    with pytest.raises(IndexError):
        view[len(view)]


def test_the_cost_change_skips_moved_entries_and_equals_the_sums():
    """Successive analyses of one document (so unchanged nodes share their items'
    brief forms); an Enter shifts the items after it without changing their cost."""
    spec = language_for("python", "big.py")
    rng = random.Random(11)
    doc = Document("file:///w/big.py", synthetic_python(300), "python", 1)
    old = analyze(spec, doc.text, ("v", doc.version), current=True, state_key=doc.uri).items
    moved_only = 0
    for _ in range(80):
        _random_edit(rng, doc)
        new = analyze(spec, doc.text, ("v", doc.version), current=True,
                      state_key=doc.uri).items
        want = sum(entry_cost(it) for it in new) - sum(entry_cost(it) for it in old)
        assert cost_change(old, new) == want
        if len(old) == len(new) and old != new and \
                all(a.brief is b.brief for a, b in zip(old, new)):
            moved_only += 1
        old = new
    assert moved_only  # some edits only moved entries (the case this is for)
