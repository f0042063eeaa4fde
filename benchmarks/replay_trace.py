"""The replay's prompts without the clock: a deterministic diagnosis of cache hits.

`benchmarks.real_context_replay` types in real time against a fake server, so which
keystrokes ask the model (and which suggestions are accepted) moves with the machine's
load: its hit ratio moves by ±0.01 between runs of the same code. This tool types the
same bodies into the same files character by character, with the same typist's gaps
(`economy.gap_ms`, fixed seed) and no suggestions accepted, and builds a request
(`CompletionEngine._build`, the engine's own path) after each keystroke followed by a
gap of at least `--pause` ms: the same prompts for the same code, every run. The
prefix cache is the fake server's (`PrefixCache`, 64-token units) and the misses are
split as `real_context_replay --churn` splits them. A layout change is compared here;
the replay is the measure.

Run: `python -m benchmarks.replay_trace [--lang L] [--pause 300] [--per-language 2]`.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from dataclasses import dataclass, field
from urllib.parse import unquote

from benchmarks.economy import gap_ms
from benchmarks.real_context_replay import LANGS, MORE_LANGS, add_churn, pick_tasks
from flashls.completion.factory import build_engine
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.settings import Settings
from tests.fake_deepseek import PrefixCache, request_input, tokenize

SEED = 7


@dataclass
class _Req:  # what `add_churn` reads of a recorded request
    path: str
    body: dict
    usage: dict = field(default_factory=dict)


class _NoModel:
    async def complete(self, *args, **kwargs):  # never called: requests are only built
        raise AssertionError


def trace(language: str, per_language: int = 2, pause_ms: float = 300.0) -> dict:
    """Hit ratio, requests per 100 characters and the churn split for one language."""
    base = Settings()
    settings = dataclasses.replace(base, completion=dataclasses.replace(
        base.completion, endpoint="fim"))
    rng = random.Random(SEED)
    reqs: list[_Req] = []
    starts: list[int] = []
    chars = 0
    for task, root in pick_tasks(language, per_language):
        cache = PrefixCache(64)
        docs: dict = {}
        engine = build_engine(_NoModel(), settings=lambda: settings, documents=docs,
                              roots=lambda r=root: [r],
                              path_of=lambda uri, r=root: str(
                                  __import__("pathlib").Path(unquote(uri[7:])).relative_to(r)))
        original = task.path.read_text(encoding="utf-8")
        uri = task.path.as_uri()
        text = original[:task.start] + original[task.start + len(task.target):]
        docs[uri] = pdoc = ParsedDocument.open(Document(uri, text, "", 1), str(task.path))
        starts.append(len(reqs))
        cursor = task.start
        for i, ch in enumerate(task.target):
            line, col = pdoc.doc.position_at(cursor)
            pdoc.apply_change((line, col), (line, col), ch)
            engine.note_edit(uri)
            cursor += 1
            following = task.target[i + 1] if i + 1 < len(task.target) else ""
            if gap_ms(rng, ch, following) < pause_ms and following:
                continue
            _, _, request = engine._build(pdoc.snapshot(), cursor, settings)
            body = {"prompt": request.prompt, "suffix": request.suffix}
            tokens = tokenize(request_input("/beta/completions", body))
            hit = cache.lookup_and_store(tokens)
            reqs.append(_Req("/beta/completions", body,
                             {"prompt_tokens": len(tokens), "prompt_cache_hit_tokens": hit}))
        chars += len(task.target)
        engine.forget(uri)
    churn: dict = {}
    add_churn(churn, reqs, starts)
    prompt = sum(r.usage["prompt_tokens"] for r in reqs)
    hit = sum(r.usage["prompt_cache_hit_tokens"] for r in reqs)
    return {"hit_ratio": round(hit / max(1, prompt), 4), "requests": len(reqs),
            "requests_per_100_chars": round(len(reqs) * 100 / max(1, chars), 1),
            "prompt_tokens": prompt, "churn": churn}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", action="append", choices=tuple(LANGS) + tuple(MORE_LANGS))
    parser.add_argument("--per-language", type=int, default=2)
    parser.add_argument("--pause", type=float, default=300.0,
                        help="a keystroke followed by a gap this long (ms) asks the model")
    parser.add_argument("--verbose", action="store_true", help="every head change")
    args = parser.parse_args(argv)
    for lang in args.lang or tuple(LANGS):
        r = trace(lang, args.per_language, args.pause)
        churn = r["churn"]
        split = ", ".join(f"{k} {v}" for k, v in sorted(churn.items()) if k != "requests")
        print(f"{lang:<7} hit {r['hit_ratio']:.4f}  requests {r['requests']} "
              f"({r['requests_per_100_chars']} / 100 chars)  prompt {r['prompt_tokens']}: "
              f"{split}", flush=True)
        for index, where, lost, was, now in churn.get("requests", []) if args.verbose else ():
            print(f"    request {index}: {where} ({lost})\n      was {was!r}\n      now {now!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
