"""Prompt-cache hits while typing a method body into real files, per language.

In files of the fetched dev projects (`benchmarks.real_context_sources`), a function or
method with a body of at least `BODY_LINES` lines is chosen (fixed seed); `BODY_LINES`
lines of its body are removed and typed back character by character by the typist of
`benchmarks.economy` (bursts, pauses, accepting correct suggestions with Tab), each
keystroke asking for an inline completion. The fake DeepSeek server answers after
`MODEL_LATENCY_MS` and simulates the prefix cache (64-token units). Two variants run
the same replay against fresh servers, in the same run:

- `flashls`: the engine with the context engine as shipped;
- `before`: the same engine with the context engine of `real_context.BASELINE_COMMIT`.

Reported per language and overall: prompt-cache hit ratio (hit / prompt tokens) and
requests per 100 keystrokes.

`--churn` adds, per language, where the prompt tokens that missed the cache went:
each task's first request, the text after the last 64-token unit the previous request
stored (what was typed since; the suffix, which never hits; a moved window start: all
three in the window), and the part where a prompt first differs
from the previous one in the file (a neighbor file, the outline, recent code, the
window), with the requests it happened in.

Run: `python -m benchmarks.real_context_replay [--scale 0.3] [--json] [--churn] [--no-before]`.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import random
import re
import sys
import zlib
from pathlib import Path

from benchmarks.economy import (Counters, Task, make_responder, scaled_debouncer, summarize,
                               tally_usage, type_task)
from benchmarks.real_context import BASELINE_COMMIT, load_baseline
from benchmarks.real_context_sources import available
from flashls.completion.factory import WorkspaceContext, build_engine
from flashls.context.analysis import analyze
from flashls.context.languages import language_for
from flashls.model.deepseek import DeepSeekClient
from flashls.settings import Settings
from tests.fake_deepseek import FakeDeepSeek, request_input, tokenize

MODEL_LATENCY_MS = 150
BODY_LINES = 10
MIN_FILE_LINES = 250
SEED = 1414
LANGS = {"python": (".py",), "js": (".ts", ".js"), "go": (".go",), "rust": (".rs",)}
# replayed only when asked for (`--lang java`): not part of the default figures
MORE_LANGS = {"java": (".java",), "cpp": (".cpp", ".cc", ".hpp", ".h")}


def pick_tasks(language: str, per_language: int,
               splits: tuple[str, ...] = ("dev",)) -> list[tuple[Task, Path]]:
    """(task, project root): a body of BODY_LINES lines in a long file, one per project
    of `splits` until `per_language` tasks are found."""
    out = []
    for project, root, _ in available(language):
        if project.split not in splits or root is None:
            continue
        files = sorted(p for p in root.rglob("*") if p.suffix in {**LANGS, **MORE_LANGS}[language]
                       and not p.name.endswith(("_test.go", ".d.ts")))
        rng = random.Random(SEED ^ zlib.crc32(project.key.encode()))
        rng.shuffle(files)
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            lines = text.split("\n")
            if len(lines) < MIN_FILE_LINES or "\r" in text:
                continue
            spec = language_for("", str(path))
            a = analyze(spec, text, ("replay", str(path), len(text)))
            bodies = [it for it in a.items if it.kind in ("function", "method")
                      and it.end - it.start >= BODY_LINES + 3]
            if not bodies:
                continue
            item = rng.choice(bodies)
            first = item.start + len(item.lines) - 1  # a line inside the body
            first = min(max(first, item.start + 1), item.end - BODY_LINES)
            start = sum(len(x) + 1 for x in lines[:first])
            target = "".join(x + "\n" for x in lines[first:first + BODY_LINES])
            out.append((Task(path, start, target), root))
            break
        if len(out) >= per_language:
            break
    return out


def tail_responder(truths: dict[str, str], good_ratio: float, seed: int):
    """`economy.make_responder`, but whether an answer is right depends on the text
    before the cursor only, not on the context parts: both variants see the same
    answers at the same place, so their keystroke counts stay comparable."""
    inner = make_responder(truths, good_ratio, seed)

    def respond(req):
        prompt = req.body.get("prompt", "")
        at = prompt.rfind(" ---\n")  # the file label: the window follows it
        window = prompt[at:] if at >= 0 else prompt
        return inner(_Request({**req.body, "prompt": window}))

    return respond


@dataclasses.dataclass
class _Request:
    body: dict


class BeforeContext(WorkspaceContext):
    """The engine's context provider with the pre-#14 context engine."""

    before = None

    def __call__(self, pdoc, offset: int, budget_tokens: int):
        return self.before.assemble_context(pdoc, offset, budget_tokens=budget_tokens,
                                            workspace=self.workspace(),
                                            open_docs=self.documents, recent=self.recent)


async def replay(variant: str, tasks: list[tuple[Task, Path]], *, scale: float, seed: int,
                 before, churn: dict | None = None) -> Counters:
    truths = {str(t.path): t.path.read_text(encoding="utf-8") for t, _ in tasks}
    fake = FakeDeepSeek(tail_responder(truths, 0.6, seed),
                        latency_s=MODEL_LATENCY_MS / 1000 * scale).start()
    client = DeepSeekClient(fake.url, "sk-bench")
    base = Settings()
    settings = dataclasses.replace(base, completion=dataclasses.replace(
        base.completion, endpoint="fim", timeout_ms=10_000))
    rng = random.Random(seed)
    counters = Counters()
    try:
        for task, root in tasks:
            docs: dict = {}
            ws_root = [root]
            engine = build_engine(client, settings=lambda: settings, documents=docs,
                                  roots=lambda: ws_root,
                                  path_of=lambda uri, r=root: str(Path(uri[7:]).relative_to(r)))
            if variant == "before":
                ctx = BeforeContext(lambda: settings, docs, lambda: ws_root)
                ctx.before = before
                engine.context = ctx
            engine.debouncer = scaled_debouncer(scale)
            counters.task_starts.append(len(fake.completion_requests()))
            await type_task(engine, docs, task, rng, scale, counters)
        await asyncio.sleep(0.2)
    finally:
        await client.aclose()
        fake.stop()
    tally_usage(counters, fake.completion_requests())
    if churn is not None:
        add_churn(churn, fake.completion_requests(), counters.task_starts)
    return counters


_LABEL = re.compile(r"^\S* ?--- (?:(from|outline of|recently edited in) )?(.+?) ---$", re.M)


def _section(prompt: str, at: int) -> str:
    """Which part of a FIM prompt holds character `at`: the tier and file of the
    label before it (`completion/prompt.py`), "window" after the file's own label."""
    name = "head"
    for m in _LABEL.finditer(prompt):
        if m.start() > at:
            break
        name = f"{m.group(1) or 'window'}: {m.group(2)}" if m.group(1) else "window"
    return name


def _window_head(prompt: str) -> str:
    """The window's first line: the text after the last label line of the prompt."""
    labels = list(_LABEL.finditer(prompt))
    rest = prompt[labels[-1].end() + 1:] if labels else prompt
    return rest.split("\n", 1)[0]


def add_churn(churn: dict, requests, task_starts: list[int]) -> None:
    """Tally where each request's missed tokens went (see the module docstring).

    A miss in the window is split three ways: "suffix" (the fill-in-the-middle hole
    and the text after the cursor, which follow the prompt and never hit), "window
    start" (the window's first line changed: the whole window misses), and "typed
    since" (the rest: from the last 64-token unit before the first difference to the
    cursor)."""
    firsts = set(task_starts)
    prev, prev_prompt = None, ""
    for index, req in enumerate(requests):
        text = request_input(req.path, req.body)
        tokens = tokenize(text)
        missed = req.usage.get("prompt_tokens", 0) - req.usage.get("prompt_cache_hit_tokens", 0)
        if index in firsts or prev is None:
            churn["first request"] = churn.get("first request", 0) + missed
            prev, prev_prompt = tokens, req.body.get("prompt", "")
            continue
        common = 0
        for a, b in zip(prev, tokens):
            if a != b:
                break
            common += 1
        prompt = req.body.get("prompt", "")
        at = len("".join(tokens[:common]))
        where = _section(prompt, at) if at < len(prompt) else "suffix"
        if common >= len(prev) or where in ("window", "suffix"):
            # the difference lies in the window: what was typed since (structural)
            tail = min(missed, max(0, len(tokens) - len(tokenize(prompt))))
            churn["suffix"] = churn.get("suffix", 0) + tail
            key = "window start" if _window_head(prompt) != _window_head(prev_prompt) \
                else "typed since"
            missed -= tail
        else:
            churn.setdefault("requests", []).append(
                (index, where, missed, prev_prompt[max(0, at - 40):at + 80],
                 prompt[max(0, at - 40):at + 80]))
            key = "changed: " + where.split(":")[0]
        churn[key] = churn.get(key, 0) + missed
        prev, prev_prompt = tokens, prompt


def run(*, per_language: int = 2, scale: float = 0.3, seed: int = 7,
        languages: tuple[str, ...] = ("python", "js", "go", "rust"),
        churn: bool = False, with_before: bool = True) -> dict:
    before = load_baseline() if with_before else None
    variants = ("flashls", "before") if before is not None else ("flashls",)
    results: dict = {"latency_ms": MODEL_LATENCY_MS, "body_lines": BODY_LINES,
                     "baseline_commit": BASELINE_COMMIT if before else None, "languages": {}}
    totals = {v: Counters() for v in variants}
    total_chars = 0
    for lang in languages:
        tasks = pick_tasks(lang, per_language)
        row = {"files": [f"{t.path.relative_to(r)}" for t, r in tasks]}
        chars = sum(len(t.target) for t, _ in tasks)
        total_chars += chars
        for v in variants:
            tally: dict | None = {} if churn else None
            c = asyncio.run(replay(v, tasks, scale=scale, seed=seed, before=before,
                                   churn=tally))
            s = summarize(c)
            row[v] = {k: s[k] for k in ("keystrokes", "requests_per_100_keys",
                                        "cache_hit_ratio", "cache_hit_ratio_same_file")}
            # keystrokes differ when suggestions are accepted: characters do not
            row[v]["requests_per_100_chars"] = round(c.requests * 100 / max(1, chars), 1)
            if tally is not None:
                row[v]["churn"] = tally
            t = totals[v]
            for f in ("keystrokes", "requests", "hit_tokens", "prompt_tokens",
                      "warm_hit_tokens", "warm_prompt_tokens", "output_tokens"):
                setattr(t, f, getattr(t, f) + getattr(c, f))
        results["languages"][lang] = row
    results["overall"] = {v: {k: summarize(t)[k] for k in (
        "keystrokes", "requests_per_100_keys", "cache_hit_ratio", "cache_hit_ratio_same_file")}
        for v, t in totals.items()}
    for v, t in totals.items():
        results["overall"][v]["requests_per_100_chars"] = round(
            t.requests * 100 / max(1, total_chars), 1)
    return results


def render(r: dict) -> str:
    out = [f"Typing {r['body_lines']}-line bodies into real files, model latency "
           f"{r['latency_ms']} ms (before = commit {r['baseline_commit'] or 'n/a'})",
           f"  {'language':<9}{'variant':<9}{'keys':>6}{'req/100':>9}{'req/100ch':>10}"
           f"{'cache hit':>11}{'same file':>11}"]
    rows = list(r["languages"].items()) + [("all", r["overall"])]
    for lang, row in rows:
        for v in ("flashls", "before"):
            if v in row:
                s = row[v]
                out.append(f"  {lang:<9}{v:<9}{s['keystrokes']:>6}{s['requests_per_100_keys']:>9}"
                           f"{s['requests_per_100_chars']:>10}"
                           f"{s['cache_hit_ratio']:>11.3f}{s['cache_hit_ratio_same_file']:>11.3f}")
    for lang, row in r["languages"].items():
        out.append(f"  {lang} files: {', '.join(row['files'])}")
    for lang, row in r["languages"].items():
        for v in ("flashls", "before"):
            tally = row.get(v, {}).get("churn")
            if not tally:
                continue
            total = sum(n for k, n in tally.items() if k != "requests")
            out.append(f"  {lang} {v}: missed prompt tokens {total}: " + ", ".join(
                f"{k} {n}" for k, n in sorted(tally.items()) if k != "requests"))
            for index, where, lost, was, now in tally.get("requests", [])[:12]:
                out.append(f"      request {index}: {where} ({lost} tokens missed)\n"
                           f"        was {was!r}\n        now {now!r}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-language", type=int, default=2)
    parser.add_argument("--scale", type=float, default=0.3)
    parser.add_argument("--lang", action="append", choices=tuple(LANGS) + tuple(MORE_LANGS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--churn", action="store_true",
                        help="where the missed prompt tokens went")
    parser.add_argument("--seed", type=int, default=7, help="the typist's random seed")
    parser.add_argument("--no-before", action="store_true",
                        help="leave out the engine of BASELINE_COMMIT (half the time)")
    args = parser.parse_args(argv)
    r = run(per_language=args.per_language, scale=args.scale, seed=args.seed,
            languages=tuple(args.lang) if args.lang else tuple(LANGS), churn=args.churn,
            with_before=not args.no_before)
    print(json.dumps(r, indent=2) if args.json else render(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
