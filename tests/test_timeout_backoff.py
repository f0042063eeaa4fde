"""An API that never answers is backed off like any other failing API.

The editor-level timeout ends the request; the gate must learn of it, or every
keystroke waits the whole `completion.timeoutMs` for an API that is not answering.
"""

from __future__ import annotations

import dataclasses

from flashls.completion.service import CompletionEngine
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.model.deepseek import DeepSeekClient
from flashls.settings import Settings
from tests.fake_deepseek import FakeDeepSeek, Reply

URI = "file:///w/t.py"


async def test_repeated_timeouts_back_off():
    with FakeDeepSeek(lambda req: Reply(fault="never_answer")) as fake:
        client = DeepSeekClient(fake.url, "sk-test")
        base = Settings()
        settings = dataclasses.replace(base, completion=dataclasses.replace(
            base.completion, debounce_ms=0, timeout_ms=300))
        docs = {URI: ParsedDocument.open(Document(URI, "x = \n", "python", 1))}
        engine = CompletionEngine(client, settings=lambda: settings, documents=docs)
        try:
            for i in range(4):
                pdoc = docs[URI]
                pdoc.apply_change((0, 4 + i), (0, 4 + i), str(i))  # no cache can answer
                outcome = await engine.complete(URI, 5 + i)
                assert outcome.suggestions == []
            assert engine.gate.closed_reason() is not None
            assert len(fake.completion_requests()) == 2  # the rest were held back
        finally:
            await client.aclose()
