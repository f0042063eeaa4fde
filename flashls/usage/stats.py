"""Aggregate the ledger: today and the last N days, as data, text and Markdown.

`summarize` is pure (rows in, numbers out); `usage_report` reads the ledger; the
renderers are shared by `flashls stats` and the `flashls.showUsage` command.
"""

from __future__ import annotations

import math
import time
from datetime import datetime
from typing import Any, Iterable, Sequence

from .ledger import Ledger, RequestRow, SuggestionRow


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile (no interpolation: always a value that was seen)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def summarize(requests: Iterable[RequestRow], suggestions: Iterable[SuggestionRow]
              ) -> dict[str, Any]:
    """The numbers for one window. Latency percentiles count answered requests only."""
    reqs = list(requests)
    sugs = list(suggestions)
    by_outcome = {"shown": 0, "cancelled": 0, "error": 0}
    by_kind: dict[str, int] = {}
    by_model: dict[str, dict[str, Any]] = {}
    tokens = {"prompt": 0, "cacheHit": 0, "cacheMiss": 0, "completion": 0}
    latencies: list[float] = []
    ttfts: list[float] = []
    cost = 0.0
    unpriced = 0
    for r in reqs:
        by_outcome[r.outcome] = by_outcome.get(r.outcome, 0) + 1
        by_kind[r.kind] = by_kind.get(r.kind, 0) + 1
        m = by_model.setdefault(r.model, {"requests": 0, "promptTokens": 0,
                                          "cacheHitTokens": 0, "completionTokens": 0,
                                          "costUsd": 0.0})
        m["requests"] += 1
        m["promptTokens"] += r.prompt_tokens
        m["cacheHitTokens"] += r.cache_hit_tokens
        m["completionTokens"] += r.completion_tokens
        tokens["prompt"] += r.prompt_tokens
        tokens["cacheHit"] += r.cache_hit_tokens
        tokens["cacheMiss"] += r.cache_miss_tokens
        tokens["completion"] += r.completion_tokens
        if r.outcome == "shown" and r.total_ms is not None:
            latencies.append(r.total_ms)
            if r.ttft_ms is not None:
                ttfts.append(r.ttft_ms)
        if r.cost_usd is None:
            if r.prompt_tokens or r.completion_tokens:
                unpriced += 1
        else:
            cost += r.cost_usd
            m["costUsd"] += r.cost_usd
    shown = len(sugs)
    accepted = sum(1 for s in sugs if s.accepted_ts is not None)
    partly = sum(1 for s in sugs if s.accepted_ts is None and s.accepted_chars > 0)
    chars_shown = sum(s.chars for s in sugs)
    chars_accepted = sum(min(s.accepted_chars, s.chars) for s in sugs)
    return {
        "requests": len(reqs),
        "byOutcome": by_outcome,
        "byKind": by_kind,
        "byModel": by_model,
        "suggestionsShown": shown,
        "suggestionsAccepted": accepted,
        "acceptanceRate": ratio(accepted, shown),
        "suggestionsPartlyAccepted": partly,
        "charsShown": chars_shown,
        "charsAccepted": chars_accepted,
        "charAcceptanceRate": ratio(chars_accepted, chars_shown),
        "tokens": tokens,
        "cacheHitRatio": ratio(tokens["cacheHit"], tokens["prompt"]),
        "latencyMs": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
        "firstTokenMs": {"p50": percentile(ttfts, 50), "p95": percentile(ttfts, 95)},
        "costUsd": cost,
        "unpricedRequests": unpriced,
    }


def start_of_today(now: float) -> float:
    """Local midnight: 'today' is the user's day, not UTC's."""
    local = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    return local.timestamp()


def usage_report(ledger: Ledger, *, now: float | None = None, days: int = 7) -> dict[str, Any]:
    now = time.time() if now is None else now
    days = max(1, int(days))
    windows = {"today": start_of_today(now), f"last{days}Days": now - days * 86400.0}
    out: dict[str, Any] = {"ledger": str(ledger.path), "generatedAt": now, "days": days}
    for name, since in windows.items():
        window = summarize(ledger.requests_between(since, now + 1),
                           ledger.suggestions_between(since, now + 1))
        window["since"] = since
        out[name] = window
    return out


def empty_report(path: str, *, now: float | None = None, days: int = 7) -> dict[str, Any]:
    """The report for a ledger that does not exist yet (nothing recorded)."""
    now = time.time() if now is None else now
    days = max(1, int(days))
    out: dict[str, Any] = {"ledger": path, "generatedAt": now, "days": days}
    out["today"] = {**summarize([], []), "since": start_of_today(now)}
    out[f"last{days}Days"] = {**summarize([], []), "since": now - days * 86400.0}
    return out


# -- rendering ------------------------------------------------------------------------
def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def _ms(pair: dict[str, float | None]) -> str:
    if pair["p50"] is None:
        return "–"
    return f"{pair['p50']:.0f} / {pair['p95']:.0f} ms"


def _chars(window: dict[str, Any]) -> str:
    accepted, shown = window.get("charsAccepted", 0), window.get("charsShown", 0)
    if not shown:
        return "0"
    return f"{accepted:,} of {shown:,} ({_pct(window.get('charAcceptanceRate'))})"


def _usd(value: float) -> str:
    return f"${value:.4f}" if value >= 0.01 or value == 0 else f"${value:.6f}"


def rows(window: dict[str, Any]) -> list[tuple[str, str]]:
    o = window["byOutcome"]
    t = window["tokens"]
    accepted = window["suggestionsAccepted"]
    rate = window["acceptanceRate"]
    cost = _usd(window["costUsd"])
    if window["unpricedRequests"]:
        cost += f" (+{window['unpricedRequests']} unpriced)"
    return [
        ("requests", str(window["requests"])),
        ("  answered / cancelled / error",
         f"{o.get('shown', 0)} / {o.get('cancelled', 0)} / {o.get('error', 0)}"),
        ("suggestions shown", str(window["suggestionsShown"])),
        ("suggestions accepted", f"{accepted} ({_pct(rate)})" if rate is not None else "0"),
        ("  partly accepted", str(window.get("suggestionsPartlyAccepted", 0))),
        ("characters accepted", _chars(window)),
        ("cache-hit ratio", _pct(window["cacheHitRatio"])),
        ("latency p50 / p95", _ms(window["latencyMs"])),
        ("first token p50 / p95", _ms(window["firstTokenMs"])),
        ("tokens in (cache hit) / out",
         f"{t['prompt']:,} ({t['cacheHit']:,}) / {t['completion']:,}"),
        ("cost", cost),
    ]


def _windows(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    days = report["days"]
    return [("today", report["today"]),
            (f"last {days} day" + ("s" if days != 1 else ""), report[f"last{days}Days"])]


def render_text(report: dict[str, Any]) -> str:
    windows = _windows(report)
    table = [("", *[name for name, _ in windows])]
    columns = [rows(w) for _, w in windows]
    for i, (label, _) in enumerate(columns[0]):
        table.append((label, *[col[i][1] for col in columns]))
    widths = [max(len(r[c]) for r in table) for c in range(len(table[0]))]
    lines = [f"flashls usage (ledger: {report['ledger']})"]
    for r in table:
        lines.append("  ".join([r[0].ljust(widths[0])]
                               + [cell.rjust(widths[c + 1]) for c, cell in enumerate(r[1:])]))
    return "\n".join(lines)


def render_markdown(report: dict[str, Any]) -> str:
    windows = _windows(report)
    columns = [rows(w) for _, w in windows]
    out = ["| | " + " | ".join(name for name, _ in windows) + " |",
           "|---|" + "---:|" * len(windows)]
    for i, (label, _) in enumerate(columns[0]):
        out.append(f"| {label.strip()} | " + " | ".join(col[i][1] for col in columns) + " |")
    return "**flashls usage**\n\n" + "\n".join(out)
