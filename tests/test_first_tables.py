"""The ranking's first tables of a big document are built as the last sliced steps of
its preparation: exactly what the first full-context request would have computed in
one call, so that request computes none of them, and its context is the fresh one."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks.bigfiles import synthetic_python
from flashls.context import analysis, evidence, first_tables, neighbors, ranking
from flashls.context.analysis import analyze
from flashls.context.assemble import assemble_context
from flashls.context.background import (analysis_ready, current_analysis, needs_background,
                                        preparation_steps)
from flashls.context.evidence_java import receiver_dialect
from flashls.context.languages import language_for
from tests.test_bigfiles import TEXT, _background_doc, _edit, _fresh_context, _summary
from tests.test_bigfiles_open import huge_class

GO = "package big\n\n" + "".join(
    f"type T{i} struct {{ n int }}\n\nfunc (t *T{i}) Get(c *Conf) int {{\n"
    f"\tvar x Conf\n\treturn t.n + c.Size + x.Size\n}}\n\n" for i in range(40))
TS = "".join(f"interface Node{i} {{\n  next: Node{i + 1};\n  read(x: Buf): Node{i}.Kind;\n}}\n"
             f"const v{i}: Node{i} = make(Node{i}).value;\n" for i in range(40))


@pytest.fixture(autouse=True)
def _clean():
    analysis.clear()
    yield
    analysis.clear()


def _prepared(pdoc) -> None:
    while needs_background(pdoc):
        for _ in preparation_steps(pdoc):
            pass


@pytest.mark.parametrize("language, path, text", [
    ("python", "big.py", synthetic_python(200) + huge_class(60)),
    ("go", "big.go", GO), ("typescript", "big.ts", TS)])
def test_the_sliced_node_tables_are_the_ones_evidence_computes(language, path, text):
    spec = language_for(language, path)
    result = analyze(spec, text, ("fresh", path))
    go = receiver_dialect(spec.resolver)
    steps = list(first_tables.node_attributes_steps(result, slice_s=0.0))
    assert steps  # yielded between chunks
    tables = dict(evidence._NODE_ATTRS)
    evidence._NODE_ATTRS.clear()  # the reference below computes each node afresh
    seeded = 0
    for first, last, _, idents in result.usages:
        hit = tables[id(idents)]
        assert hit[0] is idents
        assert hit[1] == evidence._node_attributes(result.lines, first, last, idents, go, {})
        seeded += bool(hit[1][0] or hit[1][1])
    assert seeded  # the files do have qualifiers and receivers to find


def test_a_huge_node_is_measured_in_chunks_of_rows():
    spec = language_for("python", "huge.py")
    result = analyze(spec, huge_class(400), ("huge", 1))
    rows = max(last - first for first, last, _, _ in result.usages)
    assert rows > 1000
    steps = sum(1 for _ in first_tables.node_attributes_steps(result, slice_s=0.0))
    assert steps >= rows // first_tables.ROWS_PER_LOOK


def test_the_first_full_context_after_the_preparation_builds_no_table(monkeypatch):
    pdoc = _background_doc()
    _prepared(pdoc)
    assert analysis_ready(pdoc)
    items = current_analysis(pdoc).items  # the version the request will find
    hit = ranking._COSTS[(id(items), True)]
    assert hit[0] is items and hit[1] == sum(neighbors.entry_cost(it) for it in items)
    built = []
    real = evidence.line_attributes
    monkeypatch.setattr(evidence, "line_attributes", lambda line: built.append(line) or real(line))
    offset = len(TEXT) // 2
    got = assemble_context(pdoc.snapshot(), offset, budget_tokens=3000)
    assert any(p.tier == "outline" for p in got.parts)
    assert built == []  # every node's attributes were at hand
    monkeypatch.undo()
    assert _summary(got) == _fresh_context(TEXT, offset)


@pytest.mark.parametrize("after", [0, 1, 3, 25])
def test_edits_while_the_tables_are_built_end_in_exactly_the_fresh_context(
        after, monkeypatch):
    """Edits (an Enter among them) land while the tables are built: until they are, a
    request gets the window only; afterwards the context is the fresh analysis's."""
    started = []
    real = first_tables.table_steps

    def marked(result, slice_s):
        started.append(True)
        yield from real(result, slice_s)

    monkeypatch.setattr(first_tables, "table_steps", marked)
    pdoc = _background_doc()
    lines = TEXT.split("\n")
    edits = [(10, len(lines[10]), "\n    extra = 1"), (600, len(lines[600]), "  # typed")]
    windows = 0
    since = -1
    while needs_background(pdoc):
        for _ in preparation_steps(pdoc, slice_s=0.0):
            if started:
                since += 1
                if since == 0:
                    assert not analysis_ready(pdoc)
                    early = assemble_context(pdoc.snapshot(), len(TEXT) // 2,
                                             budget_tokens=3000)
                    windows += early.parts == ()
                if since >= after and edits:
                    _edit(pdoc, *edits.pop(0))
    assert started and windows == 1 and not edits
    text = pdoc.doc.text
    offset = text.index("extra = 1") + 3
    got = _summary(assemble_context(pdoc.snapshot(), offset, budget_tokens=3000))
    assert got == _fresh_context(text, offset)


def test_an_abandoned_preparation_leaves_the_document_ready():
    """A preparation closed during its table steps (the document closed or reopened)
    does not leave the document waiting for tables forever."""
    pdoc = _background_doc()
    steps = preparation_steps(pdoc, slice_s=0.0)
    for _ in steps:
        if analysis.has_state(pdoc.doc.uri):
            break
    assert not analysis_ready(pdoc)
    steps.close()
    assert analysis_ready(pdoc)


def test_the_warm_up_imports_what_the_first_full_context_imports():
    """A fresh process: after the warm-up's imports, a full context on a Go, a Python
    and a TypeScript file imports no other module of flashls."""
    script = r"""
import sys
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.lsp import warmup
warmup._import_context_modules()
before = set(sys.modules)
for uri, lang, unit in (("file:///w/a.go", "go", "func F{i}(x int) int {{\n\treturn x.Y + {i}\n}}\n\n"),
                        ("file:///w/a.py", "python", "def f{i}(x):\n    return os.path.join(x, {i})\n\n"),
                        ("file:///w/a.ts", "typescript", "function f{i}(x: number) {{\n  return a.b + {i};\n}}\n")):
    text = ("package a\n\n" if lang == "go" else "") + "".join(unit.format(i=i) for i in range(400))
    pdoc = ParsedDocument.open(Document(uri, text, lang, 1), uri)
    ctx = assemble_context(pdoc, len(text) // 2, budget_tokens=2000)
    assert any(p.tier == "outline" for p in ctx.parts), uri
    cut = len(text) // 2  # an Enter: the next version's items are mostly moved ones
    pdoc.apply_change(pdoc.doc.position_at(cut), pdoc.doc.position_at(cut), "\n")
    pdoc.doc.version += 1
    assemble_context(pdoc, cut + 1, budget_tokens=2000)
print(sorted(m for m in set(sys.modules) - before if m.startswith("flashls")))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
