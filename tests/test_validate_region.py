"""The syntax check after a model's answer reads the request's region parse while the
whole tree is stale (a big document being typed in): the same verdict and blamed line
as the whole tree's, without reparsing the whole file."""

from __future__ import annotations

import random

import pytest

from flashls.completion import validate
from flashls.context import local_parse
from tests.test_local_parse import TEXTS, _open
from tests.test_local_parse import _small_documents_take_the_region_path  # noqa: F401 (autouse)

CANDIDATES = ("x = 1", "value)", "foo(", "}\n", "\n    return a\n", "\nreturn 1;\n", '"""',
              "{\n  a: 1,\n}", "\n\ndef g():\n    pass\n", "`", "a.b(c", "\n")


COMMENT = {"python": "  # note", "typescript": " // note"}


@pytest.mark.parametrize("language", sorted(TEXTS))
def test_the_check_on_a_region_parse_equals_the_whole_trees(language):
    rng = random.Random(23)
    pdoc = _open(language)
    local_parse.current_analysis(pdoc)  # the first version: a whole parse
    from_region = edges = 0
    for step in range(40):
        doc = pdoc.doc
        line = rng.randrange(doc.line_count - 1)
        col = len(doc.line_text(line))
        typed = rng.choice(("\n", "\n    ", "\n\n", COMMENT[language]))
        pdoc.apply_change((line, col), (line, col), typed)
        doc.version += 1
        cursor = doc.offset_at(line, col) + len(typed)
        snap = pdoc.snapshot()  # the request's: its edited region parsed on its own
        local_parse.current_analysis(snap)
        whole = pdoc.snapshot()
        whole.tree()  # what the check read before: the whole tree, reparsed
        for text in rng.sample(CANDIDATES, 3):
            end = cursor + rng.choice((0, 0, 1))
            end = min(end, len(doc.text))
            got = validate._first_bad_line(snap, cursor, end, text)
            assert got == validate._first_bad_line(whole, cursor, end, text), (step, text)
        if snap.syntax.dirty:  # the check did not reparse the whole file
            from_region += 1
            edges += _same_regions_at_every_edge(snap, whole)
        if rng.random() < 0.2:  # a pause in the typing: the idle reparse
            pdoc.tree()
    assert from_region > 10 and edges > 100


def _same_regions_at_every_edge(snap, whole) -> int:
    """The top-level region around edits at and next to every node boundary of the
    request's parse (and its ends) is the whole tree's, or not answered from it."""
    local = snap.syntax.region
    root = local.tree.root_node
    bounds = {local.start, local.end}
    for child in root.children:
        bounds.update((child.start_byte, child.end_byte))
    points = sorted({b + d for b in bounds for d in (-1, 0, 1)} & set(range(len(snap.doc.text))))
    answered = 0
    for start in points:
        for end in (start, start + 1, start + 3):
            got = validate._region_from_request(snap, start, end)
            if got is not None:
                answered += 1
                assert got == validate._top_level_region(whole.syntax.tree, start, end), \
                    (start, end, local.start, local.end)
    return answered


def test_a_stale_whole_tree_is_not_reparsed_for_the_check():
    pdoc = _open("python")
    local_parse.current_analysis(pdoc)
    line = 153
    col = len(pdoc.doc.line_text(line))
    pdoc.apply_change((line, col), (line, col), "\n    ")
    pdoc.doc.version += 1
    snap = pdoc.snapshot()
    local_parse.current_analysis(snap)
    assert snap.syntax.region is not None and snap.syntax.region.checked
    cursor = pdoc.doc.offset_at(line + 1, 4)
    assert validate._first_bad_line(snap, cursor, cursor, "return (") is not None
    assert validate._first_bad_line(snap, cursor, cursor, "return value") is None
    assert snap.syntax.dirty and snap.syntax.incremental_parses == 0
