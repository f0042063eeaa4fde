"""The warm path's incremental tables equal a fresh computation after any edit
sequence (typing, Enter, Backspace joining lines, a paste of many lines, undo):
the identifier counts kept as a difference (`ident_counts`), the items a splice
reports as kept (`bigfile_fastpath.note_splice`) and the ranking's demand summed
from them; and typing at the end of an anchor's first line is not ranked again."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from benchmarks.bigfiles import synthetic_python
from collections import Counter

from flashls.context import analysis, bigfile_fastpath, ident_counts, item_keys, local_parse, \
    rank_memo, ranking, syntax, window
from flashls.context.assemble import assemble_context, prepare_document
from flashls.context.document import Document
from flashls.context.neighbors import entry_cost
from flashls.context.syntax import ParsedDocument

TEXT = synthetic_python(80) + "class Tail:\n    x = 1\n\n    def m(self):\n        return 2\n"
PASTE = "".join(f"def pasted_{i}(a):\n    return helper_{i}(a)\n\n" for i in range(12))

# (kind, where in the text 0..1, a number for the kind)
edit = st.tuples(st.sampled_from(["type", "enter", "join", "paste", "delete", "undo", "pause"]),
                 st.floats(0, 1), st.integers(1, 300))


def _open() -> ParsedDocument:
    uri = "file:///work/fast.py"
    pdoc = ParsedDocument.open(Document(uri, TEXT, "python", 1), uri)
    pdoc.background = True
    return pdoc


def _apply(pdoc: ParsedDocument, start: int, end: int, text: str) -> tuple[int, int, str]:
    """Replace text[start:end]; returns the edit that undoes it."""
    doc = pdoc.doc
    removed = doc.text[start:end]
    pdoc.apply_change(doc.position_at(start), doc.position_at(end), text)
    doc.version += 1
    return start, start + len(text), removed


def _edit(pdoc: ParsedDocument, kind: str, where: float, n: int, undo: list) -> None:
    text = pdoc.doc.text
    at = int(where * len(text))
    if kind == "undo":
        if undo:
            _apply(pdoc, *undo.pop())
        return
    if kind == "type":
        change = (at, at, "xy_"[n % 3])
    elif kind == "enter":
        line_start = text.rfind("\n", 0, at) + 1
        indent = text[line_start:len(text[line_start:]) - len(text[line_start:].lstrip(" "))
                      + line_start]
        change = (at, at, "\n" + indent)
    elif kind == "join":  # Backspace at a line start: the line joins the one above
        newline = text.find("\n", at)
        if newline == -1:
            return
        change = (newline, newline + 1, "")
    elif kind == "paste":
        line_start = text.rfind("\n", 0, at) + 1
        change = (line_start, line_start, PASTE)
    else:
        change = (at, min(len(text), at + n), "")
    undo.append(_apply(pdoc, *change))


def _counts_from_nodes(a: analysis.Analysis) -> dict[str, int]:
    return analysis._ident_counts(a.usages)


@pytest.fixture(autouse=True)
def _small_documents_take_the_region_path(monkeypatch):
    monkeypatch.setattr(syntax, "REGION_MIN_BYTES", 0)
    analysis.clear()
    bigfile_fastpath.forget()
    item_keys.forget()
    yield
    analysis.clear()


@settings(max_examples=int(os.environ.get("FLASHLS_INC_EXAMPLES", "40")), deadline=None,
          derandomize=not os.environ.get("FLASHLS_INC_EXAMPLES"),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edits=st.lists(edit, min_size=1, max_size=14), flat_min=st.sampled_from([2, 512]))
def test_incremental_counts_splices_and_demand_equal_a_fresh_computation(
        edits, flat_min, monkeypatch):
    monkeypatch.setattr(ident_counts, "FLAT_MIN", flat_min)  # 2: a flat table most times
    pdoc = _open()
    last = local_parse.current_analysis(pdoc)
    doc_memo = rank_memo._Doc(anchors=None)  # type: ignore[arg-type]
    rank_memo._prime_demand(doc_memo, last.items)
    item_keys.key_counts(last.items)
    undo: list = []
    for kind, where, n in edits:
        if kind == "pause":
            prepare_document(pdoc)  # the idle reparse: the whole tree's path
        else:
            _edit(pdoc, kind, where, n, undo)
        got = local_parse.current_analysis(pdoc.snapshot())
        fresh_uri = "file:///work/fresh.py"
        fresh = ParsedDocument.open(Document(fresh_uri, pdoc.doc.text, "python", 1), fresh_uri)
        want = analysis._analyze_tree(fresh.spec, fresh.doc.text, fresh.tree())
        # the counts of the nodes the analysis holds, and of a fresh one when exact
        counts = _counts_from_nodes(got)
        assert dict(got.ident_counts) == counts and got.ident_counts == counts
        assert len(got.ident_counts) == len(counts)
        assert all(got.ident_counts.get(k) == v and k in got.ident_counts
                   for k, v in counts.items())
        assert got.ident_counts.get("no_such_name") is None
        assert list(got.top_starts) == sorted(got.top_starts)  # `window.anchors` bisects
        assert list(local_parse.document_lines(pdoc)) == pdoc.doc.text.split("\n")
        if not local_parse.provisional(pdoc):
            assert counts == _counts_from_nodes(want)
        # what the splice says it kept is kept (the tail moved by whole lines only)
        ends = bigfile_fastpath.splice_ends(last.items, got.items)
        if ends is not None:
            p, q = ends
            old, new = last.items, got.items
            assert p + q <= min(len(old), len(new))
            assert new[:p] == old[:p]
            assert [(x.name, x.kind, x.lines, x.tail, x.brief) for x in new[len(new) - q:]] \
                == [(x.name, x.kind, x.lines, x.tail, x.brief) for x in old[len(old) - q:]]
        # the ranking's demand summed from the last version's equals summing them all
        ranking._COSTS.clear()
        rank_memo._prime_demand(doc_memo, got.items)
        assert doc_memo.demand[1] == sum(entry_cost(it) for it in got.items)
        # the outline keys carried from the last version's are the items' own
        assert item_keys.key_counts(got.items) == \
            Counter(rank_memo._key("", it) for it in got.items)
        last = got


def test_an_enter_reports_every_following_item_as_kept():
    """The splice after an Enter keeps all items but the edited node's: the demand
    then sums those, not the thousands the Enter moved."""
    pdoc = _open()
    before = local_parse.current_analysis(pdoc).items
    line = pdoc.doc.text.split("\n").index("def handler_40(value, scale=5):")
    pdoc.apply_change((line + 3, 0), (line + 3, 0), "\n")
    pdoc.doc.version += 1
    after = local_parse.current_analysis(pdoc.snapshot()).items
    p, q = bigfile_fastpath.splice_ends(before, after)
    assert len(after) - p - q <= 6 and q > 30  # the edited region: a few functions
    assert after[-1].start == before[-1].start + 1  # moved, yet counted as kept


def test_an_enter_carries_the_outline_keys_over_reading_only_the_edited_items(monkeypatch):
    """The stable tier asks per keystroke whether its remembered outline keys still
    exist: after an Enter the answer comes from the last version's keys and the few
    items the edit replaced, not from reading (and building) every moved item."""
    pdoc = _open()
    before = local_parse.current_analysis(pdoc).items
    item_keys.key_counts(before)
    line = pdoc.doc.text.split("\n").index("def handler_40(value, scale=5):")
    pdoc.apply_change((line + 3, 0), (line + 3, 0), "\n")
    pdoc.doc.version += 1
    after = local_parse.current_analysis(pdoc.snapshot()).items
    read = []
    real_key = item_keys.outline_key
    monkeypatch.setattr(item_keys, "outline_key", lambda it: read.append(it) or real_key(it))
    counts = item_keys.key_counts(after)
    assert 0 < len(read) <= 12 < len(after)
    assert counts == Counter(rank_memo._key("", it) for it in after)


def _all_anchors(cursor_line: int, starts) -> list[int]:
    """`window.anchors` as it was: every cell of the file from the first line."""
    firsts: dict[int, int] = {}
    for start in starts:
        if 0 <= start <= cursor_line:
            cell = start // window.GRID
            if cell not in firsts or start < firsts[cell]:
                firsts[cell] = start
    out = sorted({c * window.GRID for c in range(cursor_line // window.GRID + 1)}
                 | set(firsts.values()))
    return [a for a in out if a <= cursor_line] + ([cursor_line] if cursor_line not in out
                                                   else [])


@given(st.lists(st.integers(0, 400), max_size=60), st.integers(0, 420), st.integers(0, 420))
@example([33, 40], 60, 35)  # a cell's first definition lies above the earliest line
def test_window_anchors_from_the_earliest_line_are_those_of_the_whole_file(starts, cursor,
                                                                             earliest):
    starts = sorted(starts)
    earliest = min(earliest, cursor)
    want = [a for a in _all_anchors(cursor, starts) if a >= earliest]
    assert window.anchors(cursor, starts, earliest) == want
    assert window.anchors(cursor, tuple(starts)) == _all_anchors(cursor, starts)


def test_counts_never_change_the_version_they_came_from():
    base = {"a": 1, "b": 2}
    one = ident_counts.updated(base, [{"a", "b"}], [{"b", "c"}])
    two = ident_counts.updated(one, [{"c"}], [{"a"}])
    assert base == {"a": 1, "b": 2}
    assert dict(one) == {"b": 2, "c": 1} and len(one) == 2 and "a" not in one
    assert dict(two) == {"a": 1, "b": 2} and len(two) == 2 and "c" not in two


def test_typing_at_the_end_of_a_signature_is_not_ranked_again(monkeypatch):
    """The anchor's key holds its first line: typing at its end made every keystroke a
    new anchor, ranked again. The selection stays what it was, without ranking."""
    ranked = []
    real_rank = ranking.rank
    monkeypatch.setattr(ranking, "rank", lambda *a, **k: ranked.append(1) or real_rank(*a, **k))
    ranking.forget()
    pdoc = _open()
    line = pdoc.doc.text.split("\n").index("def handler_40(value, scale=5):")
    first = None
    for step in range(6):
        col = len(pdoc.doc.line_text(line))
        if step:
            pdoc.apply_change((line, col), (line, col), "x")
            pdoc.doc.version += 1
            col += 1
        snap = pdoc.snapshot()
        ctx = assemble_context(snap, snap.doc.offset_at(line, col), budget_tokens=3000)
        outline = [p.text for p in ctx.parts if p.tier == "outline"]
        assert outline, step
        first = first or outline
        assert outline == first, step
    assert len(ranked) == 1  # the first request only
