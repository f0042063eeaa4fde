"""The request is built a little before the debounce wait ends, so it leaves when the
wait does. On a loaded machine the sleep before the build wakes late; that lateness
is part of the lead, or the build runs past the end of the wait (the typing tail of
`benchmarks.bigfiles` on the 15,000-line file)."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest

from flashls.completion.service import CompletionEngine, prepare_lead_ms
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.model.deepseek import DeepSeekClient
from flashls.settings import Settings
from tests.fake_deepseek import FakeDeepSeek, Reply

URI = "file:///w/app.py"


def test_the_lead_covers_the_slow_builds_and_the_late_wakes():
    assert prepare_lead_ms(4.0, []) == 6.0  # the usual build, half again
    assert prepare_lead_ms(4.0, [3.0, 9.0, 40.0]) == 9.0 * 1.25  # one outlier aside
    assert prepare_lead_ms(4.0, [], [1.0, 7.0]) == 6.0 + 1.0
    assert prepare_lead_ms(4.0, [], [0.5, 6.0, 7.0, 30.0]) == 6.0 + 7.0


@pytest.fixture
def fake():
    with FakeDeepSeek(lambda req: Reply(text="total(items)")) as server:
        yield server


async def test_a_late_wake_makes_the_next_lead_longer(fake):
    settings = dataclasses.replace(Settings(), completion=dataclasses.replace(
        Settings().completion, debounce_ms=60))
    docs = {URI: ParsedDocument.open(Document(URI, "def f(items):\n    return \n",
                                              "python", 1))}
    engine = CompletionEngine(DeepSeekClient(fake.url, "sk-test"), settings=lambda: settings,
                              documents=docs)
    try:
        offset = len("def f(items):\n    return ")
        await engine.complete(URI, offset)
        quiet = engine._prepare_lead_ms()
        for typed in (1, 2):  # the loop is held 120 ms during two waits (a busy machine)
            asyncio.get_running_loop().call_later(0.005, time.sleep, 0.12)
            docs[URI].apply_change((1, 10 + typed), (1, 10 + typed), " ")
            engine.note_edit(URI)
            await engine.complete(URI, offset + typed)
        assert engine._prepare_lead_ms() >= quiet + 50  # woke >= 60 ms late, twice
        # the held loop made both builds end after their wait (counted, not timed)
        assert engine.stats.debounced_builds == 3 and engine.stats.spilled_builds >= 2
    finally:
        await engine.model.aclose()
