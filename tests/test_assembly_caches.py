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

