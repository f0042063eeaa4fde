"""A request on a big document parses only the region its edits touched (`local_parse`):
whatever the edits (Enter, deletions across many nodes, unterminated strings and
brackets), the analysis, the cursor's scopes and string/comment state, and the error
flag equal those of a fresh parse of the final text."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from benchmarks.bigfiles import synthetic_python
from flashls.completion.cursor import cursor_context
from flashls.context import analysis, local_parse, syntax
from flashls.context.assemble import assemble_context, prepare_document
from flashls.context.document import Document
from flashls.context.symbols import enclosing_scopes
from flashls.context.syntax import ParsedDocument
from tests.test_context_incremental import same_parse

TS = """import { Task } from "./task";

export const LIMIT = 10;

/** A store of tasks. */
export class TaskStore {
  private tasks: Task[] = [];
  add(task: Task): void {
    this.tasks.push(task);
  }
}

export function count(store: TaskStore): number {
  return 1;
}

let message = `total ${LIMIT}`;
interface Shape { area(): number; }
type Id = string | number;
"""
TEXTS = {
    "python": synthetic_python(60) + "class Tail:\n    x = 1\n\n    def m(self):\n        return 2\n",
    "typescript": TS * 6,
}
EXT = {"python": "py", "typescript": "ts"}

edit = st.tuples(st.floats(0, 1), st.integers(0, 400),
                 st.sampled_from(["x", "\n", "\n    ", "    ", "(", ")", "{", "}", "'", '"""',
                                  "`", "/*", "*/", "# c\n", "// c\n", "def f(a):\n    pass\n",
                                  "\n\nclass K:\n", "é", ""]),
                 st.booleans())


def _open(language: str) -> ParsedDocument:
    uri = f"file:///work/region.{EXT[language]}"
    pdoc = ParsedDocument.open(Document(uri, TEXTS[language], language, 1), uri)
    pdoc.background = True
    return pdoc


def _facts(a: analysis.Analysis) -> tuple:
    return (a.items, a.imports, a.package, a.top_starts, a.import_lines,
            tuple((f, l, dict(i)) for f, l, _, i in a.usages), tuple(a.lines))


def _fresh(pdoc: ParsedDocument):
    doc = pdoc.doc
    fresh = ParsedDocument.open(Document(doc.uri + "?fresh", doc.text, doc.language_id, 1),
                                doc.uri)
    tree = fresh.tree()
    return fresh, tree, analysis._analyze_tree(fresh.spec, doc.text, tree)


@pytest.fixture(autouse=True)
def _small_documents_take_the_region_path(monkeypatch):
    monkeypatch.setattr(syntax, "REGION_MIN_BYTES", 0)
    analysis.clear()
    yield
    analysis.clear()


@settings(max_examples=int(os.environ.get("FLASHLS_INC_EXAMPLES", "60")), deadline=None,
          derandomize=not os.environ.get("FLASHLS_INC_EXAMPLES"),  # CI: the same examples
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(TEXTS)), st.lists(edit, min_size=1, max_size=10))
# error recovery moved a node far below the edit (the whole tree's path missed it)
@example("python", [(0.0, 30, "x", False), (0.0, 199, "x", False), (0.9921875, 0, "x", False),
                    (0.45623330683690877, 191, "\n", False), (0.4375, 0, "x", False)])
# the whole parse failed at its root: its children carry no error of their own
@example("typescript", [(0.75, 38, "\n", False), (0.25, 145, "\n", False),
                        (0.75, 240, "x", False), (0.75, 263, "x", False),
                        (0.765625, 252, "\n", False), (0.0625, 13, "\n", False),
                        (0.25, 127, "{", False)])
def test_a_region_parse_gives_exactly_the_fresh_analysis(language, edits):
    pdoc = _open(language)
    analysis.clear()
    local_parse.current_analysis(pdoc)  # the first version: a whole parse
    for where, delete, text, pause in edits:
        doc = pdoc.doc
        offset = int(where * len(doc.text))
        end = min(len(doc.text), offset + delete)
        pdoc.apply_change(doc.position_at(offset), doc.position_at(end), text)
        doc.version += 1
        snap = pdoc.snapshot()  # as a request does: no whole reparse
        got = local_parse.current_analysis(snap)
        fresh, tree, want = _fresh(pdoc)
        region = snap.syntax.region
        used = region is not None and region.checked and region.source is doc.source_bytes
        if not used and snap.syntax.tree is not None and not snap.syntax.dirty and \
                not same_parse(tree, snap.syntax.tree):
            # fell back to the whole tree, whose incremental reparse tree-sitter made
            # differ from a fresh one (see test_context_incremental): compare with it
            fresh, tree = snap, snap.syntax.tree
            want = analysis._analyze_tree(snap.spec, doc.text, tree)
        if not local_parse.provisional(snap):
            # exact: the region had no syntax error (or the whole tree was parsed)
            assert _facts(got) == _facts(want)
            cursor = min(offset + len(text), len(doc.text))
            byte = doc.byte_at(cursor)
            row = doc.position_at(cursor)[0]
            assert enclosing_scopes(snap.spec, local_parse.tree_near(snap, byte),
                                    doc.source_bytes, byte, row, got.lines) == \
                enclosing_scopes(fresh.spec, tree, doc.source_bytes, byte, row, want.lines)
            assert local_parse.has_error(snap) == tree.root_node.has_error
            assert cursor_context(snap, cursor).start == cursor_context(fresh, cursor).start
        if used and region.tree.root_node.has_error:
            assert local_parse.provisional(snap)  # marked: exact after the next reparse
        if pause:  # the server's idle reparse: exact again, whatever came before
            prepare_document(pdoc)
            assert not pdoc.syntax.dirty
            assert _facts(local_parse.current_analysis(pdoc)) == _facts(want)
    prepare_document(pdoc)
    assert _facts(local_parse.current_analysis(pdoc)) == _facts(_fresh(pdoc)[2])


def test_typing_and_enter_parse_the_edit_not_the_file():
    pdoc = _open("python")
    prepare_document(pdoc)
    whole = (pdoc.syntax.full_parses, pdoc.syntax.incremental_parses)
    line = 153  # the last line of handler_30: a new line, then a name on it, ...
    for step in range(6):
        text = "x" if step % 2 else "\n    "
        col = len(pdoc.doc.line_text(line))
        pdoc.apply_change((line, col), (line, col), text)
        pdoc.doc.version += 1
        line += text.count("\n")
        snap = pdoc.snapshot()
        offset = pdoc.doc.offset_at(line, len(pdoc.doc.line_text(line)))
        ctx = assemble_context(snap, offset, budget_tokens=3000)
        cursor_context(snap, offset)
        assert snap.syntax.region is not None and snap.syntax.region.checked, step
        assert snap.syntax.incremental_parses == 0 and snap.syntax.full_parses == 0
        assert len(snap.syntax.region.source) == len(pdoc.doc.source_bytes)
        assert snap.syntax.region.end - snap.syntax.region.start < 1000
        fresh_uri = f"file:///work/fresh{step}/region.py"  # the same name in the prompt
        fresh = ParsedDocument.open(Document(fresh_uri, pdoc.doc.text, "python", 1), fresh_uri)
        want = assemble_context(fresh, offset, budget_tokens=3000)
        assert (ctx.parts, ctx.prefix, ctx.suffix) == (want.parts, want.prefix, want.suffix)
    assert (pdoc.syntax.full_parses, pdoc.syntax.incremental_parses) == whole


def test_an_unterminated_string_falls_back_to_the_whole_tree():
    """An opening triple quote swallows every following node in a fresh parse: the
    sentinel after the edit no longer comes out as it was, so the region is refused."""
    pdoc = _open("python")
    prepare_document(pdoc)
    pdoc.apply_change((100, 0), (100, 0), '"""')
    pdoc.doc.version += 1
    got = local_parse.current_analysis(pdoc)
    assert not pdoc.syntax.dirty  # the whole tree was reparsed
    assert _facts(got) == _facts(_fresh(pdoc)[2])
