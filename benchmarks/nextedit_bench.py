"""Next edit suggestions on real edit histories, and what the server adds to each.

**Quality** — cases from consecutive releases of real packages, downloaded from PyPI
as sdists and diffed (`flashls/tools/nextedit_cases.py`): every hunk of every changed
file is replayed as the user's edit, the later hunks inside the editable region are
the expected next edit, and hunks with nothing else changing near them are "no edit
needed" cases. Every case runs through three systems in the same run — next edits,
inline completion alone, no edit — against the fake DeepSeek on loopback (real HTTP,
streaming). **The model is a scripted fake**, so the figures measure the pipeline,
not Flash:

* `oracle` answers each request with the expected region (and, for inline
  completion, the expected insertion when the next edit is one at the cursor): the
  ceiling the pipeline lets through (region, prompt contract, answer judging,
  minimal edits, the typing guard);
* `rename-rules` is a small deterministic predictor: when the last diff in the edit
  history renames one identifier, it renames it in the region; otherwise it answers
  the region unchanged.

Latency per suggestion includes the fake's fixed model latency (`MODEL_LATENCY_S`);
cost uses DeepSeek Flash list prices on the fake's stand-in token counts.

**Server-added latency** — in process, on a 5,000-line file with a full edit history:
`prepare` (history diffs, region, signatures, prompt) plus `finish` (answer judging,
minimal edits) per request, and `note_change` per keystroke; beside the completion
engine's own prompt build at the same positions (baseline, same run).

Run: `python -m benchmarks.nextedit_bench [--out bench-out] [--quick]`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Callable

from benchmarks.latency import big_python_file, stats
from flashls.completion.factory import build_engine
from flashls.context.document import Document
from flashls.context.secrets import redact
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.model.deepseek import DeepSeekClient
from flashls.model.gate import UpstreamGate
from flashls.model.types import ModelResult, Usage
from flashls.nextedit.history import Change
from flashls.nextedit.region import CURSOR, editable_region
from flashls.nextedit.service import NextEditService
from flashls.settings import Settings
from flashls.tools.nextedit_cases import EditCase, cases_from_trees
from flashls.tools.nextedit_eval import eval_settings, render_table, report, run_all
from tests.fake_deepseek import FakeDeepSeek, Recorded, Reply

RELEASES = [("packaging", "24.1", "24.2"), ("attrs", "24.1.0", "24.2.0"),
            ("click", "8.1.7", "8.1.8")]
CACHE = Path(os.environ.get("FLASHLS_BENCH_CACHE",
                            Path.home() / ".cache" / "flashls-bench" / "sdists"))
MODEL_LATENCY_S = 0.05
REQUESTS_PER_ROUND = 5
METHOD = "textDocument/copilotInlineEdit"
FENCE = re.compile(r"^(`{3,})[^\n]*\n(.*?)\n\1$", re.S | re.M)


# -- real edit histories -----------------------------------------------------------------
def sdist(name: str, version: str) -> Path:
    """The unpacked sdist of name==version (downloaded once with pip, then cached)."""
    target = CACHE / f"{name}-{version}"
    if target.is_dir():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", f"{name}=={version}", "-d", str(CACHE)],
                   check=True, capture_output=True, timeout=300)
    archive = next(p for p in CACHE.glob("*.tar.gz")
                   if p.name.lower().replace("_", "-").startswith(f"{name}-{version}".lower()))
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    unpacked = next(p for p in CACHE.iterdir() if p.is_dir() and
                    p.name.lower().replace("_", "-") == f"{name}-{version}".lower())
    if unpacked != target:
        unpacked.rename(target)
    return target


def release_cases(region_lines: int) -> tuple[list[EditCase], list[dict]]:
    cases, sources = [], []
    for name, old, new in RELEASES:
        a, b = sdist(name, old), sdist(name, new)
        found = cases_from_trees(a, b, f"{name} {old} -> {new}", region_lines=region_lines)
        sources.append({"package": name, "from": old, "to": new, "cases": len(found),
                        "edit": sum(c.category == "edit" for c in found)})
        cases.extend(found)
    return cases, sources


# -- scripted fake models ------------------------------------------------------------------
def region_from(req: Recorded) -> str:
    user = [m for m in req.body["messages"] if m["role"] == "user"][-1]["content"]
    return [m.group(2) for m in FENCE.finditer(user)][-1].replace(CURSOR, "")


def expected_region(case: EditCase, region_lines: int) -> str:
    region = editable_region(Document("file:///x", case.edited), case.cursor, region_lines)
    prefix, suffix = case.edited[:region.start], case.edited[region.end:]
    return case.expected[len(prefix):len(case.expected) - len(suffix)]


def expected_insertion(case: EditCase) -> str:
    """The expected next edit when it is one insertion at the cursor, else ""."""
    head, tail = case.edited[:case.cursor], case.edited[case.cursor:]
    grown = len(case.expected) - len(case.edited)
    if grown > 0 and case.expected.startswith(head) and case.expected.endswith(tail):
        return case.expected[case.cursor:case.cursor + grown]
    return ""


def oracle(case: EditCase, region_lines: int) -> Callable[[Recorded], Reply]:
    # it sees what a real model sees: secrets in the region arrive as markers
    answer = redact(expected_region(case, region_lines))
    insertion = expected_insertion(case)

    def respond(req: Recorded) -> Reply:
        if req.path.endswith("/beta/completions"):
            return Reply(text=insertion)
        return Reply(text=f"```{case.language_id}\n{answer}\n```")
    return respond


def rename_rules(case: EditCase, region_lines: int) -> Callable[[Recorded], Reply]:
    def respond(req: Recorded) -> Reply:
        if req.path.endswith("/beta/completions"):
            return Reply(text="")
        user = req.body["messages"][-1]["content"]
        region = region_from(req)
        removed = re.findall(r"^-(?!--)(.*)$", user, re.M)
        added = re.findall(r"^\+(?!\+\+)(.*)$", user, re.M)
        if removed and added:
            old = set(re.findall(r"[A-Za-z_]\w*", removed[-1]))
            new = set(re.findall(r"[A-Za-z_]\w*", added[-1]))
            gone, came = old - new, new - old
            if len(gone) == 1 and len(came) == 1:
                region = re.sub(rf"\b{re.escape(gone.pop())}\b", came.pop(), region)
        return Reply(text=f"```{case.language_id}\n{region}\n```")
    return respond


async def quality(cases: list[EditCase], settings: Settings, fake: FakeDeepSeek,
                  model_for: Callable[[EditCase, int], Callable]) -> dict:
    client = DeepSeekClient(fake.url, "sk-bench")
    region_lines = settings.next_edit.region_lines

    def on_case(case: EditCase) -> None:
        fake.responder = model_for(case, region_lines)
        fake.cache.clear()

    try:
        results = await run_all(cases, client, settings, on_case=on_case)
    finally:
        await client.aclose()
    return report(results)


# -- server-added latency ----------------------------------------------------------------------
def _result_for(text: str) -> ModelResult:
    return ModelResult(text=text, model="deepseek-flash", endpoint="chat",
                       finish_reason="stop", usage=Usage())


class _Quiet:
    sinks: list = []

    def request_started(self, *a) -> None: ...

    def request_finished(self, *a) -> None: ...


def server_added(rounds: int) -> dict:
    """In process, on a 5,000-line file inside a real workspace folder (so related
    signatures are looked up), with ten finished hunks and a burst in progress."""
    with tempfile.TemporaryDirectory() as tmp:
        return _server_added(Path(tmp), rounds)


def _server_added(root: Path, rounds: int) -> dict:
    text = big_python_file(5000)
    (root / "helpers.py").write_text("def describe(record, verbose=False):\n    return ''\n",
                                     encoding="utf-8")
    path = root / "big.py"
    text = "from helpers import describe\n" + text
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    pdoc = ParsedDocument.open(Document(uri, text, "python", 1, "utf-16"), str(path))
    documents = {uri: pdoc}
    settings = eval_settings()
    workspace = Workspace([str(root)])
    service = NextEditService(model=lambda: None, settings=lambda: settings,
                              gate=lambda: UpstreamGate(), events=_Quiet(),
                              documents=documents, allowed=lambda u: True,
                              path_of=lambda u: "big.py", workspace=lambda: workspace)
    engine = build_engine(None, settings=lambda: settings, documents=documents,
                          roots=lambda: [root], path_of=lambda u: "big.py")
    keystroke, prepare, finish, baseline, cpu = [], [], [], [], []
    lines = text.split("\n")
    gc.collect()
    gc.freeze()  # as the server does once initialized (startup objects)
    for r in range(rounds):
        line = 40 + (r * 97) % (len(lines) - 80)
        # ten edits spread over the file, then a burst of typing on one line
        for k in range(11):
            target = (line + k * 300) % (len(lines) - 1) if k < 10 else line
            for ch in "ab":
                before = pdoc.doc.text
                row = pdoc.doc.line_text(target)
                pdoc.apply_change((target, len(row)), (target, len(row)), ch)
                pdoc.doc.version += 1
                t0 = time.perf_counter()
                service.note_change(uri, before, pdoc.doc.text, Change(target, target, 0))
                keystroke.append((time.perf_counter() - t0) * 1000.0)
        pdoc.tree()  # the pause before a request reparses (Session's idle parse)
        engine.prepare(uri)
        for shift in range(REQUESTS_PER_ROUND):  # the cursor moves, the text does not
            offset = pdoc.doc.offset_at(line + shift * 3, 0)
            c0 = time.thread_time()
            t0 = time.perf_counter()
            prepared = service.prepare(uri, pdoc.doc.version, offset)
            t1 = time.perf_counter()
            region = prepared.region.text.replace("\r\n", "\n")
            answer = "```python\n" + region.replace("self", "this", 1) + "\n```"
            service.finish(prepared, _result_for(answer))
            t2 = time.perf_counter()
            cpu.append((time.thread_time() - c0) * 1000.0)
            engine.preview(uri, offset)
            t3 = time.perf_counter()
            prepare.append((t1 - t0) * 1000.0)
            finish.append((t2 - t1) * 1000.0)
            baseline.append((t3 - t2) * 1000.0)
    total = [a + b for a, b in zip(prepare, finish)]
    return {"file_lines": len(lines), "rounds": rounds, "requests": len(total),
            "per_request_ms": stats(total), "per_request_cpu_ms": stats(cpu),
            "load_average": round(os.getloadavg()[0], 1), "prepare_ms": stats(prepare),
            "finish_ms": stats(finish), "per_keystroke_ms": stats(keystroke),
            "baseline_completion_prompt_ms": stats(baseline),
            "ratio_vs_completion_prompt_p50": round(
                stats(total)["p50"] / max(stats(baseline)["p50"], 1e-6), 2)}


def _edit_one_self(req: Recorded) -> Reply:
    """Streamed like a real model (a few characters every 2 ms), so the server keeps
    up with the stream and "after upstream" is its own work, not a parsing backlog."""
    region = region_from(req)
    return Reply(text="```python\n" + region.replace("self", "this", 1) + "\n```",
                 chunk_chars=16, chunk_delay_s=0.002)


async def _round_trips(fake: FakeDeepSeek, workdir: Path, rounds: int) -> dict:
    """A real server process: type a burst on one line, pause, ask for a next edit."""
    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    await client.start_io(sys.executable, "-m", "flashls")
    settings = {"baseUrl": fake.url, "apiKey": "sk-bench", "logLevel": "error"}
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(),
        workspace_folders=[lsp.WorkspaceFolder(workdir.as_uri(), "bench")],
        initialization_options=settings))
    client.initialized(lsp.InitializedParams())
    text = big_python_file(5000)
    path = workdir / "big.py"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    lines = text.split("\n")
    version, before, after, total, stale = 1, [], [], [], []
    for i in range(rounds + 3):
        line = 40 + (i * 97) % (len(lines) - 80)
        col = len(lines[line])
        for n, ch in enumerate("xy"):
            version += 1
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(lsp.Position(line, col + n), lsp.Position(line, col + n)),
                    text=ch)]))
        lines[line] += "xy"
        await asyncio.sleep(0.2)  # the client's pause (the server reparses meanwhile)
        seen = len(fake.completion_requests())
        t0 = time.monotonic()
        result = await client.protocol.send_request_async(METHOD, {
            "textDocument": {"uri": uri, "version": version},
            "position": {"line": line, "character": col + 2}})
        t3 = time.monotonic()
        assert result is not None
        req = fake.completion_requests()[seen]
        t4 = time.monotonic()  # baseline: the same request, refused as stale at once
        await client.protocol.send_request_async(METHOD, {
            "textDocument": {"uri": uri, "version": version - 1},
            "position": {"line": line, "character": col + 2}})
        t5 = time.monotonic()
        if i >= 3:  # the first requests warm caches
            before.append((req.received_at - t0) * 1000)
            after.append((t3 - req.finished_at) * 1000)
            total.append((t3 - t0) * 1000)
            stale.append((t5 - t4) * 1000)
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.sleep(0.1)
    return {"rounds": rounds, "added_before_upstream_ms": stats(before),
            "added_after_upstream_ms": stats(after), "end_to_end_ms": stats(total),
            "baseline_stale_round_trip_ms": stats(stale),
            "model_latency_ms": MODEL_LATENCY_S * 1000}


def lsp_round_trips(rounds: int) -> dict:
    """Server-added latency through the protocol: from the request leaving the
    client to the fake receiving the upstream call, and from the fake's last byte to
    the answer reaching the client (one clock: the fake runs in this process)."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)  # keep the in-process fake's GIL waits out of it
    try:
        with FakeDeepSeek(_edit_one_self, latency_s=MODEL_LATENCY_S) as fake, \
                tempfile.TemporaryDirectory() as tmp:
            return asyncio.run(_round_trips(fake, Path(tmp), rounds))
    finally:
        sys.setswitchinterval(previous)


# -- the run -------------------------------------------------------------------------------------
def run(quick: bool = False) -> dict:
    settings = eval_settings()
    cases, sources = release_cases(settings.next_edit.region_lines)
    if quick:
        cases = cases[::4]
    out: dict = {"sources": sources, "cases": len(cases),
                 "edit_cases": sum(c.category == "edit" for c in cases),
                 "no_edit_cases": sum(c.category == "no_edit" for c in cases),
                 "model_latency_ms": MODEL_LATENCY_S * 1000,
                 "model": "scripted fake (not Flash)"}
    with FakeDeepSeek(latency_s=MODEL_LATENCY_S) as fake:
        for name, model_for in (("oracle", oracle), ("rename-rules", rename_rules)):
            out[name] = asyncio.run(quality(cases, settings, fake, model_for))
    out["server_added"] = server_added(10 if quick else 40)
    out["lsp_round_trips"] = lsp_round_trips(10 if quick else 40)
    return out


def render(results: dict) -> str:
    src = ", ".join(f"{s['package']} {s['from']} → {s['to']} ({s['cases']} cases, "
                    f"{s['edit']} with a next edit)" for s in results["sources"])
    parts = [f"Cases: {results['cases']} ({results['edit_cases']} with a next edit, "
             f"{results['no_edit_cases']} with none needed) from {src}. Model: "
             f"{results['model']}, {results['model_latency_ms']:.0f} ms to first token."]
    for name in ("oracle", "rename-rules"):
        parts.append(f"\nFake model `{name}`:\n\n" + render_table(results[name]))
    s = results["server_added"]
    parts.append(
        f"\nServer-added, {s['file_lines']}-line file, {s['requests']} requests: per request "
        f"p50 {s['per_request_ms']['p50']} ms / p99 {s['per_request_ms']['p99']} ms wall, "
        f"p99 {s['per_request_cpu_ms']['p99']} ms CPU (load average {s['load_average']}) "
        f"(prepare p99 {s['prepare_ms']['p99']}, finish p99 {s['finish_ms']['p99']}); "
        f"per keystroke p99 {s['per_keystroke_ms']['p99']} ms; completion prompt build "
        f"at the same positions p50 {s['baseline_completion_prompt_ms']['p50']} ms "
        f"(ratio {s['ratio_vs_completion_prompt_p50']}).")
    t = results["lsp_round_trips"]
    parts.append(
        f"\nThrough LSP (real server process, {t['rounds']} requests after a burst of "
        f"typing): added before upstream p50 {t['added_before_upstream_ms']['p50']} / p99 "
        f"{t['added_before_upstream_ms']['p99']} ms, after p50 "
        f"{t['added_after_upstream_ms']['p50']} / p99 {t['added_after_upstream_ms']['p99']} "
        f"ms; end to end p50 {t['end_to_end_ms']['p50']} ms with the fake's "
        f"{t['model_latency_ms']:.0f} ms; baseline (the same request refused as stale, "
        f"no upstream) p50 {t['baseline_stale_round_trip_ms']['p50']} / p99 "
        f"{t['baseline_stale_round_trip_ms']['p99']} ms.")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    results = run(args.quick)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "nextedit.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    text = render(results)
    (out / "nextedit.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
