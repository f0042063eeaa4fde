"""Context assembly time per request while typing into real files, against `before`.

`benchmarks.real_context` times a request on a freshly opened document (every task is
a new text, so the whole current file is analysed inside the timed call). While a user
types, the server sees one document and a stream of small edits; this times that case.
The typing is `benchmarks.replay_trace`'s: the same method bodies of the fetched
projects (`real_context_replay.pick_tasks`: one per project, dev and test), removed and typed
back character by character with the typist's gaps (`economy.gap_ms`, fixed seed), a
request after each keystroke followed by a gap of at least `--pause` ms. Both engines
keep their own document, updated by the same edits through their own `apply_change`
(tree-sitter's incremental parse, outside the timer), and `assemble_context` is timed
for each, interleaved (the order alternates per request) at the same budget.

Reported per language: requests, p50 / p99 in ms for flashls and `before`, and their
ratios. A task's first request is on a document neither engine has analysed yet.

Run: `python -m benchmarks.typing_time [--lang L] [--per-language 10] [--pause 300]`.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import random
import statistics
import sys
import time
from typing import Iterator

from benchmarks.economy import gap_ms
from benchmarks.real_context import load_baseline
from benchmarks.real_context_replay import LANGS, MORE_LANGS, pick_tasks
from flashls.context import ranking
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE

SEED = 7
BUDGET = 2048


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def typed_back(target: str, start: int, documents: tuple, rng: random.Random,
               pause_ms: float) -> Iterator[int]:
    """Type `target` into every document at `start`, one character per edit, and yield
    the cursor offset after each keystroke that a pause of at least `pause_ms` follows
    (the typist's gaps, `economy.gap_ms`), and after the last one."""
    cursor = start
    for i, ch in enumerate(target):
        line, col = documents[0].doc.position_at(cursor)
        for document in documents:
            document.apply_change((line, col), (line, col), ch)
        cursor += 1
        following = target[i + 1] if i + 1 < len(target) else ""
        if gap_ms(rng, ch, following) < pause_ms and following:
            continue
        yield cursor


def time_language(language: str, before, per_language: int = 10,
                  pause_ms: float = 300.0) -> dict:
    """Per-request assembly times (ms) of both engines over one language's typing."""
    bdoc = importlib.import_module("flashls_before.context.document")
    bsyn = importlib.import_module("flashls_before.context.syntax")
    bws = importlib.import_module("flashls_before.context.workspace")
    rng = random.Random(SEED)
    times: dict[str, list[float]] = {"flashls": [], "before": []}
    requests = 0
    for task, root in pick_tasks(language, per_language, splits=("dev", "test")):
        gc.freeze()  # what the run keeps alive stays out of the collector's scans
        ws = Workspace([str(root)], DEFAULT_EXCLUDE)
        old_ws = bws.Workspace([str(root)], DEFAULT_EXCLUDE)
        original = task.path.read_text(encoding="utf-8")
        uri = task.path.as_uri()
        text = original[:task.start] + original[task.start + len(task.target):]
        new = ParsedDocument.open(Document(uri, text, "", 1), str(task.path))
        old = bsyn.ParsedDocument.open(bdoc.Document(uri, text, "", 1), str(task.path))
        ranking.forget()  # a new document: nothing remembered from the previous task
        for cursor in typed_back(task.target, task.start, (new, old), rng, pause_ms):
            order = ("flashls", "before") if requests % 2 == 0 else ("before", "flashls")
            for which in order:
                t0 = time.perf_counter()
                if which == "flashls":
                    assemble_context(new.snapshot(), cursor, budget_tokens=BUDGET, workspace=ws)
                else:
                    before.assemble_context(old.snapshot(), cursor, budget_tokens=BUDGET,
                                            workspace=old_ws)
                times[which].append((time.perf_counter() - t0) * 1000)
            requests += 1
    return {"requests": requests, **{
        f"{which}_{name}": round(_percentile(values, q), 2)
        for which, values in times.items() for name, q in (("p50", 0.5), ("p99", 0.99))},
        "mean_ratio": round(statistics.fmean(times["flashls"])
                            / max(1e-9, statistics.fmean(times["before"])), 2)
        if requests else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", action="append", choices=tuple(LANGS) + tuple(MORE_LANGS))
    parser.add_argument("--per-language", type=int, default=10)
    parser.add_argument("--pause", type=float, default=300.0,
                        help="a keystroke followed by a gap this long (ms) asks for context")
    args = parser.parse_args(argv)
    before = load_baseline()
    if before is None:
        print("before: git cannot provide the baseline commit here", file=sys.stderr)
        return 1
    print("language  requests  flashls p50 / p99 ms  before p50 / p99 ms  ratio p50 / p99 / mean")
    for lang in args.lang or tuple(LANGS) + tuple(MORE_LANGS):
        r = time_language(lang, before, args.per_language, args.pause)
        ratio50 = r["flashls_p50"] / max(1e-9, r["before_p50"])
        ratio99 = r["flashls_p99"] / max(1e-9, r["before_p99"])
        print(f"{lang:<9} {r['requests']:>8}  {r['flashls_p50']:>8.2f} / {r['flashls_p99']:<8.2f}"
              f"  {r['before_p50']:>8.2f} / {r['before_p99']:<8.2f}"
              f"  {ratio50:.2f} / {ratio99:.2f} / {r['mean_ratio']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
