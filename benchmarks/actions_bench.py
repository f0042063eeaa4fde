"""Code actions: listing latency, what flashls adds around the model, validation cost.

* **Listing**: `textDocument/codeAction` round trips on a real server process (small
  file and a 5,000-line file), selections moving over the file; the fake DeepSeek
  must see no request at all.
* **Resolve**: "Simplify" on a method, model latency fixed at 200 ms by the fake.
  flashls adds (t1 - t0) before the upstream request (snapshot, context, prompt) and
  (t3 - t2) after the last byte (extraction, re-indentation, two parses for the
  syntax check, the edit). Timestamps share one clock (the fake runs in-process).
* **In-process**: `check_rewrite` (the parse check; two full parses, or as shipped an
  incremental reparse from the document's tree) and `gather` (context) alone, and
  the prompt's estimated size.

Run: `python -m benchmarks.actions_bench [--rounds 30]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from benchmarks.latency import big_python_file, stats
from flashls.actions.context import gather
from flashls.actions.prompt import rewrite_messages
from flashls.actions.selection import prepare
from flashls.actions.validate import check_rewrite
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.tokens import estimate_tokens
from tests.fake_deepseek import FakeDeepSeek, Reply

MODEL_LATENCY_S = 0.2
ANSWER = "```python\nreturn [Record0(*line.split(',')) for line in open(path)]\n```"


def method_ranges(text: str) -> list[tuple[int, int]]:
    """(first, end) lines of every `load_N` body: whole-line selections."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith("def load_"):
            end = i + 1
            while end < len(lines) and (lines[end].startswith(" ") or not lines[end]):
                end += 1
            out.append((i + 1, end))
    return out


async def measure(fake: FakeDeepSeek, text: str, rounds: int, workdir: Path) -> dict:
    client = LanguageClient("bench", "1")
    await client.start_io(sys.executable, "-m", "flashls")
    settings = {"baseUrl": fake.url, "apiKey": "sk-bench", "logLevel": "error"}
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(text_document=lsp.TextDocumentClientCapabilities(
            code_action=lsp.CodeActionClientCapabilities(
                data_support=True,
                resolve_support=lsp.ClientCodeActionResolveOptions(properties=["edit"])))),
        workspace_folders=[lsp.WorkspaceFolder(workdir.as_uri(), "bench")],
        initialization_options=settings))
    client.initialized(lsp.InitializedParams())
    path = workdir / "bench.py"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    ranges = method_ranges(text)
    listing, before, after, total = [], [], [], []
    for i in range(rounds + 3):
        first, end = ranges[(i * 7) % len(ranges)]
        rng = lsp.Range(lsp.Position(first, 0), lsp.Position(end, 0))
        t0 = time.monotonic()
        actions = await client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), range=rng,
            context=lsp.CodeActionContext(diagnostics=[])))
        listed = time.monotonic()
        if i >= 3:
            listing.append((listed - t0) * 1000)
        assert not fake.completion_requests(), "listing called the model"
    simplify = next(a for a in actions if isinstance(a, lsp.CodeAction) and a.data
                    and a.data.get("flashls") == "simplify")
    for i in range(rounds + 3):
        first, end = ranges[(i * 7) % len(ranges)]
        data = dict(simplify.data)
        data["range"] = {"start": {"line": first, "character": 0},
                         "end": {"line": end, "character": 0}}
        action = lsp.CodeAction(title=simplify.title, kind=simplify.kind, data=data)
        seen = len(fake.completion_requests())
        t0 = time.monotonic()
        resolved = await asyncio.wait_for(client.code_action_resolve_async(action), 30)
        t3 = time.monotonic()
        assert resolved.edit is not None
        req = fake.completion_requests()[seen]
        if i >= 3:
            before.append((req.received_at - t0) * 1000)
            after.append((t3 - req.finished_at) * 1000)
            total.append((t3 - t0) * 1000)
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.sleep(0.1)
    return {"listing_ms": stats(listing), "resolve_added_before_upstream_ms": stats(before),
            "resolve_added_after_upstream_ms": stats(after),
            "resolve_end_to_end_ms": stats(total)}


def in_process(text: str, repeats: int = 20) -> dict:
    pdoc = ParsedDocument.open(Document("file:///w/bench.py", text, "python", 1), "bench.py")
    first, end = method_ranges(text)[len(method_ranges(text)) // 2]
    start, stop = pdoc.doc.starts[first], pdoc.doc.starts[end]
    replacement = "    return []\n"
    t = time.perf_counter()
    for _ in range(repeats):
        assert check_rewrite(text, start, stop, replacement, pdoc.spec).ok
    check_ms = (time.perf_counter() - t) * 1000 / repeats
    tree = pdoc.tree()
    t = time.perf_counter()
    for _ in range(repeats):
        assert check_rewrite(text, start, stop, replacement, pdoc.spec, tree).ok
    incremental_ms = (time.perf_counter() - t) * 1000 / repeats
    t = time.perf_counter()
    for _ in range(repeats):
        ctx = gather(pdoc, start, stop, "bench.py")
    gather_ms = (time.perf_counter() - t) * 1000 / repeats
    msgs = rewrite_messages(ctx, prepare(text, start, stop).body, "Simplify.")
    return {"check_rewrite_full_parses_ms": round(check_ms, 2),
            "check_rewrite_incremental_ms": round(incremental_ms, 2),
            "gather_context_ms": round(gather_ms, 2),
            "prompt_tokens_estimate": sum(estimate_tokens(m.content) for m in msgs)}


def run(rounds: int = 30) -> dict:
    fake = FakeDeepSeek(lambda req: Reply(text=ANSWER), latency_s=MODEL_LATENCY_S).start()
    results: dict = {"model_latency_ms": MODEL_LATENCY_S * 1000, "rounds": rounds}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, lines in (("small_200_lines", 200), ("large_5000_lines", 5000)):
                text = big_python_file(lines)
                fake.reset()
                results[name] = asyncio.run(measure(fake, text, rounds, Path(tmp)))
                results[name]["in_process"] = in_process(text)
    finally:
        fake.stop()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args(argv)
    print(json.dumps(run(args.rounds), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
