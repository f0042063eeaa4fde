"""`flashls eval --next-edit [PATH]`: next edit suggestions measured on your git history.

Each of the last `--commits` non-merge commits gives cases (`nextedit_cases`): its
first hunk in a file is replayed as your edit, the commit's later hunks near it are
the edit expected next, and files where nothing else changed nearby are "no edit
needed" cases. Every case runs through next edits, inline completion alone and "no
edit" in the same run; files `flashls.exclude` or git would never send are skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from ..context.workspace import Workspace
from ..model.deepseek import DeepSeekClient
from ..settings import DEFAULT_EXCLUDE, Settings
from .nextedit_cases import cases_from_git, limit
from .nextedit_eval import eval_settings, render_table, report, run_all


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--next-edit", action="store_true",
                        help="measure next edit suggestions on the repository's git history "
                        "instead of inline completions")
    parser.add_argument("--commits", type=int, default=50,
                        help="with --next-edit: how many recent commits to replay (default 50)")


def _allowed(root: str, exclude: list[str]):
    workspace = Workspace([root], list(DEFAULT_EXCLUDE) + list(exclude))
    return lambda rel: workspace.allowed(os.path.join(workspace.roots[0], rel))


async def evaluate_next_edits(root: str, *, model: str, base_url: str, api_key: str,
                              commits: int, cases: int, exclude: list[str],
                              progress=None) -> dict[str, Any]:
    settings = eval_settings(Settings(base_url=base_url, api_key=api_key), model=model)
    found = cases_from_git(root, commits=commits, region_lines=settings.next_edit.region_lines,
                           allowed=_allowed(root, exclude))
    chosen = limit(found, cases)
    if not chosen:
        raise ValueError(f"no next edit cases in the last {commits} commits of {root} "
                         "(modified source files of a supported language)")
    client = DeepSeekClient(base_url, api_key)
    try:
        results = await run_all(chosen, client, settings, on_case=progress)
    finally:
        await client.aclose()
    summary = report(results)
    return {"run": {"root": os.path.realpath(root), "model": model, "commits": commits,
                    "cases": len(chosen),
                    "editCases": sum(c.category == "edit" for c in chosen),
                    "noEditCases": sum(c.category == "no_edit" for c in chosen),
                    "regionLines": settings.next_edit.region_lines},
            "systems": summary,
            "perCase": [{"caseId": r.case_id, "system": r.system, "category": r.category,
                         "exact": r.exact, "similarity": round(r.similarity, 4),
                         "suggested": r.suggested, "latencyMs": r.latency_ms,
                         "error": r.error} for r in results]}


def run_cli(args: argparse.Namespace, key: str) -> int:
    if not 1 <= args.commits <= 10_000:
        print("flashls eval: --commits must be between 1 and 10000", file=sys.stderr)
        return 2
    model = (args.models or [Settings().model])[0]
    done = [0]

    def progress(case) -> None:
        done[0] += 1
        if done[0] % 10 == 0:
            print(f"eval --next-edit: {done[0]} cases", file=sys.stderr)

    try:
        result = asyncio.run(evaluate_next_edits(
            args.path, model=model, base_url=args.base_url, api_key=key,
            commits=args.commits, cases=args.cases, exclude=args.exclude, progress=progress))
    except ValueError as err:
        print(f"flashls eval: {err}", file=sys.stderr)
        return 2
    table = render_table(result["systems"])
    run = result["run"]
    text = (f"Next edit suggestions on {run['root']} ({run['model']}): {run['cases']} cases "
            f"from the last {run['commits']} commits, {run['editCases']} with a next edit, "
            f"{run['noEditCases']} with none needed.\n\n{table}\n")
    if args.report:
        try:
            with open(args.report, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as err:
            print(f"flashls eval: cannot write the report: {err}", file=sys.stderr)
            return 1
    print(json.dumps(result, indent=2) if args.json else text)
    return 0
