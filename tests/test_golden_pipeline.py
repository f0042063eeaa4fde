"""Every golden case through the whole completion pipeline, against the fake model.

The engine is built exactly as the server builds it (context engine, shape decision,
post-processing and validation); the fake DeepSeek answers the case's raw text over
real HTTP/SSE. The suggestion and its range must be the golden ones.
"""

from __future__ import annotations

import dataclasses

import pytest

from flashls.completion.factory import build_engine
from flashls.model.deepseek import DeepSeekClient
from flashls.settings import Settings
from tests.fake_deepseek import FakeDeepSeek, Reply

from .golden import GoldenCase, load_golden_cases

CASES = load_golden_cases()


@pytest.fixture(scope="module")
def fake():
    with FakeDeepSeek() as server:
        yield server


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_golden_case_through_the_engine(case: GoldenCase, fake, tmp_path):
    fake.responder = lambda req: Reply(text=case.raw)
    base = Settings()
    settings = dataclasses.replace(base, completion=dataclasses.replace(
        base.completion, multiline=case.setting, debounce_ms=0, max_tokens=case.max_tokens))
    client = DeepSeekClient(fake.url, "sk-golden")
    pdoc = case.pdoc()
    docs = {case.uri: pdoc}
    engine = build_engine(client, settings=lambda: settings, documents=docs,
                          roots=lambda: [tmp_path])
    try:
        outcome = await engine.complete(case.uri, case.offset)
    finally:
        await client.aclose()
    if case.expected is None:
        assert outcome.suggestions == [], outcome
        return
    assert [s.text for s in outcome.suggestions] == [case.expected], outcome.reason
    suggestion = outcome.suggestions[0]
    assert (suggestion.start, suggestion.end) == (case.offset, case.replace_end)
