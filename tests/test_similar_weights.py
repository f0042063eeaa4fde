"""`evidence_similar._Functions` patches the last version's identifier counts by the
functions an edit changed: its weights must equal counting every function again."""

from __future__ import annotations

import math
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from flashls.context import evidence_similar
from flashls.context.evidence_similar import _Functions

WORDS = ["a", "b", "client", "send", "self", "x", "y", "reason", "phrase", ""]


def analysis(bodies: list[list[str]]):
    lines: list[str] = []
    items = []
    for body in bodies:
        start = len(lines)
        lines.append(f"def f{start}():")
        lines.extend("    " + x for x in body)
        items.append(SimpleNamespace(kind="function", start=start, end=len(lines) - 1))
    return SimpleNamespace(lines=lines, items=items, spec=SimpleNamespace(resolver="python"))


def counted(fns: _Functions) -> dict[str, float]:
    df: dict[str, int] = {}
    for s in fns.idents:
        for t in s:
            df[t] = df.get(t, 0) + 1
    return {t: math.log((len(fns.idents) + 1) / c) for t, c in df.items()}


body = st.lists(st.lists(st.sampled_from(WORDS), max_size=3).map(" ".join), min_size=1,
                max_size=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(body, min_size=4, max_size=8), st.lists(st.tuples(st.integers(0, 7), body),
                                                        min_size=1, max_size=5))
def test_patched_weights_equal_a_full_count(bodies, edits):
    evidence_similar._LAST[0] = None
    real = evidence_similar._patched
    patched = []
    evidence_similar._patched = lambda *a: patched.append(1) or real(*a)
    try:
        first = _Functions(analysis(bodies))
        assert first.weight == counted(first)
        for at, new in edits:
            bodies = list(bodies)
            bodies[at % len(bodies)] = new
            fns = _Functions(analysis(bodies))
            assert fns.weight == counted(fns)
            assert set(fns.df) == set(fns.weight)
    finally:
        evidence_similar._patched = real
    # one function changed per version, the others' sets the same: patched, not counted
    assert len(patched) == len(edits)
