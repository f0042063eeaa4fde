"""A node's identifier table patched by an edit's rows (`ident_patch`) must equal a
reading of every row, in its order too (the table is iterated by the passes)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from flashls.context import analysis
from flashls.context.analysis import _add_identifiers
from flashls.context.document import Document
from flashls.context.ident_patch import patched_idents
from flashls.context.languages import language_for
from flashls.context.syntax import ParsedDocument

LOAN_SERVICE = (Path(__file__).resolve().parent.parent / "fixtures" / "workspaces" /
                "java_library/src/main/java/com/acme/library/service/LoanService.java")
WORDS = ["a", "b", "loan", "Book", "id", "x.y", "f(a, b)", "", "  ", "new Loan(id)", "b.a"]


def table(lines: list[str], first: int, last: int) -> dict[str, tuple[int, ...]]:
    idents: dict[str, list[int]] = {}
    _add_identifiers(lines, first, first, last + 1, idents)
    return {k: tuple(v) for k, v in idents.items()}


line = st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(line, min_size=3, max_size=30), st.integers(0, 40), st.integers(0, 5),
       st.lists(line, max_size=5), st.integers(0, 2))
def test_patched_table_equals_a_full_reading(lines, at, removed, inserted, first):
    lines = ["head"] * first + lines
    rows = len(lines) - first
    lo = first + at % rows
    old_hi = min(len(lines) - 1, lo + removed - 1)  # removed 0: a pure insertion
    new = lines[:lo] + inserted + lines[old_hi + 1:]
    if len(new) <= first:
        return
    new_hi = lo + len(inserted) - 1
    got = patched_idents(table(lines, first, len(lines) - 1), lines, new, first,
                         lo - first, old_hi - first, new_hi - first, len(new) - first)
    if got is None:  # the edit spans too much of the node: read whole
        assert len(inserted) > 0.5 * (len(new) - first)
        return
    want = table(new, first, len(new) - 1)
    assert list(got.items()) == list(want.items())


def test_an_edit_inside_a_class_patches_its_table(monkeypatch):
    """A Java class is one top-level node: a line typed in it is not a reason to read
    every row again, and the analysis still equals a fresh one (order included)."""
    text = LOAN_SERVICE.read_text()
    spec = language_for("", str(LOAN_SERVICE))
    pdoc = ParsedDocument.open(Document(LOAN_SERVICE.as_uri() + "?patch", text, "", 1),
                               str(LOAN_SERVICE))

    def current():
        t = pdoc.doc.text
        return analysis.analyze(spec, t, ("patch", pdoc.doc.version, t), tree=pdoc.tree(),
                                current=True, state_key=pdoc.doc.uri)

    current()
    reads: list[int] = []
    real = analysis._add_identifiers

    def counted(lines, first, start, stop, *rest):
        reads.append(stop - start)
        return real(lines, first, start, stop, *rest)

    monkeypatch.setattr(analysis, "_add_identifiers", counted)
    row = next(i for i, x in enumerate(text.split("\n")) if "return" in x)
    for typed in ("x", "Loan loan = book", "\n        renewals++;"):
        end = pdoc.doc.position_at(len("\n".join(pdoc.doc.text.split("\n")[:row + 1])))
        pdoc.apply_change(end, end, typed)
        pdoc.doc.version += 1
        reads.clear()
        got = current()
        assert reads == []  # patched, not read
        lines = analysis.split_lines(pdoc.doc.text)
        tree = spec.parser().parse(pdoc.doc.source_bytes)
        want = []
        for node in tree.root_node.children:
            chunk = analysis._extract_chunk(spec, tree, pdoc.doc.source_bytes, lines, node,
                                            node.start_point[0])
            if chunk.idents:
                want.append((node.start_point[0], list(chunk.idents.items())))
        assert [(f, list(i.items())) for f, _, _, i in got.usages] == want
