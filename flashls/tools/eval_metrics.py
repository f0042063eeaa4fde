"""Scoring eval cases and comparing models: pure functions over ledger rows."""

from __future__ import annotations

import difflib
from typing import Any, Sequence

from ..usage.ledger import EvalRow
from ..usage.stats import percentile, ratio


def first_line(text: str) -> str:
    return text.split("\n", 1)[0].strip()


def score(prediction: str, expected: str) -> tuple[bool, float]:
    """(exact match, edit similarity) of the suggestion's first line against the hidden
    line, both without surrounding whitespace. Similarity is difflib's ratio, 0..1."""
    got, want = first_line(prediction), expected.strip()
    if got == want:
        return True, 1.0
    return False, difflib.SequenceMatcher(None, got, want, autojunk=False).ratio()


def aggregate(rows: Sequence[EvalRow]) -> dict[str, Any]:
    """One model's numbers. Errors count as misses (similarity 0) and are shown apart;
    latency percentiles count cases where the model answered."""
    n = len(rows)
    outcomes: dict[str, int] = {"shown": 0, "empty": 0, "timeout": 0, "error": 0}
    for r in rows:
        outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
    answered = [r for r in rows if r.outcome in ("shown", "empty")]
    latencies = [r.latency_ms for r in answered if r.latency_ms is not None]
    ttfts = [r.ttft_ms for r in answered if r.ttft_ms is not None]
    exact = sum(1 for r in rows if r.exact)
    prompt = sum(r.prompt_tokens for r in rows)
    hit = sum(r.cache_hit_tokens for r in rows)
    cost = sum(r.cost_usd or 0.0 for r in rows)
    return {
        "cases": n,
        "outcomes": outcomes,
        "exactMatches": exact,
        "exactMatch": ratio(exact, n),
        "editSimilarity": (sum(r.similarity for r in rows) / n) if n else None,
        "latencyMs": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
        "firstTokenMs": {"p50": percentile(ttfts, 50), "p95": percentile(ttfts, 95)},
        "promptTokens": prompt,
        "cacheHitTokens": hit,
        "completionTokens": sum(r.completion_tokens for r in rows),
        "cacheHitRatio": ratio(hit, prompt),
        "costUsd": cost,
        "costPerCaseUsd": (cost / n) if n else None,
        "unpriced": sum(1 for r in rows if r.cost_usd is None and r.prompt_tokens),
    }


def head_to_head(a: Sequence[EvalRow], b: Sequence[EvalRow]) -> dict[str, int]:
    """Exact-match wins and losses on the cases both models ran."""
    ea = {r.case_id: r.exact for r in a}
    eb = {r.case_id: r.exact for r in b}
    both = ea.keys() & eb.keys()
    return {"cases": len(both),
            "onlyA": sum(1 for c in both if ea[c] and not eb[c]),
            "onlyB": sum(1 for c in both if eb[c] and not ea[c]),
            "both": sum(1 for c in both if ea[c] and eb[c]),
            "neither": sum(1 for c in both if not ea[c] and not eb[c])}


# -- rendering ------------------------------------------------------------------------
def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v * 100:.1f}%"


def _ms(pair: dict[str, float | None]) -> str:
    return "–" if pair["p50"] is None else f"{pair['p50']:.0f} / {pair['p95']:.0f} ms"


def _usd(v: float | None) -> str:
    return "–" if v is None else (f"${v:.4f}" if v >= 0.01 or v == 0 else f"${v:.6f}")


def metric_rows(m: dict[str, Any]) -> list[tuple[str, str]]:
    o = m["outcomes"]
    sim = m["editSimilarity"]
    return [
        ("cases", str(m["cases"])),
        ("exact match", f"{_pct(m['exactMatch'])} ({m['exactMatches']}/{m['cases']})"),
        ("edit similarity", "–" if sim is None else f"{sim:.3f}"),
        ("latency p50 / p95", _ms(m["latencyMs"])),
        ("first token p50 / p95", _ms(m["firstTokenMs"])),
        ("cache-hit ratio", _pct(m["cacheHitRatio"])),
        ("tokens in / out", f"{m['promptTokens']:,} / {m['completionTokens']:,}"),
        ("cost (per case)", f"{_usd(m['costUsd'])} ({_usd(m['costPerCaseUsd'])})"),
        ("empty / timeout / error",
         f"{o.get('empty', 0)} / {o.get('timeout', 0)} / {o.get('error', 0)}"),
    ]


def _delta(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """B relative to A, row by row (blank where a difference means nothing)."""
    def pts(x, y):
        return "" if x is None or y is None else f"{(y - x) * 100:+.1f} pts"

    def num(x, y, fmt):
        return "" if x is None or y is None else fmt.format(y - x)

    return ["",
            pts(a["exactMatch"], b["exactMatch"]),
            num(a["editSimilarity"], b["editSimilarity"], "{:+.3f}"),
            num(a["latencyMs"]["p50"], b["latencyMs"]["p50"], "{:+.0f} ms (p50)"),
            num(a["firstTokenMs"]["p50"], b["firstTokenMs"]["p50"], "{:+.0f} ms (p50)"),
            pts(a["cacheHitRatio"], b["cacheHitRatio"]),
            "",
            (f"×{b['costUsd'] / a['costUsd']:.2f}" if a["costUsd"] else ""),
            ""]


def table(report: dict[str, Any]) -> list[list[str]]:
    models = list(report["models"])
    per = [metric_rows(report["models"][m]) for m in models]
    header = ["metric", *models]
    deltas = None
    if len(models) == 2:
        header.append(f"{models[1]} vs {models[0]}")
        deltas = _delta(report["models"][models[0]], report["models"][models[1]])
    body = []
    for i, (label, _) in enumerate(per[0]):
        row = [label, *[p[i][1] for p in per]]
        if deltas is not None:
            row.append(deltas[i])
        body.append(row)
    return [header, *body]


def render_text(report: dict[str, Any]) -> str:
    rows = table(report)
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    run = report["run"]
    out = [f"flashls eval: {run['cases']} cases from {run['root']} "
           f"(seed {run['seed']}, run {run['runId']})"]
    for r in rows:
        out.append("  ".join([r[0].ljust(widths[0])]
                             + [c.rjust(widths[i + 1]) for i, c in enumerate(r[1:])]))
    if "headToHead" in report:
        h = report["headToHead"]
        a, b = list(report["models"])[:2]
        out.append("")
        out.append(f"head to head on {h['cases']} cases: only {a} exact {h['onlyA']}, "
                   f"only {b} exact {h['onlyB']}, both {h['both']}, neither {h['neither']}")
    return "\n".join(out)


def render_markdown(report: dict[str, Any]) -> str:
    rows = table(report)
    run = report["run"]
    lines = ["# flashls eval", "",
             f"- root: `{run['root']}`", f"- cases: {run['cases']} (seed {run['seed']})",
             f"- run id: `{run['runId']}`", f"- endpoint: {run['endpoint']}, "
             f"context budget {run['contextTokens']} tokens, max {run['maxTokens']} tokens",
             f"- base URL: {run['baseUrl']}", "",
             "| " + " | ".join(rows[0]) + " |",
             "|---|" + "---:|" * (len(rows[0]) - 1)]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    if "headToHead" in report:
        h = report["headToHead"]
        a, b = list(report["models"])[:2]
        lines += ["", "## Head to head (exact match)", "",
                  f"| only {a} | only {b} | both | neither |", "|---:|---:|---:|---:|",
                  f"| {h['onlyA']} | {h['onlyB']} | {h['both']} | {h['neither']} |"]
    lines += ["", "Exact match: the suggestion's first line equals the hidden line "
              "(surrounding whitespace ignored). Edit similarity: difflib ratio, 0–1. "
              "Latency: the whole pipeline, request to cleaned suggestion."]
    return "\n".join(lines) + "\n"
