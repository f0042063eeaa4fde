"""The analysis's lines patched block by block (`doc_lines.BlockLines`) read exactly as
the list they stand for, after any sequence of patches (typing, Enter, joins, pastes
bigger than a block), at any index, slice and in iteration."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashls.context import doc_lines
from flashls.context.doc_lines import BlockLines

# (where 0..1, how many lines replaced - 1, lines inserted)
patch = st.tuples(st.floats(0, 1), st.integers(0, 5),
                  st.lists(st.sampled_from(["", "x", "    y", "z z"]), min_size=1, max_size=9))


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(doc_lines, "BLOCK", 3)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 20), patches=st.lists(patch, max_size=12),
       probes=st.lists(st.integers(-25, 25), max_size=8))
def test_patched_lines_read_as_the_patched_list(n, patches, probes):
    want = [f"line {i}" for i in range(n)]
    got = BlockLines.of(want)
    versions = [(got, list(want))]
    for where, extra, middle in patches:
        first = int(where * (len(want) - 1))
        last = min(len(want) - 1, first + extra)
        got = got.patched(first, last, list(middle))
        want = want[:first] + list(middle) + want[last + 1:]
        versions.append((got, list(want)))
    for lines, expect in versions:  # every version stays as it was
        assert len(lines) == len(expect) and list(lines) == expect and lines == expect
        assert [lines[i] for i in range(len(expect))] == expect
        for i in probes:
            if -len(expect) <= i < len(expect):
                assert lines[i] == expect[i]
            else:
                with pytest.raises(IndexError):
                    lines[i]
            assert lines[i:i + 7] == expect[i:i + 7] and lines[i:] == expect[i:]
        assert all(len(b) <= 2 * doc_lines.BLOCK + 9 for b in lines._blocks)
