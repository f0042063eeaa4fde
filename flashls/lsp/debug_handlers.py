"""`flashls.debugStats`: counters for soak tests and bug reports (no text, no settings).

It answers "is anything growing?": engine counters, cache sizes, in-flight work,
running tasks, and the size of every bounded cache the context engine keeps. Each
probe is optional — a renamed cache shows as missing, never as an error.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import dataclasses
import gc
import tracemalloc
from typing import TYPE_CHECKING, Any

from ..context.memo_census import sizes as memo_sizes
from ..context.syntax import MAX_PARSE_BYTES
from .gc_policy import stats_dict as gc_stats

if TYPE_CHECKING:
    from .server import FlashServer

def _size(obj: Any) -> int | None:
    info = getattr(obj, "cache_info", None)
    if callable(info):
        return info().currsize
    try:
        return len(obj)
    except TypeError:
        return None


def module_cache_sizes() -> dict[str, int]:
    """Entries of every module-level memo that holds any (`context.memo_census`)."""
    return {name.removeprefix("context."): n for name, n in memo_sizes().items()}


def debug_stats(server: "FlashServer") -> dict:
    session = server.session
    engine = session.engine
    stats = engine.stats
    cache = engine.cache
    context = getattr(engine, "context", None)
    out: dict[str, Any] = {
        "documents": len(session.documents),
        "staleTrees": sum(1 for d in session.documents.values()  # parseable, not parsed
                          if d.syntax is not None and d.syntax.dirty
                          and len(d.doc.source_bytes) <= MAX_PARSE_BYTES),
        "unsynced": len(session.unsynced),
        "preparing": len(getattr(session, "_preparing", ())),  # big documents in the background
        "engine": dataclasses.asdict(stats) if dataclasses.is_dataclass(stats) else {},
        "cache": {"entries": len(cache), "bytes": getattr(cache, "approx_bytes", None)},
        "jobs": len(getattr(engine, "_jobs", {})),
        "generations": sum(len(g) for g in getattr(engine, "_generations", {}).values()),
        "inFlight": session.events.in_flight,
        "tasks": len(asyncio.all_tasks()),
        "gcFrozen": gc.get_freeze_count(),  # startup objects kept out of collections
        "gcPolicy": gc_stats(getattr(session, "gc_policy", None)),  # lsp/gc_policy
        "protocolPending": {name: len(getattr(server.protocol, name, ()))
                            for name in ("_request_futures", "_result_types")},
        "moduleCaches": module_cache_sizes(),
    }
    recent = getattr(context, "recent", None)
    if recent is not None:
        out["recentEdits"] = _size(getattr(recent, "_edits", ())) or 0
    workspace = getattr(context, "_workspace", None)
    if workspace is not None:
        out["workspaceCaches"] = {name: _size(getattr(workspace, name))
                                  for name in ("_texts", "_ignores", "_verdicts", "_reals",
                                               "cache") if hasattr(workspace, name)}
    if tracemalloc.is_tracing():  # PYTHONTRACEMALLOC=1: where the memory is, by line
        stats = tracemalloc.take_snapshot().statistics("lineno")[:25]
        out["tracemalloc"] = [{"where": f"{s.traceback[0].filename}:{s.traceback[0].lineno}",
                               "kb": s.size // 1024, "count": s.count} for s in stats]
    return out


def rss_kb(pid: int | str = "self") -> int | None:
    """Resident set size of a process in KB, from /proc (no psutil needed)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def release_memory() -> dict:
    """Collect cycles and hand free heap pages back to the OS (glibc `malloc_trim`):
    tells "memory in use" apart from "memory freed but still counted in RSS"."""
    before = rss_kb()
    collected = gc.collect()
    trimmed = False
    name = ctypes.util.find_library("c")
    if name:
        try:
            trimmed = bool(ctypes.CDLL(name).malloc_trim(0))
        except (OSError, AttributeError):
            pass  # not glibc
    return {"rssBeforeKb": before, "rssAfterKb": rss_kb(), "gcCollected": collected,
            "trimmed": trimmed}


def object_types(top: int = 40) -> dict[str, int]:
    """Live objects tracked by the garbage collector, by type: what a leak is made of."""
    counts: dict[str, int] = {}
    for obj in gc.get_objects():
        name = type(obj).__qualname__
        counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1])[:top])


def register_debug(server: "FlashServer") -> None:
    @server.command("flashls.debugStats")
    def stats(ls: Any, *args: Any) -> dict:
        """Optional argument `{"releaseMemory": true}`: collect and trim first."""
        options = args[0] if args and isinstance(args[0], dict) else {}
        released = release_memory() if options.get("releaseMemory") is True else None
        out = debug_stats(server)
        if released is not None:
            out["releasedMemory"] = released
        if options.get("objectTypes") is True:
            out["objectTypes"] = object_types()
        return out
