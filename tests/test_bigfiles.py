"""Big documents: linear cold analysis, preparation in the background that never holds
the loop, and exactly the fresh analysis at the end however the edits interleave."""

from __future__ import annotations

import asyncio

import pytest
from tree_sitter import QueryCursor

from benchmarks.bigfiles import report_rows, synthetic_python
from benchmarks.soak import RawLsp
from flashls.context import analysis
from flashls.context.assemble import assemble_context
from flashls.context.background import analysis_ready, needs_background, preparation_steps
from flashls.context.document import Document
from flashls.context.languages import language_for
from flashls.context.symbols import (DEFINITION_START_DEPTH, _node_matches, compiled, extract,
                                     node_queries)
from flashls.context.syntax import BACKGROUND_BYTES, MAX_PARSE_BYTES, ParsedDocument
from tests.fake_deepseek import FakeDeepSeek, Reply

URI = "file:///work/big.py"
TEXT = synthetic_python(1200)  # ~150 KB: above BACKGROUND_BYTES


def _background_doc(text: str = TEXT, uri: str = URI) -> ParsedDocument:
    pdoc = ParsedDocument.open(Document(uri, text, "python", 1), uri)
    pdoc.background = True
    return pdoc


def _edit(pdoc: ParsedDocument, line: int, col: int, text: str) -> None:
    pdoc.apply_change((line, col), (line, col), text)
    pdoc.doc.version += 1


def prepare_while_editing(pdoc: ParsedDocument, edits: list[tuple[int, int, str]],
                          edit_at_step: int) -> None:
    """The background work in zero-length slices, the edits landing one per step from
    `edit_at_step` on (after it when the work was shorter)."""
    edits = list(edits)
    steps = 0
    while needs_background(pdoc):
        for _ in preparation_steps(pdoc, slice_s=0.0):
            steps += 1
            if edits and steps >= edit_at_step:
                _edit(pdoc, *edits.pop(0))
    for edit in edits:  # the work was shorter than the step: edit after it
        _edit(pdoc, *edit)


def _summary(ctx) -> tuple:
    return (tuple((p.tier, p.source, p.text) for p in ctx.parts), ctx.prefix, ctx.suffix,
            ctx.window_start_line)


def _fresh_context(text: str, offset: int, uri: str = URI) -> tuple:
    """The context of a document opened with `text` and analyzed on the spot."""
    analysis.clear()
    fresh = ParsedDocument.open(Document(uri, text, "python", 99), uri)
    return _summary(assemble_context(fresh, offset, budget_tokens=3000))


@pytest.fixture(autouse=True)
def _clean():
    analysis.clear()
    yield
    analysis.clear()


def test_the_benchmark_text_is_big_enough_to_be_prepared_in_the_background():
    assert BACKGROUND_BYTES < len(TEXT.encode()) < MAX_PARSE_BYTES
    synthetic = synthetic_python()
    assert synthetic.count("\n") == 15_000 and synthetic.count("\ndef ") == 2_999


def test_a_request_during_preparation_gets_the_window_then_the_full_context():
    pdoc = _background_doc()
    offset = len(TEXT) // 2
    early = assemble_context(pdoc.snapshot(), offset, budget_tokens=3000)
    assert early.parts == () and early.prefix and TEXT[:offset].endswith(early.prefix)
    assert needs_background(pdoc) and pdoc.tree() is None  # nothing parsed on the request
    while needs_background(pdoc):
        for _ in preparation_steps(pdoc):
            pass
    assert analysis_ready(pdoc)
    late = assemble_context(pdoc.snapshot(), offset, budget_tokens=3000)
    assert any(p.tier == "outline" for p in late.parts)
    assert _summary(late) == _fresh_context(TEXT, offset)


@pytest.mark.parametrize("edit_at_step", [1, 5, 40, 400, 2000])
def test_edits_while_preparing_end_in_exactly_the_fresh_analysis(edit_at_step):
    """Edits land at a given step of the background work (during the parse, or during
    the analysis: slices of zero length yield after every bit of work), including an
    Enter that shifts every following line; the context afterwards is the one a fresh
    analysis of the final text gives."""
    pdoc = _background_doc()
    lines = TEXT.split("\n")
    edits = [(600, len(lines[600]), "  # typed"), (10, len(lines[10]), "\n    extra = 1"),
             (3000, 0, "def inserted(a):\n    return a\n\n")]
    prepare_while_editing(pdoc, edits, edit_at_step)
    text = pdoc.doc.text
    assert "def inserted(a)" in text and "extra = 1" in text
    offset = text.index("extra = 1") + 3
    got = _summary(assemble_context(pdoc.snapshot(), offset, budget_tokens=3000))
    assert pdoc.syntax.full_parses == 1  # the edits were replayed, not parsed from scratch
    assert got == _fresh_context(text, offset)


def test_a_request_during_a_background_reparse_finishes_it_exactly():
    pdoc = _background_doc()
    while needs_background(pdoc):
        for _ in preparation_steps(pdoc):
            pass
    _edit(pdoc, 700, 0, "\n")
    steps = pdoc.syntax.reparse_steps(pdoc.doc.source_bytes, slice_s=0.0)
    next(steps)  # halted after its first slice, as between two turns of the loop
    assert pdoc.syntax.halted is not None
    offset = pdoc.doc.offset_at(701, 0)
    got = _summary(assemble_context(pdoc.snapshot(), offset, budget_tokens=3000))
    assert pdoc.syntax.halted is None and not pdoc.syntax.dirty
    assert list(steps) == []  # the background parse sees it done and stops
    assert got == _fresh_context(pdoc.doc.text, offset)


def test_replacing_the_text_during_the_parse_restarts_on_the_new_text():
    pdoc = _background_doc()
    replaced = False
    while needs_background(pdoc):
        for step, _ in enumerate(preparation_steps(pdoc, slice_s=0.0)):
            if step == 3 and not replaced:
                pdoc.replace_all(synthetic_python(1300))
                pdoc.doc.version += 1
                replaced = True
    text = pdoc.doc.text
    offset = text.index("def handler_1250")
    assert replaced
    got = _summary(assemble_context(pdoc.snapshot(), offset, budget_tokens=3000))
    assert got == _fresh_context(text, offset)


def test_each_node_is_matched_once_not_once_per_file():
    """Root-anchored patterns (`(module (expression_statement ...))`) used to be
    matched through a byte range on the root, which tree-sitter does not narrow: every
    top-level node re-walked the whole file. Per node, the matches now add up to one
    whole-file run."""
    spec = language_for("python", "x.py")
    text = "".join(f"CONST_{i} = {i}\n\ndef f_{i}():\n    return CONST_{i}\n\n"
                   for i in range(300))
    tree = spec.parser().parse(text.encode())
    whole = QueryCursor(compiled(spec, "definitions"))
    whole.set_max_start_depth(DEFINITION_START_DEPTH)
    expected = len(whole.matches(tree.root_node))
    split = node_queries(spec, "definitions")
    per_node = sum(1 for node in tree.root_node.children
                   for _ in _node_matches(split, tree, node, DEFINITION_START_DEPTH))
    assert expected == 600 and per_node == expected


@pytest.mark.parametrize("language,path,text", [
    ("python", "m.py", "X = 1\nclass A:\n    y = 2\n    def f(self):\n        pass\n"
                       "@dec\ndef g():\n    pass\n"),
    ("go", "m.go", "package m\nconst (\n\tA = 1\n\tB = 2\n)\nvar V = 3\n"
                   "type T struct{}\nfunc (t T) M() {}\nfunc F() {}\n"),
    ("typescript", "m.ts", "export const h = (a: number) => { return a; };\n"
                           "const k = 1;\nlet u = function () { return 2; };\n"
                           "interface I { a: number }\nclass C { m() { return 1; } }\n"),
    ("javascript", "m.js", "const h = () => { return 1; };\nvar v = 2;\n"
                           "module.exports.x = function () {};\nfunction f() {}\n"),
    ("c", "m.c", "int counter = 0;\nint add(int a, int b);\n"
                 "struct P { int x; };\nint add(int a, int b) { return a + b; }\n"),
])
def test_per_node_matching_finds_what_one_whole_file_query_finds(language, path, text):
    spec = language_for(language, path)
    tree = spec.parser().parse(text.encode())
    query = compiled(spec, "definitions")
    cursor = QueryCursor(query)
    cursor.set_max_start_depth(DEFINITION_START_DEPTH)
    names = {caps["name"][0].start_byte: caps["name"][0].text.decode()
             for _, caps in cursor.matches(tree.root_node) if "name" in caps}
    found = extract(spec, tree, text.encode(), text)
    assert len(names) >= 3  # the query has something to find here
    assert sorted(d.name for d in found.definitions) == sorted(names.values())


def test_the_benchmark_report_names_files_and_unmeasured_ones():
    results = {"model_latency_ms": 200.0, "bare_http_ms": {"p50": 210.0, "p99": 215.0},
               "files": {"lib.dom.d.ts": {
                   "lines": 39430, "origin": "typescript@5.9.3 (npm)",
                   "cold_first_completion_ms": 400.0, "cold_had_suggestion": True,
                   "cheap_request_30ms_after_ms": 12.0, "probe_max_ms": 30.0,
                   "warm_typing_server_added_ms": {"p50": 3.0, "p99": 9.0},
                   "warm_enter_server_added_ms": {"p50": 4.0, "p99": 11.0},
                   "rss_mb": 180.0},
                   "ztypes_linux.go": {"error": "apt-get download failed"}}}
    rows = report_rows(results)
    assert any("lib.dom.d.ts (typescript@5.9.3 (npm)) | 39430 | 400.0 | 12.0 | 30.0 | "
               "3.0 / 9.0 | 4.0 / 11.0 |" in row and "| 180.0 (? before) |" in row
               for row in rows)
    assert any("ztypes_linux.go | not measured: apt-get download failed" in r for r in rows)


# -- through LSP: the server answers while it prepares a big file ------------------
KEY = "sk-bigfiles-key-0123456789"


async def test_shutdown_and_cancel_are_answered_while_a_big_file_is_prepared(tmp_path):
    fake = FakeDeepSeek(lambda req: Reply(text="value = 1"), latency_s=0.05).start()
    client = RawLsp({"baseUrl": fake.url, "apiKey": KEY,
                     "completion": {"debounceMs": 0, "timeoutMs": 30000}})
    try:
        await client.start()
        await client.initialize(tmp_path)
        text = synthetic_python(12_000)  # 1.5 MB: seconds of background work
        path = tmp_path / "big.py"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        client.open(uri, text)
        request = client.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": 7000, "character": 4},
            "context": {"triggerKind": 1}}, msg_id=4242)
        client.notify("$/cancelRequest", {"id": 4242})
        answer = await asyncio.wait_for(request, 60)
        assert "result" in answer or answer["error"]["code"] == -32800, answer
        stats = (await client.command("flashls.debugStats"))["result"]
        assert stats["preparing"] == 1  # answered while the preparation still runs
        served = await asyncio.wait_for(client.inline(uri, 7000, 4, invoked=True), 60)
        assert served["result"]["items"]  # the window was enough for a suggestion
        assert await client.shutdown(timeout_s=60) == 0
    finally:
        fake.stop()
