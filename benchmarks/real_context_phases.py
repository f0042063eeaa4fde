"""Where a fresh document's assembly time goes, phase by phase, beside `before`'s.

The tasks of `benchmarks.real_context` (a fresh document per task), flashls and the
engine of `real_context.BASELINE_COMMIT` interleaved as that benchmark runs them,
without a profiler (cProfile inflates Python-level code several times more than the
parser's C, and so misplaces the gap). Each engine's phases are timed by wrapping
the functions `assemble_context` calls; reported: p50 / p99 and their ratios, and
the mean of each phase over the requests between the 30th and 70th percentile of
each engine's own times (the requests the p50 is made of). A phase's time includes
the phases it calls (`share_out` holds the ranking: `rank` holds `gather` and the
language passes). p50 is also given apart for each file's first task and its later
ones: a later task's document starts from the analysis and the tree of the one
before (`analysis.state_key`, `tree_seed`), a first one from nothing.

Run: `python -m benchmarks.real_context_phases --lang go [--split test]`.
"""

from __future__ import annotations

import argparse
import collections
import gc
import importlib
import os
import sys
import time
from typing import Callable

from benchmarks.real_context import blanked, find_tasks, load_baseline
from benchmarks.real_context_sources import LANGUAGES, available
from flashls.context import assemble, ranking
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE

NEW_PHASES = {assemble: ("_current_analysis", "neighbor_files", "build_window", "share_out",
                         "recent_snippets"),
              ranking: ("rank", "gather", "adjust_for_language", "with_locality",
                        "adjust_java", "revise_pyjs", "choose")}
OLD_PHASES = ("_current_analysis", "neighbor_files", "build_window", "distribute")
LABELS = {"_current_analysis": "analysis", "neighbor_files": "neighbors",
          "build_window": "window", "distribute": "share_out",
          "adjust_for_language": "lang_adjust", "with_locality": "locality",
          "adjust_java": "java_adjust", "revise_pyjs": "pyjs", "recent_snippets": "recent"}


def _wrap(module, name: str, acc: dict) -> Callable[[], None]:
    """Time `module.name` into acc[label]; returns the undo."""
    original = getattr(module, name)
    label = LABELS.get(name, name)

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            acc[label] += time.perf_counter() - t0

    setattr(module, name, timed)
    return lambda: setattr(module, name, original)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(language: str, split: str = "dev", budget: int = 2048) -> dict:
    before = load_baseline()
    if before is None:
        raise SystemExit("the baseline engine could not be loaded (git archive)")
    bdoc = importlib.import_module("flashls_before.context.document")
    bsyn = importlib.import_module("flashls_before.context.syntax")
    bws = importlib.import_module("flashls_before.context.workspace")
    acc: dict = collections.defaultdict(float)
    undo = [_wrap(m, n, acc) for m, names in NEW_PHASES.items() for n in names]
    undo += [_wrap(before, n, acc) for n in OLD_PHASES]
    rows: dict[str, list[tuple[float, dict]]] = {"flashls": [], "before": []}
    first: list[bool] = []  # per task: the first of its file (nothing to reuse from)
    try:
        for project, root, _ in available(language):
            if root is None or project.split != split:
                continue
            tasks = find_tasks(project, root)
            gc.freeze()  # as `benchmarks.real_context` does
            ws = Workspace([str(root)], DEFAULT_EXCLUDE)
            old_ws = bws.Workspace([str(root)], DEFAULT_EXCLUDE)
            seen: set = set()
            for index, t in enumerate(tasks):
                text, offset = blanked(t.path, t.line)
                uri = t.path.as_uri()
                first.append(t.path not in seen)
                seen.add(t.path)
                for which in (("flashls", "before") if index % 2 == 0 else ("before", "flashls")):
                    acc.clear()
                    if which == "flashls":
                        pdoc = ParsedDocument.open(Document(uri, text, "", 1), str(t.path))
                        ranking.forget()
                        t0 = time.perf_counter()
                        assemble.assemble_context(pdoc, offset, budget_tokens=budget, workspace=ws)
                    else:
                        opdoc = bsyn.ParsedDocument.open(bdoc.Document(uri, text, "", 1),
                                                         str(t.path))
                        t0 = time.perf_counter()
                        before.assemble_context(opdoc, offset, budget_tokens=budget,
                                                workspace=old_ws)
                    rows[which].append((time.perf_counter() - t0, dict(acc)))
    finally:
        for u in undo:
            u()
    out: dict = {"language": language, "split": split, "load": os.getloadavg()[0]}
    for which, rs in rows.items():
        if not rs:
            continue
        times = [e for e, _ in rs]
        lo, hi = _percentile(times, 0.3), _percentile(times, 0.7)
        mid = [(e, d) for e, d in rs if lo <= e <= hi]
        labels = sorted({k for _, d in mid for k in d})
        out[which] = {"tasks": len(rs), "p50_ms": _percentile(times, 0.5) * 1000,
                      "p99_ms": _percentile(times, 0.99) * 1000,
                      "mid_ms": {"total": sum(e for e, _ in mid) / len(mid) * 1000,
                                 **{k: sum(d.get(k, 0.0) for _, d in mid) / len(mid) * 1000
                                    for k in labels}},
                      # p50 of a file's first tasks and of its later ones
                      "p50_first_ms": _p50([e for (e, _), f in zip(rs, first) if f]),
                      "p50_later_ms": _p50([e for (e, _), f in zip(rs, first) if not f])}
    return out


def _p50(values: list[float]) -> float:
    return _percentile(values, 0.5) * 1000 if values else 0.0


def render(r: dict) -> str:
    new, old = r.get("flashls"), r.get("before")
    if not new or not old:
        return f"{r['language']} {r['split']}: no tasks"
    lines = [f"{r['language']} {r['split']} (load {r['load']:.1f}): flashls p50 "
             f"{new['p50_ms']:.1f} p99 {new['p99_ms']:.1f} ms, before p50 {old['p50_ms']:.1f} "
             f"p99 {old['p99_ms']:.1f} ms, ratio p50 {new['p50_ms'] / old['p50_ms']:.2f} "
             f"p99 {new['p99_ms'] / old['p99_ms']:.2f}",
             f"  p50 ratio on a file's first task {_ratio(new, old, 'p50_first_ms')}, "
             f"on its later tasks {_ratio(new, old, 'p50_later_ms')}"]
    for which, row in (("flashls", new), ("before", old)):
        lines.append(f"  {which:<8} mid-request ms: " + " ".join(
            f"{k}={v:.1f}" for k, v in row["mid_ms"].items()))
    return "\n".join(lines)


def _ratio(new: dict, old: dict, key: str) -> str:
    return f"{new[key] / old[key]:.2f}" if old.get(key) else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", action="append", choices=LANGUAGES)
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--budget", type=int, default=2048)
    args = parser.parse_args(argv)
    for lang in args.lang or LANGUAGES:
        print(render(measure(lang, args.split, args.budget)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
