"""Every module-level memo of flashls, found by looking, with the bound it must keep.

A long session must level off: each memo keeps at most a fixed number of entries,
whatever the session does. Memos with a `maxsize` (`functools.lru_cache`,
cachetools caches, `memo.PerAnalysis`) state their bound themselves; a plain dict or
list used as a memo (cleared or trimmed when it grows past a limit, cheaper than an
LRU's bookkeeping) declares it in `PLAIN_BOUNDS`. A `memo.IdentityMemo` (per version
of a file's items) is bounded by its entries' weight too. `census()` walks the modules'
globals instead of trusting a list, so a memo added later is seen too:
`tests/test_memo_bounds.py` fails on one that grows and declares no bound, and
`flashls.debugStats` reports every memo's size.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any

from cachetools import Cache

from .memo import IdentityMemo

# "module.attribute" -> the most entries it may hold (its clear/trim limit, plus one
# for the entry added before the check where the check comes first)
PLAIN_BOUNDS: dict[str, int] = {
    "flashls.context.analysis._CHUNKS": 50_000,
    "flashls.context.analysis._PLACED": 50_000,
    "flashls.context.analysis._PARSERS": 64,  # one per grammar
    "flashls.context.bigfile_fastpath._SPLICES": 8,
    "flashls.context.evidence._CHUNKS": 1024,
    "flashls.context.evidence._NODE_ATTRS": 65_536,  # one file's top-level nodes
    "flashls.context.evidence_c._ANCHOR_ITEMS": 65,
    "flashls.context.evidence_c._LAST_LINE": 64,
    "flashls.context.evidence_lang._NAMES": 512,
    "flashls.context.evidence_lang._NODE_QUALS": 16_384,
    "flashls.context.neighbors._DEMANDS": 256,
    "flashls.context.neighbors._ORDERS": 64,
    "flashls.context.neighbors._PLANS": 64,
    "flashls.context.outline._LEVELS": 33,
    "flashls.context.outline._TOTALS": 33,
    "flashls.context.symbols._BODY_QUERIES": 64,  # per (grammar, query file)
    "flashls.context.symbols._QUERIES": 64,
    "flashls.context.symbols._SPLIT": 64,
    "flashls.context.tree_seed._TREES": 8,
}


@dataclass(frozen=True)
class Memo:
    name: str  # "module.attribute"
    entries: int
    bound: int | None  # None: a plain container with no declared bound


def _size_and_bound(name: str, obj: Any) -> tuple[int, int | None] | None:
    info = getattr(obj, "cache_info", None)
    if callable(info):  # functools.lru_cache
        got = info()
        return got.currsize, got.maxsize
    if isinstance(obj, IdentityMemo):
        return len(obj), obj.max_entries
    if isinstance(obj, Cache):
        return len(obj), int(obj.maxsize)
    inner = getattr(obj, "cache", None)
    if isinstance(inner, Cache):  # memo.PerAnalysis
        return len(inner), int(inner.maxsize)
    if isinstance(obj, (dict, OrderedDict, list, set, deque)):
        return len(obj), PLAIN_BOUNDS.get(name)
    return None


def _modules() -> list[Any]:
    import flashls
    names = [info.name for info in pkgutil.walk_packages(flashls.__path__, "flashls.")
             if not info.name.endswith("__main__")]  # importing it runs the server
    out = []
    for name in names:
        module = sys.modules.get(name)
        if module is None:
            try:
                module = importlib.import_module(name)
            except Exception:  # an optional dependency missing: nothing of it runs
                continue
        out.append(module)
    return out


def census() -> list[Memo]:
    """Every module-level container and memo of every flashls module, with its size
    and declared bound. Constants (lookup tables) are listed too: they never grow."""
    out = []
    seen: set[int] = set()  # a memo imported by other modules is listed once
    for module in _modules():
        for attr, obj in vars(module).items():
            if attr.startswith("__") or isinstance(obj, type) or id(obj) in seen:
                continue
            if callable(obj) and getattr(obj, "__module__", None) != module.__name__:
                continue  # a function imported here: listed where it is defined
            name = f"{module.__name__}.{attr}"
            got = _size_and_bound(name, obj)
            if got is not None:
                seen.add(id(obj))
                out.append(Memo(name, got[0], got[1]))
    return out


def sizes() -> dict[str, int]:
    """Entries per memo that holds any (`flashls.debugStats` → `memos`)."""
    return {m.name.removeprefix("flashls."): m.entries for m in census() if m.entries}
