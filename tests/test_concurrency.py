"""Concurrency: many documents, overlapping requests, cancel storms, shutdown mid-stream.

One real server process per test, driven by the pipelining raw client so requests
truly overlap (nothing waits for an answer before the next message goes out). The
fake answers each document with a text derived from that document's prompt, so a
suggestion delivered to the wrong document would be caught.
"""

from __future__ import annotations

import asyncio
import random
import re
import time

import pytest

from benchmarks.soak import RawLsp
from tests.fake_deepseek import FakeDeepSeek, Reply

KEY = "sk-concurrency-key-0123456789"
DOCS = 24
_DOC_TAG = re.compile(r"doc_(\d+)_v =\s*\w*$")


def tagged_reply(req) -> Reply:
    """The answer names the document whose cursor line ends the prompt."""
    prompt = req.body.get("prompt", "")
    match = _DOC_TAG.search(prompt.rstrip(" ").splitlines()[-1] if prompt.strip() else "")
    tag = match.group(1) if match else "x"
    return Reply(text=f"answer_{tag}()", chunk_chars=3, chunk_delay_s=0.01)


@pytest.fixture
def fake():
    server = FakeDeepSeek(tagged_reply, latency_s=0.05).start()
    yield server
    server.stop()


async def start(fake, tmp_path, **completion) -> RawLsp:
    client = RawLsp({"baseUrl": fake.url, "apiKey": KEY,
                     "completion": {"debounceMs": 0, "timeoutMs": 8000, **completion}})
    await client.start()
    await client.initialize(tmp_path)
    return client


async def wait_idle(client: RawLsp, fake: FakeDeepSeek, timeout_s: float = 10.0) -> dict:
    """Poll flashls.debugStats until nothing is in flight."""
    deadline = time.monotonic() + timeout_s
    stats: dict = {}
    while time.monotonic() < deadline:
        stats = (await client.command("flashls.debugStats"))["result"]
        if stats["jobs"] == 0 and stats["generations"] == 0 and stats["inFlight"] == 0:
            return stats
        await asyncio.sleep(0.05)
    return stats


async def test_many_documents_with_overlapping_requests(fake, tmp_path):
    client = await start(fake, tmp_path)
    rng = random.Random(7)
    uris = [(tmp_path / f"m{i}.py").as_uri() for i in range(DOCS)]
    cols = {}
    for i, uri in enumerate(uris):
        line = f"doc_{i}_v = "
        client.open(uri, f"import os\n{line}\n")
        cols[uri] = len(line)
    versions = {uri: 1 for uri in uris}
    futures: list[tuple[str, int, asyncio.Future]] = []
    for round_ in range(8):  # every document asks, in random order, several times over
        for i in rng.sample(range(DOCS), DOCS):
            uri = uris[i]
            if rng.random() < 0.4:  # sometimes type a character first
                versions[uri] += 1
                client.change(uri, versions[uri], (1, cols[uri]), (1, cols[uri]), "q")
                cols[uri] += 1
            futures.append((uri, i, client.inline(uri, 1, cols[uri], invoked=True)))
    answers = await asyncio.wait_for(asyncio.gather(*(f for _, _, f in futures)), 60)
    assert all("error" not in a for a in answers), [a for a in answers if "error" in a][:3]
    wrong = []
    for (uri, i, _), answer in zip(futures, answers):
        for item in answer["result"]["items"]:
            if item["insertText"] != f"answer_{i}()":  # never another document's answer
                wrong.append((i, item["insertText"]))
    assert wrong == []
    delivered = sum(bool(a["result"]["items"]) for a in answers)
    assert delivered >= DOCS  # at least the newest request of every document got one
    stats = await wait_idle(client, fake)
    assert stats["jobs"] == 0 and stats["generations"] == 0 and stats["inFlight"] == 0
    assert stats["documents"] == DOCS
    assert fake.open_connections <= 8  # the keep-alive pool, not a socket per request
    assert await client.shutdown() == 0


async def test_cancel_storm_leaves_nothing_running(fake, tmp_path):
    """Requests on the "cancel" documents are cancelled right after they are sent, those
    on the "keep" documents never: every cancelled request is answered as cancelled
    (-32800) and its upstream stream, if one started, closed before its end; every kept
    one gets its answer."""
    fake.responder = lambda req: Reply(text="slow_answer()", chunk_chars=1, chunk_delay_s=0.05)
    client = await start(fake, tmp_path)
    cancel_uris = [(tmp_path / f"c{i}.py").as_uri() for i in range(6)]
    keep_uris = [(tmp_path / f"k{i}.py").as_uri() for i in range(3)]
    for i, uri in enumerate(cancel_uris):
        client.open(uri, f"cancel_{i}_v = \n")
    for i, uri in enumerate(keep_uris):
        client.open(uri, f"keep_{i}_v = \n")
    cancelled, kept = [], []
    for n in range(60):
        msg_id = 900_000 + n
        cancel = n % 4 != 3
        uri = cancel_uris[n % 6] if cancel else keep_uris[(n // 4) % 3]
        future = client.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 12},
            "context": {"triggerKind": 1}}, msg_id=msg_id)
        if cancel:
            client.notify("$/cancelRequest", {"id": msg_id})
            cancelled.append(future)
        else:
            kept.append(future)
        await asyncio.sleep(0.005)  # the pace of a typist, not a synchronisation
    answers = await asyncio.wait_for(asyncio.gather(*cancelled, *kept), 60)
    for answer in answers[:len(cancelled)]:
        assert answer.get("error", {}).get("code") == -32800, answer
    for answer in answers[len(cancelled):]:
        assert "result" in answer, answer
    assert any(a["result"]["items"] for a in answers[len(cancelled):])  # answers came
    stats = await wait_idle(client, fake)
    assert stats["jobs"] == 0 and stats["generations"] == 0 and stats["inFlight"] == 0
    for _ in range(100):  # every abandoned stream was closed on our side
        if all(r.aborted or r.completed for r in fake.completion_requests()):
            break
        await asyncio.sleep(0.05)
    upstream = fake.completion_requests()
    assert all(r.aborted or r.completed for r in upstream)
    for r in upstream:
        if "cancel_" in r.body.get("prompt", "").rstrip().splitlines()[-1]:
            assert r.aborted and not r.completed, r.body["prompt"][-40:]
    assert fake.open_connections <= 8
    assert await client.shutdown() == 0


async def test_shutdown_in_the_middle_of_streaming_is_prompt_and_clean(fake, tmp_path):
    fake.responder = lambda req: Reply(text="x" * 200, chunk_chars=1, chunk_delay_s=0.2)
    client = await start(fake, tmp_path, timeoutMs=60000)
    uris = [(tmp_path / f"s{i}.py").as_uri() for i in range(4)]
    streams = []
    for i, uri in enumerate(uris):
        client.open(uri, f"doc_{i}_v = \n")
        streams.append(client.inline(uri, 0, 10, invoked=True))
    await asyncio.to_thread(fake.wait_for_requests, len(uris))  # all four are streaming
    assert not any(r.completed for r in fake.completion_requests())  # (40 s to go)
    code = await client.shutdown(timeout_s=20)
    assert code == 0  # exited by itself (None: it had to be killed), with success
    for _ in range(100):
        if all(r.aborted for r in fake.completion_requests()):
            break
        await asyncio.sleep(0.05)
    assert all(r.aborted and not r.completed for r in fake.completion_requests())
    for future in streams:  # each request was answered or failed with the connection
        assert future.done()
    assert fake.open_connections == 0


async def test_exit_without_shutdown_and_closed_stdin_end_the_process(fake, tmp_path):
    fake.responder = lambda req: Reply(text="y" * 100, chunk_chars=1, chunk_delay_s=0.2)
    client = await start(fake, tmp_path, timeoutMs=60000)
    uri = (tmp_path / "e.py").as_uri()
    client.open(uri, "doc_0_v = \n")
    client.inline(uri, 0, 10, invoked=True)
    await asyncio.to_thread(fake.wait_for_requests, 1)
    client.proc.stdin.close()  # the editor died: stdin closes mid-stream
    code = await asyncio.wait_for(client.proc.wait(), 20)
    assert code == 0  # a clean end (a crash with a traceback exits 1)
    assert b"Traceback" not in client.stderr
    for _ in range(100):
        if fake.completion_requests()[0].aborted:
            break
        await asyncio.sleep(0.05)
    assert fake.completion_requests()[0].aborted
    await client.shutdown(timeout_s=5)


async def test_cancelled_streams_leave_no_unreclaimable_connection():
    """Editors cancel most completion requests. A cancellation that lands while httpcore
    is setting up a connection left that connection in the pool forever, never reused
    and never closed (encode/httpcore#1093): sockets pile up over a long session until
    the pool is exhausted. Bursts of requests cancelled at random moments must leave
    only reusable connections behind."""
    import httpx

    from flashls.model.deepseek import DeepSeekClient
    from flashls.model.types import FimRequest

    fake = FakeDeepSeek(lambda req: Reply(text="abc", chunk_chars=1), latency_s=0.03).start()
    model = DeepSeekClient(fake.url, KEY)
    rng = random.Random(11)
    try:
        for _ in range(40):
            tasks = [asyncio.ensure_future(model.generate(
                FimRequest("deepseek-flash", "p" * 50, "s", 16), timeout_s=5))
                for _ in range(40)]
            await asyncio.sleep(rng.uniform(0, 0.06))
            for task in tasks:
                if rng.random() < 0.7:
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        pool = model._client._transport._pool  # httpx internals: the only way to look

        def stuck() -> list:
            return [c for c in pool.connections if not (c.is_idle() or c.is_closed())]

        for _ in range(500):  # abandoned sends settle (within the adapter's grace period)
            if not stuck() and fake.open_connections <= 8:
                break
            await asyncio.sleep(0.02)
        assert stuck() == [], [repr(c) for c in stuck()]
        assert fake.open_connections <= 8
        result = await model.generate(FimRequest("deepseek-flash", "p", "s", 16), timeout_s=5)
        assert result.text == "abc"
    finally:
        await model.aclose()
        fake.stop()


def test_soak_quick_leaks_nothing():
    """The soak benchmark in miniature (benchmarks/soak.py --quick): minutes of typing
    across files end with nothing in flight, no extra task, socket or cache growth past
    its bounds, and a clean exit. (RSS is reported by the benchmark, not asserted.)"""
    from benchmarks.soak import run

    result = run(quick=True)
    assert result["exit_code"] == 0
    assert result["errors"] == 0, result["error_samples"]
    assert result["keystrokes"] >= 150 and result["upstream"] > 0  # typed on until 150
    idle = result["idle"]
    assert idle["jobs"] == 0 and idle["generations"] == 0
    assert idle["tasks"] <= 2
    assert idle["protocol_pending"] <= 1  # only the debugStats request being answered
    assert idle["connections"] <= 8 and idle["sockets"] <= 8 + 2  # + asyncio's self-pipe
    assert result["max_cache_entries"] <= 2048
