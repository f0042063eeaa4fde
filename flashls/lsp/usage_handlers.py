"""LSP wiring for usage accounting: the ledger sink and `flashls.showUsage`."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..usage.ledger import Ledger, LedgerError, resolve_path
from ..usage.sink import LedgerSink
from ..usage.stats import empty_report, render_markdown, usage_report

if TYPE_CHECKING:
    from .server import FlashServer

log = logging.getLogger("flashls")


def _days(args: tuple[Any, ...]) -> int:
    """`flashls.showUsage` takes no argument, or `{"days": N}` (1..366)."""
    if args and isinstance(args[0], dict) and "days" in args[0]:
        days = args[0]["days"]
        if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 366:
            raise ValueError("flashls.showUsage: days must be a whole number from 1 to 366")
        return days
    return 7


def build_usage_view(path: str, sink: LedgerSink, days: int) -> dict:
    """The command's answer: Markdown for people, the same numbers as JSON."""
    sink.flush(2.0)
    try:
        ledger = Ledger(path, create=False)
    except LedgerError:
        report = empty_report(path, days=days)
    else:
        try:
            report = usage_report(ledger, days=days)
        finally:
            ledger.close()
    report["session"] = {"requests": sink.requests,
                         "costUsd": round(sink.session_cost_usd, 6)}
    markdown = render_markdown(report) + (
        f"\n\nThis session: {sink.requests} requests, ${sink.session_cost_usd:.6f}."
        f"\n\nLedger: `{path}`")
    return {"markdown": markdown, "json": report}


def register_usage(server: "FlashServer") -> LedgerSink:
    session = server.session
    sink = LedgerSink(lambda: session.settings)
    session.events.sinks.append(sink)

    @server.command("flashls.showUsage")
    async def show_usage(ls: Any, *args: Any) -> dict:
        days = _days(args)
        path = str(resolve_path(session.settings.usage.ledger_path))
        return await asyncio.to_thread(build_usage_view, path, sink, days)

    return sink
