"""The prompts `benchmarks.real_context` sends, recorded and compared, for speedups.

An optimisation of context assembly must not change what is selected. This tool
assembles the tasks of `benchmarks.real_context` (a fresh document per task, as the
benchmark does) and records, per task, a digest of the whole FIM request flashls
would send (labels, parts, window). `--write FILE` records them from the code as it
is; `--check FILE` assembles again and lists every task whose request differs.
Run `--write` on the code before a change and `--check` after it.

`--repeat N` assembles each task N times in a row (the later ones find every cache
warm: a cache must not change the result either) and `--profile` prints where the
time of the first assemblies goes (cProfile, cumulative).

Some selections depend on the iteration order of sets of names (ties), which Python
randomizes per process: the tool re-runs itself with `PYTHONHASHSEED=0` so that two
runs compare like with like.

Run: `python -m benchmarks.real_context_identity --write /tmp/ref.json [--split dev]`.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import json
import os
import pstats
import subprocess
import sys
import time

from benchmarks.real_context import blanked, find_tasks
from benchmarks.real_context_sources import LANGUAGES, available
from flashls.completion.prompt import PromptInputs, render_fim_context
from flashls.context import ranking
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE


def request_text(ctx, ws: Workspace, path: str, spec) -> str:
    """The FIM request as `benchmarks.real_context` counts it."""
    inputs = PromptInputs(ws.relative(path), "", spec.line_comment)
    return render_fim_context(ctx, inputs) + ctx.prefix + "\u2038" + ctx.suffix


def digests(languages: tuple[str, ...], splits: tuple[str, ...], budget: int,
            repeat: int = 1, profile: cProfile.Profile | None = None
            ) -> tuple[dict[str, str], dict[str, list[float]]]:
    """task id -> sha256 of its request, and per language the assembly times (ms)."""
    out: dict[str, str] = {}
    times: dict[str, list[float]] = {}
    for lang in languages:
        times[lang] = []
        for project, root, _ in available(lang):
            if root is None or project.split not in splits:
                continue
            ws = Workspace([str(root)], DEFAULT_EXCLUDE)
            tasks = find_tasks(project, root)
            gc.freeze()  # as `benchmarks.real_context` does
            for t in tasks:
                text, offset = blanked(t.path, t.line)
                pdoc = ParsedDocument.open(Document(t.path.as_uri(), text, "", 1), str(t.path))
                seen = None
                for attempt in range(max(1, repeat)):
                    ranking.forget()
                    if profile is not None and attempt == 0:
                        profile.enable()
                    t0 = time.perf_counter()
                    ctx = assemble_context(pdoc, offset, budget_tokens=budget, workspace=ws)
                    elapsed = (time.perf_counter() - t0) * 1000
                    if profile is not None and attempt == 0:
                        profile.disable()
                    if attempt == 0:
                        times[lang].append(elapsed)
                    digest = hashlib.sha256(request_text(ctx, ws, str(t.path), pdoc.spec)
                                            .encode("utf-8", "surrogatepass")).hexdigest()
                    if seen is not None and digest != seen:
                        digest = f"unstable:{seen}:{digest}"
                    seen = digest
                key = f"{project.key}:{t.path.relative_to(root)}:{t.line}:{t.name}"
                out[key] = seen
    return out, times


def main(argv: list[str] | None = None) -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":  # a fixed set order (see above)
        env = dict(os.environ, PYTHONHASHSEED="0")
        return subprocess.call([sys.executable, "-m", "benchmarks.real_context_identity",
                                *(sys.argv[1:] if argv is None else argv)], env=env)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="FILE")
    group.add_argument("--check", metavar="FILE")
    parser.add_argument("--lang", action="append", choices=LANGUAGES)
    parser.add_argument("--split", action="append", choices=("dev", "test"))
    parser.add_argument("--budget", type=int, default=2048)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="print the N most expensive functions (cumulative)")
    args = parser.parse_args(argv)
    languages = tuple(args.lang) if args.lang else LANGUAGES
    splits = tuple(args.split) if args.split else ("dev",)
    prof = cProfile.Profile() if args.profile else None
    got, times = digests(languages, splits, args.budget, args.repeat, prof)
    for lang, values in times.items():
        values = sorted(values)
        if values:
            print(f"{lang:<7} {len(values):4d} tasks  p50 {values[len(values) // 2]:7.2f} ms  "
                  f"p99 {values[min(len(values) - 1, int(0.99 * len(values)))]:7.2f} ms")
    unstable = [k for k, v in got.items() if v.startswith("unstable:")]
    for k in unstable:
        print("UNSTABLE (a repeat differs)", k)
    if prof is not None:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(args.profile)
    if args.write:
        with open(args.write, "w") as f:
            json.dump(got, f, indent=0, sort_keys=True)
        print(f"wrote {len(got)} request digests to {args.write}")
        return 1 if unstable else 0
    if args.check:
        with open(args.check) as f:
            want = json.load(f)
        common = [k for k in got if k in want]
        differ = [k for k in common if got[k] != want[k]]
        ran = {k.split(":")[0] for k in got}  # the projects of the languages and splits run
        missing = [k for k in want if k not in got and k.split(":")[0] in ran]
        for k in differ:
            print("DIFFERS", k)
        for k in missing:
            print("MISSING", k)
        print(f"{len(common) - len(differ)} of {len(common)} requests identical; "
              f"{len(differ)} differ, {len(missing)} missing")
        return 1 if differ or missing or unstable else 0
    return 1 if unstable else 0


if __name__ == "__main__":
    sys.exit(main())
