"""Running next edit cases and scoring them: `flashls eval --next-edit` and the benchmark.

Three systems answer every case in the same run:

* `nextEdit` — the pipeline the editor uses (`NextEditService`: edit history, region,
  prompt, model, answer judging, minimal edits);
* `inlineCompletion` — the completion engine at the same cursor (it can only insert
  there): what the user gets without next edits;
* `noEdit` — never suggests anything (free; right on every "no edit needed" case).

Scores, per case: exact (the file after the suggestion equals the expected file),
edit similarity (difflib ratio between the suggested and the expected change, as
+/- lines; 1 when both are empty), whether anything was suggested, latency, cost.
"""

from __future__ import annotations

import dataclasses
import difflib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..completion.factory import build_engine
from ..context.document import Document
from ..context.syntax import ParsedDocument
from ..model.gate import UpstreamGate
from ..model.types import CompletionModel, ModelError, ModelResult
from ..nextedit.service import NextEditService
from ..settings import Settings
from ..usage.pricing import request_cost
from ..usage.stats import percentile, ratio
from .nextedit_cases import EditCase

SYSTEMS = ("nextEdit", "inlineCompletion", "noEdit")
EVAL_ROOT = Path("/flashls-next-edit-eval")  # documents live in memory only


@dataclass(frozen=True)
class CaseResult:
    case_id: str
    category: str  # edit | no_edit
    system: str
    suggested: bool
    exact: bool
    similarity: float
    latency_ms: float | None = None
    cost_usd: float | None = None
    error: str = ""


def change_lines(base: str, text: str) -> list[str]:
    """The +/- lines of the change from `base` to `text` (no context, no headers)."""
    if base == text:
        return []
    diff = difflib.unified_diff(base.splitlines(), text.splitlines(), n=0, lineterm="")
    return [d for d in diff if d[:1] in "+-" and not d.startswith(("+++", "---"))]


def edit_similarity(edited: str, predicted: str, expected: str) -> float:
    got, want = change_lines(edited, predicted), change_lines(edited, expected)
    if not got and not want:
        return 1.0
    if not got or not want:
        return 0.0
    return difflib.SequenceMatcher(None, "\n".join(got), "\n".join(want),
                                   autojunk=False).ratio()


def _result(case: EditCase, system: str, predicted: str, latency_ms: float | None,
            cost: float | None, error: str = "") -> CaseResult:
    return CaseResult(case.case_id, case.category, system, predicted != case.edited,
                      predicted == case.expected,
                      edit_similarity(case.edited, predicted, case.expected),
                      latency_ms, cost, error)


class _Probe:
    """Engine events of one case: the last model result and error."""

    def __init__(self) -> None:
        self.sinks: list[Any] = []
        self.result: ModelResult | None = None
        self.error: ModelError | None = None
        self.ts = time.time()

    def request_started(self, kind: str, model: str) -> None:
        self.ts = time.time()

    def request_finished(self, kind, result, error, outcome) -> None:
        self.result = result or self.result
        self.error = error or self.error

    def suggestion_shown(self, suggestion: Any) -> None:
        pass

    def cost(self, settings: Settings) -> float | None:
        if self.result is None:
            return None
        u = self.result.usage
        return request_cost(settings.usage.prices, self.result.model, self.ts,
                            prompt_tokens=u.prompt_tokens, cache_hit_tokens=u.cache_hit_tokens,
                            cache_miss_tokens=u.cache_miss_tokens,
                            completion_tokens=u.completion_tokens)


def _open(case: EditCase) -> tuple[str, dict[str, ParsedDocument]]:
    path = EVAL_ROOT / case.path
    uri = path.as_uri()
    doc = Document(uri, case.edited, case.language_id, 1, "utf-16")
    return uri, {uri: ParsedDocument.open(doc, str(path))}


def _apply(text: str, edits: Sequence[Any]) -> str:
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[:e.start] + e.text + text[e.end:]
    return text


async def run_next_edit(case: EditCase, model: CompletionModel, settings: Settings,
                        gate: UpstreamGate) -> CaseResult:
    uri, documents = _open(case)
    probe = _Probe()
    service = NextEditService(model=lambda: model, settings=lambda: settings,
                              gate=lambda: gate, events=probe, documents=documents,
                              allowed=lambda u: True, path_of=lambda u: case.path)
    texts = list(case.history) + [case.edited]
    for before, after in zip(texts, texts[1:]):
        service.note_change(uri, before, after, None)
    started = time.perf_counter()
    outcome = await service.suggest(uri, None, case.cursor)
    latency = (time.perf_counter() - started) * 1000.0
    predicted = _apply(case.edited, outcome.edits)
    error = str(probe.error) if probe.error else ""
    return _result(case, "nextEdit", predicted, latency if probe.result else None,
                   probe.cost(settings), error)


async def run_inline_completion(case: EditCase, model: CompletionModel, settings: Settings
                                ) -> CaseResult:
    uri, documents = _open(case)
    probe = _Probe()
    engine = build_engine(model, settings=lambda: settings, documents=documents,
                          roots=lambda: [], path_of=lambda u: case.path, events=probe)
    started = time.perf_counter()
    outcome = await engine.complete(uri, case.cursor, invoked=True)
    latency = (time.perf_counter() - started) * 1000.0
    predicted = case.edited
    if outcome.suggestions:
        s = outcome.suggestions[0]
        predicted = case.edited[:s.start] + s.text + case.edited[s.end:]
    error = str(probe.error) if probe.error else ""
    return _result(case, "inlineCompletion", predicted, latency if probe.result else None,
                   probe.cost(settings), error)


def run_no_edit(case: EditCase) -> CaseResult:
    return _result(case, "noEdit", case.edited, 0.0, 0.0)


def eval_settings(base: Settings | None = None, *, model: str = "deepseek-flash",
                  region_lines: int | None = None) -> Settings:
    s = base or Settings()
    completion = dataclasses.replace(s.completion, debounce_ms=0)
    next_edit = s.next_edit if region_lines is None else \
        dataclasses.replace(s.next_edit, region_lines=region_lines)
    return dataclasses.replace(s, model=model, completion=completion, next_edit=next_edit)


async def run_all(cases: Sequence[EditCase], model: CompletionModel, settings: Settings,
                  systems: Sequence[str] = SYSTEMS, on_case=None) -> list[CaseResult]:
    """Every case through every system, one case at a time (cases share nothing)."""
    gate = UpstreamGate()
    out: list[CaseResult] = []
    for case in cases:
        if on_case is not None:
            on_case(case)
        for system in systems:
            if system == "nextEdit":
                out.append(await run_next_edit(case, model, settings, gate))
            elif system == "inlineCompletion":
                out.append(await run_inline_completion(case, model, settings))
            else:
                out.append(run_no_edit(case))
    return out


def aggregate(results: Sequence[CaseResult]) -> dict[str, Any]:
    n = len(results)
    edits = [r for r in results if r.category == "edit"]
    quiet = [r for r in results if r.category == "no_edit"]
    suggested = [r for r in results if r.suggested]
    latencies = [r.latency_ms for r in results if r.latency_ms is not None]
    asked = [r for r in results if r.cost_usd is not None and r.system != "noEdit"]
    cost = sum(r.cost_usd or 0.0 for r in results)
    return {
        "cases": n, "editCases": len(edits), "noEditCases": len(quiet),
        "exactMatch": ratio(sum(r.exact for r in results), n),
        "exactMatchOnEdits": ratio(sum(r.exact for r in edits), len(edits)),
        "editSimilarity": (sum(r.similarity for r in results) / n) if n else None,
        "editSimilarityOnEdits": (sum(r.similarity for r in edits) / len(edits))
        if edits else None,
        "noEditAccuracy": ratio(sum(not r.suggested for r in quiet), len(quiet)),
        "suggestionRate": ratio(len(suggested), n),
        "latencyMs": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
        "costUsd": cost,
        "requests": len(asked),
        "costPerRequestUsd": (cost / len(asked)) if asked else None,
        "costPerSuggestionUsd": (cost / len(suggested)) if suggested else None,
        "costPerCaseUsd": (cost / n) if n else None,
        "errors": sum(1 for r in results if r.error),
    }


def report(results: Sequence[CaseResult]) -> dict[str, Any]:
    systems = [s for s in SYSTEMS if any(r.system == s for r in results)]
    return {s: aggregate([r for r in results if r.system == s]) for s in systems}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:.6f}"


def render_table(summary: dict[str, Any]) -> str:
    rows = ["| system | exact match | exact on edits | edit similarity | no-edit accuracy "
            "| suggested | latency p50 / p95 ms | cost per request | cost per suggestion |",
            "|---|---|---|---|---|---|---|---|---|"]
    for system, m in summary.items():
        rows.append(
            f"| {system} | {_pct(m['exactMatch'])} | {_pct(m['exactMatchOnEdits'])} | "
            f"{m['editSimilarity']:.3f} | {_pct(m['noEditAccuracy'])} | "
            f"{_pct(m['suggestionRate'])} | {_ms(m['latencyMs']['p50'])} / "
            f"{_ms(m['latencyMs']['p95'])} | {_usd(m['costPerRequestUsd'])} | "
            f"{_usd(m['costPerSuggestionUsd'])} |")
    return "\n".join(rows)
