"""Upstream faults, in process: the real engine, the real httpx adapter, the fake API.

For every fault: `complete()` returns (bounded by `completion.timeoutMs`) with no
suggestion, back-off is applied where it is due (and while it lasts no request goes
out), the next request after recovery succeeds, and nothing is left running: no task,
no socket beyond one idle keep-alive connection.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from pathlib import Path

import pytest

from flashls.completion.factory import build_engine
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.model.deepseek import DeepSeekClient
from flashls.settings import CompletionSettings, Settings
from tests.fake_deepseek import FakeDeepSeek, Reply

TIMEOUT_MS = 1500
SLACK_S = 10.0  # generous: a noisy machine must not fail the test, a hang must
LONG_TEXT = "value = compute(alpha, beta) + 1  # and more text " * 4


@dataclass(frozen=True)
class Fault:
    name: str
    reply: Reply
    after: str  # "blocked" (until settings change) | "backoff" | "open" | "transient"


FAULTS = [
    Fault("400", Reply(status=400), "backoff"),
    Fault("401", Reply(status=401), "blocked"),
    Fault("402", Reply(status=402, error_body='{"error":{"message":"Insufficient Balance"}}'),
          "blocked"),
    Fault("422", Reply(status=422), "backoff"),
    Fault("429+retry-after", Reply(status=429, headers={"Retry-After": "7"}), "backoff"),
    Fault("429", Reply(status=429), "backoff"),
    Fault("500", Reply(status=500), "backoff"),
    Fault("503", Reply(status=503), "backoff"),
    Fault("hang-after-first-token", Reply(text=LONG_TEXT, fault="hang_after_first"),
          "transient"),
    Fault("never-answers", Reply(fault="never_answer"), "transient"),
    Fault("reset-mid-stream", Reply(text=LONG_TEXT, fault="reset_mid_stream"), "transient"),
    Fault("malformed-sse", Reply(text="x", fault="malformed"), "transient"),
    Fault("empty-answer", Reply(text=""), "open"),
    Fault("100kb-answer", Reply(text="y" * 100_000, chunk_chars=512), "transient"),
]


class Clock:
    """The gate's clock, moved by the test instead of by waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Harness:
    def __init__(self, fake: FakeDeepSeek, tmp_path: Path):
        self.fake = fake
        self.settings = Settings(base_url=fake.url, api_key="sk-fault-key-000111",
                                 completion=CompletionSettings(debounce_ms=0,
                                                               timeout_ms=TIMEOUT_MS))
        text = "def main():\n    result = \n"
        self.uri = (tmp_path / "main.py").as_uri()
        self.documents = {self.uri: ParsedDocument.open(
            Document(self.uri, text, "python", 1, "utf-16"), self.uri)}
        self.offset = text.index("= ") + 2
        self.model = DeepSeekClient(fake.url, self.settings.api_key)
        self.engine = build_engine(self.model, settings=lambda: self.settings,
                                   documents=self.documents, roots=lambda: [tmp_path])
        self.clock = Clock()
        self.engine.gate.clock = self.clock

    async def complete(self, nudge: str = ""):
        """One editor request; `nudge` makes the text differ so no cache can answer."""
        if nudge:
            pdoc = self.documents[self.uri]
            line, col = pdoc.doc.position_at(self.offset)
            pdoc.apply_change((line, col), (line, col), nudge)
            self.offset += len(nudge)
        return await asyncio.wait_for(
            self.engine.complete(self.uri, self.offset, immediate=True),
            TIMEOUT_MS / 1000 + SLACK_S)


async def settle(predicate, timeout_s: float = 5.0) -> bool:
    for _ in range(int(timeout_s / 0.02)):
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return predicate()


def running_tasks() -> set[asyncio.Task]:
    me = asyncio.current_task()
    return {t for t in asyncio.all_tasks() if t is not me and not t.done()}


@pytest.fixture
def fake():
    server = FakeDeepSeek().start()
    yield server
    server.stop()


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
async def test_fault_returns_nothing_backs_off_and_recovers(fault, fake, tmp_path):
    h = Harness(fake, tmp_path)
    fake.responder = lambda req: fault.reply

    # 1. the faulty answer: the request returns, with nothing to show
    outcome = await h.complete()
    assert len(fake.completion_requests()) == 1
    assert outcome.suggestions == []  # a 100 KB answer for 64 tokens is garbage too

    # 2. while the gate is closed or backing off, nothing goes upstream
    if fault.after in ("blocked", "backoff"):
        assert h.engine.gate.closed_reason()
        for i in range(3):
            assert (await h.complete(nudge=str(i))).suggestions == []
        assert len(fake.completion_requests()) == 1
    if fault.name == "429+retry-after":  # Retry-After: 7 is honoured, not guessed
        h.clock.now += 6
        assert h.engine.gate.closed_reason()
        assert (await h.complete(nudge="r")).suggestions == []
        assert len(fake.completion_requests()) == 1

    # 3. recovery: the API is healthy again; the user fixed the key or time passed
    fake.responder = lambda req: Reply(text="recovered()")
    if fault.after == "blocked":
        h.clock.now += 3600  # time alone does not reopen a bad key or an empty balance
        assert h.engine.gate.closed_reason()
        h.engine.gate.reset()  # what a settings change does (Session.update_settings)
    else:
        h.clock.now += 120
    before = len(fake.completion_requests())
    outcome = await h.complete(nudge="z")
    assert [s.text for s in outcome.suggestions] == ["recovered()"]
    assert len(fake.completion_requests()) == before + 1
    assert h.engine.gate.closed_reason() is None

    # 4. nothing left behind: no task, at most one idle keep-alive socket
    assert await settle(lambda: not running_tasks()), running_tasks()
    assert await settle(lambda: fake.open_connections <= 1), fake.open_connections
    await h.model.aclose()
    assert await settle(lambda: fake.open_connections == 0), fake.open_connections


@pytest.mark.parametrize("fault", [f for f in FAULTS if f.after == "transient"],
                         ids=[f.name for f in FAULTS if f.after == "transient"])
async def test_repeated_transient_faults_back_off_and_leak_nothing(fault, fake, tmp_path):
    """One broken stream is no reason to pause; a run of them is: the second failure in a
    row opens a back-off window (the gate's clock is the test's, so it cannot expire
    between keystrokes) and the third keystroke sends nothing."""
    h = Harness(fake, tmp_path)
    fake.responder = lambda req: fault.reply
    assert (await h.complete(nudge="0")).suggestions == []
    assert h.engine.gate.closed_reason() is None  # one failure: no pause
    assert (await h.complete(nudge="1")).suggestions == []
    assert h.engine.gate.closed_reason()  # two in a row: backing off
    assert (await h.complete(nudge="2")).suggestions == []
    assert len(fake.completion_requests()) == 2  # the third was held back
    # every faulty stream was closed on our side, none lingers
    assert await settle(lambda: fake.open_connections <= 1), fake.open_connections
    assert await settle(lambda: not running_tasks()), running_tasks()
    await h.model.aclose()
    assert await settle(lambda: fake.open_connections == 0)


async def test_timeout_bounds_the_request_even_when_the_api_never_answers(fake, tmp_path):
    """The editor's request ends at `completion.timeoutMs`, the stream is closed."""
    h = Harness(fake, tmp_path)
    h.settings = dataclasses.replace(
        h.settings, completion=dataclasses.replace(h.settings.completion, timeout_ms=300))
    fake.responder = lambda req: Reply(fault="never_answer")
    outcome = await h.complete()  # bounded by asyncio.wait_for: a hang fails the test
    assert outcome.suggestions == [] and outcome.reason == "timed out"
    assert await settle(lambda: fake.completion_requests()[0].aborted)
    await h.model.aclose()
