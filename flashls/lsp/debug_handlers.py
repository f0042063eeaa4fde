"""`flashls.debugStats`: counters for soak tests and bug reports (no text, no settings).

It answers "is anything growing?": engine counters, cache sizes, in-flight work,
running tasks, and the size of every bounded cache the context engine keeps. Each
probe is optional — a renamed cache shows as missing, never as an error.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import tracemalloc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import FlashServer

# (module, attribute): lru_cache'd functions or sized containers worth watching
MODULE_CACHES = (
    ("flashls.context.window", "_line_cost"),
    ("flashls.context.neighbors", "line_identifiers"),
    ("flashls.context.neighbors", "part_overhead"),
    ("flashls.context.outline", "_finish"),
    ("flashls.context.outline", "_LEVELS"),
    ("flashls.context.outline", "_TOTALS"),
    ("flashls.context.analysis", "_FILES"),
    ("flashls.context.analysis", "_CURRENT"),
    ("flashls.context.analysis", "_CHUNKS"),
    ("flashls.context.analysis", "_PLACED"),
    ("flashls.context.analysis", "_STATES"),
    ("flashls.context.recent", "_CHUNK_IDS"),
)


def _size(obj: Any) -> int | None:
    info = getattr(obj, "cache_info", None)
    if callable(info):
        return info().currsize
    try:
        return len(obj)
    except TypeError:
        return None


def module_cache_sizes() -> dict[str, int]:
    out: dict[str, int] = {}
    for module_name, attr in MODULE_CACHES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        size = _size(getattr(module, attr, None)) if hasattr(module, attr) else None
        if size is not None:
            out[f"{module_name.rsplit('.', 1)[-1]}.{attr}"] = size
    return out


def debug_stats(server: "FlashServer") -> dict:
    session = server.session
    engine = session.engine
    stats = engine.stats
    cache = engine.cache
    context = getattr(engine, "context", None)
    out: dict[str, Any] = {
        "documents": len(session.documents),
        "unsynced": len(session.unsynced),
        "engine": dataclasses.asdict(stats) if dataclasses.is_dataclass(stats) else {},
        "cache": {"entries": len(cache), "bytes": getattr(cache, "approx_bytes", None)},
        "jobs": len(getattr(engine, "_jobs", {})),
        "generations": sum(len(g) for g in getattr(engine, "_generations", {}).values()),
        "inFlight": session.events.in_flight,
        "tasks": len(asyncio.all_tasks()),
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


def register_debug(server: "FlashServer") -> None:
    @server.command("flashls.debugStats")
    def stats(ls: Any, *args: Any) -> dict:
        return debug_stats(server)
