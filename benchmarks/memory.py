"""Resident memory of a flashls process: idle, and with 100 open files being completed in.

RSS is read from /proc/<pid>/status (no psutil). The baseline is the same server
process right after `initialize`, so the figure is what open documents, their
tree-sitter trees and the caches cost.
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--gc-policy", choices=("on", "off", "both"), default="on",
                        help="the server's GC policy (lsp/gc_policy); both: on, then off")
    args = parser.parse_args(argv)
    policies = ("on", "off") if args.gc_policy == "both" else (args.gc_policy,)
    results = [run(args.files, args.lines, policy) for policy in policies]
    print(json.dumps(results[0] if len(results) == 1 else results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
