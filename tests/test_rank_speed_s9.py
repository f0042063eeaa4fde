"""Session 9 speed work: shortcuts that must give what the plain code gave.

`Candidate.rescored` stands for `dataclasses.replace(c, score=s)`; the evidence chunk
memo keeps the chunks a request just used when it fills up (it used to clear them
all, so the next request on an open file re-read every row); Java's private-member
flags and identifier counts are the per-item and per-analysis tables the passes
computed per candidate and twice per request."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from flashls.context import evidence, evidence_java
from flashls.context.analysis import _add_identifiers
from flashls.context.doc_lines import BlockLines
from flashls.context.outline import Item
from flashls.context.ranking import Candidate


def test_rescored_equals_replace_and_stays_frozen():
    c = Candidate(12.5, 3, 7, typed=True)
    r = c.rescored(40.0)
    assert r == dataclasses.replace(c, score=40.0)
    assert hash(r) == hash(Candidate(40.0, 3, 7, True))
    assert (r.score, r.file, r.item, r.typed) == (40.0, 3, 7, True)
    assert c.score == 12.5  # the original is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.score = 1.0  # type: ignore[misc]


def _rows(n: int, tag: str) -> list[str]:
    # blank every 20th row: `chunk_ends` cuts there, so the node has many chunks
    return [f"    {tag}{k}.call(x{k});" if k % 20 else "" for k in range(n)]


def test_chunk_memo_keeps_the_chunks_in_use_when_it_fills(monkeypatch):
    monkeypatch.setattr(evidence, "CHUNK_MEMO_SIZE", 8)
    monkeypatch.setattr(evidence, "_CHUNKS", {})
    reads = []
    real = evidence.collect_attributes

    def counting(*args, **kwargs):
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(evidence, "collect_attributes", counting)
    mine = _rows(80, "a")  # 4 chunks, read on every request
    for other in range(6):  # other files' chunks push the memo past its size
        evidence._collect_chunked(mine, 0, len(mine), False, {}, [])
        theirs = _rows(40, f"f{other}_")
        evidence._collect_chunked(theirs, 0, len(theirs), False, {}, [])
    # 4 reads for the first request on `mine`, 2 for each other file; none after
    assert len(reads) == 4 + 6 * 2
    assert len(evidence._CHUNKS) <= 8


def test_chunked_tables_after_eviction_equal_a_whole_reading(monkeypatch):
    monkeypatch.setattr(evidence, "CHUNK_MEMO_SIZE", 3)
    monkeypatch.setattr(evidence, "_CHUNKS", {})
    lines = _rows(200, "b")
    for _ in range(2):
        names, typed = {}, []
        evidence._collect_chunked(lines, 0, len(lines), False, names, typed)
        whole_names, whole_typed = {}, []
        evidence.collect_attributes(lines, 0, 0, len(lines), False, whole_names, whole_typed)
        assert names == whole_names and typed == whole_typed


@pytest.mark.parametrize("blocks", [False, True])
def test_identifier_rows_are_relative_to_the_node_and_in_first_use_order(blocks):
    lines = ["a = b", "", "c = a + a", "b(c)", "d"]
    source = BlockLines.of(lines) if blocks else lines
    idents: dict = {}
    _add_identifiers(source, 1, 1, 4, idents)
    # rows 1..3 of the file, numbered from row 1; `d` (row 4) is outside
    assert idents == {"a": [1], "c": [1, 2], "b": [2]}
    # the order of first use: row 2's names (a set, in any order) before row 3's `b`
    assert list(idents)[-1] == "b"


def _item(name: str, parent: int, first_line: str) -> Item:
    return Item(name=name, kind="method" if parent != -1 else "class",
                level=2 if parent != -1 else 1, start=0, end=0, lines=(first_line,),
                tail=(), parent=parent, tokens=3, brief=((first_line,), (), 3))


def test_private_members_are_the_members_declared_private():
    items = (_item("Box", -1, "private class Box {"),
             _item("open", 0, "    public void open() {"),
             _item("seal", 0, "    @Override private void seal() {"),
             _item("size", 0, "    static private int size() {"))
    assert evidence_java.private_members(items) == frozenset({2, 3})
    assert evidence_java.private_members(items) is evidence_java.private_members(items)


def test_used_type_counts_follow_the_analysis():
    first = SimpleNamespace(usages=((0, 3, frozenset({"A", "B"}), {"A": (0, 2), "B": (1,)}),))
    second = SimpleNamespace(usages=((0, 1, frozenset({"A"}), {"A": (0,)}),))
    assert evidence_java.used_type_counts(first) == {"A": 2, "B": 1}
    assert evidence_java.used_type_counts(second) == {"A": 1}
    assert evidence_java.used_type_counts(first) == {"A": 2, "B": 1}
