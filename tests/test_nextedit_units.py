"""Next edit pipeline pieces: edit history, region, answer parsing and minimal edits."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from flashls.context.document import Document
from flashls.nextedit.answer import judge, minimal_edits, single_block
from flashls.nextedit.history import (Change, EditHistory, bounded, changed_span,
                                      unified_diff)
from flashls.nextedit.region import CURSOR, editable_region


def apply(text: str, edits) -> str:
    for e in sorted(edits, key=lambda e: -e.start):
        text = text[:e.start] + e.text + text[e.end:]
    return text


# -- history ---------------------------------------------------------------------------
def type_into(history: EditHistory, uri: str, text: str, line: int, col: int, typed: str
              ) -> str:
    """Type `typed` one character at a time at line:col, recording each change."""
    lines = text.split("\n")
    for i, ch in enumerate(typed):
        before = text
        row = lines[line]
        lines[line] = row[:col + i] + ch + row[col + i:]
        text = "\n".join(lines)
        history.record(uri, "m.py", before, text, Change(line, line, 0))
    return text


def all_hunks(history: EditHistory, texts: dict) -> list:
    return history.recent(texts.get, lambda uri: True)


def test_a_burst_of_typing_on_one_line_is_one_hunk():
    history = EditHistory()
    text = "def f(a):\n    return a\n"
    text = type_into(history, "u", text, 0, 7, "bc")
    (hunk,) = all_hunks(history, {"u": text})
    assert "-def f(a):\n+def f(abc):\n" in hunk.diff


def test_an_edit_elsewhere_closes_the_burst_and_starts_another():
    history = EditHistory()
    text = "".join(f"line{i}\n" for i in range(40))
    text = type_into(history, "u", text, 2, 5, "x")
    text = type_into(history, "u", text, 30, 6, "y")
    hunks = all_hunks(history, {"u": text})
    assert len(hunks) == 2
    assert "+line2x" in hunks[0].diff and "+line30y" in hunks[1].diff
    assert "@@ -1,5 +1,5 @@" in hunks[0].diff  # numbered like the whole file
    assert "@@ -29,5 +29,5 @@" in hunks[1].diff


def test_typing_then_undoing_leaves_no_hunk_but_undo_of_an_older_edit_is_one():
    history = EditHistory()
    original = "".join(f"line{i}\n" for i in range(40))
    text = type_into(history, "u", original, 2, 5, "x")
    text = type_into(history, "u", text, 30, 6, "y")
    undone = text.replace("line30y", "line30")  # undo of the burst in progress
    history.record("u", "m.py", text, undone, Change(30, 30, 0))
    assert [h.diff for h in all_hunks(history, {"u": undone})] == \
        [all_hunks(history, {"u": text})[0].diff]
    back = undone.replace("line2x", "line2")  # undo of the finished edit: a new hunk
    history.record("u", "m.py", undone, back, Change(2, 2, 0))
    diffs = [h.diff for h in all_hunks(history, {"u": back})]
    assert len(diffs) == 2 and "-line2x\n+line2\n" in diffs[-1]


def test_history_is_bounded_in_count_and_size_and_spans_documents():
    history = EditHistory(max_hunks=3, max_hunk_chars=200)
    texts = {}
    for n in range(6):
        uri = f"u{n % 2}"
        text = texts.get(uri, "".join(f"line{i}\n" for i in range(200)))
        texts[uri] = type_into(history, uri, text, 30 * n, 0, "z")
    hunks = all_hunks(history, texts)
    assert len(hunks) <= 3 + 2  # finished ones plus one burst per document
    assert {h.uri for h in hunks} == {"u0", "u1"}
    big = "x" * 5000
    history.record("u0", "m.py", texts["u0"], texts["u0"] + big, None)
    history.record("u0", "m.py", texts["u0"] + big, "changed\n" + texts["u0"] + big, None)
    assert all(len(h.diff) <= 200 + 30 for h in history.hunks)
    kept = bounded(all_hunks(history, texts), 150)
    assert sum(len(h.diff) for h in kept) <= 150


def test_forgotten_and_disallowed_documents_leave_the_history():
    history = EditHistory()
    a = type_into(history, "a", "one\ntwo\n", 0, 3, "!")
    b = type_into(history, "b", "three\n", 0, 5, "?")
    texts = {"a": a, "b": b}
    assert {h.uri for h in history.recent(texts.get, lambda u: u != "b")} == {"a"}
    history.forget("a")
    assert {h.uri for h in all_hunks(history, texts)} == {"b"}


@given(st.text(alphabet="ab\n", max_size=30), st.text(alphabet="ab\n", max_size=30))
@settings(max_examples=300, deadline=None)
def test_changed_span_is_exact(before, after):
    start, b_end, a_end = changed_span(before, after)
    assert before[:start] + after[start:a_end] + before[b_end:] == after
    assert before[:start] == after[:start]


def test_unified_diff_on_a_large_file_only_covers_the_change():
    text = "".join(f"line {i}\n" for i in range(5000))
    diff = unified_diff("big.py", text, text.replace("line 4000\n", "line 4000 !\n"))
    assert diff.count("\n") == 2 + 1 + 5 + 1  # headers, @@, context+change lines
    assert "@@ -3999,5 +3999,5 @@" in diff


# -- region -----------------------------------------------------------------------------
def test_region_is_whole_lines_mostly_below_the_cursor_and_shifts_at_the_edges():
    text = "".join(f"l{i}\n" for i in range(100))
    doc = Document("file:///m.py", text)
    region = editable_region(doc, doc.offset_at(50, 1), 12)
    assert (region.first, region.last) == (47, 58)
    assert region.marked().split("\n")[3] == "l" + CURSOR + "50"
    top = editable_region(doc, doc.offset_at(1, 0), 12)
    assert (top.first, top.last) == (0, 11)
    bottom = editable_region(doc, doc.offset_at(99, 0), 12)
    assert bottom.last == 100 and bottom.last - bottom.first == 11


# -- answers ---------------------------------------------------------------------------
@given(st.lists(st.sampled_from(["a", "b", "", "f(x)", "  y = 1", "a b"]), max_size=6),
       st.lists(st.sampled_from(["a", "b", "", "f(x)", "  y = 1", "a c"]), max_size=6))
@settings(max_examples=500, deadline=None)
def test_minimal_edits_rebuild_the_answer_and_never_overlap(old_lines, new_lines):
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    edits = minimal_edits(old, new)
    assert apply(old, edits) == new
    assert all(0 <= e.start <= e.end <= len(old) for e in edits)
    assert all(x.end < y.start for x, y in zip(edits, edits[1:]))


def test_minimal_edits_touch_only_what_changes():
    old = "def f(a):\n    x = a + 1\n    return a\n"
    new = "def f(a):\n    x = b + 1\n    return b\n"
    assert [(old[e.start:e.end], e.text) for e in minimal_edits(old, new)] == \
        [("a", "b"), ("a", "b")]


def test_single_block_contract():
    assert single_block("```py\nx = 1\n```") == "x = 1"
    assert single_block("Sure:\n\n```\nx\n```\nDone.") == "x"
    assert single_block("x = 1") is None  # unfenced
    assert single_block("```\nx = 1\n") is None  # cut off
    assert single_block("```\na\n```\n```\nb\n```") is None  # two blocks


def _region(text: str, line: int = 0, col: int = 0, lines: int = 10):
    doc = Document("file:///m.py", text)
    return editable_region(doc, doc.offset_at(line, col), lines)


def test_judge_refuses_unchanged_too_long_and_cut_off_answers():
    region = _region("a = 1\nb = 2\n")
    assert judge("```\na = 1\nb = 2\n\n```", region, cut_off=False, max_lines=20).reason \
        == "unchanged"
    long = "```\n" + "x\n" * 50 + "```"
    assert judge(long, region, cut_off=False, max_lines=20).reason.startswith("longer")
    assert judge("```\na = 2\nb = 2\n```", region, cut_off=True, max_lines=20).edits == ()
    ok = judge("```\na = 2\nb = 2\n```", region, cut_off=False, max_lines=20)
    assert [(e.start, e.end, e.text) for e in ok.edits] == [(4, 5, "2")]


def test_judge_keeps_crlf_and_strips_the_cursor_marker():
    region = _region("a = 1\r\nb = 2\r\nc = 3\r\n", 1, 2)
    verdict = judge(f"```\na = 1\nb ={CURSOR} 2\nc = 4\n```", region, cut_off=False,
                    max_lines=20)
    assert apply(region.text, verdict.edits) == "a = 1\r\nb = 2\r\nc = 4\r\n"


def test_judge_refuses_rewriting_the_text_being_typed():
    region = _region("def f(size):\n    return width\n", 0, 10)
    answer = "```\ndef f(width):\n    return width\n```"
    assert judge(answer, region, cut_off=False, max_lines=20, typing=(6, 10)).reason == \
        "rewrites the text being typed"
    fine = "```\ndef f(size):\n    return size\n```"
    assert judge(fine, region, cut_off=False, max_lines=20, typing=(6, 10)).edits


def test_a_closed_documents_burst_is_dropped_with_its_snapshot():
    history = EditHistory()
    text = type_into(history, "gone", "one\ntwo\n", 0, 3, "!")
    assert history.recent({"gone": text}.get, lambda u: True)
    assert history.recent({}.get, lambda u: True) == []
    assert history.pending("gone", text) is None  # nothing kept for it
