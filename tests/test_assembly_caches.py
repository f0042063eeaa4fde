"""The caches that make a fresh document's assembly cheaper give what a fresh
computation gives (session 7, keystroke)."""

from __future__ import annotations

import os

import pytest

from flashls.context.timed_cache import TimedCache
from flashls.context.workspace import Workspace


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_timed_cache_reuses_an_entry_for_its_ttl_only():
    clock = Clock()
    cache = TimedCache(maxsize=8, ttl=2.0, timer=clock)
    cache["a"] = 1
    assert cache.get("a") == 1 and cache["a"] == 1 and "a" in cache
    clock.now += 1.99
    assert cache.get("a") == 1
    clock.now += 0.01  # ttl seconds after it was stored
    assert cache.get("a") is None and cache.get("a", "x") == "x" and "a" not in cache
    with pytest.raises(KeyError):
        cache["a"]
    cache["a"] = 2  # stored again: a new lifetime
    clock.now += 1.0
    assert cache["a"] == 2


def test_timed_cache_keeps_a_falsy_value_apart_from_a_miss():
    cache = TimedCache(maxsize=8, ttl=2.0, timer=Clock())
    cache["v"] = None  # a verdict "allowed" is None
    assert "v" in cache and cache.get("v", "") is None and cache.get("w", "") == ""


def test_timed_cache_stays_within_maxsize_dropping_expired_then_oldest():
    clock = Clock()
    cache = TimedCache(maxsize=8, ttl=2.0, timer=clock)
    for k in range(4):
        cache[k] = k
    clock.now += 3.0  # 0..3 expired
    for k in range(4, 12):
        cache[k] = k
    assert len(cache) <= 8
    assert all(cache.get(k) is None for k in range(4))
    assert cache.get(11) == 11  # the newest stays
    for k in range(12, 40):
        cache[k] = k
        assert len(cache) <= 8
    assert cache.get(39) == 39 and cache.get(12) is None  # the oldest went first


def test_read_stamped_equals_read_and_stamp(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "bin.py").write_bytes(b"\0\1\2")
    (tmp_path / "big.py").write_text("y = 2\n" * 100)
    (tmp_path / "d").mkdir()
    (tmp_path / ".env").write_text("SECRET=1\n")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    ws = Workspace([str(tmp_path)], [".env"], max_bytes=300)
    for name in ("a.py", "bin.py", "big.py", "d", ".env", "b.py", "missing.py"):
        path = os.path.join(str(tmp_path), name)
        fresh = Workspace([str(tmp_path)], [".env"], max_bytes=300)
        text, stamp = ws.read_stamped(path)
        assert text == fresh.read(path), name
        if text is not None:
            assert stamp == fresh.stamp(path), name
    outside = tmp_path.parent / "outside.py"
    assert ws.read_stamped(str(outside)) == (None, None)


# -- a long node's attributes, read in chunks remembered by their text ------------------

from pathlib import Path  # noqa: E402
import random  # noqa: E402

from flashls.context import evidence  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"


def _whole(lines, go):
    """A node's tables read row by row (what `_node_attributes` computed before)."""
    names: dict = {}
    typed: list = []
    evidence.collect_attributes(lines, 0, 0, len(lines), go, names, typed)
    return evidence.attributes_result(names, typed)


def _long_node(rng: random.Random) -> list[str]:
    """Lines of a long class body made of the fixtures' own lines (varied syntax:
    `q.name`, `x: T`, `x := &T{`, blank lines), shuffled."""
    pool = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix in (".py", ".go", ".java", ".ts", ".rs", ".cpp", ".c", ".h"):
            pool += path.read_text().splitlines()
    return [rng.choice(pool) for _ in range(rng.randint(140, 600))]


@pytest.mark.parametrize("go", [False, True, "java"])
def test_chunked_node_attributes_equal_a_whole_reading_after_edits(go):
    rng = random.Random(7 if go else 3)
    lines = _long_node(rng)
    evidence._CHUNKS.clear()
    for step in range(40):
        # each version is a new node (the identifier table an analysis would build)
        got = evidence._node_attributes(lines, 0, len(lines) - 1, object(), go, {})
        assert got == _whole(lines, go), step
        assert list(got[0]) == list(_whole(lines, go)[0])  # the same name order too
        edit = rng.random()
        at = rng.randrange(len(lines))
        if edit < 0.4:
            lines.insert(at, rng.choice(lines))  # Enter / paste: later rows shift
        elif edit < 0.6 and len(lines) > 140:
            del lines[at]
        elif edit < 0.8:
            lines[at] = lines[at] + " x.y = T(z)"
        else:
            lines.insert(at, "")  # a blank line: a new chunk end
    assert evidence._CHUNKS, "long nodes go through the chunk memo"


def test_a_node_in_the_middle_of_a_file_is_chunked_from_its_first_row():
    rng = random.Random(11)
    body = _long_node(rng)
    lines = ["import x"] * 5 + body + ["tail"] * 3
    got = evidence._node_attributes(lines, 5, 5 + len(body) - 1, object(), True, {})
    assert got == _whole(body, True)  # rows relative to the node's first row


def test_chunk_ends_cut_at_blank_lines_within_bounds():
    rows = (["a"] * 20 + [""]) * 3 + ["b"] * 200
    ends = evidence.chunk_ends(rows)
    assert ends[:3] == [21, 42, 63]  # after a blank line, once a chunk has 16 rows
    assert ends[-1] == len(rows)
    sizes = [b - a for a, b in zip([0] + ends, ends)]
    assert max(sizes) <= evidence.CHUNK_MAX_ROWS
    shifted = evidence.chunk_ends(["new"] + rows)
    assert shifted[1:3] == [e + 1 for e in ends[1:3]]  # ends resync after a blank line

