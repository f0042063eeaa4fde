"""Resident memory of a flashls process: idle, and with 100 open files being completed in.

RSS is read from /proc/<pid>/status (no psutil). The baseline is the same server
process right after `initialize`, so the figure is what open documents, their
tree-sitter trees and the caches cost.

`--big-cycles N` measures in this process instead, with a fixed amount of work per
step whatever the machine's load (the soak types as fast as the load lets it): N
times, the 15,000-line file is opened and prepared as the server does, a line is typed
into it (a context per keystroke, an idle reparse every 7), it is closed, and 7
fixture files get a line each; after each cycle, RSS after a full collection and
`malloc_trim`, live objects, and the entries of every memo (`memo_census`). A
bounded engine levels off after a few cycles.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from benchmarks.latency import big_python_file
from flashls.lsp.debug_handlers import rss_kb
from tests.fake_deepseek import FakeDeepSeek, Reply


def rss_mb(pid: int) -> float:
    return (rss_kb(pid) or 0) / 1024


async def measure(files: int, lines_per_file: int, gc_policy: str = "on") -> dict:
    fake = FakeDeepSeek(lambda req: Reply(text="value")).start()
    client = LanguageClient("bench", "1")
    client.feature("flashls/status")(lambda params: None)  # shown by editors; not here
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            await client.start_io(sys.executable, "-m", "flashls",
                                  env={**os.environ, "FLASHLS_GC_POLICY": gc_policy})
            pid = client._server.pid
            await client.initialize_async(lsp.InitializeParams(
                capabilities=lsp.ClientCapabilities(),
                workspace_folders=[lsp.WorkspaceFolder(uri=work.as_uri(), name="bench")],
                initialization_options={"baseUrl": fake.url, "apiKey": "sk-bench",
                                        "logLevel": "error",
                                        "completion": {"debounceMs": 0}}))
            client.initialized(lsp.InitializedParams())
            await asyncio.sleep(0.5)
            idle = rss_mb(pid)
            for i in range(files):
                path = work / f"module_{i}.py"
                text = big_python_file(lines_per_file)
                path.write_text(text, encoding="utf-8")
                client.text_document_did_open(lsp.DidOpenTextDocumentParams(
                    text_document=lsp.TextDocumentItem(uri=path.as_uri(), language_id="python",
                                                       version=1, text=text)))
                await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                    position=lsp.Position(line=lines_per_file // 2, character=4),
                    context=lsp.InlineCompletionContext(
                        trigger_kind=lsp.InlineCompletionTriggerKind.Invoked)))
            await asyncio.sleep(0.5)
            loaded = rss_mb(pid)
            await client.shutdown_async(None)
            client.exit(None)
            await asyncio.wait_for(client.stop(), 10)
    finally:
        fake.stop()
    return {"gc_policy": gc_policy, "files": files, "lines_per_file": lines_per_file,
            "idle_rss_mb": round(idle, 1),
            "rss_with_files_mb": round(loaded, 1),
            "rss_ratio_vs_idle": round(loaded / idle, 2) if idle else None,
            "mb_per_file": round((loaded - idle) / files, 3)}


def run(files: int = 100, lines_per_file: int = 300, gc_policy: str = "on") -> dict:
    return asyncio.run(measure(files, lines_per_file, gc_policy))


def big_cycles(cycles: int, seed: int = 3) -> list[dict]:
    """See the module docstring: one row per cycle."""
    import ctypes
    import ctypes.util
    import gc
    import random

    from benchmarks.bigfiles import synthetic_python
    from flashls.context.assemble import assemble_context, prepare_document
    from flashls.context.background import (idle_reparse_steps, idle_reparse_wanted,
                                            preparation_steps)
    from flashls.context.document import Document
    from flashls.context.memo_census import census
    from flashls.context.syntax import ParsedDocument
    languages = {".py": "python", ".ts": "typescript", ".go": "go", ".rs": "rust",
                 ".java": "java", ".c": "c"}
    root = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"
    smalls = sorted(p for p in root.rglob("*") if p.suffix in languages)
    libc = ctypes.util.find_library("c")
    trim = ctypes.CDLL(libc).malloc_trim if libc else (lambda _: 0)
    rng = random.Random(seed)
    big = synthetic_python()

    def type_line(pdoc: ParsedDocument, keys: int) -> None:
        lines = pdoc.doc.text.split("\n")
        at = rng.randrange(len(lines))
        col = len(lines[at])
        pdoc.apply_change((at, col), (at, col), "\n    ")
        line, col = at + 1, 4
        for i, ch in enumerate("value = compute(total)"[:keys]):
            pdoc.apply_change((line, col), (line, col), ch)
            pdoc.doc.version += 1
            col += 1
            snap = pdoc.snapshot()
            assemble_context(snap, snap.doc.offset_at(line, col), budget_tokens=2048)
            if pdoc.big and i % 7 == 6 and idle_reparse_wanted(pdoc):
                for _ in idle_reparse_steps(pdoc):
                    pass
                prepare_document(pdoc)

    rows = []
    for cycle in range(cycles):
        uri = "file:///w/big_synthetic.py"
        pdoc = ParsedDocument.open(Document(uri, big, "python", 1), uri)
        pdoc.background = True
        for _ in preparation_steps(pdoc):
            pass
        type_line(pdoc, 22)
        del pdoc
        for k in range(7):
            path = smalls[(cycle * 7 + k) % len(smalls)]
            small = ParsedDocument.open(Document(path.as_uri(), path.read_text(
                encoding="utf-8"), languages[path.suffix], 1), str(path))
            type_line(small, 10)
        gc.collect()
        trim(0)
        memos = census()
        rows.append({"cycle": cycle, "rss_mb": round((rss_kb() or 0) / 1024, 1),
                     "objects": len(gc.get_objects()),
                     "memo_entries": sum(m.entries for m in memos)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--gc-policy", choices=("on", "off", "both"), default="on",
                        help="the server's GC policy (lsp/gc_policy); both: on, then off")
    parser.add_argument("--big-cycles", type=int, default=0, metavar="N",
                        help="in process: open, type in and close the 15,000-line file "
                             "N times (fixed work per step), RSS per cycle")
    args = parser.parse_args(argv)
    if args.big_cycles:
        rows = big_cycles(args.big_cycles)
        for r in rows:
            print(f"cycle {r['cycle']:3d}  RSS {r['rss_mb']:7.1f} MB  objects "
                  f"{r['objects']:7d}  memo entries {r['memo_entries']:6d}", flush=True)
        half = rows[len(rows) // 2:]
        if len(half) > 1:
            print(f"second half: {(half[-1]['rss_mb'] - half[0]['rss_mb']) / (len(half) - 1):+.2f}"
                  f" MB per cycle")
        return 0
    policies = ("on", "off") if args.gc_policy == "both" else (args.gc_policy,)
    results = [run(args.files, args.lines, policy) for policy in policies]
    print(json.dumps(results[0] if len(results) == 1 else results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
