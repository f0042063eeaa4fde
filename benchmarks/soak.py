"""Soak: an hour of typing compressed into minutes against one real flashls process.

A simulated user types into many documents (bursts of keystrokes, pauses, opening and
closing files), asking for an inline completion after most keystrokes, against the
fake DeepSeek with a model latency. Every few seconds the benchmark samples the
server's RSS (from /proc/<pid>/status), the engine's cache sizes and in-flight state
(`flashls.debugStats`), and the fake's open connections; at the end it reports the RSS
slope after warm-up. A leak shows as a slope; a bounded process is flat.

    python -m benchmarks.soak            # ~2 minutes, 1 simulated hour
    python -m benchmarks.soak --quick    # ~10 s (used by the test suite)
    python -m benchmarks.soak --gc-policy both --big-every 8
        # the server's GC policy on, then off (same seed), with a 15,000-line file
        # opened, typed in and closed every 8 steps; prints the two RSS rows

`RawLsp` is a minimal stdio LSP client that does not wait for answers before sending
the next message (pipelining), so it can also pour garbage into a server (fuzzing)
and read the server's stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashls.lsp.debug_handlers import rss_kb as process_rss_kb

ROOT = Path(__file__).resolve().parent.parent
SERVER_COMMAND = [sys.executable, "-m", "flashls"]


# -- a raw, pipelining stdio client ---------------------------------------------------
class RawLsp:
    """Speak JSON-RPC to a server process with no framework in between."""

    def __init__(self, settings: dict | None = None):
        self.settings = settings or {}
        self.proc: asyncio.subprocess.Process | None = None
        self.pending: dict[Any, asyncio.Future] = {}
        self.notifications: list[dict] = []
        self.server_requests: list[dict] = []
        self.stderr = bytearray()
        self.max_stderr = 4_000_000
        self._ids = iter(range(1, 1 << 62))
        self._tasks: list[asyncio.Task] = []
        self.closed = asyncio.Event()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self, command: list[str] | None = None, env: dict | None = None) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *(command or SERVER_COMMAND), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **(env or {})}, limit=1 << 24)
        self._tasks = [asyncio.create_task(self._read()),
                       asyncio.create_task(self._read_stderr())]

    # -- sending ------------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write(data)

    def send(self, message: Any) -> None:
        body = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any = None, *, msg_id: Any = None) -> asyncio.Future:
        msg_id = next(self._ids) if msg_id is None else msg_id
        future = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = future
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return future

    def notify(self, method: str, params: Any = None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    async def drain(self) -> None:
        assert self.proc and self.proc.stdin
        await self.proc.stdin.drain()

    # -- receiving ----------------------------------------------------------------
    async def _read(self) -> None:
        assert self.proc and self.proc.stdout
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = await out.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                self._dispatch(json.loads(await out.readexactly(length)))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.closed.set()
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("server closed its output"))

    async def _read_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        while chunk := await self.proc.stderr.read(65536):
            self.stderr += chunk
            if len(self.stderr) > self.max_stderr:
                del self.stderr[: len(self.stderr) - self.max_stderr]

    def _dispatch(self, message: dict) -> None:
        if "method" in message and "id" in message:  # a request from the server
            self.server_requests.append(message)
            self.send({"jsonrpc": "2.0", "id": message["id"],
                       "result": self._answer(message["method"], message.get("params"))})
        elif "method" in message:
            self.notifications.append(message)
            if len(self.notifications) > 20000:
                del self.notifications[:10000]
        else:
            future = self.pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)

    def _answer(self, method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            return [self.settings if item.get("section") == "flashls" else None
                    for item in (params or {}).get("items", [])]
        return None

    def messages(self, method: str = "window/showMessage") -> list[str]:
        return [n["params"]["message"] for n in self.notifications if n["method"] == method]

    # -- lifecycle ----------------------------------------------------------------
    async def initialize(self, root: Path, *, encoding: str = "utf-16",
                         inline: bool = True) -> dict:
        caps = {"general": {"positionEncodings": [encoding]},
                "workspace": {"configuration": True, "workspaceFolders": True},
                "textDocument": {"synchronization": {}, "completion": {}}}
        if inline:
            caps["textDocument"]["inlineCompletion"] = {}
        result = await self.request("initialize", {
            "processId": os.getpid(), "capabilities": caps, "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": self.settings})
        self.notify("initialized", {})
        return result

    async def ask(self, method: str, params: Any = None, timeout_s: float = 30.0) -> dict:
        return await asyncio.wait_for(self.request(method, params), timeout_s)

    async def shutdown(self, timeout_s: float = 10.0) -> int | None:
        """shutdown + exit; returns the exit code (None if it had to be killed)."""
        assert self.proc
        try:
            if self.proc.returncode is None and not self.closed.is_set():
                await asyncio.wait_for(self.request("shutdown"), timeout_s)
                self.notify("exit")
                await self.drain()
        except (asyncio.TimeoutError, ConnectionError, BrokenPipeError):
            pass
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout_s)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            code = None
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        return code

    # -- conveniences -------------------------------------------------------------
    def open(self, uri: str, text: str, language: str = "python", version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": version, "text": text}})

    def change(self, uri: str, version: int, start: tuple[int, int], end: tuple[int, int],
               text: str) -> None:
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {
                "start": {"line": start[0], "character": start[1]},
                "end": {"line": end[0], "character": end[1]}}, "text": text}]})

    def close(self, uri: str) -> None:
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def inline(self, uri: str, line: int, character: int, invoked: bool = False
               ) -> asyncio.Future:
        return self.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character},
            "context": {"triggerKind": 1 if invoked else 2}})

    async def command(self, name: str, *args: Any, timeout_s: float = 30.0) -> dict:
        return await self.ask("workspace/executeCommand",
                              {"command": name, "arguments": list(args)}, timeout_s)


def open_sockets(pid: int) -> int:
    """Sockets the process holds open (its HTTP connections, plus asyncio's self-pipe)."""
    count = 0
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                    count += 1
            except OSError:
                continue
    except OSError:
        return -1
    return count


def rss_kb(pid: int) -> int:
    return process_rss_kb(pid) or 0



# -- the simulated user -------------------------------------------------------------------
WORKSPACES = ROOT / "fixtures" / "workspaces"
LANGUAGE_IDS = {".py": "python", ".js": "javascript", ".ts": "typescript",
                ".tsx": "typescriptreact", ".go": "go", ".rs": "rust", ".java": "java",
                ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp"}


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass
class OpenDoc:
    uri: str
    language: str
    lines: list[str]
    version: int = 1
    pending: asyncio.Future | None = None
    pending_id: int | None = None


@dataclass
class Counters:
    keystrokes: int = 0
    requests: int = 0
    cancels: int = 0
    answered: int = 0
    suggestions: int = 0
    accepted: int = 0
    errors: int = 0
    opened: int = 0
    closed: int = 0
    error_samples: list = field(default_factory=list)


class Typist:
    """Types real code lines into real workspace files, like an editor would send it."""

    def __init__(self, client: RawLsp, rng: random.Random, scale: float, max_open: int,
                 root: Path = WORKSPACES, big: Path | None = None, big_every: int = 0):
        self.client = client
        self.rng = rng
        self.scale = scale  # simulated seconds per wall second
        self.max_open = max_open
        self.big, self.big_every, self.steps = big, big_every, 0
        self.files = sorted(p for p in root.rglob("*")
                            if p.suffix in LANGUAGE_IDS and p != big)
        self.lines_by_language: dict[str, list[str]] = {}
        for path in self.files:
            language = LANGUAGE_IDS[path.suffix]
            self.lines_by_language.setdefault(language, []).extend(
                line for line in path.read_text(encoding="utf-8").splitlines()
                if 8 <= len(line.strip()) <= 90)
        self.open: dict[str, OpenDoc] = {}
        self.current: OpenDoc | None = None
        self.counters = Counters()

    async def pause(self, simulated_s: float) -> None:
        await asyncio.sleep(max(0.0, simulated_s / self.scale))

    def open_file(self) -> OpenDoc:
        path = self.rng.choice(self.files)
        uri = path.as_uri()
        if uri in self.open:
            return self.open[uri]
        if len(self.open) >= self.max_open:
            oldest = next(iter(self.open))
            self.close(self.open[oldest])
        text = path.read_text(encoding="utf-8")
        doc = OpenDoc(uri, LANGUAGE_IDS[path.suffix], text.split("\n"))
        self.client.open(uri, text, doc.language)
        self.open[uri] = doc
        self.counters.opened += 1
        return doc

    def close(self, doc: OpenDoc) -> None:
        self.cancel_pending(doc)
        self.client.close(doc.uri)
        self.open.pop(doc.uri, None)
        self.counters.closed += 1
        if self.current is doc:
            self.current = None

    def cancel_pending(self, doc: OpenDoc) -> None:
        if doc.pending is not None and not doc.pending.done():
            self.client.notify("$/cancelRequest", {"id": doc.pending_id})
            self.counters.cancels += 1
        doc.pending = None

    def edit(self, doc: OpenDoc, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        """Apply an edit to our mirror and send it (positions in UTF-16)."""
        (sl, sc), (el, ec) = start, end
        head = doc.lines[sl][:sc]
        tail = doc.lines[el][ec:]
        new = (head + text + tail).split("\n")
        pos = lambda line, col: (line, utf16(doc.lines[line][:col]))
        lsp_start, lsp_end = pos(sl, sc), pos(el, ec)
        doc.lines[sl:el + 1] = new
        doc.version += 1
        self.client.change(doc.uri, doc.version, lsp_start, lsp_end, text)

    def ask(self, doc: OpenDoc, line: int, col: int) -> None:
        self.cancel_pending(doc)  # editors cancel the previous request on a keystroke
        future = self.client.inline(doc.uri, line, utf16(doc.lines[line][:col]))
        doc.pending_id = max(self.client.pending) if self.client.pending else None
        doc.pending = future
        self.counters.requests += 1
        future.add_done_callback(self._count)

    def _count(self, future: asyncio.Future) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        answer = future.result()
        self.counters.answered += 1
        if "error" in answer:
            if answer["error"].get("code") != -32800:  # cancelled: expected
                self.counters.errors += 1
                if len(self.counters.error_samples) < 5:
                    self.counters.error_samples.append(answer["error"].get("message", "")[:200])
        elif (answer.get("result") or {}).get("items"):
            self.counters.suggestions += 1

    async def type_line(self, doc: OpenDoc) -> None:
        """Open a new line somewhere and type a real line of code into it."""
        rng = self.rng
        target = rng.choice(self.lines_by_language.get(doc.language) or ["x = 1"])
        at = rng.randrange(len(doc.lines))
        indent = target[: len(target) - len(target.lstrip())]
        self.edit(doc, (at, len(doc.lines[at])), (at, len(doc.lines[at])), "\n" + indent)
        line, col = at + 1, len(indent)
        body = target.strip()
        i = 0
        while i < len(body):
            if rng.random() < 0.04 and col > len(indent):  # a typo, then backspace
                self.edit(doc, (line, col - 1), (line, col), "")
                col -= 1
                i -= 1
                self.counters.keystrokes += 1
                await self.pause(rng.lognormvariate(-1.6, 0.5))
                continue
            ch = body[i]
            self.edit(doc, (line, col), (line, col), ch)
            col += 1
            i += 1
            self.counters.keystrokes += 1
            if rng.random() < 0.85:
                self.ask(doc, line, col)
            await self.pause(rng.lognormvariate(-1.9, 0.6))  # ~150 ms between keys
            if rng.random() < 0.03:
                if await self.maybe_accept(doc, line, col):
                    return
                await self.pause(rng.uniform(0.5, 3.0))  # thinking mid-line
        await self.maybe_accept(doc, line, col)

    async def maybe_accept(self, doc: OpenDoc, line: int, col: int) -> bool:
        future = doc.pending
        if future is None:
            return False
        try:
            answer = await asyncio.wait_for(asyncio.shield(future), 10)
        except (asyncio.TimeoutError, ConnectionError):
            return False
        items = (answer.get("result") or {}).get("items") or []
        if not items or self.rng.random() > 0.3 or doc.uri not in self.open:
            return False
        text = items[0]["insertText"]
        if isinstance(text, dict):
            text = text.get("value", "")
        self.edit(doc, (line, col), (line, col), text)
        command = items[0].get("command") or {}
        if command.get("command"):
            self.client.request("workspace/executeCommand", {
                "command": command["command"], "arguments": command.get("arguments", [])})
        self.counters.accepted += 1
        return True

    async def big_cycle(self) -> None:
        """Open the big file (prepared in the background, its tables frozen), type a
        line into it, close it: what a closed big document leaves must not stay."""
        assert self.big is not None
        text = self.big.read_text(encoding="utf-8")
        doc = OpenDoc(self.big.as_uri(), "python", text.split("\n"))
        self.client.open(doc.uri, text, doc.language)
        self.open[doc.uri] = doc
        self.counters.opened += 1
        await self.pause(self.rng.uniform(3.0, 6.0))
        await self.type_line(doc)
        self.close(doc)

    async def step(self) -> None:
        rng = self.rng
        self.steps += 1
        if self.big is not None and self.big_every and self.steps % self.big_every == 0:
            await self.big_cycle()
            return
        if self.current is None or rng.random() < 0.12:
            self.current = self.open_file()
        doc = self.current
        roll = rng.random()
        if roll < 0.78:
            await self.type_line(doc)
        elif roll < 0.86 and len(doc.lines) > 20:  # delete a block
            start = rng.randrange(len(doc.lines) - 10)
            self.edit(doc, (start, 0), (start + rng.randint(1, 8), 0), "")
        elif roll < 0.90:  # paste a block
            block = "\n".join(rng.sample(self.lines_by_language.get(doc.language) or ["x"],
                                         k=min(20, len(self.lines_by_language.get(
                                             doc.language) or ["x"]))))
            at = rng.randrange(len(doc.lines))
            self.edit(doc, (at, 0), (at, 0), block + "\n")
        elif roll < 0.94:
            self.client.notify("textDocument/didSave", {"textDocument": {"uri": doc.uri}})
        else:
            self.close(doc)
        await self.pause(rng.uniform(1.0, 6.0))  # between lines: reading, thinking


# -- the benchmark -------------------------------------------------------------------------
def soak_reply(rng: random.Random):
    from tests.fake_deepseek import Reply
    words = ["value", "result", "items", "count", "name", "self", "total", "config"]

    def respond(req) -> Reply:
        prompt = req.body.get("prompt") or ""
        if rng.random() < 0.1:
            return Reply(text="")
        text = "".join(rng.choice(words) + rng.choice([".", "(", ", ", " + ", ")"])
                       for _ in range(rng.randint(1, 5)))
        if prompt.endswith("(") and rng.random() < 0.5:
            text += ")"
        return Reply(text=text, chunk_chars=6)
    return respond


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (simulated seconds, value) in value per simulated hour."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in points) / sxx * 3600.0


def big_workspace(target: Path) -> Path:
    """A copy of the soak's workspaces plus a 15,000-line Python file (`--big-every`)."""
    from benchmarks.bigfiles import synthetic_python
    shutil.copytree(WORKSPACES, target, dirs_exist_ok=True)
    big = target / "big_synthetic.py"
    big.write_text(synthetic_python(), encoding="utf-8")
    return big


async def _run(minutes: float, simulated_hours: float, max_open: int, latency_ms: float,
               seed: int, samples: int, verbose: bool, trace: bool = False,
               release: bool = False, gc_policy: str = "on", big_every: int = 0,
               min_keystrokes: int = 0) -> dict:
    from tests.fake_deepseek import FakeDeepSeek
    rng = random.Random(seed)
    fake = FakeDeepSeek(soak_reply(random.Random(seed + 1)),
                        latency_s=latency_ms / 1000.0).start()
    wall_s = minutes * 60.0
    scale = simulated_hours * 3600.0 / wall_s
    # the debounce is wall-clock: compress it with the typing, as if 250 ms real
    client = RawLsp({"baseUrl": fake.url, "apiKey": "sk-soak-benchmark-key-0000",
                     "completion": {"timeoutMs": 4000,
                                    "debounceMs": max(1, round(250 / scale))}})
    state = tempfile.mkdtemp(prefix="flashls-soak-")  # never the user's real usage ledger
    root, big = WORKSPACES, None
    if big_every:
        root = Path(state) / "workspace"
        big = big_workspace(root)
    await client.start(env={"XDG_STATE_HOME": state, "FLASHLS_GC_POLICY": gc_policy,
                            **({"PYTHONTRACEMALLOC": "1"} if trace else {})})
    await client.initialize(root)
    typist = Typist(client, rng, scale, max_open, root, big, big_every)
    upstream_total = 0
    rows: list[dict] = []
    started = time.monotonic()

    async def sample() -> None:
        nonlocal upstream_total
        stats = (await client.command("flashls.debugStats",
                                      {"releaseMemory": release}))["result"]
        released = stats.get("releasedMemory") or {}
        with fake._lock:  # keep the benchmark's own memory flat (the fake's cache stays)
            upstream_total += len(fake.requests)
            fake.requests.clear()
        elapsed = time.monotonic() - started
        row = {"wall_s": round(elapsed, 1), "sim_min": round(elapsed * scale / 60.0, 1),
               "rss_kb": released.get("rssBeforeKb") or rss_kb(client.pid),
               "rss_released_kb": released.get("rssAfterKb"), "docs": stats["documents"],
               "cache_entries": stats["cache"]["entries"],
               "cache_kb": round((stats["cache"]["bytes"] or 0) / 1024),
               "tasks": stats["tasks"], "jobs": stats["jobs"],
               "generations": stats["generations"], "connections": fake.open_connections,
               "sockets": open_sockets(client.pid),
               "keystrokes": typist.counters.keystrokes, "upstream": upstream_total,
               "module_caches": stats["moduleCaches"],
               "protocol_pending": sum((stats.get("protocolPending") or {}).values()),
               "gc_frozen": stats.get("gcFrozen"), "gc_policy": stats.get("gcPolicy") or {},
               "tracemalloc": stats.get("tracemalloc", [])}
        rows.append(row)
        if verbose:
            print(f"{row['sim_min']:7.1f} {row['wall_s']:7.1f} {row['rss_kb'] / 1024:8.1f} "
                  f"{row['docs']:5d} {row['cache_entries']:7d} {row['cache_kb']:7d} "
                  f"{row['tasks']:6d} {row['jobs'] + row['generations']:5d} "
                  f"{row['connections']:5d} {row['sockets']:5d} {row['keystrokes']:7d} "
                  f"{row['upstream']:7d}"
                  + (f" {row['rss_released_kb'] / 1024:8.1f}" if release else ""),
                  flush=True)

    async def sampler() -> None:
        interval = wall_s / samples
        while True:
            await asyncio.sleep(interval)
            await sample()

    if verbose:
        print(f"soak: {simulated_hours:g} simulated hour(s) in {minutes:g} min "
              f"(x{scale:.0f}), up to {max_open} open files, model latency {latency_ms:g} ms")
        print(f"{'sim min':>7} {'wall s':>7} {'RSS MB':>8} {'docs':>5} {'cache':>7} "
              f"{'cacheKB':>7} {'tasks':>6} {'busy':>5} {'conns':>5} {'socks':>5} {'keys':>7} "
              f"{'upstrm':>7}" + (f" {'released':>8}" if release else ""))
    await sample()
    sampling = asyncio.create_task(sampler())
    try:
        while (time.monotonic() - started < wall_s
               or typist.counters.keystrokes < min_keystrokes):
            await typist.step()
            await client.drain()
            if client.proc.returncode is not None:
                raise RuntimeError("the server exited during the soak")
    finally:
        sampling.cancel()
        await asyncio.gather(sampling, return_exceptions=True)
    for doc in list(typist.open.values()):  # let the last answers arrive, then idle
        if doc.pending is not None:
            try:
                await asyncio.wait_for(asyncio.shield(doc.pending), 10)
            except Exception:
                pass
    await asyncio.sleep(1.0)
    await sample()
    idle = rows[-1]
    exit_code = await client.shutdown()
    fake.stop()
    shutil.rmtree(state, ignore_errors=True)

    warm = rows[max(1, len(rows) // 4):-1] or rows
    rss_points = [(r["sim_min"] * 60.0, r["rss_kb"] / 1024.0) for r in warm]
    slope = slope_per_hour(rss_points)
    late = rows[len(rows) // 2:-1] or rows  # once the set of open files has filled up
    late_slope = slope_per_hour([(r["sim_min"] * 60.0, r["rss_kb"] / 1024.0) for r in late])
    c = typist.counters
    result = {
        "minutes": minutes, "simulated_hours": simulated_hours, "scale": round(scale, 1),
        "keystrokes": c.keystrokes, "requests": c.requests, "cancels": c.cancels,
        "answered": c.answered, "suggestions": c.suggestions, "accepted": c.accepted,
        "errors": c.errors, "error_samples": c.error_samples, "opened": c.opened,
        "closed": c.closed, "upstream": upstream_total,
        "rss_start_mb": round(rows[0]["rss_kb"] / 1024, 1),
        "rss_warm_mb": round(warm[0]["rss_kb"] / 1024, 1),
        "rss_end_mb": round(warm[-1]["rss_kb"] / 1024, 1),
        "rss_max_mb": round(max(r["rss_kb"] for r in rows) / 1024, 1),
        "rss_slope_mb_per_sim_hour": round(slope, 2),
        "rss_slope_second_half_mb_per_sim_hour": round(late_slope, 2),
        "max_cache_entries": max(r["cache_entries"] for r in rows),
        "max_cache_kb": max(r["cache_kb"] for r in rows),
        "max_module_caches": {k: max(r["module_caches"].get(k, 0) for r in rows)
                              for k in rows[-1]["module_caches"]},
        "idle": {"tasks": idle["tasks"], "jobs": idle["jobs"],
                 "generations": idle["generations"], "connections": idle["connections"],
                 "sockets": idle["sockets"], "protocol_pending": idle["protocol_pending"]},
        "exit_code": exit_code, "samples": rows, "gc_policy_switch": gc_policy,
        "big_every": big_every, "gc_frozen_end": rows[-1].get("gc_frozen"),
        "gc_policy": rows[-1].get("gc_policy"),
    }
    if verbose and trace and warm[0]["tracemalloc"]:
        first = {t["where"]: t["kb"] for t in warm[0]["tracemalloc"]}
        print("largest allocation sites now (KB, growth since warm-up):")
        for t in rows[-1]["tracemalloc"][:15]:
            print(f"  {t['kb']:8d} {t['kb'] - first.get(t['where'], 0):+8d}  {t['where']}")
    if verbose:
        print(f"keystrokes {c.keystrokes}, completion requests {c.requests} "
              f"(cancelled by the editor {c.cancels}), upstream requests {upstream_total}, "
              f"suggestions {c.suggestions}, accepted {c.accepted}, errors {c.errors}, "
              f"files opened {c.opened} / closed {c.closed}")
        print(f"RSS: start {result['rss_start_mb']} MB, after warm-up "
              f"{result['rss_warm_mb']} MB, end {result['rss_end_mb']} MB, max "
              f"{result['rss_max_mb']} MB; slope after warm-up "
              f"{result['rss_slope_mb_per_sim_hour']:+.2f} MB per simulated hour "
              f"({result['rss_slope_second_half_mb_per_sim_hour']:+.2f} over the second half)")
        print(f"gc policy {gc_policy}: frozen objects at the end {result['gc_frozen_end']}, "
              f"{result['gc_policy']}")
        print(f"cache: max {result['max_cache_entries']} entries / "
              f"{result['max_cache_kb']} KB; idle: {result['idle']}; exit code {exit_code}")
    return result


def run(minutes: float = 2.0, *, simulated_hours: float = 1.0, max_open: int = 12,
        latency_ms: float = 30.0, seed: int = 7, samples: int = 24, quick: bool = False,
        verbose: bool = False, trace: bool = False, release: bool = False,
        gc_policy: str = "on", big_every: int = 0) -> dict:
    """Run the soak and return its numbers (see the module docstring)."""
    min_keystrokes = 0
    if quick:  # a loaded machine types slower: run on until the smoke run has typed enough
        minutes, simulated_hours, samples, min_keystrokes = 10 / 60, 0.1, 6, 150
    return asyncio.run(_run(minutes, simulated_hours, max_open, latency_ms, seed, samples,
                            verbose, trace, release, gc_policy, big_every, min_keystrokes))


def compare_rows(results: dict[str, dict]) -> list[str]:
    """One line per GC policy run (`--gc-policy both`): the RSS figures side by side."""
    out = ["| GC policy | keystrokes | upstream | RSS start → after warm-up → end (max) MB | "
           "slope MB/sim h (second half) | frozen at the end | policy collections |",
           "|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        gp = r.get("gc_policy") or {}
        done = "/".join(str(gp.get(k, 0)) for k in
                        ("idle_collections", "forced_collections", "deep_collections"))
        out.append(f"| {name} | {r['keystrokes']} | {r['upstream']} | {r['rss_start_mb']} → "
                   f"{r['rss_warm_mb']} → {r['rss_end_mb']} ({r['rss_max_mb']}) | "
                   f"{r['rss_slope_mb_per_sim_hour']:+.2f} "
                   f"({r['rss_slope_second_half_mb_per_sim_hour']:+.2f}) | "
                   f"{r['gc_frozen_end']} | {done if gp.get('enabled') else '-'} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=2.0, help="wall-clock minutes")
    parser.add_argument("--hours", type=float, default=1.0, help="simulated hours of typing")
    parser.add_argument("--max-open", type=int, default=12, help="files open at once")
    parser.add_argument("--latency-ms", type=float, default=30.0, help="fake model latency")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=24)
    parser.add_argument("--quick", action="store_true", help="~10 s smoke run")
    parser.add_argument("--json", help="also write the numbers to this file")
    parser.add_argument("--release-memory", action="store_true",
                        help="at each sample, collect and malloc_trim the server first "
                             "(shows live memory apart from freed-but-kept pages)")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="trace the server's allocations and print where memory grew")
    parser.add_argument("--gc-policy", choices=("on", "off", "both"), default="on",
                        help="the server's GC policy (lsp/gc_policy); both: on, then off, "
                             "same seed, and a comparison table")
    parser.add_argument("--big-every", type=int, default=0, metavar="N",
                        help="every N steps open a 15,000-line file, type a line, close it")
    args = parser.parse_args(argv)
    results = {}
    for policy in (("on", "off") if args.gc_policy == "both" else (args.gc_policy,)):
        results[policy] = run(args.minutes, simulated_hours=args.hours,
                              max_open=args.max_open, latency_ms=args.latency_ms,
                              seed=args.seed, samples=args.samples, quick=args.quick,
                              verbose=True, trace=args.tracemalloc,
                              release=args.release_memory, gc_policy=policy,
                              big_every=args.big_every)
    if len(results) > 1:
        print("\n".join(compare_rows(results)))
    if args.json:
        only = next(iter(results.values())) if len(results) == 1 else results
        Path(args.json).write_text(json.dumps(only, indent=2))
    return 0 if all(r["errors"] == 0 and r["exit_code"] == 0
                    for r in results.values()) else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
