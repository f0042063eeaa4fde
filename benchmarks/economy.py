"""Typing replay: how many upstream requests, shown suggestions, cache hits and dollars.

A simulated typist re-types lines of real files from `fixtures/` character by
character (lognormal gaps, bursts, pauses at line ends and mid-line), like an editor
that asks for an inline completion after every keystroke. The fake DeepSeek model
answers the true continuation of the line part of the time (so some suggestions are
typed through or accepted) and something wrong otherwise. Both variants run against
fresh fake servers that simulate DeepSeek's prefix cache:

- **flashls**: the engine as shipped (adaptive debounce, typed-through cache,
  in-flight reuse, stable prompt layout from the context engine);
- **naive**: fixed debounce, no cache, no in-flight reuse, a character-sliding window.

Times are scaled (`--scale`) so a replay of minutes of typing takes seconds; the
debounce bounds are scaled with them, so the ratios do not depend on the scale.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

from flashls.completion.cache import SuggestionCache
from flashls.completion.debounce import IGNORE_GAP_MS, MAX_MS, MIN_MS, Debouncer
from flashls.completion.factory import build_engine
from flashls.completion.service import CompletionEngine
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.model.deepseek import DeepSeekClient
from flashls.settings import DEFAULT_PRICES, Settings
from tests.fake_deepseek import FakeDeepSeek, Reply

ROOT = Path(__file__).resolve().parent.parent
NAIVE_DEBOUNCE_MS = 150
PAUSE_MS = 600  # a gap this long (real time) counts as a pause
MODEL_LATENCY_MS = 350


class NoCache(SuggestionCache):
    def get(self, key):
        self.misses += 1
        return None

    def put_suggestion(self, *args, **kwargs) -> None:
        pass

    def put_keyed(self, *args, **kwargs) -> None:  # (the engine's way in)
        pass


def sliding_window(pdoc: ParsedDocument, offset: int, budget_tokens: int):
    """The naive layout: a fixed number of characters before the cursor (slides per key)."""
    from flashls.completion.service import _Window
    chars = int(budget_tokens * 3.5)
    text = pdoc.doc.text
    return _Window((), text[max(0, offset - int(chars * 0.8)):offset],
                   text[offset:offset + int(chars * 0.2)])


@dataclass
class Task:
    path: Path
    start: int  # offset where the typist starts re-typing
    target: str  # the text to type


def pick_tasks(files: list[Path], rng: random.Random, count: int, lines_per_task: int) -> list[Task]:
    tasks = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        candidates = [i for i in range(5, max(6, len(lines) - lines_per_task))
                      if lines[i].strip() and len(lines[i]) < 100]
        if candidates:
            i = rng.choice(candidates)
            start = sum(len(l) for l in lines[:i])
            target = "".join(lines[i:i + lines_per_task])
            tasks.append(Task(path, start, target))
    rng.shuffle(tasks)
    return tasks[:count]


def gap_ms(rng: random.Random, prev: str, nxt: str) -> float:
    """Keystroke gap: bursts inside words, longer after punctuation, pauses at line ends."""
    base = rng.lognormvariate(4.7, 0.35)  # ~110 ms median
    if prev in " \t(,.:=":
        base *= 1.4
    if prev == "\n":
        base += rng.uniform(400, 1500) if rng.random() < 0.7 else 0
    elif rng.random() < 0.03:
        base += rng.uniform(600, 1800)  # thinking mid-line
    return base


def make_responder(truths: dict[str, str], good_ratio: float, seed: int):
    """Answer the rest of the current line when the prompt tail is found in a truth text."""

    def respond(req) -> Reply:
        body = req.body
        prompt = body.get("prompt")
        if prompt is None:  # chat: the file sits in the last message around <|fill|>
            content = body["messages"][-1]["content"]
            prompt = content.split("<|fill|>")[0]
        tail = prompt[-160:]
        digest = int(hashlib.sha1(prompt.encode()).hexdigest(), 16)
        r = random.Random(digest ^ seed)
        for truth in truths.values():
            at = truth.find(tail)
            if at >= 0:
                pos = at + len(tail)
                end = truth.find("\n", pos)
                rest = truth[pos:end if end >= 0 else len(truth)]
                if rest.strip() and r.random() < good_ratio:
                    return Reply(text=rest, chunk_chars=6)
                break
        return Reply(text=r.choice(["pass", "None", "foo(bar)", "result", "x + 1"]))

    return respond


@dataclass
class Counters:
    keystrokes: int = 0
    requests: int = 0
    shown: int = 0
    accepted: int = 0
    pauses: int = 0
    pauses_with_suggestion: int = 0
    hit_tokens: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    latencies: list[float] = field(default_factory=list)
    missed: list = field(default_factory=list)  # pauses without a suggestion: (ms, why)
    timeline: list = field(default_factory=list)  # upstream requests after each keystroke
    task_starts: list = field(default_factory=list)  # request index at each file's start
    warm_hit_tokens: int = 0
    warm_prompt_tokens: int = 0


async def replay(variant: str, tasks: list[Task], *, scale: float, seed: int,
                 good_ratio: float, endpoint: str = "fim") -> Counters:
    truths = {str(t.path): t.path.read_text(encoding="utf-8") for t in tasks}
    fake = FakeDeepSeek(make_responder(truths, good_ratio, seed),
                        latency_s=MODEL_LATENCY_MS / 1000 * scale).start()
    client = DeepSeekClient(fake.url, "sk-bench")
    base = Settings()
    naive = variant == "naive"
    settings = dataclasses.replace(base, completion=dataclasses.replace(
        base.completion, endpoint=endpoint, timeout_ms=10_000,
        speculate=variant.endswith("speculate"),
        debounce_ms=int(NAIVE_DEBOUNCE_MS * scale) if naive else None))
    docs: dict[str, ParsedDocument] = {}
    roots = [ROOT / "fixtures"]
    if naive:
        engine = CompletionEngine(client, settings=lambda: settings, documents=docs,
                                  context=sliding_window, cache=NoCache(),
                                  reuse_inflight=False)
    else:
        engine = build_engine(client, settings=lambda: settings, documents=docs,
                              roots=lambda: roots,
                              path_of=lambda uri: Path(uri[7:]).name)
        engine.debouncer = scaled_debouncer(scale)
    rng = random.Random(seed)
    counters = Counters()
    try:
        for task in tasks:
            counters.task_starts.append(len(fake.completion_requests()))
            await type_task(engine, docs, task, rng, scale, counters)
        await asyncio.sleep(0.2)
    finally:
        await client.aclose()
        fake.stop()
    tally_usage(counters, fake.completion_requests())
    return counters



def scaled_debouncer(scale: float) -> Debouncer:
    """The server's adaptive debounce with every delay scaled like the typist's."""
    return Debouncer(avg_gap_ms=140 * scale, min_ms=MIN_MS * scale, max_ms=MAX_MS * scale,
                     ignore_gap_ms=IGNORE_GAP_MS * scale)


def tally_usage(counters: Counters, requests) -> None:
    """Add the fake's usage of `requests` to `counters`; "warm" leaves out each task's
    first request (the consecutive requests in one file)."""
    firsts = set(counters.task_starts)
    for index, req in enumerate(requests):
        counters.requests += 1
        counters.hit_tokens += req.usage.get("prompt_cache_hit_tokens", 0)
        counters.prompt_tokens += req.usage.get("prompt_tokens", 0)
        counters.output_tokens += req.usage.get("completion_tokens", 0)
        if index not in firsts:
            counters.warm_hit_tokens += req.usage.get("prompt_cache_hit_tokens", 0)
            counters.warm_prompt_tokens += req.usage.get("prompt_tokens", 0)

async def type_task(engine: CompletionEngine, docs: dict, task: Task, rng: random.Random,
                    scale: float, c: Counters) -> None:
    original = task.path.read_text(encoding="utf-8")
    uri = task.path.as_uri()
    text = original[:task.start] + original[task.start + len(task.target):]
    docs[uri] = pdoc = ParsedDocument.open(Document(uri, text, "python" if task.path.suffix == ".py"
                                                    else "", 1), str(task.path))
    cursor = task.start
    typed = 0
    visible: list[str] = [""]  # suggestion currently shown (text), "" when none
    visible_id: list[str] = [""]
    pending: list[asyncio.Task] = []

    async def ask(at: int):
        visible[0] = ""
        outcome = await engine.complete(uri, at)
        if outcome.suggestions and cursor_now[0] == at:
            visible[0] = outcome.suggestions[0].text
            visible_id[0] = outcome.suggestions[0].id
            c.shown += 1
        return outcome

    cursor_now = [cursor]
    while typed < len(task.target):
        nxt = task.target[typed]
        shown = visible[0]
        remaining = task.target[typed:]
        if shown and remaining.startswith(shown) and rng.random() < 0.5:
            # accept with Tab: one keystroke inserts the whole suggestion
            insert = shown
            c.accepted += 1
        else:
            insert = nxt
        line, col = pdoc.doc.position_at(cursor)
        pdoc.apply_change((line, col), (line, col), insert)
        engine.note_edit(uri)
        c.timeline.append(engine.stats.upstream)
        if insert is shown and len(insert) > 1:
            engine.accepted(visible_id[0])
        c.keystrokes += 1
        cursor += len(insert)
        typed += len(insert)
        cursor_now[0] = cursor
        pending.append(asyncio.ensure_future(ask(cursor)))
        prev = task.target[typed - 1]
        following = task.target[typed] if typed < len(task.target) else ""
        wait = gap_ms(rng, prev, following)
        await asyncio.sleep(wait / 1000 * scale)
        if wait >= PAUSE_MS:
            c.pauses += 1
            if visible[0]:
                c.pauses_with_suggestion += 1
            else:
                last = pending[-1]
                c.missed.append((round(wait), last.result().reason if last.done() else "pending"))
    await asyncio.gather(*pending, return_exceptions=True)
    engine.forget(uri)
    docs.pop(uri, None)


def cost_usd(c: Counters, model: str = "deepseek-flash") -> float:
    hit, miss, out = DEFAULT_PRICES[model]["offPeak"]
    return (c.hit_tokens * hit + (c.prompt_tokens - c.hit_tokens) * miss
            + c.output_tokens * out) / 1e6


def summarize(c: Counters) -> dict:
    per100 = 100.0 / max(1, c.keystrokes)
    return {
        "keystrokes": c.keystrokes,
        "requests_per_100_keys": round(c.requests * per100, 1),
        "shown_per_100_keys": round(c.shown * per100, 1),
        "accepted": c.accepted,
        "pauses_with_suggestion": round(c.pauses_with_suggestion / max(1, c.pauses), 3),
        "cache_hit_ratio": round(c.hit_tokens / max(1, c.prompt_tokens), 3),
        "cache_hit_ratio_same_file": round(c.warm_hit_tokens / max(1, c.warm_prompt_tokens), 3),
        "cost_per_1000_suggestions_usd": round(cost_usd(c) / max(1, c.shown) * 1000, 5),
    }


def default_files() -> list[Path]:
    files = sorted((ROOT / "fixtures" / "workspaces").rglob("*.py"))
    files = [f for f in files if len(f.read_text(encoding="utf-8").splitlines()) > 30]
    if len(files) < 4:  # fall back to our own source: real Python, plenty of it
        files += sorted((ROOT / "flashls").rglob("*.py"))
    return [f for f in files if len(f.read_text(encoding="utf-8").splitlines()) > 30]


def run(*, tasks: int = 12, lines: int = 3, scale: float = 0.2, seed: int = 7,
        good_ratio: float = 0.6, endpoint: str = "fim",
        variants: tuple[str, ...] = ("flashls", "naive", "flashls+speculate")) -> dict:
    rng = random.Random(seed)
    chosen = pick_tasks(default_files(), rng, tasks, lines)
    results: dict = {}
    timelines = {}
    for variant in variants:
        counters = asyncio.run(replay(variant, chosen, scale=scale, seed=seed,
                                      good_ratio=good_ratio, endpoint=endpoint))
        results[variant] = summarize(counters)
        timelines[variant] = counters.timeline
    results["_timelines"] = timelines
    return results


def format_table(results: dict) -> str:
    results = {k: v for k, v in results.items() if not k.startswith("_")}
    keys = list(next(iter(results.values())))
    rows = ["| metric | " + " | ".join(results) + " |",
            "|---|" + "---|" * len(results)]
    for key in keys:
        rows.append(f"| {key} | " + " | ".join(str(results[v][key]) for v in results) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--lines", type=int, default=3)
    parser.add_argument("--scale", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--endpoint", choices=("fim", "chat"), default="fim")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = run(tasks=args.tasks, lines=args.lines, scale=args.scale, seed=args.seed,
                  endpoint=args.endpoint)
    results.pop("_timelines", None)
    print(json.dumps(results, indent=2) if args.json else format_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
