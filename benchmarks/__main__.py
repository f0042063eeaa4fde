"""One command measures flashls: `python -m benchmarks [--out DIR] [--quick]`.

Runs every benchmark against the fake DeepSeek server on loopback (fixed simulated
model latency), each beside its baseline measured in the same run, and writes
`report.md`, `results.json` and PNG charts (when matplotlib is installed: the `bench`
extra) into the output folder. Ratios, not absolute times, are what carry across
machines.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores"
            f"{', ' + cpu if cpu else ''}, Python {platform.python_version()}")


def _run(name: str, fn: Callable[[], Any], results: dict) -> None:
    print(f"[bench] {name} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    try:
        results[name] = fn()
    except Exception as err:  # one broken benchmark must not hide the others
        results[name] = {"error": f"{type(err).__name__}: {err}"}
    seconds = time.perf_counter() - started
    results.setdefault("seconds", {})[name] = round(seconds, 1)
    print(f"[bench] {name} done in {seconds:.0f}s", file=sys.stderr, flush=True)


def run_all(quick: bool) -> dict:
    from benchmarks import bigfiles, context_bench, economy, latency, memory
    results: dict = {"machine": machine(), "date": dt.datetime.now(dt.timezone.utc).isoformat(
        timespec="seconds"), "quick": quick}
    _run("latency", lambda: latency.run(rounds=15 if quick else 40), results)
    _run("context", lambda: context_bench.run(keystrokes=60 if quick else 300), results)
    if not quick:  # fetches pinned third-party sources once (package registries), cached
        from benchmarks import real_context
        _run("real_context", lambda: real_context.run(), results)
    _run("economy", lambda: economy.run(tasks=4 if quick else 8, scale=0.4), results)
    _run("memory", lambda: memory.run(files=100), results)
    _run("bigfiles", lambda: bigfiles.run(rounds=10 if quick else 30), results)
    try:
        from benchmarks import soak
        soak_run = getattr(soak, "run")
        _run("soak", lambda: soak_run(quick=True) if quick else soak_run(), results)
    except (ImportError, AttributeError) as err:
        results["soak"] = {"error": str(err)}
    return results


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _fmt(value: Any) -> str:
    return "n/a" if value is None else str(value)


def report(results: dict, charts: list[str]) -> str:
    out = ["# flashls benchmark report", "",
           f"- machine: {results['machine']}", f"- date: {results['date']}",
           f"- command: `python -m benchmarks{' --quick' if results.get('quick') else ''}`",
           f"- run time: {sum(results.get('seconds', {}).values()) / 60:.1f} min ("
           + ", ".join(f"{k} {v:.0f} s" for k, v in results.get("seconds", {}).items()) + ")",
           ""]
    lat = results.get("latency", {})
    if "small" in lat:
        bare = lat["bare_http"]
        out += ["## Added latency (fake model: "
                f"{lat['model_latency_ms']:.0f} ms to first token)", "",
                "Server-added = flashls' time before / after the model minus the bare "
                "call's own (HTTP on loopback). Typing rows: automatic triggers with a "
                "fixed debounce, counted beyond the debounce; the end-to-end ratio is "
                "against debounce + bare call.", "",
                "| requests | file | server-added before p50 / p99 ms | "
                "server-added after p50 / p99 ms | pipeline p50 / p99 ms | "
                "end-to-end p50 ms | baseline p50 ms | ratio |",
                "|---|---|---|---|---|---|---|---|"]
        for name in ("small", "large_5000_lines", "large_5000_lines_after_pause",
                     "small_typing", "large_5000_lines_typing"):
            r = lat.get(name)
            if not r:
                continue
            debounce = r.get("debounce_ms", 0)
            pause = r.get("pause_before_request_s") or 0
            kind = (f"typing, debounce {debounce} ms" if debounce else
                    f"invoked after a {pause * 1000:.0f} ms pause" if pause else "invoked")
            before = r.get("server_added_before_ms", r["added_before_upstream_ms"])
            after = r.get("server_added_after_ms", r["added_after_upstream_ms"])
            prep = r["pipeline_prepare_ms"]
            out.append(
                f"| {kind} | {name.split('_typing')[0].split('_after')[0]} | "
                f"{before['p50']} / {before['p99']}"
                f" | {after['p50']} / {after['p99']} | {prep['p50']} / {prep['p99']} | "
                f"{r['end_to_end_ms']['p50']} | {round(bare['p50'] + debounce, 2)} | "
                f"{r['end_to_end_vs_bare']} |")
        out.append("")
    ctx = results.get("context", {})
    if "recall" in ctx:
        o = ctx["recall"]["overall"]
        t = ctx["time"]
        out += ["## Context", "",
                "| measure | flashls | baseline | ratio |", "|---|---|---|---|",
                f"| cross-file definition recall ({o['pairs']} cases, "
                f"{ctx['recall']['budget']} tokens) | {o['flashls']:.1%} | "
                f"{o['window only']:.1%} (window only) | {_fmt(o.get('ratio_vs_window_only'))} |",
                f"| assembly p50 ms, {t['lines']}-line file | {t['incremental']['p50_ms']:.2f} "
                f"(incremental) | {t['full reparse']['p50_ms']:.2f} (full reparse) | "
                f"{t['full reparse']['p50_ms'] / max(t['incremental']['p50_ms'], 1e-9):.1f}× |",
                f"| assembly p99 ms | {t['incremental']['p99_ms']:.2f} | "
                f"{t['full reparse']['p99_ms']:.2f} | |", ""]
    real = results.get("real_context", {})
    if "languages" in real:
        out += [f"## Context on real code ({real['budget']} tokens, test half; before = "
                f"commit {real.get('baseline_commit') or 'n/a'})", "",
                "| language | tasks | flashls | before | window only | Jaccard |",
                "|---|---|---|---|---|---|"]
        for lang, r in real["languages"].items():
            s = r["summary"]["test"]
            out.append(f"| {lang} | {s['tasks']} | {_pct(s['flashls'])} | {_pct(s['before'])} | "
                       f"{_pct(s['window only'])} | {_pct(s['jaccard'])} |")
        out.append("")
    eco = results.get("economy", {})
    if "flashls" in eco:
        variants = [v for v in eco if not v.startswith("_")]
        out += ["## Request economy (typing replay)", "",
                "| metric | " + " | ".join(variants) + " |",
                "|---|" + "---|" * len(variants)]
        for key in eco["flashls"]:
            out.append(f"| {key} | " + " | ".join(str(eco[v][key]) for v in variants) + " |")
        out.append("")
    mem = results.get("memory", {})
    if "idle_rss_mb" in mem:
        out += ["## Memory", "", "| measure | value |", "|---|---|",
                f"| RSS idle | {mem['idle_rss_mb']} MB |",
                f"| RSS with {mem['files']} open files ({mem['lines_per_file']} lines each) | "
                f"{mem['rss_with_files_mb']} MB ({mem['rss_ratio_vs_idle']}× idle) |"]
        soak = results.get("soak", {})
        if isinstance(soak, dict) and "error" not in soak:
            for key, value in soak.items():
                if not isinstance(value, (list, dict)):
                    out.append(f"| soak: {key} | {value} |")
        out.append("")
    big = results.get("bigfiles", {})
    if big.get("files"):
        from benchmarks.bigfiles import report_rows
        out += ["## Big files (first suggestion, liveness while preparing, warm keystrokes)",
                ""] + report_rows(big) + [""]
    errors = {k: v["error"] for k, v in results.items() if isinstance(v, dict) and "error" in v}
    if errors:
        out += ["## Not measured", ""] + [f"- {k}: {v}" for k, v in errors.items()] + [""]
    if charts:
        out += ["## Charts", ""] + [f"![{c}]({c})" for c in charts]
    return "\n".join(out) + "\n"


def charts(results: dict, out: Path) -> list[str]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("[bench] matplotlib not installed (pip install '.[bench]'): no charts",
              file=sys.stderr)
        return []
    made = []
    raw = results.get("latency", {}).get("raw")
    if raw:
        fig, ax = plt.subplots(figsize=(7, 4))
        series = [(k.replace("_ms", ""), v) for k, v in raw.items() if v]
        lat = results["latency"]
        debounces = sorted({r.get("debounce_ms", 0) for r in lat.values()
                            if isinstance(r, dict) and r.get("debounce_ms")})
        for debounce in debounces:  # the typing rows' baseline: debounce + bare call
            series.append((f"bare + {debounce} ms debounce",
                           [v + debounce for v in raw.get("bare_ms", [])]))
        series = [(name, values) for name, values in series if values]
        try:
            ax.boxplot([v for _, v in series], orientation="horizontal")
        except TypeError:  # matplotlib < 3.10
            ax.boxplot([v for _, v in series], vert=False)
        ax.set_yticks(range(1, len(series) + 1), [k for k, _ in series])
        ax.set_xlabel("end-to-end ms (editor request → response; bare: HTTP call only)")
        ax.set_title("Latency: flashls vs a bare call to the same fake model")
        fig.tight_layout()
        fig.savefig(out / "latency.png", dpi=110)
        plt.close(fig)
        made.append("latency.png")
    timelines = results.get("economy", {}).get("_timelines")
    if timelines:
        fig, ax = plt.subplots(figsize=(7, 4))
        for name, series in timelines.items():
            ax.plot(range(1, len(series) + 1), series, label=name)
        ax.plot([0, max(len(s) for s in timelines.values())],
                [0, max(len(s) for s in timelines.values())], ":", color="grey",
                label="one request per keystroke")
        ax.set_xlabel("keystrokes")
        ax.set_ylabel("upstream requests (cumulative)")
        ax.set_title("Requests per keystroke over a typing replay")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "requests.png", dpi=110)
        plt.close(fig)
        made.append("requests.png")
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="bench-out", help="output folder (default bench-out/)")
    parser.add_argument("--quick", action="store_true", help="fewer rounds (about a minute)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    results = run_all(args.quick)
    (out / "results.json").write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    try:
        made = charts(results, out)
    except Exception as err:  # a plotting problem must not lose the measurements
        print(f"[bench] charts failed: {err}", file=sys.stderr)
        made = []
    text = report(results, made)
    (out / "report.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
