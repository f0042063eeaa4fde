"""Items moved lazily (`moved_items.MovedItems`) read exactly as the tuple of moved
items they stand for, after any chain of splices (items kept, replaced, moved by
rows and parent offsets), at every index and slice, in iteration, in their starts;
and the analysis of a document after Enters at random rows, whose items are kept
that way, equals a fresh analysis."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashls.context import analysis, doc_lines, local_parse, moved_items, syntax
from flashls.context.document import Document
from flashls.context.moved_items import MovedItems, MovedUsages, moved, pieces_of, spliced
from flashls.context.outline import Item
from flashls.context.syntax import ParsedDocument


def _group(first: int, size: int, tag: int) -> tuple[Item, ...]:
    """A container at index `first` and its members (whose parent it is), as the
    analysis places a top-level node's items."""
    return tuple(Item(f"n{tag}_{k}", "class" if not k else "method", 1 if not k else 2,
                      tag * 9 + k, tag * 9 + 8, 3, (), -1 if not k else first, 5,
                      f"brief {tag} {k}") for k in range(size))


# (where 0..1, groups replaced, sizes of the groups inserted, rows moved)
splice = st.tuples(st.floats(0, 1), st.integers(0, 2),
                   st.lists(st.integers(1, 3), max_size=2), st.integers(-2, 3))


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(1, 4), max_size=10), splices=st.lists(splice, max_size=14),
       probes=st.lists(st.integers(-35, 35), max_size=6))
def test_moved_items_read_as_the_moved_tuple(sizes, splices, probes):
    """Splices at group boundaries (top-level nodes), as the analysis makes them."""
    groups: list[int] = []  # group sizes, in order
    want: tuple = ()
    for tag, size in enumerate(sizes):
        want += _group(len(want), size, tag)
        groups.append(size)
    got = want
    tag = 100
    for where, replaced, inserted, dr in splices:
        g = int(where * len(groups))
        g_end = min(len(groups), g + replaced)
        lo, hi = sum(groups[:g]), sum(groups[:g_end])
        mid: tuple = ()
        for size in inserted:
            mid += _group(lo + len(mid), size, tag)
            tag += 1
        di = len(mid) - (hi - lo)
        got = spliced(pieces_of(got, 0, lo), mid, pieces_of(got, hi, len(got), dr, di))
        want = want[:lo] + mid + tuple(moved(x, dr, di) for x in want[hi:])
        groups[g:g_end] = inserted
        assert all(x.parent < i for i, x in enumerate(want))  # the test's own premise
        assert len(got) == len(want)
        assert moved_items.item_starts(got) == [x.start for x in want]
        assert [got[i] for i in range(len(want))] == list(want)
        for i in probes:
            if -len(want) <= i < len(want):
                assert got[i] == want[i]
            else:
                with pytest.raises(IndexError):
                    got[i]
            assert tuple(got[i:i + 5]) == want[i:i + 5]
        assert tuple(got) == want and got == want and want == got
        if isinstance(got, MovedItems):
            assert len(got._pieces) <= moved_items.MAX_PIECES


@pytest.fixture(params=["whole tree", "region"])
def path(request, monkeypatch):
    monkeypatch.setattr(doc_lines, "BLOCK", 8)
    if request.param == "region":
        monkeypatch.setattr(syntax, "REGION_MIN_BYTES", 0)
    analysis.clear()
    yield request.param
    analysis.clear()


TEXT = "".join(f"class C{i}:\n    def m{i}(self, v):\n        return v + {i}\n\n"
               f"def f{i}(v):\n    return C{i}().m{i}(v)\n\n" for i in range(25))
# (where 0..1, what): Enter with the line's indent, Backspace joining lines, typing
key = st.tuples(st.floats(0, 1), st.sampled_from(["enter", "enter", "join", "type"]))


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(key, min_size=1, max_size=14))
def test_enter_and_backspace_at_random_rows_equal_a_fresh_analysis(keys, path):
    uri = "file:///w/moved.py"
    pdoc = ParsedDocument.open(Document(uri, TEXT, "python", 1), uri)
    local_parse.current_analysis(pdoc)
    for where, what in keys:
        doc = pdoc.doc
        row = int(where * (doc.line_count - 1))
        line = doc.line_text(row)
        if what == "enter":
            indent = line[:len(line) - len(line.lstrip())]
            pdoc.apply_change((row, len(line)), (row, len(line)), "\n" + indent)
        elif what == "join" and row + 1 < doc.line_count:
            pdoc.apply_change((row, len(line)), (row + 1, 0), "")
        else:
            pdoc.apply_change((row, len(line)), (row, len(line)), "x")
        doc.version += 1
        got = local_parse.current_analysis(pdoc.snapshot())
        fresh_uri = "file:///w/fresh.py"
        fresh = ParsedDocument.open(Document(fresh_uri, doc.text, "python", 1), fresh_uri)
        want = analysis._analyze_tree(fresh.spec, fresh.doc.text, fresh.tree())
        if not local_parse.provisional(pdoc):
            assert got.items == want.items and tuple(got.items) == want.items
            assert moved_items.item_starts(got.items) == [x.start for x in want.items]
            assert (got.imports, got.top_starts, got.usages) == \
                (want.imports, want.top_starts, want.usages)


def test_an_enter_moves_the_following_items_lazily_and_reads_stay_the_same_objects(path):
    uri = "file:///w/moved.py"
    pdoc = ParsedDocument.open(Document(uri, TEXT, "python", 1), uri)
    before = local_parse.current_analysis(pdoc).items
    row = TEXT.split("\n").index("def f3(v):") + 1
    for _ in range(3):
        line = pdoc.doc.line_text(row)
        pdoc.apply_change((row, len(line)), (row, len(line)), "\n    ")
        pdoc.doc.version += 1
        row += 1
    now = local_parse.current_analysis(pdoc.snapshot())
    got = now.items
    assert isinstance(got, MovedItems) and not isinstance(got, tuple)
    assert isinstance(now.usages, MovedUsages) and now.usages._flat is None
    fresh_uri = "file:///w/fresh.py"
    fresh = ParsedDocument.open(Document(fresh_uri, pdoc.doc.text, "python", 1), fresh_uri)
    want = analysis._analyze_tree(fresh.spec, fresh.doc.text, fresh.tree())
    assert now.usages == want.usages and now.usages[-1] == want.usages[-1]
    assert got[-1] is got[-1] and got[-1].start == before[-1].start + 3
    assert got._flat is None  # nothing iterated it


def test_typing_in_a_body_keeps_the_items_object_and_its_tables(path):
    """A keystroke that changes no item (typing inside a body) keeps the last
    version's items as the very same object (every table keyed on it then holds),
    the same top-level starts, levels and total, and leaves the usages unbuilt;
    all equal to a fresh analysis's."""
    from flashls.context import outline
    uri = "file:///w/moved.py"
    pdoc = ParsedDocument.open(Document(uri, TEXT, "python", 1), uri)
    before = local_parse.current_analysis(pdoc)
    row = TEXT.split("\n").index("        return v + 7")
    for _ in range(3):
        line = pdoc.doc.line_text(row)
        pdoc.apply_change((row, len(line)), (row, len(line)), "1")
        pdoc.doc.version += 1
        now = local_parse.current_analysis(pdoc.snapshot())
        assert not local_parse.provisional(pdoc)
        assert now is not before and now.items is before.items
        assert now.top_starts is before.top_starts
        assert isinstance(now.usages, MovedUsages) and now.usages._flat is None
    fresh_uri = "file:///w/fresh.py"
    fresh = ParsedDocument.open(Document(fresh_uri, pdoc.doc.text, "python", 1), fresh_uri)
    want = analysis._analyze_tree(fresh.spec, fresh.doc.text, fresh.tree())
    assert now.items == want.items and now.top_starts == want.top_starts
    assert now.usages == want.usages
    assert dict(now.ident_counts) == analysis._ident_counts(want.usages)
    assert outline._levels(now.items) == outline._levels(tuple(want.items))
    assert outline.outline_demand(now.items, (0, 0)) == \
        outline.outline_demand(tuple(want.items), (0, 0))
    # an edit that does change an item (its signature) builds new items
    row = TEXT.split("\n").index("def f7(v):")
    pdoc.apply_change((row, 6), (row, 6), "w")
    pdoc.doc.version += 1
    changed = local_parse.current_analysis(pdoc.snapshot())
    assert changed.items is not now.items and any(it.name == "f7w" for it in changed.items)
